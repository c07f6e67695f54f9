"""The SQL by which PostgreSQL keeps the cells (ingest.models.Cell): statement-level triggers on ingest_cycle add
each inserted, updated or deleted cycle's share (+1 or -1) in the statement that changed it, then drop what no cycle
is left in. The migrations that install them (ingest/migrations/0007_cells.py, 0008_cell_histogram_in_row.py) run
these texts; so does a summing of every stored cycle (STORED as the source) when they are installed.

Each text is named by the migration that installs it: what an applied migration ran must never change, so a change
to the triggers is a new migration with new texts here beside the old ones. Plain strings only (no Django), so a
migration imports them as they are. SQLite (the embedded default) has no triggers: it sums cells when it scores.
"""

# ---------------------------------------------------------------- shared by every version

KEY = (
    "contributor_id, day, harness, model, effort, planner_model, planner_effort, builder_model, builder_effort, judged"
)
SHIPPED = "shipped = 1"
# Each sum of scoring spec A2 and each tally, as (column, per-cycle value, the cycles it counts).
PER_CYCLE = (
    ("hjudged", "1", "true"),
    ("hshipJudged", "1", "ship_status = 0"),
    ("hshipped", "1", SHIPPED),
    ("hshippedCosted", "1", f"{SHIPPED} AND cost_usd > 0"),
    ("huShip", "human_turns", SHIPPED),
    ("hhrsShip", "active_hours::numeric(40, 20)", SHIPPED),
    ("hcostShip", "cost_usd::numeric(40, 20)", SHIPPED),
    ("hone", "1", f"{SHIPPED} AND (human_turns = 1 OR (planner_model <> '' AND human_turns <= 2))"),
    ("hedits", "edits", "true"),
    ("hteerr", "edit_errors", "true"),
    ("hver", "1", "verified = 1"),
    ("habort", "1", "intervened = 1"),
    ("hu", "human_turns", "true"),
    ("pending", "1", "ship_status = 1"),
    ("unshippable", "1", "ship_status = 2"),
    ("shipJudgedShipped", "1", f"ship_status = 0 AND {SHIPPED}"),
)
# {source}: the changed cycles, each with its sign.
DELTA = """
    WITH delta AS ({source}),
    keyed AS (SELECT *, (assistant_steps > 0 AND edits > 0 AND edit_paths = 1) AS judged FROM delta)
"""
# Every stored cycle as a source: the cells summed afresh, once, while the cycles table is locked against writes.
STORED = "SELECT 1 AS sign, * FROM ingest_cycle"


# ---------------------------------------------------------------- 0007: cells, and latencies in a table of their own

