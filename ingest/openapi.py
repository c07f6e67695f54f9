"""The contribution contract as JSON Schema, for the OpenAPI document (OpenAPI 3.1, JSON Schema 2020-12).

Built from ingest.columns and the regular expressions of ingest.contract, so the document cannot
drift from the checks: one source of truth. What JSON Schema cannot say (`generated` at most 5
minutes ahead, a day no later than tomorrow, the rules between columns, an install that has
retracted) is said in the descriptions.

A row that breaks a column rule is skipped, not refused (cycle-record.md), so a row is valid
against `anyOf` [a row as stored, any row of len(cols) scalars]: the first alternative documents
each column and is what a well-behaved client sends; the second is what the envelope accepts.
"""

from __future__ import annotations

import re
from typing import Any, Final

from django.conf import settings
from pragmatikos_contract import values

from ingest import contract, contract_rules
from ingest.columns import COLUMNS_BY_SCHEMA, CONTRACT_TO_FIELD

SCHEMA_REF_PREFIX: Final = "#/components/schemas/"


def _case_insensitive(pattern: str, *, dotall: bool = False) -> str:
    """The same regular expression matching either case of each ASCII letter (JSON Schema has no flags).

    The privacy checks run on the lowercased value; a pattern that matches either case of the raw
    value says the same thing. With `dotall`, `.` also matches line breaks, as Python's re.DOTALL.
    """
    out: list[str] = []
    index = 0
    in_class = False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            out.append(pattern[index : index + 2])
            index += 2
            continue
        if in_class:
            if char == "]":
                in_class = False
                out.append(char)
            elif pattern[index + 1 : index + 2] == "-" and pattern[index + 2 : index + 3] not in ("", "]"):
                last = pattern[index + 2]
                out.append(f"{char}-{last}")
                if char.islower() and last.islower():
                    out.append(f"{char.upper()}-{last.upper()}")
                index += 3
                continue
            else:
                out.append(char + char.upper() if char.isascii() and char.islower() else char)
        elif char == "[":
            in_class = True
            out.append(char)
            if pattern[index + 1 : index + 2] == "^":
                out.append("^")
                index += 1
        elif char.isascii() and char.islower():
            out.append(f"[{char}{char.upper()}]")
        elif char == "." and dotall:
            out.append(r"[\s\S]")
        else:
            out.append(char)
        index += 1
    return "".join(out)


def _ends_with(suffixes: tuple[str, ...]) -> str:
    return "(?:" + "|".join(re.escape(suffix) for suffix in suffixes) + ")$"


def _starts_with(prefixes: tuple[str, ...]) -> str:
    return "^(?:" + "|".join(re.escape(prefix) for prefix in prefixes) + ")"


def privacy_patterns() -> list[str]:
    """One pattern per privacy check of values.privacy_problem, in its order, matching the raw value."""
    # Escaped only where a class needs it: JSON Schema's regexes refuse needless escapes such as \\~.
    path_chars = "[" + "".join("\\" + c if c in "\\]^-" else c for c in sorted(values.PATH_OR_ADDRESS_CHARS)) + "]"
    found = [
        values.WHITESPACE_RE.pattern,
        path_chars,
        _ends_with(values.FILE_EXTENSIONS),
        f"^(?:{values.EMAIL_RE.pattern})$",
        values.IPV4_RE.pattern,
        values.MAC_RE.pattern,
        values.IPV6_RE.pattern,
        _ends_with(values.LOCAL_HOST_SUFFIXES),
        values.CARD_RE.pattern,
        values.UUID_RE.pattern,
        "localhost",
        _starts_with(values.ID_PREFIXES),
        values.HEX_RUN_RE.pattern,
        f"^(?:{values.SECRET_RE.pattern})",
    ]
    return [_case_insensitive(pattern, dotall=True) for pattern in found]


def _full(pattern: re.Pattern[str]) -> str:
    """A contract regex (used with fullmatch) as an anchored JSON Schema pattern."""
    return f"^(?:{pattern.pattern})$"


