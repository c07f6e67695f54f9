"""Goose sessions: a crafted sessions.db built from tests/data/goose/crafted-schema9.sql, then crafted damage.

Hand counts: the rows of `crafted-schema9.sql` were read one by one. Session 20251009_1 has 28 message
rows: 5 typed prompts (m01, m11, m15, m19, m23; m24 is Goose's own, userVisible false), 12 model responses
(m02, m04, m06, m08, m10, m12, m14, m16, m18, m20, m25 stored as two rows, m27; m22 is the line Goose adds
after Ctrl-C and m28 a notification), 4 edit calls (t2, t3 str_replace, t7 file_write, t8 write; t1 only
views), 3 shell calls (t4, t5, t6). Its 12000/1200 accumulated tokens are 1000/100 a step.
"""

from __future__ import annotations

import shutil
import sqlite3
import threading
from collections import Counter
from pathlib import Path

import pytest
from pragmatikos_recorder import cli, goose
from pragmatikos_recorder.cycles import cycle_facts
from pragmatikos_recorder.git_ship import ShipJudge
from pragmatikos_recorder.jsonl import NOT_JSON, TOO_LARGE, TOO_MANY_VALUES, ReadReport, reporting_to
from pragmatikos_recorder.scan import Roots, scan_logs
from pragmatikos_recorder.session import Event, Kind, Session, Tokens
from pragmatikos_recorder.skips import Reading, Skipped

from tests.data.paths import DATA_DIR
from tests.recorder.conftest import NOW
from tests.recorder.test_memory_bound import TIME_BOUND_S, run_and_tell_peak

SQL = DATA_DIR / "goose" / "crafted-schema9.sql"


def database(root: Path, sql: str | None = None) -> Path:
    """A Goose data folder under `root` whose sessions/sessions.db is built from `sql` (the crafted sample)."""
    path = root / "sessions" / goose.DB_NAME
    path.parent.mkdir(parents=True)
    with sqlite3.connect(path) as connection:
        connection.executescript(SQL.read_text() if sql is None else sql)
    connection.close()
    return path


def read_reporting(path: Path) -> tuple[list[Session], ReadReport, Reading]:
    report = ReadReport()
    with reporting_to(report, "goose"):
        reading = goose.read(path)
    return reading.sessions, report, reading


def by_id(sessions: list[Session]) -> dict[str, Session]:
    return {s.session_id: s for s in sessions}


def kinds(session: Session) -> Counter[str]:
    return Counter(e.kind.value for e in session.events)


def steps(session: Session) -> list[Event]:
    return [e for e in session.events if e.kind is Kind.STEP]


def test_the_persons_sessions_are_read_and_the_others_left_out(tmp_path: Path) -> None:
    sessions, report, reading = read_reporting(database(tmp_path))
    assert reading.skipped is None
    # 20251009_2 is a sub-agent's session (not read), 20251009_3 records no model (told), 20251010_1 is read.
    assert sorted(by_id(sessions)) == ["20251009_1", "20251010_1"]
    assert sorted(report.skipped_lines.values()) == sorted(
        [("goose", goose.SESSION_NO_MODEL), ("goose", NOT_JSON), ("goose", goose.BAD_MESSAGE)]
    )
    assert report.read == {tmp_path / "sessions" / goose.DB_NAME: "goose"}


def test_the_crafted_session_counts_as_counted_by_hand(tmp_path: Path) -> None:
    session = by_id(read_reporting(database(tmp_path))[0])["20251009_1"]
    counted = kinds(session)
    assert (counted["prompt"], counted["step"], counted["edit"], counted["command"]) == (5, 12, 4, 3)
    assert (counted["commit"], counted["abort"]) == (1, 1)  # t5 committed; Ctrl-C on t7
    assert {(s.model, s.provider, s.phase) for s in steps(session)} == {("claude-sonnet-4-5", "anthropic", "build")}
    assert {s.tokens for s in steps(session)} == {Tokens(input=1000, output=100)}
    edits = [(e.files, e.failed, e.rejected) for e in session.events if e.kind is Kind.EDIT]
    assert edits == [
        ((Path("/work/app/app.py"),), True, False),  # t2: isError, no match
        ((Path("/work/app/app.py"),), False, False),  # t3
        ((Path("/work/app/notes.md"),), False, True),  # t7: interrupted before it ran
        ((Path("/work/app/docs/notes.md"),), False, False),  # t8, relative to working_dir
    ]
    commands = [(e.verify, e.rejected) for e in session.events if e.kind is Kind.COMMAND]
    assert commands == [(True, False), (False, False), (False, True)]  # pytest; git commit; rm -rf declined


