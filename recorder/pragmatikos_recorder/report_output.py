"""The report as a terminal table: the person's groups beside the pool's numbers for the same groups."""

from __future__ import annotations

from typing import Any, Final

# Short names of the axes, for the table's better/worse column and the provisional rows' raw values.
AXIS_WORDS: Final = {
    "shipr": "ships",
    "oneshot": "one-shot",
    "ttss": "prompts/ship",
    "hps": "hours/ship",
    "dpss": "$/ship",
    "eerrp": "edit errors",
    "abortp": "interrupted",
    "verp": "verifies",
    "ept": "edits/prompt",
    "lat": "latency",
}
RAW_SHOWN: Final = ("shipr", "oneshot", "ttss", "verp")


def _score(value: float | None, interval: list[float] | None) -> str:
    if value is None:
        return "-"
    return f"{value:.1f}" + (f" [{interval[0]:.0f}-{interval[1]:.0f}]" if interval else " [one day]")


def _pool_cell(pool: dict[str, Any] | None) -> str:
    if pool is None:
        return "not in the pool"
    if not pool["ranked"]:
        return f"provisional ({pool['hjudged']} judged)"
    rank = str(pool["rank"]) if pool["rank"] == pool["rank_worst"] else f"{pool['rank']}-{pool['rank_worst']}"
    interval = f" [{pool['ci'][0]:.0f}-{pool['ci'][1]:.0f}]" if pool.get("ci") else ""
    return f"{pool['scoreAdj']:.1f}{interval} rank {rank}"


def _axes(names: list[str]) -> str:
    return ", ".join(AXIS_WORDS.get(name, name) for name in names)


def _versus(group: dict[str, Any]) -> str:
    versus = group.get("versusPool")
    if not versus:
        return ""
    parts = []
    if versus["better"]:
        parts.append("better: " + _axes(versus["better"]))
    if versus["worse"]:
        parts.append("worse: " + _axes(versus["worse"]))
    return "; ".join(parts) or "no axis clearly apart"


def _raw(raw: dict[str, float | None]) -> str:
    shown = [f"{AXIS_WORDS[name]} {raw[name]:.3g}" for name in RAW_SHOWN if raw.get(name) is not None]
    return ", ".join(shown)


def _columns(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]


def table_lines(report: dict[str, Any]) -> list[str]:
    pool, you = report["pool"], report["you"]
    lines = [
        f"Your {you['judged']} judged cycles ({you['inView']} in this view, over {you['days']} days) scored on the "
        f"pool at {pool.get('url', 'the service')}: {report['view']}, {pool['judged']} judged cycles from "
        f"{pool['contributors']} contributors, published {pool['generated']}. Nothing was sent.",
        "",
    ]
    ranked = [g for g in report["groups"] if g["ranked"]]
    if ranked:
        rows = [["group", "judged", "days", "you (scoreAdj, 95%)", "the pool for this group", "you vs the pool"]]
        rows += [
            [
                g["label"],
                str(g["hjudged"]),
                str(g["days"]),
                _score(g["scoreAdj"], g["ci"]),
                _pool_cell(g["pool"]),
                _versus(g),
            ]
            for g in ranked
        ]
        lines += _columns(rows)
    provisional = [g for g in report["groups"] if not g["ranked"]]
    if provisional:
        lines += ["", f"Under the ranking floor ({pool['scale']['minJudged']} judged cycles): raw values only"]
        rows = [["group", "judged", "to score it", "raw"]]
        rows += [[g["label"], str(g["hjudged"]), f"{g['toRank']} more", _raw(g["raw"])] for g in provisional]
        lines += _columns(rows)
    if report["main"]:
        above = report["clearlyAbove"]
        lines.append("")
        if above:
            lines.append(f"The pool ranks clearly above your main group, {report['main']}:")
            lines += [
                f"  {a['label']}: scoreAdj {a['scoreAdj']:.1f} [{a['ci'][0]:.0f}-{a['ci'][1]:.0f}], "
                f"{a['gain']:+.1f} points"
                for a in above
            ]
        else:
            lines.append(f"No group of the pool ranks clearly above your main group, {report['main']}.")
    return lines
