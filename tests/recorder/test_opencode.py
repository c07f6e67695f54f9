"""OpenCode sessions: the real `opencode export` capture (tests/data/opencode, see its SOURCE.md), its records
in the database and storage-tree shapes, and crafted sessions built on its records.

No real opencode.db or storage/ tree is published, so those two containers are built here from the real
export's own records (the message and part objects, unchanged, filed as OpenCode files them). Tool calls,
the plan agent and subagents appear in no published session: those tests add crafted messages of the
shapes message-v2.ts defines to the real ones, and say so.
"""

from __future__ import annotations

import copy
import json
import sqlite3
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pragmatikos_recorder import json_file, opencode
from pragmatikos_recorder.cycles import Cycle, cycle_facts
from pragmatikos_recorder.git_ship import ShipJudge
from pragmatikos_recorder.jsonl import NOT_JSON, TOO_LARGE
from pragmatikos_recorder.scan import Roots, scan_logs

from tests.data.paths import DATA_DIR

EXPORT = DATA_DIR / "opencode" / "opencode-test-exported-session.json"
LATER = datetime(2030, 1, 1, tzinfo=UTC)


def real_export() -> dict[str, Any]:
    return json.loads(EXPORT.read_text(encoding="utf-8"))


def cycles_of(path: Path, subagents: opencode.Subagents | None = None) -> list[Cycle]:
    return [c for s in opencode.parse(path, subagents) for c in cycle_facts(s, ShipJudge(LATER))]


def assert_the_real_cycle(cycle: Cycle) -> None:
    # Counted by hand from the export: one user message with one text part the person wrote
    # ("FIXTURE_USER_QUESTION", not synthetic), one assistant message with one step-start/step-finish pair.
    # Latency: the text part starts at …902012, the assistant message was created at …901832: 0.18 s.
    # Active: the prompt (…901720) to the message's completion (…902016) = 0.296 s, 0.0001 h to 4 decimals.
    # The test provider's cost is 0; the run's directory is a temporary folder, no repository.
    assert (cycle.harness, cycle.hversion, cycle.model, cycle.prov) == ("opencode", "local", "test-model", "test")
    assert (cycle.u, cycle.a, cycle.tedits, cycle.teerr, cycle.tver, cycle.tabort) == (1, 1, 0, 0, 0, 0)
    assert (cycle.role, cycle.pm, cycle.bm, cycle.tcost, cycle.tshipe) == (2, "", "test-model", 0.0, 2)
    assert cycle.latmed == 0.18
    assert cycle.thrs == 0.0001
    assert cycle.start == datetime(2026, 8, 17, 8, 38, 21, 720000, tzinfo=UTC)


def test_the_real_export_reads_into_its_hand_counted_cycle() -> None:
    [cycle] = cycles_of(EXPORT)
    assert_the_real_cycle(cycle)


def without_ids(record: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in record.items() if k not in ("id", "sessionID", "messageID")})


def write_database(path: Path, sessions: list[dict[str, Any]]) -> Path:
    """An opencode.db of session.sql.ts's tables holding the given exports' records."""
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, directory TEXT, title TEXT,"
        " version TEXT, time_created INTEGER, time_updated INTEGER);"
        "CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, time_updated INTEGER,"
        " data TEXT);"
        "CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER,"
        " time_updated INTEGER, data TEXT);"
    )
    for export in sessions:
        info = export["info"]
        db.execute(
            "INSERT INTO session VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (info["id"], "global", info.get("parentID"), info["directory"], "t", info["version"], 0, 0),
        )
        for message in export["messages"]:
            m = message["info"]
            db.execute("INSERT INTO message VALUES (?, ?, 0, 0, ?)", (m["id"], info["id"], without_ids(m)))
            for part in message["parts"]:
                row = (part["id"], m["id"], info["id"], without_ids(part))
                db.execute("INSERT INTO part VALUES (?, ?, ?, 0, 0, ?)", row)
    db.commit()
    db.close()
    return path


def write_storage(root: Path, export: dict[str, Any]) -> Path:
    """The export's records as OpenCode 1.0/1.1 filed them: one JSON file per record under storage/."""
    info = export["info"]
    session_file = root / "storage" / "session" / "global" / f"{info['id']}.json"
    session_file.parent.mkdir(parents=True, exist_ok=True)
    session_file.write_text(json.dumps(info))
    for message in export["messages"]:
        m = message["info"]
        (root / "storage" / "message" / info["id"]).mkdir(parents=True, exist_ok=True)
        (root / "storage" / "message" / info["id"] / f"{m['id']}.json").write_text(json.dumps(m))
        for part in message["parts"]:
            (root / "storage" / "part" / m["id"]).mkdir(parents=True, exist_ok=True)
            (root / "storage" / "part" / m["id"] / f"{part['id']}.json").write_text(json.dumps(part))
    return session_file


