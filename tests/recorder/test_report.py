"""`pragmatikos-record report`: a person's groups on the pool's scale, equal to the board's where they are the board,
worked by hand on a larger pool, and nothing sent but one GET of the published pool."""

from __future__ import annotations

import datetime as dt
import json
import math
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from pragmatikos_contract.method import Scale
from pragmatikos_recorder import cli
from pragmatikos_recorder.envelope import COLUMNS
from pragmatikos_recorder.report import build_report

from ingest.columns import FIELD_TO_CONTRACT
from leaderboard import demo
from leaderboard.recompute import publish
from scoring import ScoringConfig, score_pool
from scoring.shapes import VIEWS
from tests.cycles.stored import make_contributor, store_cycles
from tests.recorder.conftest import World

TOLERANCE = 1e-9
AXES = [axis["name"] for axis in Scale().document()["axes"]]


def as_row(fields: dict[str, Any]) -> list[Any]:
    """A stored cycle as the row the recorder would have sent for it (envelope COLUMNS order)."""
    by_column = {FIELD_TO_CONTRACT[name]: value for name, value in fields.items() if name in FIELD_TO_CONTRACT}
    by_column["day"] = str(by_column["day"])
    return [by_column[name] for name in COLUMNS]


def one_install(count: int = 1500) -> list[dict[str, Any]]:
    """The demo pool's busiest install's cycles: several pairings, days and ship states."""
    everyone = demo.demo_cycles(count=count, today=dt.date.today())
    installs = [install for install, _ in everyone]
    busiest = max(set(installs), key=installs.count)
    return [dict(fields) for install, fields in everyone if install == busiest]


def assert_close(ours: float | None, theirs: float | None, where: str) -> None:
    if theirs is None:
        assert ours is None, where
    else:
        assert ours is not None and abs(ours - theirs) <= TOLERANCE, f"{where}: ours {ours}, published {theirs}"


def assert_equals_the_board(report: dict[str, Any], view: dict[str, Any]) -> int:
    """Every ranked group of the view: the report's numbers are the published ones; returns how many."""
    ours = {g["label"]: g for g in report["groups"]}
    assert {g["label"] for g in view["groups"]} == {label for label, g in ours.items() if g["ranked"]}
    assert {g["label"] for g in view["provisional"]} == {label for label, g in ours.items() if not g["ranked"]}
    for published in view["groups"]:
        group, where = ours[published["label"]], f"{report['view']}/{published['label']}"
        assert (group["hjudged"], group["hshipped"], group["hshipJudged"]) == (
            published["hjudged"],
            published["hshipped"],
            published["hshipJudged"],
        )
        assert group["ev"] == published["ev"], where
        assert group["imputed"] == published["imputed"], where
        assert_close(group["score"], published["score"], f"{where} score")
        assert_close(group["scoreAdj"], published["scoreAdj"], f"{where} scoreAdj")
        for axis in AXES:
            assert_close(group["raw"][axis], published["raw"][axis], f"{where} raw.{axis}")
            assert_close(group["adj"][axis], published["adj"][axis], f"{where} adj.{axis}")
        for tier, value in published["tiersAdj"].items():
            assert_close(group["tiersAdj"][tier], value, f"{where} tiersAdj.{tier}")
            assert_close(group["tiers"][tier], published["tiers"][tier], f"{where} tiers.{tier}")
        assert group["pool"]["scoreAdj"] == published["scoreAdj"]
    for published in view["provisional"]:
        group = ours[published["label"]]
        assert group["hjudged"] == published["hjudged"]
        assert group["toRank"] == 10 - published["hjudged"]
        for axis in AXES:
            assert_close(group["raw"][axis], published["raw"][axis], f"provisional {published['label']} {axis}")
    return len(view["groups"])


@pytest.mark.django_db
def test_on_a_pool_of_one_install_the_report_is_the_boards_published_numbers() -> None:
    """The service's own recompute publishes one install's cycles; the report of the same cycles, scored on that
    document, equals the board for every ranked group of every view."""
    cycles = one_install()
    store_cycles(make_contributor(seen_for=dt.timedelta(days=120)), cycles)
    snapshot = publish(force=True)
    assert snapshot is not None
    document = snapshot.document
    rows = [as_row(fields) for fields in cycles]
    ranked = 0
    for view in VIEWS:
        ranked += assert_equals_the_board(build_report(rows, document, view), document["views"][view])
    assert ranked >= 6  # the check above ran on real groups, in every view


