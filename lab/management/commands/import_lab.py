from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from lab.importers import FORMATS, LabInputError, parse
from lab.services import import_source


class Command(BaseCommand):
    help = (
        "Import published benchmark runs into the lab, all-or-nothing per file; importing the same file again "
        "changes nothing. Formats: akita (the benchmark's folder), aider (leaderboard YAML file or folder, or its "
        "JSON Lines copy), swebench-pro (JSON Lines), runs (the open runs format, one JSON object per line)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path)
        parser.add_argument("--format", required=True, choices=FORMATS, dest="fmt")
        parser.add_argument("--source", help="the source's name (default: the format's; for runs, the file name)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            parsed = parse(options["path"], options["fmt"], source=options["source"])
            result = import_source(parsed=parsed)
        except LabInputError as error:
            raise CommandError(f"Nothing imported. {error}") from error
        self.stdout.write(
            f"{result.source}: {result.created} runs added, {result.updated} updated, {result.unchanged} unchanged."
        )
