# Each cell's latency histogram moves into the cell's own row, as two arrays (ingest.models.Cell): one
# statement keeps a cell and its histogram, with no second table to join, index and upsert per latency.
# In a contribution of cycles that are each their own cell, the triggers took 6.6 s per 100,000 rows
# beside 2.4 s for the COPY itself; most of it went to the per-latency table. The foreign key's own index
# goes too: the cell key's unique index starts with the contributor.
#
# The cells are summed afresh from the cycles, with the new statement, while the cycles table is locked
# against writes. SQLite (the embedded default) gets the columns only, as it got the tables.

import importlib

import django.contrib.postgres.fields
import django.db.models.deletion
from django.db import migrations, models

previous = importlib.import_module("ingest.migrations.0007_cells")

KEY = previous.KEY
# Histogram entries: a judged cycle's steps at its latency, when it has one.
IN_HISTOGRAM = "judged AND step_seconds_median >= 0"
# Adding only cycles (every weight positive) appends; taking any away also sums each latency's weights and
# drops the ones left at zero. So a stored weight is always positive, and a latency may appear more than once.
MERGED = """CASE WHEN 0 < ALL(excluded.latency_weights) THEN ingest_cell.{column} || excluded.{column}
    ELSE (ingest_cell_histogram_sum(ingest_cell.latencies || excluded.latencies,
                                    ingest_cell.latency_weights || excluded.latency_weights)).{column} END"""
HISTOGRAM_SUM = """
CREATE FUNCTION ingest_cell_histogram_sum(latency float8[], weight bigint[], OUT latencies float8[],
                                          OUT latency_weights bigint[])
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(at), '{}'), coalesce(array_agg(steps), '{}')
    FROM (SELECT at, sum(w)::bigint AS steps FROM unnest(latency, weight) AS entry(at, w)
          GROUP BY at HAVING sum(w) <> 0) AS summed
$$;
"""
ADD_CELLS = previous.DELTA + f"""
    INSERT INTO ingest_cell ({KEY}, {", ".join(f'"{name}"' for name, _, _ in previous.PER_CYCLE)},
                             latencies, latency_weights)
    SELECT {KEY}, {", ".join(f"coalesce(sum(sign * {value}) FILTER (WHERE {rule}), 0)" for _, value, rule in previous.PER_CYCLE)},
        coalesce(array_agg(step_seconds_median) FILTER (WHERE {IN_HISTOGRAM}), '{{}}'),
        coalesce(array_agg(sign::bigint * assistant_steps) FILTER (WHERE {IN_HISTOGRAM}), '{{}}')
    FROM keyed GROUP BY {KEY}
    ON CONFLICT ({KEY}) DO UPDATE SET
    {", ".join(f'"{name}" = ingest_cell."{name}" + excluded."{name}"' for name, _, _ in previous.PER_CYCLE)},
    latencies = {MERGED.format(column="latencies")},
    latency_weights = {MERGED.format(column="latency_weights")}
"""
# What a cell reads of a cycle. A resend moves `generated` on for every stored copy whose facts are the same: an
# update that changes none of these leaves the cells alone rather than taking each cycle out and putting it back.
CELL_FACTS = (
    *(name for name in KEY.split(", ") if name != "judged"),
    *("human_turns", "assistant_steps", "edits", "edit_paths", "edit_errors", "cost_usd", "active_hours"),
    *("shipped", "ship_status", "verified", "intervened", "step_seconds_median"),
)
CHANGED = " OR ".join(f"added.{name} IS DISTINCT FROM removed.{name}" for name in CELL_FACTS)
UPDATED = (
    f"SELECT 1 AS sign, added.* FROM added JOIN removed USING (id) WHERE {CHANGED} "
    f"UNION ALL SELECT -1 AS sign, removed.* FROM removed JOIN added USING (id) WHERE {CHANGED}"
)
# No JIT: a transition table's rows are unknown to the planner, whose guess (millions) made it compile each
# statement, which took longer than running it (2 s for a 100,000-row resend).
TRIGGERS = f"""
CREATE FUNCTION ingest_cell_apply() RETURNS trigger LANGUAGE plpgsql SET work_mem = '64MB' SET jit = off
AS $function$
DECLARE
    source text := CASE TG_OP
        WHEN 'INSERT' THEN 'SELECT 1 AS sign, * FROM added'
        WHEN 'DELETE' THEN 'SELECT -1 AS sign, * FROM removed'
        ELSE '{UPDATED}'
    END;
BEGIN
    EXECUTE replace($apply${ADD_CELLS}$apply$, '{{source}}', source);
    DELETE FROM ingest_cell WHERE hjudged = 0;
    RETURN NULL;
END
$function$;
CREATE TRIGGER ingest_cell_insert AFTER INSERT ON ingest_cycle
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION ingest_cell_apply();
CREATE TRIGGER ingest_cell_update AFTER UPDATE ON ingest_cycle
    REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION ingest_cell_apply();
CREATE TRIGGER ingest_cell_delete AFTER DELETE ON ingest_cycle
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION ingest_cell_apply();
"""
STORED = "SELECT 1 AS sign, * FROM ingest_cycle"


def sum_cells_afresh(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("LOCK TABLE ingest_cycle IN SHARE MODE")
    schema_editor.execute(previous.UNTRIGGER)
    schema_editor.execute("TRUNCATE ingest_cell")
    schema_editor.execute(HISTOGRAM_SUM)
    schema_editor.execute(ADD_CELLS.replace("{source}", STORED))
    schema_editor.execute(TRIGGERS)


def sum_cells_as_before(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("LOCK TABLE ingest_cycle IN SHARE MODE")
    schema_editor.execute(previous.UNTRIGGER)
    schema_editor.execute("DROP FUNCTION ingest_cell_histogram_sum(float8[], bigint[])")
    schema_editor.execute("TRUNCATE ingest_cell, ingest_cell_latency")
    schema_editor.execute(previous.ADD_CELLS.replace("{source}", STORED))
    schema_editor.execute(previous.ADD_LATENCIES.replace("{source}", STORED))
    schema_editor.execute(previous.TRIGGERS)


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
