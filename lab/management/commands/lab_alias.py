from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from lab.models import ModelAlias
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
                raise CommandError(f"No alias for {options['name']!r}.")
            self.stdout.write(f"Removed the alias for {options['name']}.")
        else:
            for alias in ModelAlias.objects.order_by("name"):
                self.stdout.write(f"{alias.name} → {alias.canonical}")
