"""aider histories people published (tests/data/aider, see its SOURCE.md) against values counted by hand.

Counted from each file's outline: its `#### ` input blocks (first line), announcements, `Tokens:` reports,
`Applied edit` / `Commit` lines and y/n answers (`grep -n '^####\\|^> ' file`), reading the replies
between them where the count depends on them. Each history is copied outside any repository first.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pragmatikos_recorder import aider
from pragmatikos_recorder.canonical import canonical_model
from pragmatikos_recorder.cycles import cycle_facts
from pragmatikos_recorder.git_ship import ShipJudge
from pragmatikos_recorder.session import Kind, Session

from tests.data.paths import DATA_DIR
from tests.recorder.conftest import World, git

AIDER_DATA = DATA_DIR / "aider"


@dataclass(frozen=True)
class Facts:
    """The facts of one cycle these logs decide (the rest need a repository or times the log lacks)."""

    model: str
    pm: str
    bm: str
    u: int
    a: int
    tedits: int
    teerr: int
    tcost: float
    tabort: int


def cycles_of(name: str, tmp_path: Path) -> list[Facts]:
    copy = tmp_path / aider.HISTORY_NAME
    shutil.copyfile(AIDER_DATA / name, copy)
    reading = aider.read(copy)
    assert reading.skipped is None
    judge = ShipJudge(datetime(2030, 1, 1, tzinfo=UTC))
    return [
        Facts(c.model, c.pm, c.bm, c.u, c.a, c.tedits, c.teerr, round(c.tcost, 4), c.tabort)
        for session in reading.sessions
        for c in cycle_facts(session, judge)
    ]


def facts(model: str, *, planner: str = "", builder: str = "", **counts: int | float) -> Facts:
    """A cycle's expected facts; model names as the log spells them."""
    pm = canonical_model(planner) if planner else ""
    bm = canonical_model(builder or model)
    defaults: dict[str, int | float] = {"tedits": 0, "teerr": 0, "tcost": 0.0, "tabort": 0}
    return Facts(canonical_model(model), pm, bm, **(defaults | counts))  # type: ignore[arg-type]


def test_a_history_from_before_token_reports_is_read(tmp_path: Path) -> None:
    # aider 0.14.1: header `Model: gpt-4`, no `Tokens:` line anywhere, so each reply is one step and the cost
    # is unknown (0). A commit (`> Commit …`) ends a cycle at the next prompt.
    gpt4 = "gpt-4"
    expected = [
        # Session 1 (2023-10-01 23:06:04). "/help" is a command. "Hello!" and the Junk.java request: 2 prompts,
        # 2 replies, 1 edit, commit 91cbe56.
        facts(gpt4, u=2, a=2, tedits=1),
        # The text adventure: 1 prompt, 1 reply, 1 edit, commit 5a377f2.
        facts(gpt4, u=1, a=1, tedits=1),
        # "rename the file": a reply whose new file is refused ("Allow creation of new file …? n" -> tabort);
        # "inventory items": a reply, then "Add these files to the chat? y" and a second reply; 1 edit, commit.
        facts(gpt4, u=2, a=3, tedits=1, tabort=1),
        # "Wow, amazing!" and the equals() fix: 2 prompts, 2 replies, 1 edit, commit 3b92865. Then /quit, /help.
        facts(gpt4, u=2, a=2, tedits=1),
        # Session 2 (2023-10-02 16:17:33). The to-do app prompt (1 reply); `/add` of TodoListController.cs is
        # answered by the model (aider 0.14 asks it once the chat has begun): a second reply, its edit.
        # The commits aider made of added files (8366413 …) are commits too.
        facts(gpt4, u=1, a=2, tedits=1),
        # "What are the next steps?": 1 reply applying 3 edits, commit 78393aa.
        facts(gpt4, u=1, a=1, tedits=3),
        # appsettings content; connection string; controller: one prompt, reply, edit, commit each.
        facts(gpt4, u=1, a=1, tedits=1),
        facts(gpt4, u=1, a=1, tedits=1),
        facts(gpt4, u=1, a=1, tedits=1),
        # "Nice!" (a reply, no edit) and the Index.cshtml content (reply, edit, commit 8ed34bd).
        facts(gpt4, u=2, a=2, tedits=1),
        # Migrations: the prompt, "add Test2/Migrations" typed without its slash (a prompt), 2 replies, 1 edit.
        # The file content aider printed unprefixed after "Allow creation of new file …? y" is no reply.
        facts(gpt4, u=2, a=2, tedits=1),
        # Five prompts about dotnet errors (two pasted over three `####` lines each: one input), 5 replies,
        # 1 edit ("No changes made to git tracked files": no commit), and the session ends.
        facts(gpt4, u=5, a=5, tedits=1),
    ]
    assert cycles_of("kevinmatz-AiderExperiments.md", tmp_path) == expected


