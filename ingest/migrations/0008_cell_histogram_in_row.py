# Each cell's latency histogram moves into the cell's own row, as two arrays (ingest.models.Cell): one
# statement keeps a cell and its histogram, with no second table to join, index and upsert per latency.
# In a contribution of cycles that are each their own cell, the triggers took 6.6 s per 100,000 rows
# beside 2.4 s for the COPY itself; most of it went to the per-latency table. The foreign key's own index
# goes too: the cell key's unique index starts with the contributor.
#
# The cells are summed afresh from the cycles, with the new statement, while the cycles table is locked
# against writes. SQLite (the embedded default) gets the columns only, as it got the tables.

import django.contrib.postgres.fields
import django.db.models.deletion
from django.db import migrations, models

# The trigger SQL, as this migration runs it (and as 0007 ran it, when undone), is named in ingest/cell_triggers.py.
from ingest.cell_triggers import (
    ADD_CELLS_0007,
    ADD_CELLS_0008,
    ADD_LATENCIES_0007,
    HISTOGRAM_SUM,
    STORED,
    TRIGGERS_0007,
    TRIGGERS_0008,
    UNTRIGGER_0007,
)


def sum_cells_afresh(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("LOCK TABLE ingest_cycle IN SHARE MODE")
    schema_editor.execute(UNTRIGGER_0007)
    schema_editor.execute("TRUNCATE ingest_cell")
    schema_editor.execute(HISTOGRAM_SUM)
    schema_editor.execute(ADD_CELLS_0008.replace("{source}", STORED))
    schema_editor.execute(TRIGGERS_0008)


def sum_cells_as_before(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("LOCK TABLE ingest_cycle IN SHARE MODE")
    schema_editor.execute(UNTRIGGER_0007)
    schema_editor.execute("DROP FUNCTION ingest_cell_histogram_sum(float8[], bigint[])")
    schema_editor.execute("TRUNCATE ingest_cell, ingest_cell_latency")
    schema_editor.execute(ADD_CELLS_0007.replace("{source}", STORED))
    schema_editor.execute(ADD_LATENCIES_0007.replace("{source}", STORED))
    schema_editor.execute(TRIGGERS_0007)


# Plain DDL that both databases read: NOT NULL needs a default on SQLite, and an empty histogram is one.
ADD_COLUMNS = [
    "ALTER TABLE ingest_cell ADD COLUMN latencies double precision[] NOT NULL DEFAULT '{}'",
    "ALTER TABLE ingest_cell ADD COLUMN latency_weights bigint[] NOT NULL DEFAULT '{}'",
]
DROP_COLUMNS = [
    "ALTER TABLE ingest_cell DROP COLUMN latency_weights",
    "ALTER TABLE ingest_cell DROP COLUMN latencies",
]


class Migration(migrations.Migration):

    dependencies = [
        ('ingest', '0007_cells'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(ADD_COLUMNS, DROP_COLUMNS)],
            state_operations=[
                migrations.AddField(
                    model_name='cell',
                    name='latencies',
                    field=django.contrib.postgres.fields.ArrayField(base_field=models.FloatField(), size=None),
                    preserve_default=False,
                ),
                migrations.AddField(
                    model_name='cell',
                    name='latency_weights',
                    field=django.contrib.postgres.fields.ArrayField(base_field=models.BigIntegerField(), size=None),
                    preserve_default=False,
                ),
            ],
        ),
        migrations.RunPython(sum_cells_afresh, sum_cells_as_before),
        migrations.DeleteModel(
            name='CellLatency',
        ),
        migrations.AlterField(
            model_name='cell',
            name='contributor',
            field=models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='ingest.contributor'),
        ),
    ]