def test_on_a_pool_of_one_install_the_report_is_the_pure_scorers_numbers() -> None:
    """The same with the reference scorer (score_pool) on the same cycles, no database."""
    cycles = one_install(900)
    frame = pd.DataFrame([{**c, "contributor": 1} for c in cycles])
    document: dict[str, Any] = score_pool(frame, ScoringConfig(resamples=20)).document  # type: ignore[assignment]
    rows = [as_row(fields) for fields in cycles]
    for view in VIEWS:
        assert_equals_the_board(build_report(rows, document, view), document["views"][view])


# A hand-worked case on a larger pool: one pairing of ten judged cycles over four days, read against a pool
# whose values were chosen so that every distance is a whole power of two.
POOL_VALUES = {
    "shipr": 50.0,
    "oneshot": 50.0,
    "ttss": 2.8,
    "hps": 0.25,
    "dpss": 2.0,
    "eerrp": 20.0,
    "abortp": 10.0,
    "verp": 20.0,
    "ept": 5 / 6,
    "lat": 40.0,
}


def pool_group(label: str, score_adj: float, ci: list[float], rank: int, rank_worst: int) -> dict[str, Any]:
    return {
        "label": label,
        "scoreAdj": score_adj,
        "score": score_adj,
        "ci": ci,
        "rank": rank,
        "rank_worst": rank_worst,
        "hjudged": 400,
        "contributors": 9,
        "flags": [],
        "adj": dict(POOL_VALUES),
    }


def larger_pool() -> dict[str, Any]:
    view = {
        "groups": [
            pool_group("c → d", 90.0, [85.0, 95.0], 1, 1),
            pool_group("e → f", 58.0, [40.0, 70.0], 2, 3),
            pool_group("a → b", 55.0, [50.0, 60.0], 2, 3),
        ],
        "provisional": [{"label": "g → h", "hjudged": 4, "raw": dict(POOL_VALUES)}],
        "pool": POOL_VALUES,
        "span": 2,
        "scale": Scale().document(),
        "meta": {},
    }
    meta = {"document_version": 2, "generated": "2026-09-09T00:00:00Z", "judged": 1600, "contributors": 30}
    return {"meta": meta | {"resamples": 200, "seed": 7}, "views": {"modelCombo": view}}


def hand_rows() -> list[list[Any]]:
    """Ten judged cycles of a → b: five shipped (one on its third prompt), two edit errors, one interruption,
    half verified, every cycle half an hour and four steps, latencies 10 s (shipped) and 20 s."""
    rows = []
    for i in range(10):
        shipped = i < 5
        cycle = {
            "cycle_key": f"{i:016x}",
            "day": f"2026-09-0{1 + i % 4}",
            "model": "b",
            "prov": "p",
            "role": 2,
            "pm": "a",
            "pp": "p",
            "bm": "b",
            "bp": "p",
            "u": 3 if i == 0 else 1,
            "a": 4,
            "tedits": 2,
            "tpaths": 1,
            "teerr": 1 if i in (0, 1) else 0,
            "tcost": 0.0,
            "tship": int(shipped),
            "thrs": 0.5,
            "tver": int(shipped),
            "tabort": int(i == 9),
            "latmed": 10.0 if shipped else 20.0,
            "tshipe": 0,
            "variant": "",
            "pv": "",
            "bv": "",
            "harness": "claude-code",
            "hversion": "2.0.30",
        }
        rows.append([cycle[name] for name in COLUMNS])
    # A second pairing under the floor, and a cycle that is not judged (no repository: tpaths 0).
    rows += [[*row[:5], "x", "p", "y", *row[8:]] for row in rows[:3]]
    rows.append([*rows[0][:12], 0, *rows[0][13:]])
    return rows


def odds(x: float) -> float:
    return x / (100 - x)


def position(r: float) -> float:
    return (max(-1.0, min(1.0, r / 2)) + 1) / 2