def test_the_real_records_read_alike_from_a_database(tmp_path: Path) -> None:
    database = write_database(tmp_path / "opencode.db", [real_export()])
    assert opencode.find_logs(tmp_path) == [database]
    [cycle] = cycles_of(database)
    assert_the_real_cycle(cycle)


def test_the_real_records_read_alike_from_a_storage_tree(tmp_path: Path) -> None:
    session_file = write_storage(tmp_path, real_export())
    assert opencode.find_logs(tmp_path) == [session_file]
    [cycle] = cycles_of(session_file)
    assert_the_real_cycle(cycle)


def test_a_storage_tree_a_database_has_imported_is_not_read_again(tmp_path: Path) -> None:
    write_storage(tmp_path, real_export())
    database = write_database(tmp_path / "opencode.db", [real_export()])
    assert opencode.find_logs(tmp_path) == [database]


def test_the_scan_reads_every_shape_under_the_folder_it_is_given(tmp_path: Path) -> None:
    exports = tmp_path / "exports" / "2026"
    exports.mkdir(parents=True)
    (exports / "one.json").write_text(EXPORT.read_text())
    write_database(tmp_path / "opencode.db", [real_export()])
    (tmp_path / "auth.json").write_text('{"anthropic": {"key": "not read"}}')
    roots = Roots(claude=tmp_path / "c", codex=tmp_path / "x", aider=tmp_path / "a", opencode=tmp_path)
    scanned = scan_logs(("opencode",), roots, now=LATER, progress=False)
    assert len(scanned.cycles) == 2  # one from the database, one from the export; auth.json is not opened
    assert scanned.report.files_read() == Counter({"opencode": 2})
    # Without a folder for OpenCode (the roots a test makes), nothing is looked for.
    assert scan_logs(("opencode",), Roots(tmp_path, tmp_path, tmp_path), now=LATER, progress=False).cycles == []


# --- crafted sessions on the real records ------------------------------------------------------------------


def message(role: str, at: int, agent: str, parts: list[dict[str, Any]], **info: Any) -> dict[str, Any]:
    """A message of message-v2.ts's shape (crafted), timed `at` ms after the real prompt."""
    base = 1786955901720
    number = f"{at:06d}"
    record = {"role": role, "time": {"created": base + at}, "agent": agent, "id": f"msg_crafted{number}", **info}
    if role == "assistant":
        record |= {"modelID": "claude-sonnet-4-5", "providerID": "anthropic", "mode": agent}
        record["time"]["completed"] = base + at + 900
    for index, part in enumerate(parts):
        part.setdefault("id", f"prt_crafted{number}{index:02d}")
    return {"info": record, "parts": parts}


def step(cost: float, tokens: int = 100) -> list[dict[str, Any]]:
    finish = {"input": tokens, "output": 10, "reasoning": 0, "cache": {"read": 0, "write": 0}}
    return [{"type": "step-start"}, {"type": "step-finish", "reason": "tool-calls", "tokens": finish, "cost": cost}]


def tool(name: str, at: int, status: str = "completed", **input_: Any) -> dict[str, Any]:
    base = 1786955901720
    state: dict[str, Any] = {"status": status, "input": input_, "time": {"start": base + at, "end": base + at + 50}}
    if status == "error":
        state["error"] = input_.pop("error_text")
    if name == "bash":
        state["metadata"] = {"exit": 0}
    return {"type": "tool", "tool": name, "callID": f"call_{at}", "state": state}


def text(words: str, **flags: Any) -> dict[str, Any]:
    return {"type": "text", "text": words, **flags}


