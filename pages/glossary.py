"""The glossary's terms: the anchor each has on the glossary page and the word the pages link from.

The definitions are the glossary page's own prose (templates/leaderboard/glossary.html), with the
method's numbers in them; a page links a term with {% term "pending" %} (templatetags/glossary.py).
"""

from typing import Final

# anchor -> the term as the glossary writes it, in the glossary's order.
TERMS: Final[dict[str, str]] = {
    "score": "score",
    "score-parts": "score parts",
    "rank-range": "rank range",
    "odds": "odds",
    "judged": "judged",
    "pending": "pending",
    "unshippable": "unshippable",
    "contributor": "contributor",
    "pool": "pool",
    "shrinkage": "shrinkage",
    "k": "k",
    "provisional": "provisional",
    "top-share": "top share",
    "thin": "thin",
    "one-contributor": "one contributor",
    "dominated": "dominated",
    "variance-share": "contributor variance share",
    "directional": "directional",
}