def test_a_hand_worked_group_on_a_larger_pool() -> None:
    report = build_report(hand_rows(), larger_pool(), "modelCombo")
    mine = {g["label"]: g for g in report["groups"]}
    group = mine["a → b"]
    # A2-A3 by hand: 5 of 10 shipped; 4 of 5 on one prompt (the third prompt's has a planner but u = 3); 7 prompts
    # and 2.5 hours over 5 ships; no metered cost; 2 errors in 20 edits; 1 interrupted and 5 verified in 10;
    # 20 edits over 12 prompts; latency: 40 steps, the 20th at 10 s.
    assert group["raw"] == {
        "shipr": 50.0,
        "oneshot": 80.0,
        "ttss": 1.4,
        "hps": 0.5,
        "dpss": None,
        "eerrp": 10.0,
        "abortp": 10.0,
        "verp": 50.0,
        "ept": 20 / 12,
        "lat": 10.0,
    }
    # A5 on raw values: Outcome (0.5, 1), Cost (0.75, 0.25; dpss null), Precision (0.75, 0.5), Discipline 1,
    # Efficiency 0.75, Latency 1.
    assert group["tiers"] == pytest.approx(
        {"Outcome": 75.0, "Cost": 50.0, "Precision": 62.5, "Discipline": 100.0, "Efficiency": 75.0, "Latency": 100.0}
    )
    assert group["score"] == pytest.approx((30 * 75 + 20 * 50 + 15 * 62.5 + 15 * 100 + 10 * 75 + 10 * 100) / 100)
    # Shrunk by k = 10 toward the pool: n = 10 for shipr and the per-cycle axes, 5 (the ships) for the rest.
    adj = {
        "shipr": 50.0,
        "oneshot": (5 * 80 + 10 * 50) / 15,
        "ttss": (5 * 1.4 + 10 * 2.8) / 15,
        "hps": (5 * 0.5 + 10 * 0.25) / 15,
        "eerrp": (10 * 10 + 10 * 20) / 20,
        "abortp": 10.0,
        "verp": (10 * 50 + 10 * 20) / 20,
        "ept": (10 * 20 / 12 + 10 * 5 / 6) / 20,
        "lat": (10 * 10 + 10 * 40) / 20,
    }
    assert {k: v for k, v in group["adj"].items() if v is not None} == pytest.approx(adj)
    tiers_adj = {
        "Outcome": 100 * (0.5 + position(math.log2(odds(adj["oneshot"]) / odds(50)))) / 2,
        "Cost": 100 * (position(math.log2(2.8 / adj["ttss"])) + position(math.log2(0.25 / adj["hps"]))) / 2,
        "Precision": 100 * (position(math.log2(20 / adj["eerrp"])) + 0.5) / 2,
        "Discipline": 100 * position(math.log2(odds(adj["verp"]) / odds(20))),
        "Efficiency": 100 * position(math.log2(adj["ept"] / (5 / 6))),
        "Latency": 100 * position(math.log2(40 / adj["lat"])),
    }
    assert group["tiersAdj"] == pytest.approx(tiers_adj)
    weights = {"Outcome": 30, "Cost": 20, "Precision": 15, "Discipline": 15, "Efficiency": 10, "Latency": 10}
    assert group["scoreAdj"] == pytest.approx(sum(weights[t] * v for t, v in tiers_adj.items()) / 100)
    # Beside it the pool's own numbers for a → b; four days make an interval around the person's scoreAdj.
    assert group["pool"] == {
        "ranked": True,
        "score": 55.0,
        "scoreAdj": 55.0,
        "ci": [50.0, 60.0],
        "rank": 2,
        "rank_worst": 3,
        "hjudged": 400,
        "contributors": 9,
        "flags": [],
    }
    assert group["days"] == 4
    lo, hi = group["ci"]
    assert lo < group["scoreAdj"] < hi
    # Under the floor: raw values and how many more judged cycles would score it.
    small = mine["x → y"]
    assert (small["ranked"], small["hjudged"], small["toRank"], small["scoreAdj"]) == (False, 3, 7, None)
    assert report["you"] == {"cycles": 14, "judged": 13, "inView": 13, "days": 4}
    # The main group is a → b; only c → d's interval lies wholly above the pool's own for a → b.
    assert report["main"] == "a → b"
    assert [(a["label"], a["gain"]) for a in report["clearlyAbove"]] == [("c → d", 35.0)]