ADD_CELLS_0007 = (
    DELTA
    + f"""
    INSERT INTO ingest_cell ({KEY}, {", ".join(f'"{name}"' for name, _, _ in PER_CYCLE)})
    SELECT {KEY}, {", ".join(f"coalesce(sum(sign * {value}) FILTER (WHERE {rule}), 0)" for _, value, rule in PER_CYCLE)}
    FROM keyed GROUP BY {KEY}
    ON CONFLICT ({KEY}) DO UPDATE SET
    {", ".join(f'"{name}" = ingest_cell."{name}" + excluded."{name}"' for name, _, _ in PER_CYCLE)}
"""
)
ADD_LATENCIES_0007 = (
    DELTA
    + f"""
    INSERT INTO ingest_cell_latency (cell_id, latency, weight)
    SELECT cell.id, keyed.step_seconds_median, sum(keyed.sign * keyed.assistant_steps)
    FROM keyed JOIN ingest_cell AS cell USING ({KEY})
    WHERE keyed.judged AND keyed.step_seconds_median >= 0
    GROUP BY cell.id, keyed.step_seconds_median
    ON CONFLICT (cell_id, latency) DO UPDATE SET weight = ingest_cell_latency.weight + excluded.weight
"""
)
# The statement triggers that apply a change of cycles to the cells: the same in every version of the function.
CREATE_TRIGGERS = """CREATE TRIGGER ingest_cell_insert AFTER INSERT ON ingest_cycle
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION ingest_cell_apply();
CREATE TRIGGER ingest_cell_update AFTER UPDATE ON ingest_cycle
    REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION ingest_cell_apply();
CREATE TRIGGER ingest_cell_delete AFTER DELETE ON ingest_cycle
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION ingest_cell_apply();
"""
DROP_EMPTIED_0007 = """
    DELETE FROM ingest_cell_latency WHERE weight = 0;
    DELETE FROM ingest_cell WHERE hjudged = 0;
"""
TRIGGERS_0007 = f"""
-- Memory enough to hash a large contribution's cells rather than sort them on disk. No order is needed against
-- deadlocks: a cell holds one contributor's cycles, and one install's writes take turns (ingest.services).
CREATE FUNCTION ingest_cell_apply() RETURNS trigger LANGUAGE plpgsql SET work_mem = '64MB' AS $function$
DECLARE
    source text := CASE TG_OP
        WHEN 'INSERT' THEN 'SELECT 1 AS sign, * FROM added'
        WHEN 'DELETE' THEN 'SELECT -1 AS sign, * FROM removed'
        ELSE 'SELECT 1 AS sign, * FROM added UNION ALL SELECT -1 AS sign, * FROM removed'
    END;
BEGIN
    EXECUTE replace($apply${ADD_CELLS_0007}$apply$, '{{source}}', source);
    EXECUTE replace($apply${ADD_LATENCIES_0007}$apply$, '{{source}}', source);
    {DROP_EMPTIED_0007}
    RETURN NULL;
END
$function$;
{CREATE_TRIGGERS}"""
UNTRIGGER_0007 = """
DROP TRIGGER ingest_cell_insert ON ingest_cycle;
DROP TRIGGER ingest_cell_update ON ingest_cycle;
DROP TRIGGER ingest_cell_delete ON ingest_cycle;
DROP FUNCTION ingest_cell_apply();
"""


# ---------------------------------------------------------------- 0008: each cell's latency histogram in its row

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
ADD_CELLS_0008 = (
    DELTA
    + f"""
    INSERT INTO ingest_cell ({KEY}, {", ".join(f'"{name}"' for name, _, _ in PER_CYCLE)},
                             latencies, latency_weights)
    SELECT {KEY}, {", ".join(f"coalesce(sum(sign * {value}) FILTER (WHERE {rule}), 0)" for _, value, rule in PER_CYCLE)},
        coalesce(array_agg(step_seconds_median) FILTER (WHERE {IN_HISTOGRAM}), '{{}}'),
        coalesce(array_agg(sign::bigint * assistant_steps) FILTER (WHERE {IN_HISTOGRAM}), '{{}}')
    FROM keyed GROUP BY {KEY}
    ON CONFLICT ({KEY}) DO UPDATE SET
    {", ".join(f'"{name}" = ingest_cell."{name}" + excluded."{name}"' for name, _, _ in PER_CYCLE)},
    latencies = {MERGED.format(column="latencies")},
    latency_weights = {MERGED.format(column="latency_weights")}
"""
)
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
TRIGGERS_0008 = f"""
CREATE FUNCTION ingest_cell_apply() RETURNS trigger LANGUAGE plpgsql SET work_mem = '64MB' SET jit = off
AS $function$
DECLARE
    source text := CASE TG_OP
        WHEN 'INSERT' THEN 'SELECT 1 AS sign, * FROM added'
        WHEN 'DELETE' THEN 'SELECT -1 AS sign, * FROM removed'
        ELSE '{UPDATED}'
    END;
BEGIN
    EXECUTE replace($apply${ADD_CELLS_0008}$apply$, '{{source}}', source);
    DELETE FROM ingest_cell WHERE hjudged = 0;
    RETURN NULL;
END
$function$;
{CREATE_TRIGGERS}"""