def planned_and_built() -> dict[str, Any]:
    """The real export, then a crafted plan turn, an approved plan handed to build, and the build."""
    export = real_export()
    s, f = step(0.01)
    export["messages"] += [
        message("user", 10_000, "plan", [text("plan the retry")]),
        message("assistant", 11_000, "plan", [s, text("1. wrap fetch"), f]),
        # What plan_exit writes when the plan is approved: a synthetic user line, not typed.
        message("user", 20_000, "build", [text("The plan has been approved, you can now edit files.", synthetic=True)]),
        message(
            "assistant",
            21_000,
            "build",
            [
                *step(0.02)[:1],
                tool("edit", 21_500, "error", filePath="src/app.py", error_text="oldString not found in content"),
                step(0.02)[1],
                step(0.03)[0],
                tool("edit", 22_500, filePath="src/app.py", oldString="a", newString="b"),
                tool("apply_patch", 22_600, patchText="*** Begin Patch\n*** Update File: src/util.py\n*** End Patch"),
                step(0.03)[1],
                step(0.04)[0],
                tool("bash", 23_500, command="uv run pytest -q"),
                tool("bash", 23_600, command="git commit -am 'Retry'"),
                step(0.04)[1],
            ],
        ),
        message("user", 30_000, "build", [text("now the docs")]),
        message("assistant", 31_000, "build", [*step(0.05)]),
    ]
    return export


def test_plan_then_build_is_one_cycle_up_to_its_commit(tmp_path: Path) -> None:
    path = tmp_path / "export.json"
    path.write_text(json.dumps(planned_and_built()))
    first, second = cycles_of(path)
    # First cycle: the real prompt and step (test-model), the plan prompt and step, the build steps up to the
    # commit. Typed prompts: the real one and "plan the retry" (the approval line is synthetic): u = 2.
    # Steps: 1 real + 1 plan + 3 build = 5. Edits: the failed edit, the edit, the patch = 3, 1 failed;
    # pytest ran after the last edit; the log's own costs 0 + 0.01 + 0.02 + 0.03 + 0.04 = 0.1.
    assert (first.u, first.a, first.tedits, first.teerr, first.tver) == (2, 5, 3, 1, 1)
    assert (first.pm, first.pp, first.bm, first.bp, first.role) == (
        "claude-sonnet-4.5",
        "anthropic",
        "claude-sonnet-4.5",
        "anthropic",
        2,
    )
    assert first.tcost == pytest.approx(0.1)
    # The prompt after the commit starts the next cycle.
    assert (second.u, second.a, second.tedits, second.tcost) == (1, 1, 0, 0.05)


def test_a_refused_edit_is_an_intervention_not_an_edit_error(tmp_path: Path) -> None:
    export = real_export()
    refused = "The user rejected permission to use this specific tool call."
    export["messages"] += [
        message("user", 10_000, "build", [text("edit it")]),
        message(
            "assistant",
            11_000,
            "build",
            [step(0)[0], tool("write", 11_500, "error", filePath="/x/a.py", error_text=refused), step(0)[1]],
        ),
    ]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export))
    [cycle] = cycles_of(path)
    assert (cycle.tedits, cycle.teerr, cycle.tabort) == (1, 0, 1)


def test_an_interrupted_reply_is_an_intervention(tmp_path: Path) -> None:
    export = real_export()
    export["messages"][1]["info"]["error"] = {"name": "MessageAbortedError", "data": {"message": "Aborted"}}
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export))
    [cycle] = cycles_of(path)
    assert cycle.tabort == 1


def test_a_subagent_session_counts_with_its_parent_in_a_database(tmp_path: Path) -> None:
    parent = real_export()
    child = copy.deepcopy(real_export())
    child["info"] |= {"id": "ses_child", "parentID": parent["info"]["id"]}
    for m in child["messages"]:
        m["info"]["id"] = m["info"]["id"].replace("msg_", "msg_c")
        for p in m["parts"]:
            p["id"] = p["id"].replace("prt_", "prt_c")
    child["messages"][1]["parts"].insert(1, tool("write", 200, filePath="/work/notes.md") | {"id": "prt_c0write"})
    database = write_database(tmp_path / "opencode.db", [parent, child])
    [session] = opencode.parse(database)  # the child is no session of its own
    [cycle] = cycle_facts(session, ShipJudge(LATER))
    # The subagent's write counts as the cycle's edit; its prompt (the parent's instruction) and its step do not
    # count as the person's prompts or the main agent's steps.
    assert (cycle.u, cycle.a, cycle.tedits) == (1, 1, 1)


# --- odd records and crafted files --------------------------------------------------------------------------