def test_the_interval_resamples_days_and_is_the_same_each_run() -> None:
    first = build_report(hand_rows(), larger_pool(), "modelCombo")
    again = build_report(hand_rows(), larger_pool(), "modelCombo")
    assert first == again
    assert first["interval"] == {"unit": "day", "resamples": 200, "seed": 7, "level": 0.95}
    # All on one day: one cluster, no interval.
    one_day = [[*row[:1], "2026-09-01", *row[2:]] for row in hand_rows()]
    assert build_report(one_day, larger_pool(), "modelCombo")["groups"][0]["ci"] is None


def test_a_document_without_a_scale_is_refused_with_a_sentence() -> None:
    older = larger_pool()
    older["meta"]["document_version"] = 1
    with pytest.raises(ValueError, match="pool document version 1"):
        build_report(hand_rows(), older, "modelCombo")


# Nothing leaves the machine but one GET of the published pool.


@dataclass
class CountingServer:
    """A local service that serves one pool document with an ETag and notes every request it gets."""

    document: dict[str, Any]
    etag: str = '"pool-1"'
    requests: list[dict[str, Any]] = field(default_factory=list)


@pytest.fixture
def service() -> Iterator[tuple[str, CountingServer]]:
    state = CountingServer(larger_pool())

    class Handler(BaseHTTPRequestHandler):
        def _note(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            state.requests.append(
                {
                    "method": self.command,
                    "path": self.path,
                    "body": self.rfile.read(length) if length else b"",
                    "if_none_match": self.headers.get("If-None-Match"),
                }
            )

        def do_GET(self) -> None:
            self._note()
            if self.headers.get("If-None-Match") == state.etag:
                self.send_response(304)
                self.end_headers()
                return
            body = json.dumps(state.document).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("ETag", state.etag)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            self._note()
            self.send_response(500)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/api/v1/contributions", state
    finally:
        server.shutdown()
        server.server_close()


def log_options(world: World) -> list[str]:
    roots = world.roots
    return ["--claude-dir", str(roots.claude), "--codex-dir", str(roots.codex), "--aider-root", str(roots.aider)]


def test_its_only_network_call_is_one_get_of_the_pool(
    world: World,
    service: tuple[str, CountingServer],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    url, state = service
    monkeypatch.setenv("PRAGMATIKOS_RECORDER_CACHE", str(tmp_path / "cache"))
    assert cli.main(["report", "--url", url, "--json", *log_options(world)]) == 0
    first = json.loads(capsys.readouterr().out)
    assert state.requests == [
        {"method": "GET", "path": "/api/v1/pool.json", "body": b"", "if_none_match": None},
    ]
    # The fixture logs' judged cycles, all under the floor here, as the table shows them.
    assert first["you"]["judged"] == 8
    assert first["pool"]["fetch"] == "fetched"

    # Again: the kept copy, confirmed by its ETag (304), gives the same report.
    assert cli.main(["report", "--url", url, "--json", *log_options(world)]) == 0
    again = json.loads(capsys.readouterr().out)
    assert state.requests[1] == {"method": "GET", "path": "/api/v1/pool.json", "body": b"", "if_none_match": '"pool-1"'}
    assert len(state.requests) == 2
    assert again["pool"]["fetch"] == "not modified"
    assert {**again, "pool": None} == {**first, "pool": None}

    # The table, by default.
    assert cli.main(["report", "--url", url, *log_options(world)]) == 0
    table = capsys.readouterr().out
    assert "Nothing was sent." in table
    assert "Under the ranking floor (10 judged cycles)" in table
    assert all(r["method"] == "GET" and r["path"] == "/api/v1/pool.json" for r in state.requests)


def test_the_page_loads_nothing_from_outside_and_fits_a_phone(tmp_path: Path) -> None:
    from pragmatikos_recorder.report_page import report_page

    rows = hand_rows()
    rows[10] = [*rows[10][:5], "<script>x", *rows[10][6:]]  # a hostile name is shown as text, never as markup
    page = report_page(build_report(rows, larger_pool(), "modelCombo"))
    assert "<script" not in page.lower()
    assert not re.search(r"""(?:src|href|action)\s*=|url\(|@import|https?://""", page, re.IGNORECASE)
    assert "default-src 'none'" in page
    assert '<meta name="viewport" content="width=device-width,initial-scale=1">' in page
    assert "max-width:100%" in page and "overflow-x:auto" in page  # wide tables scroll in their own box
    assert "a → b" in page and "c → d" in page and "<svg" in page
