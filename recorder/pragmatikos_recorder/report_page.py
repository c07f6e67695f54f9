"""The report as one self-contained HTML page: inline CSS and SVG, nothing loaded from anywhere.

It follows the site's phone rules: a viewport, text that wraps, tables that become one card per group below
600 px, and nothing wider than a 390 px screen. Every value is escaped: labels are model names from the person's logs.
"""

from __future__ import annotations

from html import escape
from typing import Any, Final

from pragmatikos_recorder.report_output import AXIS_WORDS

# Nothing may load: no script, no font, no image from anywhere; only the inline style.
CSP: Final = "default-src 'none'; style-src 'unsafe-inline'"
STYLE: Final = """
body{font:16px/1.5 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem;color:#1a1a1a;background:#fff}
h1{font-size:1.4rem;margin:.2rem 0}h2{font-size:1.1rem;margin-top:1.5rem}
p{overflow-wrap:anywhere}.note{color:#555;font-size:.9rem}
.wrap{overflow-x:auto;max-width:100%}table{border-collapse:collapse;min-width:100%}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #ddd;vertical-align:top;overflow-wrap:break-word}
th{font-weight:600}svg{display:block;max-width:100%;height:auto}
@media (max-width:600px){table,tbody,tr,td{display:block}
thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
tr{border-bottom:1px solid #ddd;padding:.5rem 0}td{border:0;padding:.1rem 0}td.name{font-weight:600}
td[data-label]::before{content:attr(data-label) ": ";color:#555}}
.you{fill:#0072B2}.pool{fill:#999}.band{fill:#0072B2;opacity:.25}.pband{fill:#999;opacity:.3}
@media (prefers-color-scheme:dark){body{background:#111;color:#eee}th,td{border-color:#333}.note{color:#aaa}}
"""


def _bar(group: dict[str, Any]) -> str:
    """Your scoreAdj and interval above the pool's for the same group, on 0-100."""

    def mark(value: float | None, interval: list[float] | None, y: int, dot: str, band: str) -> str:
        parts = []
        if interval:
            width = max(interval[1] - interval[0], 0.5)
            parts.append(f'<rect class="{band}" x="{interval[0]:.1f}" y="{y - 3}" width="{width:.1f}" height="6"/>')
        if value is not None:
            parts.append(f'<circle class="{dot}" cx="{value:.1f}" cy="{y}" r="2.5"/>')
        return "".join(parts)

    pool = group.get("pool") or {}
    title = f"you {group['scoreAdj']:.1f}" + (
        f", the pool {pool['scoreAdj']:.1f}" if pool.get("scoreAdj") is not None else ""
    )
    return (
        f'<svg viewBox="-3 0 106 22" width="200" role="img" aria-label="{escape(title)}">'
        '<line x1="0" y1="11" x2="100" y2="11" stroke="#ccc"/><line x1="50" y1="2" x2="50" y2="20" stroke="#ccc"/>'
        + mark(group["scoreAdj"], group["ci"], 6, "you", "band")
        + mark(pool.get("scoreAdj"), pool.get("ci"), 16, "pool", "pband")
        + "</svg>"
    )


def _score(value: float | None, interval: list[float] | None) -> str:
    if value is None:
        return "–"
    return f"{value:.1f}" + (f" ({interval[0]:.0f}–{interval[1]:.0f})" if interval else "")


def _versus(group: dict[str, Any]) -> str:
    versus = group.get("versusPool") or {}
    words = [("better", versus.get("better") or []), ("worse", versus.get("worse") or [])]
    text = "; ".join(f"{kind}: {', '.join(AXIS_WORDS.get(a, a) for a in axes)}" for kind, axes in words if axes)
    return escape(text or "no axis clearly apart")


def _ranked_rows(groups: list[dict[str, Any]]) -> str:
    rows = []
    for g in groups:
        pool = g.get("pool") or {}
        pool_text = _score(pool.get("scoreAdj"), pool.get("ci")) if pool.get("ranked") else "not ranked in the pool"
        rows.append(
            f'<tr><td class="name">{escape(g["label"])}</td><td data-label="Judged">{g["hjudged"]}</td>'
            f'<td data-label="You (95%)">{_score(g["scoreAdj"], g["ci"])}</td>'
            f'<td data-label="The pool">{pool_text}</td><td>{_bar(g)}</td><td>{_versus(g)}</td></tr>'
        )
    return "".join(rows)


def _provisional_rows(groups: list[dict[str, Any]]) -> str:
    def raw(values: dict[str, float | None]) -> str:
        return escape(
            ", ".join(f"{AXIS_WORDS[a]} {v:.3g}" for a, v in values.items() if v is not None and a in AXIS_WORDS)
        )

    return "".join(
        f'<tr><td class="name">{escape(g["label"])}</td><td data-label="Judged">{g["hjudged"]}</td>'
        f'<td data-label="To score it">{g["toRank"]} more</td><td>{raw(g["raw"])}</td></tr>'
        for g in groups
    )


def report_page(report: dict[str, Any]) -> str:
    pool, you = report["pool"], report["you"]
    ranked = [g for g in report["groups"] if g["ranked"]]
    provisional = [g for g in report["groups"] if not g["ranked"]]
    body = [
        "<h1>Your pairings against the pool</h1>",
        f'<p class="note">{you["judged"]} judged cycles of yours over {you["days"]} days, scored on the pool published '
        f"{escape(str(pool['generated']))} ({pool['judged']} judged cycles, {pool['contributors']} contributors), view "
        f"{escape(report['view'])}. Made on your machine; nothing was sent.</p>",
    ]
    if ranked:
        body.append(
            '<h2>Scored groups</h2><div class="wrap"><table><thead><tr><th>Group</th><th>Judged</th>'
            "<th>You (95%)</th><th>The pool, same group</th><th>You (blue) and the pool (grey), 0–100</th>"
            f"<th>You against the pool</th></tr></thead><tbody>{_ranked_rows(ranked)}</tbody></table></div>"
        )
    if provisional:
        body.append(
            f"<h2>Under the ranking floor ({pool['scale']['minJudged']} judged cycles)</h2>"
            '<div class="wrap"><table><thead><tr><th>Group</th><th>Judged</th><th>To score it</th><th>Raw values</th>'
            f"</tr></thead><tbody>{_provisional_rows(provisional)}</tbody></table></div>"
        )
    if report["main"]:
        above = report["clearlyAbove"]
        items = "".join(
            f"<li>{escape(a['label'])}: {a['scoreAdj']:.1f} ({a['ci'][0]:.0f}–{a['ci'][1]:.0f}), "
            f"{a['gain']:+.1f} points</li>"
            for a in above
        )
        body.append(
            f"<h2>Clearly above your main group, {escape(report['main'])}</h2>"
            + (f"<ul>{items}</ul>" if above else "<p>No group of the pool ranks clearly above it.</p>")
        )
    body.append(
        '<p class="note">Intervals resample your days; the pool\'s values stay as published. '
        "A clear difference is one whose interval leaves out no difference at all.</p>"
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        f"<title>Your pairings against the pool</title><style>{STYLE}</style></head><body>"
        + "".join(body)
        + "</body></html>"
    )
