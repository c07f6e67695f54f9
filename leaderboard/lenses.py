"""The harness as a lens: the same ranking on the cycles of one harness (Claude Code, Codex, aider, OpenCode).

A lens is one more dimension of a window (leaderboard.windows.Window.harness): computed, locked and cached
with the day windows (leaderboard.windows.scoped_document), on the harness's cycles read as a window's are.
Which harnesses a pool has is written into the published document's meta at the recompute: the names the
public-label rule shows; a lens is offered and accepted only for those, never for "(other)", so no request
can learn a folded name.
"""

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from scoring.public_labels import OTHER_LABEL

if TYPE_CHECKING:  # the engine, which pages that only read a lens's name need not load
    from scoring.cells import Cells

# The published document's meta key listing the pool's harnesses (sorted names).
HARNESSES_KEY: Final = "harnesses"


def shown_harnesses(cells: "Cells") -> list[str]:
    """The harness names of the pool's cells that the public-label rule shows, sorted.

    pool_cells has already folded every name the rule may not show into "(other)", by the senders within the
    cells, so what is left is what a lens may offer.
    """
    return sorted(set(cells.frame["harness"].tolist()) - {"", OTHER_LABEL})


def published_harnesses(document: Mapping[str, Any]) -> list[str]:
    """The harnesses a published document names (none for a document from before lenses)."""
    found = (document.get("meta") or {}).get(HARNESSES_KEY)
    return [str(name) for name in found] if isinstance(found, list) else []
