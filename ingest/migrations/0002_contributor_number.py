"""Contributor.number: dense pseudonym numbers, c1, c2, ... in order of first contribution."""

from typing import Any

from django.db import migrations, models


def number_contributors_with_cycles(apps: Any, schema_editor: Any) -> None:
    # Until now ids stood for first contribution; keep that order, without the gaps.
    contributor = apps.get_model("ingest", "Contributor")
    ids = contributor.objects.filter(cycles__isnull=False).distinct().order_by("id").values_list("id", flat=True)
    for number, pk in enumerate(list(ids), start=1):
        contributor.objects.filter(id=pk).update(number=number)


class Migration(migrations.Migration):
    dependencies = [
        ("ingest", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="contributor",
            name="number",
            field=models.PositiveIntegerField(blank=True, null=True, unique=True),
        ),
        migrations.RunPython(number_contributors_with_cycles, migrations.RunPython.noop),
    ]