def test_a_bad_cell_in_the_database_costs_that_record_only(tmp_path: Path) -> None:
    database = write_database(tmp_path / "opencode.db", [real_export()])
    db = sqlite3.connect(database)
    db.execute("INSERT INTO part VALUES ('prt_zz1', ?, ?, 0, 0, '{\"type\": \"text\", ')", ("msg_x", "ses_x"))
    real_session = real_export()["info"]["id"]
    db.execute("INSERT INTO part VALUES ('prt_zz2', 'msg_none', ?, 0, 0, '[1, 2]')", (real_session,))
    db.execute("INSERT INTO part VALUES ('prt_zz3', 'msg_none', ?, 0, 0, ?)", (real_session, "[" * 500 + "]" * 500))
    db.execute("INSERT INTO part VALUES ('prt_zz4', 'msg_none', ?, 0, 0, NULL)", (real_session,))
    db.commit()
    db.close()
    roots = Roots(tmp_path / "c", tmp_path / "x", tmp_path / "a", opencode=tmp_path)
    scanned = scan_logs(("opencode",), roots, now=LATER, progress=False)
    [cycle] = scanned.cycles
    assert_the_real_cycle(cycle)
    assert sum(scanned.report.lines_skipped().values()) == 3  # the array, the deep nesting, the NULL


def test_a_broken_record_file_in_the_storage_tree_costs_that_file_only(tmp_path: Path) -> None:
    session_file = write_storage(tmp_path, real_export())
    broken = tmp_path / "storage" / "part" / "msg_00edf2b18001pKqhM6F6RCe2OD" / "prt_00zz.json"
    broken.write_text('{"type": "text", "text": "cut sho')
    roots = Roots(tmp_path / "c", tmp_path / "x", tmp_path / "a", opencode=tmp_path)
    scanned = scan_logs(("opencode",), roots, now=LATER, progress=False)
    [cycle] = scanned.cycles
    assert_the_real_cycle(cycle)
    assert scanned.report.skipped_files[broken] == ("opencode", NOT_JSON)
    assert session_file in scanned.report.read


def test_a_truncated_export_is_skipped_saying_why(tmp_path: Path) -> None:
    text = EXPORT.read_text()
    path = tmp_path / "cut.json"
    path.write_text(text[: len(text) // 2])
    roots = Roots(tmp_path / "c", tmp_path / "x", tmp_path / "a", opencode=tmp_path)
    scanned = scan_logs(("opencode",), roots, now=LATER, progress=False)
    assert scanned.cycles == []
    assert scanned.report.skipped_files[path] == ("opencode", NOT_JSON)


def test_an_export_larger_than_the_bound_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(json_file, "MAX_BYTES", 1000)  # the real file is 3696 bytes
    path = tmp_path / "big.json"
    path.write_text(EXPORT.read_text())
    roots = Roots(tmp_path / "c", tmp_path / "x", tmp_path / "a", opencode=tmp_path)
    scanned = scan_logs(("opencode",), roots, now=LATER, progress=False)
    assert scanned.cycles == []
    assert scanned.report.skipped_files[path] == ("opencode", TOO_LARGE)


@pytest.mark.parametrize(
    "spoil",
    [
        lambda e: e["messages"][1]["info"].update(tokens="many", cost="free", time={"created": "yesterday"}),
        lambda e: e["messages"][1]["parts"][2].update(tokens={"input": -5, "output": 1e400}, cost=float("nan")),
        lambda e: e["messages"][1].update(parts={"not": "a list"}),
        lambda e: e["messages"].insert(0, "not a message"),
        lambda e: e["messages"][0]["parts"].append({"type": "tool", "tool": "edit", "state": "not an object"}),
        lambda e: e["messages"][1]["info"].update(modelID=["a", "list"], agent={"a": 1}),
        lambda e: e["messages"][1]["parts"].insert(1, {"type": "tool", "tool": "bash", "state": {"input": []}}),
    ],
)
def test_values_of_the_wrong_type_cost_nothing_but_themselves(tmp_path: Path, spoil: Any) -> None:
    export = real_export()
    spoil(export)
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export))
    for session in opencode.parse(path):
        for cycle in cycle_facts(session, ShipJudge(LATER)):
            assert cycle.u == 1
            assert 0 <= cycle.tcost < 5000


def test_a_file_that_is_no_export_is_told_apart(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"theme": "dark"}')
    reading = opencode.read(path)
    assert reading.sessions == []


def test_a_file_that_is_no_database_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "opencode.db"
    path.write_bytes(b"not a database at all" * 100)
    roots = Roots(tmp_path / "c", tmp_path / "x", tmp_path / "a", opencode=tmp_path)
    scanned = scan_logs(("opencode",), roots, now=LATER, progress=False)
    assert scanned.cycles == []
    assert path in scanned.report.skipped_files