def _private_string(pattern: str, description: str) -> dict[str, Any]:
    """A string of `pattern` that none of the privacy checks refuses."""
    return {
        "type": "string",
        "pattern": pattern,
        "not": {"anyOf": [{"pattern": found} for found in privacy_patterns()]},
        "description": description,
    }


def _years_from(first: int) -> str:
    """A regex of the four-digit years `first` and later.

    2024 -> 202[4-9]|20[3-9][0-9]|2[1-9][0-9]{2}|[3-9][0-9]{3}
    """
    digits = f"{first:04d}"
    branches = []
    for position in range(3, -1, -1):
        low = int(digits[position]) + (0 if position == 3 else 1)
        if low > 9:
            continue
        rest = 3 - position
        tail = f"[0-9]{{{rest}}}" if rest > 1 else "[0-9]" * rest
        branches.append(f"{digits[:position]}[{low}-9]{tail}")
    return "|".join(branches)


def _optional(pattern: re.Pattern[str]) -> str:
    return f"^(?:{pattern.pattern})?$"


def _integer(low: int, high: int, description: str) -> dict[str, Any]:
    return {"type": "integer", "minimum": low, "maximum": high, "description": description}


def _flag(description: str) -> dict[str, Any]:
    return {"type": "integer", "enum": [0, 1], "description": description}


def _number(low: float, high: float, description: str) -> dict[str, Any]:
    return {"type": "number", "minimum": low, "maximum": high, "description": description}


def column_schemas() -> dict[str, dict[str, Any]]:
    """Each contract column as a JSON Schema of the value a stored row holds there (cycle-record.md, "Columns")."""
    label = _private_string(
        _full(values.TOKEN_RE),
        "A lowercase model or provider token (upper case is folded, `(none)`/`(unlisted)` and a trailing "
        "`@YYYYMMDD` are accepted and stored as documented).",
    )
    optional_label = _private_string(_optional(values.TOKEN_RE), "A token, or empty when there was no such phase.")
    effort = _private_string(_optional(values.EFFORT_RE), "A reasoning effort such as `high`, or empty.")
    hints = {
        "cycle_key": {
            "type": "string",
            "pattern": _full(contract_rules.CYCLE_KEY_RE),
            "description": "16 lowercase hex digits; unique per install and within one request.",
        },
        "day": {
            "type": "string",
            "format": "date",
            # The first day is a 1 January, so "from the first day" is "from its year".
            "pattern": f"^(?:{_years_from(contract_rules.FIRST_DAY.year)})-[0-9]{{2}}-[0-9]{{2}}$",
            "description": f"A real date from {contract_rules.FIRST_DAY.isoformat()} to tomorrow (UTC).",
        },
        "model": label,
        "prov": label,
        "role": _integer(0, 2, "0 other, 1 plan, 2 build: the session's last agent."),
        "pm": optional_label,
        "pp": {**optional_label, "description": "Set exactly when `pm` is set."},
        "bm": optional_label,
        "bp": {**optional_label, "description": "Set exactly when `bm` is set."},
        "u": _integer(0, 2000, "Prompts the person typed."),
        "a": _integer(0, 50000, "Assistant steps."),
        "tedits": _integer(0, 20000, "Edits by the cycle and its subagents."),
        "tpaths": _flag("An edit had a path inside a repository."),
        "teerr": _integer(0, 20000, "Edit errors; at most `tedits`."),
        "tcost": _number(0, 5000, "Cost in USD (0 = not metered); stored to 4 decimals."),
        "tship": _flag("A commit landed; 1 requires tedits > 0, tpaths = 1 and tshipe = 0."),
        "thrs": _number(0, 72, "Active hours; stored to 4 decimals."),
        "tver": _flag("A check ran after the last edit; 1 requires tedits > 0."),
        "tabort": _flag("The person aborted or rejected something."),
        "latmed": {
            "anyOf": [{"const": -1}, {"type": "number", "minimum": 0, "maximum": 600}],
            "description": "Median seconds per step, -1 for none; stored to 2 decimals.",
        },
        "tshipe": _integer(0, 2, "0 judged, 1 pending, 2 unshippable."),
        "variant": effort,
        "pv": effort,
        "bv": effort,
        "harness": _private_string(_full(values.TOKEN_RE), "The agent harness, e.g. `opencode`."),
        "hversion": _private_string(_optional(values.VERSION_RE), "The harness version, or empty."),
    }
    return {col: {"title": CONTRACT_TO_FIELD[col], **schema} for col, schema in hints.items()}


