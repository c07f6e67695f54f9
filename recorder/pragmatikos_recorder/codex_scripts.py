"""Codex's code mode (0.14x): the model writes one JavaScript `exec` script that calls the other tools.

The rollout keeps the script (`custom_tool_call` {name: exec, input}) and what it printed, not the tool
calls inside it: `await tools.apply_patch("*** Begin Patch…")`, `await tools.exec_command({"cmd": "cargo
check", "workdir": …})`. A successful patch also leaves a `patch_apply_end` event (read in codex.py);
a patch that fails Codex's verification leaves only "apply_patch verification failed: …" in the output.
Commands are read from the script's text: the `cmd` (or `command`) of each exec_command call when it is
written as a string literal; one held in a variable cannot be read and is left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from pragmatikos_recorder.commands import is_commit_command

NESTED_CALL_RE: Final = re.compile(r"\btools\.(\w+)\s*\(")
COMMAND_TOOLS: Final = frozenset({"exec_command", "shell_command", "shell"})
# The command's key inside the call's argument object, with the quote its value opens with.
COMMAND_KEY_RE: Final = re.compile(r"""(?:"(?:cmd|command)"|'(?:cmd|command)'|\b(?:cmd|command))\s*:\s*(["'`])""")
PATCH_FAILED: Final = "apply_patch verification failed"
SCRIPT_RUNNING_RE: Final = re.compile(r"^Script running with cell ID (\S+)")
SIMPLE_ESCAPES: Final = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


@dataclass(frozen=True, slots=True)
class ScriptCalls:
    """What one script calls, in the order it is written."""

    commands_before_last_patch: tuple[str, ...]
    commands_after_last_patch: tuple[str, ...]
    patches: int
    commits: bool  # one of its commands runs `git commit`


def _string_literal(text: str, start: int, quote: str) -> str | None:
    """The value of the JavaScript string literal whose body starts at `start`; None if it never closes."""
    out: list[str] = []
    index = start
    while index < len(text):
        char = text[index]
        if char == quote:
            return "".join(out)
        if quote == "`" and text.startswith("${", index):
            return None  # an interpolated template: its value is not in the text
        if char != "\\":
            out.append(char)
            index += 1
            continue
        escaped = text[index + 1 : index + 2]
        if escaped == "u" and text.startswith("{", index + 2) and "}" in text[index + 3 : index + 10]:
            end = text.index("}", index + 3)
            out.append(_code_point(text[index + 3 : end]))
            index = end + 1
        elif escaped in ("u", "x"):
            width = 4 if escaped == "u" else 2
            out.append(_code_point(text[index + 2 : index + 2 + width]))
            index += 2 + width
        else:
            out.append(SIMPLE_ESCAPES.get(escaped, "" if escaped == "\n" else escaped))
            index += 2
    return None


def _code_point(digits: str) -> str:
    try:
        return chr(int(digits, 16))
    except (ValueError, OverflowError):
        return ""


def _command_of(argument: str) -> str | None:
    match = COMMAND_KEY_RE.search(argument)
    return _string_literal(argument, match.end(), match.group(1)) if match else None


def script_calls(source: str) -> ScriptCalls:
    """The commands a script runs (those written before and after its last apply_patch) and its patch calls."""
    calls = list(NESTED_CALL_RE.finditer(source))
    commands: list[tuple[int, str]] = []
    patch_positions = []
    for number, call in enumerate(calls):
        tool = call.group(1)
        if tool == "apply_patch":
            patch_positions.append(number)
        elif tool in COMMAND_TOOLS:
            end = calls[number + 1].start() if number + 1 < len(calls) else len(source)
            command = _command_of(source[call.end() : end])
            if command:
                commands.append((number, command))
    # Without a patch, nothing in the script is ordered against an edit: all its commands count at its call.
    last_patch = max(patch_positions, default=len(calls))
    return ScriptCalls(
        commands_before_last_patch=tuple(c for n, c in commands if n < last_patch),
        commands_after_last_patch=tuple(c for n, c in commands if n > last_patch),
        patches=len(patch_positions),
        commits=any(is_commit_command(command) for _, command in commands),
    )


def failed_patches(output: str) -> int:
    """How many apply_patch calls of a script its output says failed Codex's verification."""
    return output.count(PATCH_FAILED)


def running_cell(output: str) -> str | None:
    """The cell a script still runs in when its output says it yielded (a later `wait` call takes it up)."""
    match = SCRIPT_RUNNING_RE.match(output)
    return match.group(1) if match else None


def completed(output: str) -> bool:
    return output.startswith("Script completed")