def test_the_crafted_session_makes_two_cycles(tmp_path: Path) -> None:
    session = by_id(read_reporting(database(tmp_path))[0])["20251009_1"]
    first, second = cycle_facts(session, ShipJudge(NOW))
    # Cycle 1, m01-m14: prompts m01, m11; steps m02-m14 (7); edits t2 (failed), t3; pytest after t3.
    assert (first.u, first.a, first.tedits, first.teerr, first.tver, first.tabort) == (2, 7, 2, 1, 1, 0)
    # Cycle 2 starts at the prompt typed after the commit: prompts m15, m19, m23; steps m16-m27 (5);
    # edits t7 (interrupted), t8; nothing run after t8; a declined command and a Ctrl-C.
    assert (second.u, second.a, second.tedits, second.teerr, second.tver, second.tabort) == (3, 5, 2, 0, 0, 1)
    # Each step 1000 input and 100 output tokens of claude-sonnet-4.5 at $3 and $15 a million: $0.0045.
    assert (first.tcost, second.tcost) == (pytest.approx(0.0315), pytest.approx(0.0225))
    # Seconds from the row each step answers: 4 4 4 3 3 3 2, then 3 2 2 1 2 (m25 answers m24).
    assert (first.latmed, second.latmed) == (3.0, 2.0)
    assert (first.bm, first.bp, first.pm, first.role) == ("claude-sonnet-4.5", "anthropic", "", 2)


def test_a_gateway_provider_gives_way_to_the_models_vendor_and_last_request_tokens_stand_in(tmp_path: Path) -> None:
    session = by_id(read_reporting(database(tmp_path))[0])["20251010_1"]
    # o02 is not JSON and o03 has a role Goose never writes: only o04 is a step.
    [step] = steps(session)
    assert (step.model, step.provider, step.tokens) == ("openai/gpt-4o", "openai", Tokens(input=800, output=40))


def test_a_database_before_schema_6_is_skipped_saying_it_has_no_model(tmp_path: Path) -> None:
    sql = (
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, working_dir TEXT, accumulated_input_tokens INTEGER);"
        "CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, content_json TEXT,"
        " created_timestamp INTEGER);"
    )
    sessions, _, reading = read_reporting(database(tmp_path, sql))
    assert sessions == []
    assert reading.skipped is not None and reading.skipped.reason == goose.NO_MODEL


def test_legacy_session_files_are_told_only_when_no_database_sits_beside_them(tmp_path: Path) -> None:
    folder = tmp_path / "old" / "sessions"
    folder.mkdir(parents=True)
    (folder / "20250101_1.jsonl").write_text('{"working_dir": "/work", "description": "x"}\n')
    [legacy] = goose.find_logs((tmp_path / "old",))
    assert goose.read(legacy).skipped == Skipped(legacy, goose.LEGACY)
    db = database(tmp_path / "new")
    (db.parent / "20250101_1.jsonl").write_text("{}\n")  # imported into the database on first start
    assert goose.find_logs((tmp_path / "new",)) == [db]
    assert goose.find_logs((db.parent,)) == [db]  # --goose-dir may name the sessions folder itself


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("content_json", "42"),
        ("content_json", '\'[{"type": "text", "text": 5}, 7, "x"]\''),
        ("created_timestamp", "'yesterday'"),
        ("role", "7"),
        ("metadata_json", "'{{{{'"),
    ],
)
def test_a_row_of_wrong_types_costs_that_row_only(tmp_path: Path, column: str, value: str) -> None:
    path = database(tmp_path)
    with sqlite3.connect(path) as connection:
        connection.execute(f"UPDATE messages SET {column} = {value} WHERE message_id = 'm10'")  # noqa: S608
    connection.close()
    session = by_id(read_reporting(path)[0])["20251009_1"]
    assert 11 <= len(steps(session)) <= 12  # m10 lost at most; a bare time or bad metadata keep it
    assert kinds(session)["prompt"] == 5


def test_wrong_types_in_the_sessions_row_are_not_tokens_or_a_model(tmp_path: Path) -> None:
    path = database(tmp_path)
    with sqlite3.connect(path) as connection:
        connection.execute(
            "UPDATE sessions SET accumulated_input_tokens = '12k', model_config_json = '[1]' WHERE id = '20251010_1'"
        )
        connection.execute("UPDATE sessions SET accumulated_output_tokens = -5 WHERE id = '20251009_1'")
    connection.close()
    sessions, report, _ = read_reporting(path)
    assert sorted(by_id(sessions)) == ["20251009_1"]  # 20251010_1 now names no model
    # The accumulated pair has a count that is none: the last request's pair (9000/300) stands in.
    assert {s.tokens for s in steps(by_id(sessions)["20251009_1"])} == {Tokens(input=750, output=25)}
    assert Counter(why for _, why in report.skipped_lines.values())[goose.SESSION_NO_MODEL] == 2