def test_model_switches_and_one_turn_code_commands_are_followed(tmp_path: Path) -> None:
    # Models: gemini/gemini-2.5-pro-exp-03-25, then openai/qwen3:32b, gemini-2.5-pro-preview, deepseek.
    gemini_exp, deepseek = "gemini/gemini-2.5-pro-exp-03-25", "openai/deepseek.deepseek-chat"
    expected = [
        # The overview prompt: 3 token reports (aider asked again after files were added); then two
        # `/code msg` commands, each echoed as its message: the echo is the one prompt (u 3, not 5).
        # Token reports 32, 55, 67, 264, 453 -> 5 steps; edits App.js, styles.css, ButtonsContainer.jsx,
        # styles.css. No cost in these reports (free model). `/commit` -> Commit c339495.
        facts(gemini_exp, u=3, a=5, tedits=4),
        # `/code add a nyancat…`: 1 prompt, 1 reply, 1 edit, `/commit` -> 26a3c45.
        facts(gemini_exp, u=1, a=1, tedits=1),
        # From the bubble prompt to the next `/commit` (a89b098): prompts at lines 595, 796, 1229 (after
        # `/model openai/qwen3:32b`), 1302, 1461, 1584, 1820 (after `/model gemini`), 1855 (after
        # `/model openai/deepseek.deepseek-chat`), 2212, 2656 = 10. The reply to 1584 has `#### If you're
        # using **npm**:` headings of its own: reply text, not prompts.
        # Steps: gemini-exp 2 (787, 1069), qwen 4 (1300, 1456, 1581, 1641), deepseek 6 (1876, 2147, 2202,
        # 2484, 2653, 2713) -> builder deepseek; the session's model: gemini-exp 8 steps ties deepseek 8,
        # first seen wins. Edits: 3 + 1 failed (1069, reported twice: "did not conform…" then "# 1
        # SEARCH/REPLACE block failed to match!") + 1 + 1 + 1 (the odd "Applied edit to If you're using
        # **npm**") + 1 + 2 + 1 + 1 = 12. Cost: qwen .0014 + .0017 + .0018 + .0021, deepseek .00062 + .0028
        # + .0019 + .0033 + .0026 + .0025 = 0.02072. tabort: "Create new file? n" and ^C while retrying.
        facts(gemini_exp, builder=deepseek, u=10, a=12, tedits=12, teerr=1, tcost=0.0207, tabort=1),
        # README-j.md: 2 prompts, 2 deepseek replies (.0030 + .0033), 2 edits.
        facts(gemini_exp, builder=deepseek, u=2, a=2, tedits=2, tcost=0.0063),
    ]
    assert cycles_of("AndrewJacop-Simple-Calulator.md", tmp_path) == expected


