"""`pragmatikos-record`: scan, report, submit, retract, status."""

from __future__ import annotations

import argparse
import json
import sys
import webbrowser
from pathlib import Path
from typing import Any

from pragmatikos_recorder import __version__
from pragmatikos_recorder.client import BATCH_ROWS, Answer, NoServiceUrl, contribution_url, request, stats_url
from pragmatikos_recorder.config import ConfigError, load_allowed_names, load_identity
from pragmatikos_recorder.envelope import COLUMNS, envelope, to_rows
from pragmatikos_recorder.pool_fetch import fetch_pool, pool_url
from pragmatikos_recorder.privacy import PublicNames
from pragmatikos_recorder.report import VIEWS, UnreadableDocument, build_report
from pragmatikos_recorder.report_output import table_lines
from pragmatikos_recorder.report_page import report_page
from pragmatikos_recorder.scan import HARNESSES, Roots, find, scan_logs
from pragmatikos_recorder.summary import ScanSummary, summarise

MASKED_INSTALL = "<install id: add --show-install to print it>"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pragmatikos-record",
        description="Turn Claude Code, Codex CLI and aider sessions into anonymous cycles; send them to Pragmatikos.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    def with_logs(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--harness", choices=[*HARNESSES, "all"], default="all")
        sub.add_argument("--since", type=int, metavar="DAYS", help="only sessions active in the last DAYS days")
        sub.add_argument(
            "--claude-dir", type=Path, help="Claude Code's folder (default $CLAUDE_CONFIG_DIR or ~/.claude)"
        )
        sub.add_argument("--codex-dir", type=Path, help="Codex's folder (default ~/.codex or $CODEX_HOME)")
        sub.add_argument(
            "--aider-root",
            type=Path,
            help="folder whose aider histories are all read (default your home, where only histories in"
            " repositories with a commit by your global git user.email are read)",
        )
        sub.add_argument(
            "--cline-dir",
            type=Path,
            help="a Cline, Roo Code or Kilo Code extension folder holding tasks/"
            " (default: those in each editor's globalStorage)",
        )
        sub.add_argument(
            "--allow-name",
            action="append",
            default=[],
            metavar="NAME",
            help="send this model or provider name though no public list knows it (also allow_names in config.toml)",
        )

    def with_url(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--url", help="the contribution URL (default $PRAGMATIKOS_URL, else the public service)")

    scan_cmd = commands.add_parser("scan", help="show the rows that would be sent, nothing sent")
    with_logs(scan_cmd)
    report = commands.add_parser(
        "report", help="see how your pairings compare with the pool, before you share anything (nothing sent)"
    )
    with_logs(report)
    with_url(report)
    report.add_argument("--view", choices=VIEWS, default="modelCombo", help="how cycles are grouped")
    report.add_argument("--json", action="store_true", help="print the report as JSON (README: its shape)")
    report.add_argument("--html", type=Path, metavar="FILE", help="also write the report as a self-contained page")
    report.add_argument("--open", action="store_true", help="open the page (with --html) in the browser")
    submit = commands.add_parser("submit", help="send the cycles and print the service's answer")
    with_logs(submit)
    with_url(submit)
    submit.add_argument("--dry-run", action="store_true", help="print the request body instead of sending it")
    submit.add_argument("--show-install", action="store_true", help="print the install id in a dry run")
    retract = commands.add_parser("retract", help="ask the service to delete every cycle this install sent")
    with_url(retract)
    retract.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    status = commands.add_parser("status", help="where the identity lives, which logs are found, the service's counts")
    with_logs(status)
    with_url(status)
    status.add_argument("--show-install", action="store_true", help="print the install id")
    return parser


def _roots(args: argparse.Namespace) -> Roots:
    defaults = Roots.defaults()
    return Roots(
        args.claude_dir or defaults.claude,
        args.codex_dir or defaults.codex,
        args.aider_root or defaults.aider,
        aider_named=args.aider_root is not None,
        cline=(args.cline_dir,) if args.cline_dir else defaults.cline,
    )


def _harnesses(args: argparse.Namespace) -> tuple[str, ...]:
    return HARNESSES if args.harness == "all" else (args.harness,)


def _collect(args: argparse.Namespace) -> tuple[list[list[Any]], ScanSummary]:
    identity = load_identity()
    names = PublicNames(load_allowed_names() | frozenset(args.allow_name))
    scanned = scan_logs(_harnesses(args), _roots(args), since_days=args.since)
    built = to_rows(scanned.cycles, identity.secret, names)
    return built.rows, summarise(scanned, built)


def _print_table(rows: list[list[Any]]) -> None:
    shown = COLUMNS[1:]  # everything sent but the cycle key
    cells = [[_cell(value) for value in row[1:]] for row in rows]
    widths = [max([len(name)] + [len(r[i]) for r in cells]) for i, name in enumerate(shown)]
    print("  ".join(name.ljust(w) for name, w in zip(shown, widths, strict=True)).rstrip())
    for r in cells:
        print("  ".join(value.ljust(w) for value, w in zip(r, widths, strict=True)).rstrip())


def _cell(value: Any) -> str:
    if value == "":
        return "-"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _print_summary(summary: ScanSummary) -> None:
    for line in summary.lines():
        print(line, file=sys.stderr)


def cmd_scan(args: argparse.Namespace) -> int:
    rows, summary = _collect(args)
    _print_table(rows)
    _print_summary(summary)
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    """Reads the logs as scan does and GETs the published pool; sends nothing of the person's."""
    rows, summary = _collect(args)
    _print_summary(summary)
    fetched = fetch_pool(pool_url(contribution_url(args.url)))
    scope = {"harness": args.harness, "sinceDays": args.since}
    source = {"url": fetched.url, "fetch": fetched.how}
    report = build_report(rows, fetched.document, args.view, source=source, scope=scope)
    if args.json:
        print(json.dumps(report, indent=1, allow_nan=False))
    else:
        print("\n".join(table_lines(report)))
    if args.html:
        args.html.write_text(report_page(report), encoding="utf-8")
        print(f"page written: {args.html}", file=sys.stderr)
        if args.open:
            webbrowser.open(args.html.resolve().as_uri())
    return 0


def _report(answer: Answer) -> bool:
    body = answer.body
    if answer.status == 202:
        counts = ", ".join(f"{key} {body.get(key, 0)}" for key in ("inserted", "updated", "unchanged", "skipped"))
        print(f"accepted {body.get('accepted', 0)}: {counts}")
    elif answer.status == 410:
        print(f"refused: {body.get('error', 'this install has retracted its contributions')}")
    elif answer.status == 429:
        print(f"refused for now: too many requests; try again in {answer.retry_after or 'a while'} seconds")
    else:
        print(f"refused ({answer.status}): {body.get('error', 'no reason given')}")
    for error in body.get("errors") or []:
        print(f"  row {error.get('row')}, column {error.get('col')}: {error.get('message')}")
    return answer.status == 202


def cmd_submit(args: argparse.Namespace) -> int:
    rows, summary = _collect(args)
    _print_summary(summary)
    install = load_identity().install
    if args.dry_run:
        body = envelope(rows, install if args.show_install else MASKED_INSTALL)
        print(json.dumps(body, indent=1))
        return 0
    if not rows:
        print("nothing to send")
        return 0
    url = contribution_url(args.url)
    for start in range(0, len(rows), BATCH_ROWS):
        if not _report(request(url, envelope(rows[start : start + BATCH_ROWS], install))):
            return 1
    return 0


def cmd_retract(args: argparse.Namespace) -> int:
    url = contribution_url(args.url)
    if not args.yes:
        reply = input(f"Delete every cycle this install sent to {url}? Later sends will be refused. [y/N] ")
        if reply.strip().lower() not in ("y", "yes"):
            print("nothing asked")
            return 1
    answer = request(url + "/retract", {"install": load_identity().install})
    if answer.status == 200:
        print(f"deleted {answer.body.get('deleted', 0)} cycles; this install's later contributions will be refused")
        return 0
    return int(not _report(answer))


def cmd_status(args: argparse.Namespace) -> int:
    identity = load_identity()
    print(f"identity: {identity.path}")
    print(f"install id: {identity.install if args.show_install else MASKED_INSTALL}")
    roots = _roots(args)
    for harness in _harnesses(args):
        paths, _ = find(harness, roots)
        print(f"{harness}: {len(paths)} log files")
    url = contribution_url(args.url)
    try:
        answer = request(stats_url(url), timeout=15)
    except OSError as error:
        print(f"service {url}: not reachable ({error.__class__.__name__})")
        return 1
    stats = answer.body
    print(
        f"service {url}: {stats.get('cycles', '?')} cycles, {stats.get('judged', '?')} judged, "
        f"{stats.get('contributors', '?')} contributors"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    handlers = {
        "scan": cmd_scan,
        "report": cmd_report,
        "submit": cmd_submit,
        "retract": cmd_retract,
        "status": cmd_status,
    }
    try:
        return handlers[args.command](args)
    except (NoServiceUrl, ConfigError, UnreadableDocument) as error:
        print(f"pragmatikos-record: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # the service unreachable, a folder unreadable: one sentence, no trace
        print(f"pragmatikos-record: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
