# The names each contributor sent, by day, for the public-label rule's count of days (ingest.models.NameSighting).
# Cycles stored before hold only the day each was last received: that day is taken as a sighting of each of
# its names, so a name sent on several days before counts those days its rows still show. Names of retracted
# contributors are not recorded.

from typing import Any

import django.db.models.deletion
from django.db import migrations, models
from django.db.models.functions import TruncDate

NAME_FIELDS = (
    "model", "planner_model", "builder_model", "effort", "planner_effort", "builder_effort",
    "provider", "planner_provider", "builder_provider", "harness", "harness_version",
)  # fmt: skip


def record_stored_names(apps: Any, schema_editor: Any) -> None:
    alias = schema_editor.connection.alias
    cycles = apps.get_model("ingest", "Cycle").objects.using(alias).filter(contributor__retracted_at__isnull=True)
    sighting = apps.get_model("ingest", "NameSighting")
    for field in NAME_FIELDS:
        seen = cycles.exclude(**{field: ""}).annotate(seen_on=TruncDate("received_at"))
        found = seen.values_list("contributor_id", field, "seen_on").distinct()
        sighting.objects.using(alias).bulk_create(
            [sighting(contributor_id=who, name=name, day=day) for who, name, day in found.iterator()],
            ignore_conflicts=True,
            batch_size=5_000,
        )


class Migration(migrations.Migration):
    dependencies = [
        ("ingest", "0009_canonical_model_names"),
    ]

    operations = [
        migrations.CreateModel(
            name="NameSighting",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=64)),
                ("day", models.DateField()),
                (
                    "contributor",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="ingest.contributor"
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("contributor", "name", "day"), name="name_sighting_once_a_day")
                ],
            },
        ),
        migrations.RunPython(record_stored_names, migrations.RunPython.noop, elidable=True),
    ]
