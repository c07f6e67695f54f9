from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from leaderboard import public_names
from leaderboard.models import NameDecision


class Command(BaseCommand):
    help = (
        "An operator's allow and deny lists for published names (models, efforts, providers, harnesses, "
        "versions): allow shows a name at once, deny hides it for good, forget leaves it to the rule again. "
        "The next recompute and export apply them (one is queued)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=["allow", "deny", "forget", "list"])
        parser.add_argument("names", nargs="*", help="names, as stored (lowercase)")

    def handle(self, *args: Any, **options: Any) -> None:
        action, names = options["action"], [name.strip().lower() for name in options["names"]]
        if action == "list":
            for decision in NameDecision.objects.all():
                self.stdout.write(f"{'allow' if decision.shown else 'deny'}\t{decision.name}")
            return
        if not names or any(not name for name in names):
            raise CommandError(f"{action} needs one or more names.")
        for name in names:
            if action == "forget":
                found = public_names.forget(name=name)
                self.stdout.write(f"forgot {name}" if found else f"{name} had no decision")
            else:
                decision = public_names.decide(name=name, shown=action == "allow")
                self.stdout.write(f"{'allowed' if decision.shown else 'denied'} {name}")