def _cells(cols: tuple[str, ...], rules: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A row schema that asks `rules` of the named columns and nothing of the others."""
    last = max(cols.index(col) for col in rules)
    return {"prefixItems": [rules.get(col, True) for col in cols[: last + 1]]}


def row_rules(cols: tuple[str, ...]) -> list[dict[str, Any]]:
    """The rules between columns (contract_rules.row_rule_errors) JSON Schema can state; teerr <= tedits it cannot."""
    both_or_neither = [
        {"anyOf": [_cells(cols, {model: {"const": ""}, provider: {"const": ""}}),
                   _cells(cols, {model: {"minLength": 1}, provider: {"minLength": 1}})]}
        for model, provider in (("pm", "pp"), ("bm", "bp"))
    ]  # fmt: skip
    shipped = {"tedits": {"minimum": 1}, "tpaths": {"const": 1}}
    if "tshipe" in cols:
        shipped["tshipe"] = {"const": 0}
    return [
        *both_or_neither,
        {"if": _cells(cols, {"tship": {"const": 1}}), "then": _cells(cols, shipped)},
        {"if": _cells(cols, {"tver": {"const": 1}}), "then": _cells(cols, {"tedits": {"minimum": 1}})},
    ]


def row_schemas(schema: int) -> dict[str, dict[str, Any]]:
    """The two shapes of a row of `schema`: as stored (each column's rule) and as the envelope accepts it."""
    cols = COLUMNS_BY_SCHEMA[schema]
    columns = column_schemas()
    return {
        f"CycleRow{schema}": {
            "type": "array",
            "description": (
                f"A row of schema {schema} that is stored: each value in the order of `cols` follows its column's "
                "rule and the rules between columns. Also checked, beyond what a schema says: `teerr` at most "
                "`tedits`, integers written without a fraction, the privacy checks on every string but "
                "`cycle_key` and `day`, a day no later than tomorrow, no cycle_key twice in one request."
            ),
            "prefixItems": [columns[col] for col in cols],
            "items": False,
            "minItems": len(cols),
            "allOf": row_rules(cols),
        },
        f"ScalarRow{schema}": {
            "type": "array",
            "description": (
                f"Any row of exactly {len(cols)} JSON scalars (no null, object or array) is part of a valid envelope; "
                "one whose values break a column rule is skipped and reported in `errors` (refused, with "
                "`atomic=1`)."
            ),
            "items": {"type": ["string", "number", "boolean"]},
            "minItems": len(cols),
            "maxItems": len(cols),
        },
    }


def install_schema() -> dict[str, Any]:
    return {
        "type": "string",
        "format": "uuid",
        "pattern": _full(contract.INSTALL_RE),
        "description": "Random UUID of the installation (any version, either case); only a keyed hash is stored.",
    }


def envelope_title(schema: int) -> str:
    """What the docs call a schema's envelope: the current one says so, the older ones say who sends them."""
    current = max(COLUMNS_BY_SCHEMA)
    return f"Schema {schema} (current)" if schema == current else f"Schema {schema} (older clients)"


def envelope_schema(schema: int) -> dict[str, Any]:
    cols = list(COLUMNS_BY_SCHEMA[schema])
    tolerance_minutes = int(contract.FUTURE_TOLERANCE.total_seconds() // 60)
    return {
        "type": "object",
        "title": envelope_title(schema),
        "additionalProperties": False,
        "required": list(contract.ENVELOPE_KEYS),
        "properties": {
            "schema": {"type": "integer", "enum": [schema], "description": "Contract schema."},
            "extractor": {
                **_private_string(_full(values.VERSION_RE), "The client's version, e.g. 26.9.0."),
            },
            "install": install_schema(),
            "generated": {
                "type": "string",
                "format": "date-time",
                # UTC only: Z or a zero offset; seconds 00-59 and at most microseconds, as Python reads them.
                "pattern": (
                    r"^(?!0000)[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-5][0-9](?:\.[0-9]{1,6})?(?:Z|[+-]00:00)$"
                ),
                "description": (
                    "UTC time the client extracted the rows (ISO 8601, `Z` or `+00:00`); "
                    f"not more than {tolerance_minutes} minutes in the future, or the request is refused (400)."
                ),
            },
            "cols": {
                "type": "array",
                "items": {"type": "string"},
                "enum": [cols],
                "description": f"Exactly the {len(cols)} columns of schema {schema}, in order.",
            },
            "rows": {
                "type": "array",
                "maxItems": settings.INGEST_MAX_ROWS,
                "items": {
                    "anyOf": [
                        {"$ref": f"{SCHEMA_REF_PREFIX}CycleRow{schema}"},
                        {"$ref": f"{SCHEMA_REF_PREFIX}ScalarRow{schema}"},
                    ]
                },
                "description": f"At most {settings.INGEST_MAX_ROWS} rows, positional in the order of `cols`.",
            },
        },
    }


def components() -> dict[str, dict[str, Any]]:
    """Every component schema of the request bodies, by name."""
    found: dict[str, dict[str, Any]] = {}
    for schema in COLUMNS_BY_SCHEMA:
        found[f"Envelope{schema}"] = envelope_schema(schema)
        found.update(row_schemas(schema))
    # Told apart by `schema` through each variant's one-value enum: an OpenAPI discriminator maps
    # string values only, and `schema` is an integer.
    found["Envelope"] = {
        "description": (
            "The contribution envelope: exactly six keys, one variant per `schema` (1, 2 or 3), told apart by the "
            "value of `schema`. A fault of the envelope refuses the request (400)."
        ),
        # The current schema first: a reader of the docs meets the one a client sends today.
        "oneOf": [
            {"$ref": f"{SCHEMA_REF_PREFIX}Envelope{schema}"} for schema in sorted(COLUMNS_BY_SCHEMA, reverse=True)
        ],
    }
    found["RetractRequest"] = install_request()
    found["InstallCountsRequest"] = install_request()
    return found


def install_request() -> dict[str, Any]:
    """A body of exactly one install id, sent in the body so that it never appears in an address or a log."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["install"],
        "properties": {"install": install_schema()},
    }


ENVELOPE_BODY: Final = {"$ref": f"{SCHEMA_REF_PREFIX}Envelope"}
RETRACT_BODY: Final = {"$ref": f"{SCHEMA_REF_PREFIX}RetractRequest"}
INSTALL_COUNTS_BODY: Final = {"$ref": f"{SCHEMA_REF_PREFIX}InstallCountsRequest"}
REQUIRED_BODIES: Final = (ENVELOPE_BODY, RETRACT_BODY, INSTALL_COUNTS_BODY)


CLOSED_ANSWERS: Final = (
    "ContractError",
    "ContributionAccepted",
    "Cycle",
    "Error",
    "InstallCounts",
    "Preview",
    "Retracted",
    "Stats",
)


def add_contract_components(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: the request bodies' component schemas, built above, and closed answers.

    A body given as a raw schema is marked optional by drf-spectacular; these bodies are required.
    """
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    # The answers' bodies hold exactly their documented keys: a key more (an echoed value) is a fault.
    for name in CLOSED_ANSWERS:
        if name in schemas:
            schemas[name]["additionalProperties"] = False
    schemas.update(components())
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            body = operation.get("requestBody") if isinstance(operation, dict) else None
            if body and body["content"].get("application/json", {}).get("schema") in REQUIRED_BODIES:
                body["required"] = True
    return result
