"""The harness as a lens: the same ranking on the cycles of one harness (Claude Code, Codex, aider, OpenCode).

A lens is one more dimension of a window (rankings.windows.Window.harness): computed, locked and cached
with the day windows (rankings.windows.scoped_document), on the harness's cycles read as a window's are.
Which harnesses a pool has is written into the published document's meta at the recompute: the names the
public-label rule shows; a lens is offered and accepted only for those, never for "(other)", so no request
can learn a folded name.
"""

from collections.abc import Mapping
from typing import Any, Final

import pandas as pd

from ingest.selectors import pool_cycles
from rankings.public_names import NameDecisions, counted_contributor, public_name_rule
from scoring.public_labels import HARNESS_COLUMNS, OTHER_LABEL

# The published document's meta key listing the pool's harnesses (sorted names).
HARNESSES_KEY: Final = "harnesses"


def shown_harnesses(decisions: NameDecisions) -> list[str]:
    """The harness names of the pool that the public-label rule shows, sorted (one query of distinct senders)."""
    pairs = pd.DataFrame.from_records(
        list(
            pool_cycles()
            .annotate(counted=counted_contributor("contributor__"))
            .values_list("contributor_id", "harness", "counted")
            .distinct()
        ),
        columns=["contributor", "harness", "counted"],
    )
    counted = frozenset(pairs.loc[pairs["counted"].astype(bool), "contributor"].tolist())
    rule = public_name_rule(counted=counted, decisions=decisions)
    kind = next(kind for kind in rule.kinds if kind.columns == HARNESS_COLUMNS)
    return sorted(rule.shown_in(pairs, kind) - {"", OTHER_LABEL})


def published_harnesses(document: Mapping[str, Any]) -> list[str]:
    """The harnesses a published document names (none for a document from before lenses)."""
    found = (document.get("meta") or {}).get(HARNESSES_KEY)
    return [str(name) for name in found] if isinstance(found, list) else []