def test_a_row_over_the_size_cap_is_passed_over_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = database(tmp_path)
    monkeypatch.setattr(goose, "MAX_LINE_BYTES", 200)  # m02, m04, m06 (steps) and m17 hold more than this
    sessions, report, _ = read_reporting(path)
    # 12 less m02, m04, m06; with m17 (a tool result) gone, m18 reads as more of m16's response.
    assert len(steps(by_id(sessions)["20251009_1"])) == 8
    assert Counter(why for _, why in report.skipped_lines.values())[TOO_LARGE] == 4


@pytest.mark.parametrize("damage", ["cut in half", "not a database"])
def test_a_damaged_database_is_skipped_saying_why(tmp_path: Path, damage: str) -> None:
    path = database(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] if damage == "cut in half" else b"SQLite format 2\x00" + data[16:])
    sessions, _, reading = read_reporting(path)
    assert reading.skipped is not None and reading.skipped.reason == goose.UNREADABLE_DB
    assert len(sessions) <= 2


def test_a_database_locked_by_goose_is_skipped_after_a_short_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = database(tmp_path)
    monkeypatch.setattr(goose, "BUSY_SECONDS", 0.2)
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("PRAGMA journal_mode = DELETE")
    holder.execute("BEGIN EXCLUSIVE")  # what a writer mid-transaction holds in rollback-journal mode
    try:
        done: list[Reading] = []
        reader = threading.Thread(target=lambda: done.append(goose.read(path)))
        reader.start()
        reader.join(timeout=10)
        assert not reader.is_alive()
        [reading] = done
        assert reading.sessions == []
        assert reading.skipped is not None and reading.skipped.reason == goose.UNREADABLE_DB
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert len(goose.read(path).sessions) == 2  # read again once Goose lets go


def test_a_database_being_written_in_wal_mode_is_read(tmp_path: Path) -> None:
    path = database(tmp_path)
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA journal_mode = WAL")  # as Goose opens it
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("DELETE FROM messages")  # not yet committed: the reader sees the last committed state
    try:
        assert len(goose.read(path).sessions) == 2
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def test_the_scan_reads_a_goose_folder_named_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PRAGMATIKOS_RECORDER_CONFIG", str(tmp_path / "config"))
    database(tmp_path / "goose")
    argv = ["scan", "--harness", "goose", "--goose-dir", str(tmp_path / "goose"), "--aider-root", str(tmp_path)]
    assert cli.main(argv) == 0
    out, err = capsys.readouterr()
    header, *rows = out.splitlines()
    assert len(rows) == 3  # two cycles of 20251009_1, one of 20251010_1
    assert {dict(zip(header.split(), row.split(), strict=True))["harness"] for row in rows} == {"goose"}
    assert "goose: 1 a session that records no model" in err
    roots = Roots(tmp_path / "c", tmp_path / "x", tmp_path, goose=(tmp_path / "goose",))
    assert len(scan_logs(("goose",), roots, now=NOW, progress=False).cycles) == 3


def test_a_crafted_row_near_the_size_cap_is_weighed_and_passed_over_in_bounded_memory(tmp_path: Path) -> None:
    """A 60 MB content_json of `[{},{},…]` would take gigabytes once decoded; it is weighed and passed over."""
    path = database(tmp_path / "goose")
    with sqlite3.connect(path) as connection:
        huge = "[" + ",".join(["{}"] * 20_000_000) + "]"
        connection.execute("UPDATE messages SET content_json = ? WHERE message_id = 'm10'", (huge,))
        del huge
    connection.close()
    done, peak, took = run_and_tell_peak(
        ["scan", "--harness", "goose", "--goose-dir", str(tmp_path / "goose")], tmp_path
    )
    assert f"  goose: 1 {TOO_MANY_VALUES}" in done.stderr.splitlines()
    # The interpreter (~40 MB), the row read through a blob handle (60 MB) and its copies while weighed.
    assert peak < (40 + 3 * 60 + 40) << 10, f"peak RSS {peak >> 10} MB"
    assert took < TIME_BOUND_S, f"took {took:.1f} s"


def test_default_roots_follow_goose_path_root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GOOSE_PATH_ROOT", str(tmp_path))
    assert goose.default_roots()[0] == tmp_path / "data"
    shutil.rmtree(tmp_path, ignore_errors=True)
