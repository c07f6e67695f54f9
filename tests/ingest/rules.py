"""Every rejection rule of the contract (cycle-record.md), each as a single change to a valid envelope.

A case names the rule, makes the change, and says which (row, col) the error must point at.
Used by the pure contract tests and, through HTTP, by the API tests (nothing stored).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from tests.cycles.wire import envelope, positional, utc_iso, wire_cycle, with_cell

Body = dict[str, Any]


@dataclass(frozen=True)
class Rule:
    name: str
    change: Callable[[Body], Any]
    row: int | None
    col: str | None
    # A string that must never come back in an error body (the rejected value).
    secret: str | None = None


def cell(col: str, value: Any, row: int = 1) -> Callable[[Body], Body]:
    return lambda body: with_cell(body, row, col, value)


def facts(row: int = 1, **overrides: Any) -> Callable[[Body], Body]:
    def change(body: Body) -> Body:
        copy = json.loads(json.dumps(body))
        copy["rows"][row] = positional(wire_cycle(row, **overrides))
        return copy

    return change


def key(name: str, value: Any) -> Callable[[Body], Body]:
    def change(body: Body) -> Body:
        copy = dict(body)
        copy[name] = value
        return copy

    return change


def without(name: str) -> Callable[[Body], Body]:
    return lambda body: {k: v for k, v in body.items() if k != name}


def future(minutes: int) -> Callable[[Body], Body]:
    # The time is taken when the change is made, not when the rules are collected: a long
    # suite could otherwise bring a collected "future" back inside the tolerance.
    return lambda body: {**body, "generated": utc_iso(datetime.now(UTC) + timedelta(minutes=minutes))}


def day_after_tomorrow() -> str:
    return (datetime.now(UTC).date() + timedelta(days=2)).isoformat()


ENVELOPE_RULES = [
    Rule("body_not_an_object", lambda body: [body], None, None),
    Rule("envelope_key_missing", without("extractor"), None, None),
    Rule("envelope_key_extra", key("note", "hello"), None, None),
    Rule("schema_unknown", key("schema", 4), None, "schema"),
    Rule("schema_not_an_integer", key("schema", "3"), None, "schema"),
    Rule("schema_boolean", key("schema", True), None, "schema"),
    Rule("cols_out_of_order", lambda body: {**body, "cols": list(reversed(body["cols"]))}, None, "cols"),
    Rule("cols_of_another_schema", lambda body: {**body, "cols": body["cols"][:21]}, None, "cols"),
    Rule("rows_not_an_array", key("rows", {"0": []}), None, "rows"),
    Rule("install_not_a_uuid", key("install", "not-a-uuid-value-zz"), None, "install", "not-a-uuid-value-zz"),
    Rule("install_not_a_string", key("install", 12345), None, "install"),
    Rule("extractor_not_a_version", key("extractor", "v26 secret"), None, "extractor", "v26 secret"),
    Rule("extractor_too_long", key("extractor", "1" * 33), None, "extractor"),
    Rule("generated_not_iso", key("generated", "yesterday noon"), None, "generated", "yesterday noon"),
    Rule("generated_without_zone", key("generated", "2026-09-19T00:00:00"), None, "generated"),
    Rule("generated_not_utc", key("generated", "2026-09-19T00:00:00+02:00"), None, "generated"),
    Rule("generated_in_the_future", future(6), None, "generated"),
]

ROW_SHAPE_RULES = [
    Rule("row_too_short", lambda body: {**body, "rows": [body["rows"][0], body["rows"][1][:-1]]}, 1, None),
    Rule("row_too_long", lambda body: {**body, "rows": [body["rows"][0], [*body["rows"][1], 0]]}, 1, None),
    Rule("row_not_an_array", lambda body: {**body, "rows": [body["rows"][0], {"cycle_key": "x"}]}, 1, None),
    Rule("cell_null", cell("u", None), 1, "u"),
    Rule("cell_object", cell("model", {"name": "x"}), 1, "model"),
    Rule("cell_array", cell("tcost", [1]), 1, "tcost"),
]

COLUMN_RULES = [
    Rule("cycle_key_uppercase", cell("cycle_key", "00000000000A00F1"), 1, "cycle_key", "00000000000A00F1"),
    Rule("cycle_key_short", cell("cycle_key", "abc123"), 1, "cycle_key", "abc123"),
    Rule("cycle_key_repeated", cell("cycle_key", f"{0xA000:016x}"), 1, "cycle_key"),
    Rule("day_not_a_date", cell("day", "19/09/2026"), 1, "day", "19/09/2026"),
    Rule("day_not_real", cell("day", "2026-02-30"), 1, "day", "2026-02-30"),
    Rule("day_before_2024", cell("day", "2023-12-31"), 1, "day", "2023-12-31"),
    Rule("day_after_tomorrow", lambda body: with_cell(body, 1, "day", day_after_tomorrow()), 1, "day"),
    Rule("model_empty", cell("model", ""), 1, "model"),
    Rule("model_not_a_token", cell("model", "claude_opus!"), 1, "model", "claude_opus!"),
    Rule("model_too_long", cell("model", "m" * 65), 1, "model", "m" * 65),
    Rule("model_not_ascii", cell("model", "claudé"), 1, "model", "claudé"),
    Rule("prov_not_a_string", cell("prov", 7), 1, "prov"),
    Rule("role_out_of_range", cell("role", 3), 1, "role"),
    Rule("role_boolean", cell("role", True), 1, "role"),
    Rule("pm_without_pp", facts(pp=""), 1, "pp"),
    Rule("pp_without_pm", facts(pm=""), 1, "pp"),
    Rule("bm_without_bp", facts(bp=""), 1, "bp"),
    Rule("u_over_2000", cell("u", 2001), 1, "u"),
    Rule("u_negative", cell("u", -1), 1, "u"),
    Rule("u_fractional", cell("u", 1.5), 1, "u"),
    Rule("u_integral_float", cell("u", 2.0), 1, "u"),
    Rule("a_over_50000", cell("a", 50001), 1, "a"),
    Rule("tedits_over_20000", cell("tedits", 20001), 1, "tedits"),
    Rule("tpaths_not_a_flag", cell("tpaths", 2), 1, "tpaths"),
    Rule("teerr_over_tedits", facts(tedits=2, teerr=3), 1, "teerr"),
    Rule("tcost_over_5000", cell("tcost", 5000.01), 1, "tcost"),
    Rule("tcost_negative", cell("tcost", -0.01), 1, "tcost"),
    Rule("tcost_a_string", cell("tcost", "1.5"), 1, "tcost"),
    Rule("tship_without_edits", facts(tedits=0, teerr=0, tpaths=1, tship=1, tver=0), 1, "tship"),
    Rule("tship_without_paths", facts(tedits=3, tpaths=0, tship=1), 1, "tship"),
    Rule("tship_while_pending", facts(tedits=3, tpaths=1, tship=1, tshipe=1), 1, "tship"),
    Rule("thrs_over_72", cell("thrs", 72.5), 1, "thrs"),
    Rule("tver_without_edits", facts(tedits=0, teerr=0, tpaths=0, tship=0, tver=1), 1, "tver"),
    Rule("tabort_not_a_flag", cell("tabort", -1), 1, "tabort"),
    Rule("latmed_between_minus_one_and_zero", cell("latmed", -0.5), 1, "latmed"),
    Rule("latmed_over_600", cell("latmed", 600.5), 1, "latmed"),
    Rule("tshipe_unknown", cell("tshipe", 3), 1, "tshipe"),
    Rule("variant_not_an_effort", cell("variant", "high:1"), 1, "variant", "high:1"),
    Rule("bv_too_long", cell("bv", "e" * 33), 1, "bv", "e" * 33),
    Rule("harness_empty", cell("harness", "  "), 1, "harness"),
    Rule("hversion_not_a_version", cell("hversion", "v1.2"), 1, "hversion", "v1.2"),
]

PRIVACY_RULES = [
    Rule("privacy_whitespace", cell("model", "claude opus"), 1, "model", "claude opus"),
    Rule("privacy_slash", cell("model", "anthropic/claude-opus-4.7"), 1, "model", "anthropic/claude-opus-4.7"),
    Rule("privacy_backslash", cell("harness", "c:\\users\\ann"), 1, "harness", "users"),
    Rule("privacy_tilde", cell("pm", "~ann"), 1, "pm", "~ann"),
    Rule("privacy_at_sign", cell("bm", "ann@example"), 1, "bm", "ann@example"),
    Rule("privacy_email", cell("prov", "ann@example.org"), 1, "prov", "ann@example.org"),
    Rule("privacy_extension_json", cell("model", "settings.json"), 1, "model", "settings.json"),
    Rule("privacy_extension_ts", cell("harness", "plugin.ts"), 1, "harness", "plugin.ts"),
    Rule("privacy_extension_py", cell("pm", "main.py"), 1, "pm", "main.py"),
    Rule("privacy_extension_md", cell("bm", "readme.md"), 1, "bm", "readme.md"),
    Rule("privacy_extension_gguf", cell("model", "llama-3-8b.gguf"), 1, "model", "llama-3-8b.gguf"),
    Rule("privacy_extension_bin", cell("model", "pytorch_model.bin"), 1, "model", "pytorch_model.bin"),
    Rule("privacy_extension_safetensors", cell("bm", "weights.safetensors"), 1, "bm", "weights.safetensors"),
    Rule("privacy_ipv4", cell("prov", "10.20.30.40"), 1, "prov", "10.20.30.40"),
    Rule("privacy_ipv4_inside", cell("harness", "proxy-192.168.1.20"), 1, "harness", "192.168.1.20"),
    Rule("privacy_ipv4_version", cell("hversion", "10.0.0.1"), 1, "hversion", "10.0.0.1"),
    Rule("privacy_ipv4_after_a_dot", cell("model", "gpt.10.0.0.1"), 1, "model", "10.0.0.1"),
    Rule("privacy_ipv4_after_a_letter_and_dot", cell("prov", "x.192.168.1.1"), 1, "prov", "192.168.1.1"),
    Rule("privacy_ipv4_after_a_dotted_version", cell("harness", "v1.2.172.16.0.9"), 1, "harness", "172.16.0.9"),
    Rule("privacy_uuid", cell("variant", "6f9619ff-8b86-d011-b42d-00c04fc964ff"), 1, "variant", "6f9619ff"),
    Rule("privacy_localhost", cell("prov", "localhost"), 1, "prov", "localhost"),
    Rule("privacy_localhost_port", cell("prov", "localhost:11434"), 1, "prov", "localhost:11434"),
    Rule("privacy_session_id", cell("model", "ses_4f2a9c"), 1, "model", "ses_4f2a9c"),
    Rule("privacy_message_id", cell("pm", "msg_01abz"), 1, "pm", "msg_01abz"),
    Rule("privacy_part_id", cell("bm", "prt_77"), 1, "bm", "prt_77"),
    Rule("privacy_call_id", cell("model", "call_xyz"), 1, "model", "call_xyz"),
    Rule("privacy_tool_use_id", cell("model", "toolu_01xyz"), 1, "model", "toolu_01xyz"),
    Rule("privacy_request_id", cell("prov", "req_abc"), 1, "prov", "req_abc"),
    Rule("privacy_response_id", cell("prov", "resp_abc"), 1, "prov", "resp_abc"),
    Rule("privacy_hex_run", cell("model", "build-0123456789ab"), 1, "model", "0123456789ab"),
    Rule("privacy_secret_openai", cell("model", "sk-proj-abcdefghijklmnop"), 1, "model", "abcdefghijklmnop"),
    Rule("privacy_secret_github", cell("prov", "ghp_zyxwvutsrqponmlkji"), 1, "prov", "zyxwvutsrqponmlkji"),
    Rule("privacy_secret_github_pat", cell("bm", "github_pat_zyxwvutsrqponmlkji"), 1, "bm", "zyxwvutsrqponmlkji"),
    Rule("privacy_secret_aws", cell("harness", "AKIAZYXWVUTSRQPONMLK"), 1, "harness", "zyxwvutsrqponmlk"),
    Rule("privacy_secret_slack_bot", cell("variant", "xoxb-zyxwvutsrqponmlkj"), 1, "variant", "zyxwvutsrqponmlkj"),
    Rule("privacy_secret_slack_user", cell("pv", "xoxp-zyxwvutsrqponmlkj"), 1, "pv", "zyxwvutsrqponmlkj"),
    Rule("privacy_local_host", cell("prov", "alice-macbook-pro.local"), 1, "prov", "alice-macbook-pro"),
    Rule("privacy_lan_host", cell("model", "nas.lan"), 1, "model", "nas.lan"),
    Rule("privacy_internal_host", cell("bp", "llm.corp.internal"), 1, "bp", "llm.corp.internal"),
    Rule("privacy_extension_txt", cell("model", "secrets.txt"), 1, "model", "secrets.txt"),
    Rule("privacy_ipv6", cell("prov", "fe80::1ff:fe23:4567:890a"), 1, "prov", "fe23:4567"),
    Rule("privacy_ipv6_full", cell("model", "2001:db8:85a3:0:0:8a2e:370:7334"), 1, "model", "8a2e:370"),
    Rule("privacy_mac", cell("harness", "00:1a:2b:3c:4d:5e"), 1, "harness", "3c:4d:5e"),
    Rule("privacy_mac_dashes", cell("model", "00-1a-2b-3c-4d-5e"), 1, "model", "3c-4d-5e"),
    Rule("privacy_secret_stripe", cell("model", "sk_live_zyxwvutsrqponmlkj"), 1, "model", "zyxwvutsrqponmlkj"),
    Rule("privacy_secret_gitlab", cell("prov", "glpat-zyxwvutsrqponmlkj"), 1, "prov", "zyxwvutsrqponmlkj"),
    Rule("privacy_secret_hugging_face", cell("model", "hf_zyxwvutsrqponmlkjih"), 1, "model", "zyxwvutsrqponmlkjih"),
    Rule("privacy_secret_google", cell("bm", "AIzaSyZyxwvutsrqponmlkj"), 1, "bm", "zyxwvutsrqponmlkj"),
    Rule("privacy_secret_jwt", cell("model", "eyJhbGciOiJIUzI1NiJ9"), 1, "model", "hbgcioijiuzi1nij9"),
    Rule("privacy_secret_npm", cell("prov", "npm_zyxwvutsrqponmlkj"), 1, "prov", "zyxwvutsrqponmlkj"),
    Rule("privacy_card_number", cell("model", "4111-1111-1111-1111"), 1, "model", "4111-1111"),
    Rule("privacy_at_sign_not_a_date", cell("model", "claude-sonnet-4@latest"), 1, "model", "latest"),
    Rule("privacy_at_sign_not_a_real_date", cell("model", "claude-sonnet-4@20251340"), 1, "model", "20251340"),
]

# A fault of the envelope refuses the whole request; a bad value only costs its row (cycle-record.md, "Envelope").
REFUSING_RULES = ENVELOPE_RULES + ROW_SHAPE_RULES
SKIPPING_RULES = COLUMN_RULES + PRIVACY_RULES
ALL_RULES = REFUSING_RULES + SKIPPING_RULES


def valid_body() -> Body:
    return envelope(3)