def test_ask_turns_have_no_planner_and_architect_turns_hand_their_plan_to_the_editor(tmp_path: Path) -> None:
    # A code-mode session (`whole` edit format); the editor model is never announced, so it is the main one.
    gemini = "openai/google_genai.gemini-2.5-pro-preview-05-06"
    expected = [
        # Four `/ask msg` turns: prompts (u) whose replies cost .02 + .02 + .03 + .03 but neither plan nor
        # build. Then `/architect save that file…`: a prompt, the plan (.03), the plan handed to the editor
        # (no prompt), its edit of task.md (.02). u 5, a 2, cost 0.15.
        facts(gemini, planner=gemini, u=5, a=2, tedits=1, tcost=0.15),
        # `/architect block 1`: a plan (.02), files added and a second plan (.02), handed on; editor .0026.
        facts(gemini, planner=gemini, u=1, a=3, tcost=0.0426),
        # Blocks 2, 3 and 4: plan and build each, committed with /com or /commit. .03 + .02; .04 + .04;
        # .05 + .07; edits 2, 1, 1.
        facts(gemini, planner=gemini, u=1, a=2, tedits=2, tcost=0.05),
        facts(gemini, planner=gemini, u=1, a=2, tedits=1, tcost=0.08),
        facts(gemini, planner=gemini, u=1, a=2, tedits=1, tcost=0.12),
        # `/ask what would be the next step ?` (.03) then `/architect` block 5: .05 + .07, 1 edit.
        facts(gemini, planner=gemini, u=2, a=2, tedits=1, tcost=0.15),
    ]
    assert cycles_of("AndrewJacop-doc_processor.md", tmp_path) == expected


def test_group_answers_logged_as_input_are_not_prompts(tmp_path: Path) -> None:
    # Architect mode (claude-3.7-sonnet plans and edits). One prompt (line 15, 19 `####` lines of French);
    # `#### Add file to the chat? … [Yes]: all` is an answer, not a prompt. Plan $0.40, handed to the editor
    # (`#### # Création des pages…`), build $0.47 writing 4 files, commit db6d997. The `^C` after it only
    # leaves aider: no intervention.
    sonnet = "openrouter/anthropic/claude-3.7-sonnet"
    expected = [facts(sonnet, planner=sonnet, u=1, a=2, tedits=4, tcost=0.87)]
    assert cycles_of("AntoBel4-expert-local-v2.md", tmp_path) == expected


def test_blank_inputs_are_no_prompts_and_a_watched_files_request_is_one(tmp_path: Path) -> None:
    # aider 0.83.1 run with --watch-files: the person writes the request as an "AI!" comment in a file and
    # aider says `> Processing your request...` (no `####` line). Counted from `grep -n '^####\|^# aider\|
    # Processing your request\|^> Tokens\|^> Applied\|\^C' file`, reading the lines around each.
    gemini = "gemini/gemini-2.5-pro-preview-05-06"
    expected = [
        # Session 1: one request (line 12), one reply (98, $0.02), edits of config.kdl and move-focus.sh (101,
        # 102); then six `#### <blank>` lines (113-123), Enter pressed on an empty line: sent nowhere.
        facts(gemini, u=1, a=1, tedits=2, tcost=0.02),
        # Session 2: requests at 135, 167, 205 (replies .02 each, one edit each) and 242, whose reply the person
        # stopped with ^C (244): an intervention. No commit (--no-auto-commits): one cycle.
        facts(gemini, u=4, a=3, tedits=3, tcost=0.06, tabort=1),
        # Session 3: request 260, reply .0074, one edit. Session 4: requests 317, 376, 438, replies .0100 +
        # .01 + .01 (rounded as aider prints them), one edit each.
        facts(gemini, u=1, a=1, tedits=1, tcost=0.0074),
        facts(gemini, u=3, a=3, tedits=3, tcost=0.03),
    ]
    assert cycles_of("marcinjahn-dotfiles-niri.md", tmp_path) == expected


