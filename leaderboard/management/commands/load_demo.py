from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from ingest.models import Cycle
from leaderboard import demo


class Command(BaseCommand):
    help = "Store a generated demo pool and publish a snapshot of it, marked demo data on every page."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--if-empty", action="store_true", help="do nothing when any cycle is stored already")
        parser.add_argument("--cycles", type=int, default=demo.DEFAULT_CYCLES, help="about how many cycles to make")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["if_empty"] and Cycle.objects.exists():
            self.stdout.write("Cycles are stored already; no demo data loaded.")
            return
        snapshot_id = demo.load_demo(count=options["cycles"])
        self.stdout.write(f"Loaded the demo pool and published snapshot {snapshot_id} (demo data).")
