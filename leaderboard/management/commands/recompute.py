from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from leaderboard import recompute
from leaderboard.coordination import coordinator, exclusive


class Command(BaseCommand):
    help = "Recompute the rankings now and publish a snapshot (skipped when the pool is unchanged)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--force", action="store_true", help="publish even when the pool is unchanged")

    def handle(self, *args: Any, **options: Any) -> None:
        with exclusive(coordinator()) as holding:
            if not holding:
                self.stderr.write("Another recompute is running; it will publish the current pool.")
                return
            snapshot = recompute.publish(force=options["force"])
        if snapshot is None:
            self.stdout.write("The pool is unchanged since the last snapshot; nothing published.")
        else:
            self.stdout.write(
                f"Published snapshot {snapshot.id} ({snapshot.cycles} cycles) in {snapshot.compute_seconds:.1f} s."
            )
