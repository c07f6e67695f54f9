from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from lab.aliases import STARTER_ALIASES
from lab.models import ModelAlias
from lab.names import normalise_model
from lab.services import add_alias, remove_alias


class Command(BaseCommand):
    help = "Map a lab's model name to the field's canonical name: add NAME CANONICAL, remove NAME, or list."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        add = actions.add_parser("add", help="add or change an alias")
        add.add_argument("name")
        add.add_argument("canonical")
        remove = actions.add_parser("remove", help="remove an alias")
        remove.add_argument("name")
        actions.add_parser("list", help="list the aliases")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["action"] == "add":
            try:
                alias = add_alias(name=options["name"], canonical=options["canonical"])
            except ValueError as error:
                raise CommandError(str(error)) from error
            self.stdout.write(f"{alias.name} → {alias.canonical}")
        elif options["action"] == "remove":
            if not remove_alias(name=options["name"]):
                if normalise_model(options["name"]) in STARTER_ALIASES:
                    raise CommandError(f"{options['name']!r} is a starter alias: `add` one of your own to change it.")
                raise CommandError(f"No alias for {options['name']!r}.")
            self.stdout.write(f"Removed the alias for {options['name']}.")
        else:
            operator = dict(ModelAlias.objects.order_by("name").values_list("name", "canonical"))
            for name, canonical in operator.items():
                self.stdout.write(f"{name} → {canonical}")
            for name, starter in STARTER_ALIASES.items():
                if name not in operator:
                    self.stdout.write(f"{name} → {starter.canonical} (starter: {starter.why})")
