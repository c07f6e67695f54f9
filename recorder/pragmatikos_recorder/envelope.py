"""Cycles as schema-3 rows and the envelope that carries them.

Every string of a row goes through the contract's shape and privacy checks here (privacy.py):
a value that fails becomes "" where the column allows it, and a row whose model or provider
fails is withheld. So an envelope built here passes the server's checks by construction. A model
or provider name no public list knows is withheld too, and named in `Rows.withheld_names`.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Final

from pragmatikos_recorder import __version__
from pragmatikos_recorder.cycles import Cycle
from pragmatikos_recorder.privacy import PublicNames, safe_effort, safe_token, safe_version

SCHEMA: Final = 3
FIRST_DAY: Final = date(2024, 1, 1)  # the contract's first accepted day
COLUMNS: Final[tuple[str, ...]] = (
    "cycle_key", "day", "model", "prov", "role", "pm", "pp", "bm", "bp", "u", "a", "tedits", "tpaths",
    "teerr", "tcost", "tship", "thrs", "tver", "tabort", "latmed", "tshipe", "variant", "pv", "bv",
    "harness", "hversion",
)  # fmt: skip


def cycle_key(secret: bytes, cycle: Cycle) -> str:
    """16 hex of HMAC-SHA256(local secret, harness, session id, cycle index): stable, unlinkable."""
    message = f"{cycle.harness}\x00{cycle.session_id}\x00{cycle.index}".encode()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()[:16]


def _pair(model: str, provider: str, names: PublicNames, withheld: set[str]) -> tuple[str, str]:
    """A model and its provider, both set or both "" (the contract's rule for pm/pp and bm/bp)."""
    sent_model, sent_provider = names.model(model), names.provider(provider)
    withheld.update(
        raw.strip() for raw, sent in ((model, sent_model), (provider, sent_provider)) if raw.strip() and not sent
    )
    return (sent_model, sent_provider) if sent_model and sent_provider else ("", "")


def to_row(
    cycle: Cycle, secret: bytes, names: PublicNames | None = None, withheld: set[str] | None = None
) -> list[Any] | None:
    """The cycle as a row in COLUMNS order, or None when its model cannot be sent safely.

    Names of models and providers left out for privacy are added to `withheld`.
    """
    names = names or PublicNames()
    withheld = withheld if withheld is not None else set()
    model, prov = _pair(cycle.model, cycle.prov, names, withheld)
    harness = safe_token(cycle.harness)
    day = cycle.start.astimezone(UTC).date()
    if not model or not harness or day < FIRST_DAY:
        return None
    pm, pp = _pair(cycle.pm, cycle.pp, names, withheld)
    bm, bp = _pair(cycle.bm, cycle.bp, names, withheld)
    tedits = min(cycle.tedits, 20000)
    tpaths = cycle.tpaths if tedits else 0
    tshipe = cycle.tshipe
    tship = cycle.tship if tedits and tpaths and tshipe == 0 else 0
    return [
        cycle_key(secret, cycle),
        day.isoformat(),
        model,
        prov,
        cycle.role,
        pm,
        pp,
        bm,
        bp,
        min(cycle.u, 2000),
        min(cycle.a, 50000),
        tedits,
        tpaths,
        min(cycle.teerr, tedits),
        min(max(cycle.tcost, 0.0), 5000.0),
        tship,
        min(max(cycle.thrs, 0.0), 72.0),
        cycle.tver if tedits else 0,
        cycle.tabort,
        cycle.latmed,
        tshipe,
        safe_effort(cycle.variant) if model else "",
        safe_effort(cycle.pv) if pm else "",
        safe_effort(cycle.bv) if bm else "",
        harness,
        safe_version(cycle.hversion),
    ]


@dataclass(frozen=True, slots=True)
class Rows:
    rows: list[list[Any]]
    withheld: int  # cycles whose model could not be sent without risking a private value
    # Model and provider names left out of a row (as the cycle names them), for the person to see
    # and, if they are public after all, to allow by name.
    withheld_names: frozenset[str] = frozenset()


def to_rows(cycles: list[Cycle], secret: bytes, names: PublicNames | None = None) -> Rows:
    rows, withheld, withheld_names = [], 0, set[str]()
    for cycle in cycles:
        row = to_row(cycle, secret, names, withheld_names)
        if row is None:
            withheld += 1
        else:
            rows.append(row)
    return Rows(rows, withheld, frozenset(withheld_names))


def envelope(rows: list[list[Any]], install: str, generated: datetime | None = None) -> dict[str, Any]:
    when = (generated or datetime.now(UTC)).astimezone(UTC)
    return {
        "schema": SCHEMA,
        "extractor": __version__,
        "install": install,
        "generated": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "cols": list(COLUMNS),
        "rows": rows,
    }
