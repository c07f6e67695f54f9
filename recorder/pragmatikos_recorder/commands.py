"""Shell command lines read as a shell reads them: which simple commands they run.

A log records what the agent typed, e.g. `cd web && npx playwright test 2>&1 | tail -50`. A
command counts as a test, build or check (the contract's `tver`) only when the *command word* of
one of its simple commands does, so `echo 'we should make it'` and `ls | rg pytest` do not. The
line is split with `shlex` on `;`, `&&`, `||`, `|`, `&`, newlines and parentheses; quoted text
stays one word and is never read as a command, except the script `bash -c '…'` is given. Env
assignments and wrappers (`sudo`, `env`, `time`, `npx`, `uv run`, `bundle exec`, …) are skipped,
then the command word and its subcommand are looked up in one table.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Final

SEPARATOR_CHARS: Final = frozenset(";&|\n()")
ASSIGNMENT_RE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
# `<<EOF`, `<<-'EOF'`, `<< "EOF"`: the lines after it up to the delimiter are data, not commands.
HEREDOC_RE: Final = re.compile(r"(?<!<)<<(-?)(?!<)\s*(['\"]?)\\?([A-Za-z_][A-Za-z0-9_]*)\2")
# Words a shell reads before a command word (`if pytest; then …`, `for …; do make; done`).
SHELL_KEYWORDS: Final = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}"})
SHELLS: Final = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish"})
PYTHONS_RE: Final = re.compile(r"(?:python|pypy)[0-9.]*|py")
# Names of package scripts, make targets and recipes that test, build or check ("test:e2e", "type-check").
VERIFY_NAME_PARTS: Final = frozenset(
    {"test", "tests", "spec", "build", "lint", "check", "checks", "typecheck", "types", "tsc", "e2e", "verify"}
    | {"validate", "compile", "ci", "clippy", "vet", "all"}
)
NAME_PART_RE: Final = re.compile(r"[:/._-]")


@dataclass(frozen=True, slots=True)
class Verifies:
    """When a command word tests, builds or checks; with no field set, every run of it does.

    `subcommands`: its first argument (or, with `anywhere`, any argument) is one of these;
    `flags`: one of these options is given; `script_names`: its first (or any) argument names a
    script, target or recipe that verifies (VERIFY_NAME_PARTS), and with `bare` so does no argument.
    """

    subcommands: frozenset[str] = frozenset()
    flags: frozenset[str] = frozenset()
    script_names: bool = False
    anywhere: bool = False
    bare: bool = False


def _sub(*names: str, anywhere: bool = False) -> Verifies:
    return Verifies(subcommands=frozenset(names), anywhere=anywhere)


def _flag(*flags: str) -> Verifies:
    return Verifies(flags=frozenset(flags))


ALWAYS: Final = Verifies()
SCRIPTS: Final = Verifies(script_names=True)

VERIFY_TABLE: Final[dict[str, Verifies]] = {
    # Python
    **dict.fromkeys(["pytest", "py.test", "tox", "nox", "mypy", "dmypy", "pyright", "basedpyright", "pytype"], ALWAYS),
    **dict.fromkeys(["flake8", "pylint", "pyflakes", "pycodestyle", "bandit", "unittest", "py_compile"], ALWAYS),
    "compileall": ALWAYS,
    "ruff": _sub("check"),
    "black": _flag("--check"),
    "manage.py": _sub("test", "check"),
    # JavaScript and TypeScript (package scripts are read in _package_script)
    **dict.fromkeys(["jest", "vitest", "mocha", "ava", "jasmine", "karma", "eslint", "tsc", "vue-tsc"], ALWAYS),
    **dict.fromkeys(["svelte-check", "oxlint", "stylelint", "tsd"], ALWAYS),
    "prettier": _flag("--check", "-c"),
    "biome": _sub("check", "lint", "ci"),
    "playwright": _sub("test"),
    "cypress": _sub("run"),
    "ng": _sub("test", "build", "lint", "e2e"),
    "node": _flag("--check", "-c", "--test"),
    **dict.fromkeys(["nx", "turbo", "lerna"], Verifies(script_names=True, anywhere=True)),
    # Rust, Go, C and C++, JVM, .NET, Apple
    "cargo": _sub("test", "build", "check", "clippy", "nextest", "bench"),
    "go": _sub("test", "build", "vet"),
    **dict.fromkeys(["golangci-lint", "staticcheck", "ctest", "ninja", "cmake", "clang-tidy", "cppcheck"], ALWAYS),
    "meson": _sub("test", "compile"),
    **dict.fromkeys(["bazel", "bazelisk"], _sub("test", "build")),
    **dict.fromkeys(["gradle", "gradlew", "mvn", "mvnw", "ktlint", "detekt"], ALWAYS),
    "sbt": _sub("test", "compile", "testonly", "testquick", "test:compile", anywhere=True),
    "dotnet": _sub("test", "build"),
    "swift": _sub("test", "build"),
    "swiftlint": ALWAYS,
    "xcodebuild": _sub("test", "build", "build-for-testing", "test-without-building", "analyze", anywhere=True),
    # Ruby, PHP, Elixir, Dart, Deno, Haskell, Zig and the rest
    **dict.fromkeys(["rspec", "rubocop", "phpunit", "pest", "phpstan", "psalm"], ALWAYS),
    "rails": SCRIPTS,
    "rake": Verifies(script_names=True, anywhere=True),
    "artisan": _sub("test"),
    "php": _flag("-l"),
    "mix": _sub("test", "compile", "credo", "dialyzer"),
    "flutter": _sub("test", "analyze", "build"),
    "dart": _sub("test", "analyze"),
    "deno": _sub("test", "check", "lint"),
    **dict.fromkeys(["stack", "cabal", "zig", "dune"], _sub("test", "build")),
    **dict.fromkeys(["shellcheck", "hadolint", "actionlint", "yamllint", "markdownlint"], ALWAYS),
    "pre-commit": _sub("run"),
    "terraform": _sub("validate"),
    "helm": _sub("lint"),
    # Task runners: a target or recipe named for what it does; `make` alone builds.
    "make": Verifies(script_names=True, anywhere=True, bare=True),
    "just": SCRIPTS,
    "task": SCRIPTS,
}
# A formatter run with the option that makes it a check rather than a rewrite.
CHECKED_FORMATTERS: Final[dict[tuple[str, str], str]] = {
    ("ruff", "format"): "--check",
    ("cargo", "fmt"): "--check",
    ("deno", "fmt"): "--check",
    ("mix", "format"): "--check-formatted",
    ("dart", "format"): "--set-exit-if-changed",
}

PACKAGE_RUNNERS: Final = frozenset({"npm", "pnpm", "yarn", "bun"})
# Wrappers that run the command after them, and the options of theirs that take a value.
PREFIX_WRAPPERS: Final[dict[str, frozenset[str]]] = {
    "sudo": frozenset({"-u", "-g", "-C", "-h", "-p", "-U"}),
    "env": frozenset({"-u", "-C", "-S"}),
    "time": frozenset({"-f", "-o"}),
    "nice": frozenset({"-n"}),
    "ionice": frozenset({"-c", "-n"}),
    "stdbuf": frozenset(),
    "nohup": frozenset(),
    "command": frozenset(),
    "exec": frozenset(),
    "builtin": frozenset(),
    "caffeinate": frozenset(),
    "unbuffer": frozenset(),
    "chronic": frozenset(),
    "xvfb-run": frozenset({"-n", "-s", "-f", "-e"}),
    "npx": frozenset({"-p", "--package", "-c", "--call"}),
    "bunx": frozenset({"-p", "--package"}),
    "pnpx": frozenset(),
    "uvx": frozenset({"--from", "--with", "--python", "-p"}),
}
UV_RUN_OPTIONS: Final = frozenset(
    {"--with", "--python", "-p", "--project", "--directory", "--package", "--extra", "--group", "--env-file"}
    | {"--from", "--index", "--with-requirements"}
)
# Two-word wrappers: `uv run pytest`, `bundle exec rspec`, `conda run -n env pytest`.
PAIR_WRAPPERS: Final[dict[tuple[str, str], frozenset[str]]] = {
    ("uv", "run"): UV_RUN_OPTIONS,
    ("poetry", "run"): frozenset(),
    ("pipenv", "run"): frozenset(),
    ("pdm", "run"): frozenset(),
    ("hatch", "run"): frozenset(),
    ("rye", "run"): frozenset(),
    ("bundle", "exec"): frozenset(),
    ("conda", "run"): frozenset({"-n", "--name", "-p", "--prefix"}),
    ("mamba", "run"): frozenset({"-n", "--name", "-p", "--prefix"}),
    ("micromamba", "run"): frozenset({"-n", "--name", "-p", "--prefix"}),
    ("mise", "exec"): frozenset(),
    ("mise", "x"): frozenset(),
    ("asdf", "exec"): frozenset(),
}
# npx runs a package's binary: scoped packages whose binary is not the last part of the name.
PACKAGE_BINARIES: Final = {"@playwright/test": "playwright", "@angular/cli": "ng", "typescript": "tsc"}
RUNNER_VALUE_OPTIONS: Final = frozenset({"--prefix", "-C", "--dir", "--filter", "-F", "--workspace", "-w", "--cwd"})
# `docker compose exec web pytest`, `docker run --rm -v x:/app node:20 npm test`: options, then the
# service or image, then the command run inside.
CONTAINER_TOOLS: Final = frozenset({"docker", "podman", "docker-compose"})
CONTAINER_VALUE_OPTIONS: Final = frozenset(
    {"-e", "--env", "-w", "--workdir", "-u", "--user", "--name", "-v", "--volume", "-p", "--publish"}
    | {"--entrypoint", "--network", "--env-file", "-f", "--file", "--project-name", "--profile", "--platform"}
)
GIT_VALUE_OPTIONS: Final = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"})
# What Windows adds to a command word (`npm.cmd run build`, `pytest.EXE`, `gradlew.bat`): the same program.
WINDOWS_SUFFIX_RE: Final = re.compile(r"\.(?:cmd|exe|bat|ps1)$", re.IGNORECASE)


def _without_heredoc_bodies(text: str) -> str:
    kept: list[str] = []
    pending: list[tuple[str, bool]] = []  # (delimiter, tabs stripped)
    for line in text.split("\n"):
        if pending:
            delimiter, dash = pending[0]
            if (line.lstrip("\t") if dash else line).strip() == delimiter:
                pending.pop(0)
            continue
        kept.append(line)
        pending.extend((match.group(3), bool(match.group(1))) for match in HEREDOC_RE.finditer(line))
    return "\n".join(kept)


def simple_commands(line: str) -> list[tuple[str, ...]]:
    """The words of each simple command in a shell command line, in order; redirections left out."""
    text = _without_heredoc_bodies(line).replace("\\\n", " ")
    lexer = shlex.shlex(text, posix=True, punctuation_chars="();<>|&\n")
    lexer.whitespace = " \t\r"  # a newline separates commands, so it is punctuation, not space
    lexer.whitespace_split = True
    lexer.commenters = ""  # comments are cut below, so a newline after one still separates
    commands: list[tuple[str, ...]] = []
    words: list[str] = []
    redirect = comment = False
    try:
        for token in lexer:
            if token and token[0] in "<>" and set(token) <= set("<>&|"):
                redirect = True  # the next word is the redirection's target
                if len(words) > 1 and words[-1].isdigit():
                    words.pop()  # the descriptor of `2>&1`, not an argument
            elif token and set(token) <= set("<>&|") | SEPARATOR_CHARS:
                if words:
                    commands.append(tuple(words))
                words, redirect = [], False
                comment = comment and "\n" not in token
            elif redirect:
                redirect = False
            elif comment or (not words and token.startswith("#")):
                comment = True  # a comment where a command would start runs to the line's end
            else:
                words.append(token)
    except ValueError:  # an unclosed quote: what came before it still ran
        pass
    if words:
        commands.append(tuple(words))
    return commands


def _skip_options(args: tuple[str, ...], value_options: frozenset[str]) -> tuple[str, ...]:
    """The arguments from the first one that is not an option (or an option's value) on."""
    index = 0
    while index < len(args) and args[index].startswith(("-", "+")):
        index += 2 if args[index] in value_options else 1
    return args[index:]


def _positional(args: tuple[str, ...]) -> list[str]:
    return [arg for arg in args if not arg.startswith(("-", "+"))]


def _command_name(word: str) -> str:
    """A command word as the table knows it: `/usr/bin/git` -> git, `tsc@5` -> tsc, `@biomejs/biome` -> biome,
    `npm.cmd` -> npm."""
    if word.startswith("@"):  # a scoped npm package, perhaps with a version
        package = "@" + word[1:].split("@", 1)[0]
        return PACKAGE_BINARIES.get(package, package.rsplit("/", 1)[-1]).lower()
    name = PurePosixPath(word).name if "/" in word else word
    name = name.split("@", 1)[0] or name
    name = WINDOWS_SUFFIX_RE.sub("", name) or name
    return PACKAGE_BINARIES.get(name, name).lower()


def _unwrapped(words: tuple[str, ...]) -> tuple[str, ...]:
    """The command after env assignments, shell keywords and wrappers, with its arguments."""
    while words:
        head = _command_name(words[0])
        if ASSIGNMENT_RE.match(words[0]) or head in SHELL_KEYWORDS:
            words = words[1:]
        elif head in PREFIX_WRAPPERS:
            rest = _skip_options(words[1:], PREFIX_WRAPPERS[head])
            while head == "env" and rest and ASSIGNMENT_RE.match(rest[0]):
                rest = rest[1:]
            words = rest
        elif head == "timeout":
            words = _skip_options(words[1:], frozenset({"-s", "-k", "--signal", "--kill-after"}))[1:]
        elif len(words) > 1 and (head, words[1]) in PAIR_WRAPPERS:
            words = _skip_options(words[2:], PAIR_WRAPPERS[(head, words[1])])
        elif words[:1] == ("--",):
            words = words[1:]
        elif head in PACKAGE_RUNNERS and (executed := _runner_exec(words)):
            words = executed
        elif head in CONTAINER_TOOLS and (inside := _container_command(head, words[1:])):
            words = inside
        else:
            return words
    return words


def _runner_exec(words: tuple[str, ...]) -> tuple[str, ...]:
    """What `npm exec x`, `pnpm exec x`, `pnpm dlx x`, `yarn dlx x` or `bun x x` runs; () when not that."""
    args = _skip_options(words[1:], RUNNER_VALUE_OPTIONS)
    if args and args[0] in ("exec", "dlx", "x"):
        rest = _skip_options(args[1:], frozenset({"-p", "--package", "-c", "--call"}))
        return rest[1:] if rest[:1] == ("--",) else rest
    return ()


def _container_command(tool: str, args: tuple[str, ...]) -> tuple[str, ...]:
    """The command `docker [compose] exec|run …` runs inside its container; () when not that."""
    if tool != "docker-compose" and args[:1] == ("compose",):
        args = args[1:]
    args = _skip_options(args, CONTAINER_VALUE_OPTIONS)
    if args[:1] not in (("exec",), ("run",)):
        return ()
    return _skip_options(args[1:], CONTAINER_VALUE_OPTIONS)[1:]


def is_verify_name(name: str) -> bool:
    """Whether a package script, make target or recipe is named for testing, building or checking."""
    return any(part in VERIFY_NAME_PARTS for part in NAME_PART_RE.split(name.lower()))


def _package_script(runner: str, args: tuple[str, ...]) -> bool:
    """`npm test`, `npm run build`, `pnpm lint`, `yarn workspace web test`, `bun test`, `deno task check`."""
    args = _skip_options(args, RUNNER_VALUE_OPTIONS)
    if not args:
        return False
    sub, rest = args[0].lower(), _skip_options(args[1:], RUNNER_VALUE_OPTIONS)
    if sub in ("test", "t", "tst"):
        return True
    if sub in ("run", "run-script"):
        return bool(rest) and is_verify_name(rest[0])
    if runner == "yarn" and sub == "workspace" and rest:
        return _package_script(runner, rest[1:])
    # npm's other subcommands are its own (install, ci, exec); pnpm, yarn and bun run a script by name.
    return runner != "npm" and sub not in ("install", "add", "remove", "ci", "i") and is_verify_name(sub)


def _python(args: tuple[str, ...]) -> tuple[str, ...]:
    """The command a Python interpreter runs: `-m pytest …` -> (pytest, …), `manage.py test` -> (manage.py, test)."""
    index = 0
    while index < len(args) and args[index].startswith("-"):
        if args[index] == "-m" and index + 1 < len(args):
            return args[index + 1 :]
        if args[index] == "-c":
            return ()
        index += 2 if args[index] in ("-X", "-W") else 1
    return (_command_name(args[index]), *args[index + 1 :]) if index < len(args) else ()


def _verifies(words: tuple[str, ...]) -> bool:
    words = _unwrapped(words)
    if not words:
        return False
    name, args = _command_name(words[0]), words[1:]
    if PYTHONS_RE.fullmatch(name):
        return _verifies(_python(args))
    if name in SHELLS:
        return _shell(args)
    if name == "php" and args and not args[0].startswith("-"):
        return _verifies((_command_name(args[0]), *args[1:]))  # php artisan test, php vendor/bin/phpunit
    if name in PACKAGE_RUNNERS:
        return _package_script(name, args)
    positional = _positional(args)
    if name == "deno" and positional[:1] == ["task"]:
        return len(positional) > 1 and is_verify_name(positional[1])
    if positional and (name, positional[0]) in CHECKED_FORMATTERS:
        return CHECKED_FORMATTERS[(name, positional[0])] in args
    if name.endswith(".sh"):
        return is_verify_name(name.removesuffix(".sh"))  # ./test.sh, scripts/run_tests.sh
    rule = VERIFY_TABLE.get(name)
    return rule is not None and _meets(rule, args, positional)


def _meets(rule: Verifies, args: tuple[str, ...], positional: list[str]) -> bool:
    if rule.flags:
        return any(arg.split("=", 1)[0] in rule.flags for arg in args)
    candidates = [word.split()[0].lower() for word in (positional if rule.anywhere else positional[:1]) if word.split()]
    if rule.script_names:
        return any(is_verify_name(word) for word in candidates) or (rule.bare and not positional)
    if rule.subcommands:
        return any(word in rule.subcommands for word in candidates)
    return True


def _shell(args: tuple[str, ...]) -> bool:
    """`bash -lc 'pytest -q'` runs its script; `bash scripts/test.sh` runs that file."""
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in ("-o", "-O", "+o", "+O"):  # set an option by name: the next word is its name
            index += 2
        elif arg.startswith("-") and not arg.startswith("--") and "c" in arg:
            return index + 1 < len(args) and is_verify_command(args[index + 1])
        elif not arg.startswith(("-", "+")):
            return _verifies((_command_name(arg), *args[index + 1 :]))
        else:
            index += 1
    return False


def is_verify_command(line: str) -> bool:
    """Whether a shell command line runs a test, build, lint or type check (the contract's `tver`)."""
    return any(_verifies(words) for words in simple_commands(line))


def is_commit_command(line: str) -> bool:
    """Whether a shell command line runs `git commit` (after `cd`, `-C dir`, `-c key=value` and the like)."""
    for words in simple_commands(line):
        words = _unwrapped(words)
        if words and _command_name(words[0]) == "git":
            rest = _skip_options(words[1:], GIT_VALUE_OPTIONS)
            if rest[:1] == ("commit",):
                return True
    return False
