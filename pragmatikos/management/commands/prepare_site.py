from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.core.management import call_command
from django.core.management.base import BaseCommand

from core.folder_cache import FolderCache
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
        forget_cache_of_another_database()
        call_command("load_demo", if_empty=True)
        self.stdout.write("==> Lab results")
        for path, fmt in LAB_SOURCES:
            call_command("import_lab", Path(settings.BASE_DIR) / path, fmt=fmt)
        # The static files are served from the apps' folders until collectstatic fills this one.
        Path(settings.STATIC_ROOT).mkdir(parents=True, exist_ok=True)


def forget_cache_of_another_database() -> None:
    """Empty the cache folder when the database holds no snapshot: what it holds was computed from another
    database, under snapshot ids this one will reuse. Never Redis: it also holds the broker's queue and the
    recompute's lock and owed flag."""
    folder = caches["default"]
    if newest_snapshot_id() is None and isinstance(folder, FolderCache):
        folder.clear()