def test_an_ai_question_in_a_watched_file_is_one_ask_turn(tmp_path: Path) -> None:
    # aider 0.84.0 with --watch-files, two sessions of a longer history (line numbers of the file here). An
    # "AI!" comment is `> Processing your request...` alone; an "AI?" one is run as /ask, so aider also echoes
    # its prompt (`#### Find the "AI" comments below…`): one request, whose replies neither plan nor build.
    # Counted from `grep -n '^####\|^# aider\|Processing your request\|^> Tokens\|^> Applied\|^> Commit
    # \|did not conform\|failed to match\|\^C' file`; each `Commit` before the next request ends a cycle.
    gemini = "gemini/gemini-2.5-pro-preview-05-06"
    expected = [
        # Typed prompts 14 and 29 (replies .01, .01), edit of CONVENTIONS.md (59), commit 77a7264.
        facts(gemini, u=2, a=2, tedits=1, tcost=0.02),
        # Requests 64 (reply .03, edit of index.ts) and 264 (reply .02, edit of CONVENTIONS.md), each committed.
        facts(gemini, u=1, a=1, tedits=1, tcost=0.03),
        facts(gemini, u=1, a=1, tedits=1, tcost=0.02),
        # Three "AI?" requests (318/320, 355/357, 392/394), answered for .02, .02, .02 and, after a file was added,
        # .01; then the "AI!" request 458: replies .03 (one block failed: "did not conform" and "# 1
        # SEARCH/REPLACE block failed to match", one failure), .03 (failed again), .03 (applied, commit e2fc092).
        facts(gemini, u=4, a=3, tedits=3, teerr=2, tcost=0.16),
        # Session 2 (line 1043): requests 1055, 1090, 1147, each a reply of .02 and one committed edit; `/undo`
        # (1209) is a command; typed prompts 1214 and 1222 (replies .02, .02), no edit. The ^C after the last
        # reply only leaves aider.
        facts(gemini, u=1, a=1, tedits=1, tcost=0.02),
        facts(gemini, u=1, a=1, tedits=1, tcost=0.02),
        facts(gemini, u=1, a=1, tedits=1, tcost=0.02),
        facts(gemini, u=2, a=2, tcost=0.04),
    ]
    assert cycles_of("Aquaticat-Monochromatic.md", tmp_path) == expected


def test_a_history_whose_replies_name_no_model_is_skipped_with_a_reason(tmp_path: Path) -> None:
    # The first session of the 0.14.1 history without its `Model:` line: replies, but by no named model.
    lines = (AIDER_DATA / "kevinmatz-AiderExperiments.md").read_text(encoding="utf-8").splitlines(keepends=True)
    first_session = lines[: next(i for i, line in enumerate(lines) if line.startswith("# aider chat") and i > 2)]
    history = tmp_path / aider.HISTORY_NAME
    history.write_text("".join(line for line in first_session if not line.startswith("> Model:")))
    reading = aider.read(history)
    assert reading.sessions == []
    assert reading.skipped is not None
    assert reading.skipped.path == history
    assert "model" in reading.skipped.reason


@pytest.mark.parametrize("name", sorted(p.name for p in AIDER_DATA.glob("*.md") if p.name != "SOURCE.md"))
def test_a_history_cut_short_anywhere_still_reads(name: str, tmp_path: Path) -> None:
    # A history being written as it is read ends anywhere: each cut reads, with no more prompts than the whole.
    text = (AIDER_DATA / name).read_text(encoding="utf-8")
    history = tmp_path / aider.HISTORY_NAME
    history.write_text(text)
    whole = prompts(aider.read(history).sessions)
    for end in range(0, len(text), max(1, len(text) // 40)):
        history.write_text(text[:end])
        assert prompts(aider.read(history).sessions) <= whole


def prompts(sessions: list[Session]) -> int:
    return sum(1 for s in sessions for e in s.events if e.kind is Kind.PROMPT)


def test_commit_times_come_from_the_repository_for_the_short_hashes_aider_prints(world: World) -> None:
    # The fixture repository's aider commit, made at 2025-03-12 12:05:00 local time (conftest.py).
    short = git(world.cli, "log", "-1", "--format=%h", "--author=(aider)").strip()
    stamp = int(git(world.cli, "log", "-1", "--format=%ct", short).strip())
    times = aider.CommitTimes()
    assert times.of(world.cli, short) == datetime.fromtimestamp(stamp, UTC)
    assert times.of(world.cli, "0000000") is None  # a hash the repository does not know
