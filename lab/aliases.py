"""Starter aliases: names the shipped sources spell several ways, joined before any operator's alias.

Each maps a name as `lab.names.normalise_model` leaves it to the name it means, with the reason
read from the source itself. Only spellings of the same weights served the same way are joined:
a quantised local copy (`qwen2.5-coder:32b-instruct-q4_k_m`) or a dated snapshot
(`deepseek-v4-flash-0731`) stays its own row, and so does a vendor's moving name
(`deepseek-reasoner`, which served R1 and later V3.2). An operator's alias of the same name wins
(`manage.py lab_alias add NAME CANONICAL`).
"""

import hashlib
from typing import Final, NamedTuple


class StarterAlias(NamedTuple):
    canonical: str
    why: str


STARTER_ALIASES: Final[dict[str, StarterAlias]] = {
    # aider
    "sonnet": StarterAlias("claude-3.7-sonnet", "aider's `--model sonnet`; the run's label names claude-3-7-sonnet"),
    "r1": StarterAlias("deepseek-r1", "aider's `--model r1` shortcut for DeepSeek R1"),
    "deepseek": StarterAlias("deepseek-chat", "aider's `deepseek` shortcut for deepseek/deepseek-chat"),
    "deepseek-chat-v2.5": StarterAlias("deepseek-v2.5", "aider labels one model both ways"),
    "qwen-2.5-coder-32b-instruct": StarterAlias("qwen2.5-coder-32b-instruct", "OpenRouter's spelling"),
    "qwen2p5-coder-32b-instruct": StarterAlias("qwen2.5-coder-32b-instruct", "Fireworks' spelling"),
    "llama-v3p1-70b-instruct": StarterAlias("llama-3.1-70b-instruct", "Fireworks' spelling"),
    "llama-v3p1-8b-instruct": StarterAlias("llama-3.1-8b-instruct", "Fireworks' spelling"),
    "gpt-4-turbo-2024-04-09-(udiff)": StarterAlias("gpt-4-turbo", "a label naming its edit format"),
    # akita
    "gemini-3.1-pro-high": StarterAlias("gemini-3.1-pro-preview", "the Antigravity CLI's name with the effort in it"),
    "gemini-3.6-flash-high": StarterAlias("gemini-3.6-flash", "the Antigravity CLI's name with the effort in it"),
    "kimi-for-coding": StarterAlias("kimi-k2.7-code", "the Kimi Code CLI's name; labelled Kimi K2.7 Coding"),
    "k3": StarterAlias("kimi-k3", "the Kimi Code CLI's name; the source labels it Kimi K3"),
}


def starter_aliases() -> dict[str, str]:
    return {name: alias.canonical for name, alias in STARTER_ALIASES.items()}


# Part of every lab cache key: a release that changes the table shows at once.
STARTER_VERSION: Final = hashlib.sha256(repr(sorted(starter_aliases().items())).encode()).hexdigest()[:8]
