"""The one mapping from the contract's positional columns to stored field names.

Pure Python: the validator, the models, the exports and the scorer all read it.
"""

from typing import Final

# contract column -> stored field, in schema-3 order (cycle-record.md, "Columns").
CONTRACT_TO_FIELD: Final[dict[str, str]] = {
    "cycle_key": "cycle_key",
    "day": "day",
    "model": "model",
    "prov": "provider",
    "role": "role",
    "pm": "planner_model",
    "pp": "planner_provider",
    "bm": "builder_model",
    "bp": "builder_provider",
    "u": "human_turns",
    "a": "assistant_steps",
    "tedits": "edits",
    "tpaths": "edit_paths",
    "teerr": "edit_errors",
    "tcost": "cost_usd",
    "tship": "shipped",
    "thrs": "active_hours",
    "tver": "verified",
    "tabort": "intervened",
    "latmed": "step_seconds_median",
    "tshipe": "ship_status",
    "variant": "effort",
    "pv": "planner_effort",
    "bv": "builder_effort",
    "harness": "harness",
    "hversion": "harness_version",
}
FIELD_TO_CONTRACT: Final[dict[str, str]] = {v: k for k, v in CONTRACT_TO_FIELD.items()}

SCHEMA_1_COLUMNS: Final[tuple[str, ...]] = (
    "cycle_key",
    "day",
    "model",
    "prov",
    "role",
    "pm",
    "pp",
    "bm",
    "bp",
    "u",
    "a",
    "tedits",
    "tpaths",
    "teerr",
    "tcost",
    "tship",
    "thrs",
    "tver",
    "tabort",
    "latmed",
)
SCHEMA_2_COLUMNS: Final[tuple[str, ...]] = (*SCHEMA_1_COLUMNS, "tshipe")
SCHEMA_3_COLUMNS: Final[tuple[str, ...]] = (*SCHEMA_2_COLUMNS, "variant", "pv", "bv", "harness", "hversion")
COLUMNS_BY_SCHEMA: Final[dict[int, tuple[str, ...]]] = {1: SCHEMA_1_COLUMNS, 2: SCHEMA_2_COLUMNS, 3: SCHEMA_3_COLUMNS}

# What an older schema's missing columns are stored as.
DEFAULTS_FOR_MISSING: Final[dict[str, object]] = {
    "tshipe": 0,
    "variant": "",
    "pv": "",
    "bv": "",
    "harness": "opencode",
    "hversion": "",
}

# The facts of a cycle, as stored: everything but its identity.
FACT_FIELDS: Final[tuple[str, ...]] = tuple(CONTRACT_TO_FIELD[c] for c in SCHEMA_3_COLUMNS if c != "cycle_key")
