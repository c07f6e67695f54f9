"""Which shell command lines test, build or check (`tver`), read by command word, not by substring."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pragmatikos_recorder.commands import is_commit_command, is_verify_command, simple_commands

from tests.data.paths import DATA_DIR

SAMPLES = DATA_DIR / "agent-shell-commands"
BASH_CALL_RE = re.compile(r"^🔧 Tool: Bash\nInput: (\{.*?^\})$", re.MULTILINE | re.DOTALL)


def bash_commands(path: Path) -> list[str]:
    """The `command` of every Bash call in a published agent log, in order."""
    return [json.loads(block)["command"] for block in BASH_CALL_RE.findall(path.read_text(encoding="utf-8"))]


def numbered(commands: list[str], holds: Callable[[str], bool]) -> list[int]:
    return [number for number, command in enumerate(commands, 1) if holds(command)]


def test_it_finds_the_test_and_build_runs_of_a_real_session_and_nothing_else() -> None:
    commands = bash_commands(SAMPLES / "merge-feature-branch.md")
    assert len(commands) == 115  # 115 `🔧 Tool: Bash` lines in the file
    # Counted by hand, reading all 115 calls: `npm run build` (14, 17, 20, 26, 30 after `git add &&`, 32),
    # `python -m pytest` / `python3 -m pytest` (42, 43), `npm run lint` (44), `npx playwright test` (50),
    # `npm exec playwright -- test` (52), node_modules/.bin/playwright test (54). Not: `npm run dev` (48),
    # `npx @playwright/test file` (51: runs the playwright binary with no `test` command), `echo "=== Testing
    # Homepage ==="` (55), `echo "test"` (78), `find . -name "*.test.*"` (34), `ls *.spec.ts` (59).
    assert numbered(commands, is_verify_command) == [14, 17, 20, 26, 30, 32, 42, 43, 44, 50, 52, 54]
    # By hand: `git commit --no-edit` (13), `git add && git commit --amend` (19), the heredoc message (33).
    assert numbered(commands, is_commit_command) == [13, 19, 33]


def test_it_reads_inside_a_codex_shell_wrapper_and_not_inside_quotes() -> None:
    commands = bash_commands(SAMPLES / "latex-equation-editor.md")
    assert len(commands) == 44
    # By hand: only call 39 runs anything that checks (`npx playwright test -c … spec.ts`). Calls 40 and 41
    # run the `test -d` builtin; 5, 18, 26, 27 and 32 name playwright or "test" only inside quotes or
    # as a search pattern; 21 to 23 pass "test-driven-development" and "verification" as arguments.
    assert numbered(commands, is_verify_command) == [39]
    assert numbered(commands, is_commit_command) == []


def shell_command_calls(path: Path) -> list[str]:
    """The `command` of every `shell_command` call in a Codex rollout, in order."""
    commands = []
    for line in path.read_text(encoding="utf-8").splitlines():
        payload = json.loads(line)["payload"]
        if payload.get("type") == "function_call" and payload.get("name") == "shell_command":
            commands.append(json.loads(payload["arguments"])["command"])
    return commands


def test_it_reads_a_windows_command_word_as_the_bare_word() -> None:
    commands = shell_command_calls(DATA_DIR / "codex" / "Krosss0001-rave-era-project-windows.jsonl")
    # The six PowerShell calls of a real Windows session (tests/data/codex/SOURCE.md): five `Select-String` and
    # `Get-Content` reads, then `npm.cmd run build` (the sixth), which is `npm run build`.
    assert len(commands) == 6
    assert numbered(commands, is_verify_command) == [6]


@pytest.mark.parametrize(
    ("line", "verifies"),
    [("npm.cmd run build", True), ("NPM.CMD test", True), ("npx.cmd playwright test", True), ("pytest.exe -q", True),
     ("python.exe -m pytest", True), ("uv.exe run pytest", True), ("gradlew.bat build", True),
     ("cargo.EXE check", True), ("pnpm.cmd lint", True), ("npm.cmd install", False), ("git.exe status", False),
     ("npm.cmd run dev", False), ("cargo.exe run", False)],
)  # fmt: skip
def test_a_command_word_with_a_windows_suffix_reads_as_the_bare_word(line: str, verifies: bool) -> None:
    # Crafted lines: the suffixes Windows adds (.cmd, .exe, .bat, .ps1, in any case) name the same program.
    assert is_verify_command(line) is verifies


@pytest.mark.parametrize(
    ("line", "verifies"),
    [
        # Toolchains the former substring rule missed.
        ("mix test", True),
        ("MIX_ENV=test mix test --failed", True),
        ("mix format --check-formatted", True),
        ("deno test -A", True),
        ("deno task check", True),
        ("deno fmt --check", True),
        ("xcodebuild -scheme App -destination 'platform=iOS Simulator,name=iPhone 15' test", True),
        ("bin/rails test test/models", True),
        ("bundle exec rails test:system", True),
        ("php artisan test --compact tests/Feature/TeamControllerTest.php", True),
        ("./vendor/bin/pest tests/Unit/TaskServiceTest.php", True),
        ('sbt "testOnly *FooSpec"', True),
        ("sbt clean compile", True),
        ("flutter test", True),
        ("dart analyze", True),
        ("npx playwright test --config playwright.config.ts", True),
        ("just test", True),
        ("task lint", True),
        ('node --check "src/alpha-module.mjs"', True),
        ("node --test", True),
        # Make and the like: a target named for checking or building, or none.
        ("make", True),
        ("make -C web lint", True),
        ("make install", False),
        ("echo 'we should make it'", False),
        ('git commit -m "make the build pass"', False),
        # Wrappers and prefixes in front of the command word.
        ("FOO=1 uv run --with pytest-xdist pytest -n 4", True),
        ("poetry run mypy .", True),
        ("sudo -u app env RAILS_ENV=test bundle exec rspec", True),
        ("time cargo +nightly test", True),
        ("timeout 60 go test ./...", True),
        (".venv/bin/python -m pytest -q", True),
        ("python manage.py test", True),
        ("pnpm --filter web test", True),
        ("yarn workspace app lint", True),
        ("npx -y tsc --noEmit", True),
        ("npm run dev", False),
        ("npm ci", False),
        ("pnpm install", False),
        # Shell structure: subshells, loops, conditions, comments, heredocs, line continuations.
        ("(cd web && npm run lint)", True),
        ("for f in a b; do pytest $f; done", True),
        ("if make check; then echo ok; fi", True),
        ("# run the tests later\nls", False),
        ("python3 - <<'EOF'\nmake it so\nEOF", False),
        ("cd web && \\\nnpm test", True),
        ("bash -lc 'cargo clippy -- -D warnings'", True),
        ("sh -c 'ls tests'", False),
        ("bash -o pipefail -c 'go vet ./... | tee vet.log'", True),
        # Containers: the command run inside counts.
        ("docker compose exec web python manage.py test", True),
        ("docker compose run --rm -e CI=1 app pytest -q", True),
        ("docker run --rm -v $PWD:/app -w /app node:20 npm test", True),
        ("docker compose up -d", False),
        ("docker exec -it db psql -U app", False),
        # Text that only mentions a tool.
        ('grep -n "pytest" pyproject.toml', False),
        ("cat web/tests/a.spec.ts", False),
        ('echo "unclosed && pytest', False),  # an unclosed quote: the shell runs nothing after it
        ("ruff format .", False),
        ("ruff format --check .", True),
    ],
)
def test_it_judges_a_command_line_by_its_command_words(line: str, verifies: bool) -> None:
    assert is_verify_command(line) is verifies


def test_it_splits_a_line_into_simple_commands_without_redirections() -> None:
    assert simple_commands("cd web && npm run build 2>&1 | head -100; echo done") == [
        ("cd", "web"),
        ("npm", "run", "build"),
        ("head", "-100"),
        ("echo", "done"),
    ]


@pytest.mark.parametrize(
    ("line", "commits"),
    [
        ("git commit -m 'x'", True),
        ("git -C repo -c user.name=x commit --amend", True),
        ("cd repo && git add . && git commit -qm wip", True),
        ('echo "git commit later"', False),
        ("git log --grep commit", False),
    ],
)
def test_it_finds_a_git_commit_by_its_subcommand(line: str, commits: bool) -> None:
    assert is_commit_command(line) is commits


PIECES = [*"ab -=@/\\'\"#;&|()<>\n\t$`{}!0129", "EOF", "<<", "<<'EOF'", "bash -c ", "npx ", "uv run ", "git "]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_it_reads_any_text_without_raising(line: str) -> None:
    # A log's command can be anything (truncated, unbalanced, odd): one odd line costs nothing.
    assert isinstance(is_verify_command(line), bool)
    assert isinstance(is_commit_command(line), bool)
