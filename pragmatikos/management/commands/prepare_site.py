from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.core.management import call_command
from django.core.management.base import BaseCommand

from leaderboard.published import newest_snapshot_id

# The lab's published runs the site shows, as `make run` imports them (importing one again changes nothing).
LAB_SOURCES = (
    ("lab/data/akita", "akita"),
    ("lab/data/aider_runs.jsonl", "aider"),
    ("lab/data/swebench_pro_runs.jsonl", "swebench-pro"),
)


class Command(BaseCommand):
    help = (
        "Make a checkout ready to serve, in one process: the tables, the demo pool while the database holds "
        "no cycles, and the lab's published runs."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write("==> Database tables")
        call_command("migrate", interactive=False, verbosity=0)
        self.stdout.write("==> Demo data (3,000 cycles, scored once)")
        if newest_snapshot_id() is None:
            # A new database: what the cache holds (a folder without Redis) was computed from another one,
            # under snapshot ids this one will reuse.
            cache.clear()
        call_command("load_demo", if_empty=True)
        self.stdout.write("==> Lab results")
        for path, fmt in LAB_SOURCES:
            call_command("import_lab", Path(settings.BASE_DIR) / path, fmt=fmt)
        # The static files are served from the apps' folders until collectstatic fills this one.
        Path(settings.STATIC_ROOT).mkdir(parents=True, exist_ok=True)
