"""`pragmatikos-record`: scan, report, submit, retract, status."""

from __future__ import annotations

import argparse
import json
import sys
import uuid
import webbrowser
from pathlib import Path
from typing import Any

from pragmatikos_recorder import __version__
from pragmatikos_recorder.client import (
    BATCH_ROWS,
    Answer,
    NoServiceUrl,
    ServiceError,
    configured_url,
    contribution_url,
    counts_url,
    host_of,
    request,
    retract_url,
    stats_url,
)
from pragmatikos_recorder.config import ConfigError, load_allowed_names, load_identity, replace_identity
from pragmatikos_recorder.envelope import COLUMNS, envelope, to_rows
from pragmatikos_recorder.pool_fetch import fetch_pool, pool_url
from pragmatikos_recorder.privacy import PublicNames
from pragmatikos_recorder.report import VIEWS, UnreadableDocument, build_report
from pragmatikos_recorder.report_output import table_lines
from pragmatikos_recorder.report_page import report_page
from pragmatikos_recorder.scan import HARNESSES, Roots, find, scan_logs
from pragmatikos_recorder.summary import ScanSummary, summarise
from pragmatikos_recorder.words import count

MASKED_INSTALL = "<install id: add --show-install to print it>"
URL_HELP = (
    "the service: its host (https://HOST) or its contribution address (https://HOST/api/v1/contributions);"
    " default $PRAGMATIKOS_URL"
)
STAND_IN_NOTE = "install: a random stand-in, not this install's id (--show-install puts the real one)"
START_AGAIN = "to contribute again, start a new install: pragmatikos-record submit --new-install"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pragmatikos-record",
        description="Turn coding agents' sessions (Claude Code, Codex CLI, aider, OpenCode, Cline, Roo Code, Kilo Code,"
        " Gemini CLI, Copilot CLI, Goose, Amp) into anonymous cycles; send them to Pragmatikos.",
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
            "--opencode-dir",
            type=Path,
            help="OpenCode's data folder, or any folder of opencode.db, storage/ or export files"
            " (default $XDG_DATA_HOME/opencode or ~/.local/share/opencode)",
        )
        sub.add_argument(
            "--gemini-dir", type=Path, help="Gemini CLI's folder (default $GEMINI_CLI_HOME/.gemini or ~/.gemini)"
        )
        sub.add_argument(
            "--copilot-dir", type=Path, help="GitHub Copilot CLI's folder (default $COPILOT_HOME or ~/.copilot)"
        )
        sub.add_argument(
            "--goose-dir",
            type=Path,
            help="Goose's data folder holding sessions/sessions.db (default ~/.local/share/goose,"
            " %%APPDATA%%\\Block\\goose\\data on Windows)",
        )
        sub.add_argument(
            "--amp-dir",
            type=Path,
            help="Amp's data folder holding threads/, or a folder of `amp threads export` files"
            " (default ~/.local/share/amp or $XDG_DATA_HOME/amp)",
        )
        sub.add_argument(
            "--allow-name",
            action="append",
            default=[],
            metavar="NAME",
            help="send this model or provider name though no public list knows it (also allow_names in config.toml)",
        )

    def with_url(sub: argparse.ArgumentParser, more: str = "; required: there is no built-in address") -> None:
        sub.add_argument("--url", help=URL_HELP + more)

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
    submit.add_argument(
        "--dry-run",
        action="store_true",
        help="print the request body instead of sending it; its install is a random stand-in for this run, not"
        " yours, so the body can be posted to /api/v1/contributions/preview as it is",
    )
    submit.add_argument("--show-install", action="store_true", help="put the real install id in a dry run")
    submit.add_argument(
        "--new-install",
        action="store_true",
        help="after a retraction: make a new install id (and cycle keys), then send; refused while the service"
        " still holds cycles of the current one",
    )
    retract = commands.add_parser("retract", help="ask the service to delete every cycle this install sent")
    with_url(retract)
    retract.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    status = commands.add_parser(
        "status",
        help="where the identity lives, which logs are found, what would be sent; with --url, what the service holds"
        " of this install",
    )
    with_logs(status)
    with_url(status, "; without one nothing is asked")
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
        opencode=args.opencode_dir or defaults.opencode,
        gemini=args.gemini_dir or defaults.gemini,
        copilot=args.copilot_dir or defaults.copilot,
        goose=(args.goose_dir,) if args.goose_dir else defaults.goose,
        amp=(args.amp_dir,) if args.amp_dir else defaults.amp,
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
        print(START_AGAIN)
    elif answer.status == 429:
        print(f"refused for now: too many requests; try again in {answer.retry_after or 'a while'} seconds")
    else:
        print(f"refused ({answer.status}): {body.get('error', 'no reason given')}")
    for error in body.get("errors") or []:
        print(f"  row {error.get('row')}, column {error.get('col')}: {error.get('message')}")
    return answer.status == 202


def cmd_submit(args: argparse.Namespace) -> int:
    if args.new_install and args.dry_run:
        print("pragmatikos-record: --new-install sends; leave out --dry-run", file=sys.stderr)
        return 2
    url = "" if args.dry_run else contribution_url(args.url)  # where to send, asked before the logs are read
    if args.new_install and not _start_new_install(url):
        return 1
    rows, summary = _collect(args)
    _print_summary(summary)
    install = load_identity().install
    if args.dry_run:
        body = envelope(rows, install if args.show_install else str(uuid.uuid4()))
        print(json.dumps(body, indent=1))
        if not args.show_install:
            print(STAND_IN_NOTE, file=sys.stderr)
        return 0
    if not rows:
        print("nothing to send")
        return 0
    for start in range(0, len(rows), BATCH_ROWS):
        if not _report(request(url, envelope(rows[start : start + BATCH_ROWS], install))):
            return 1
    return 0


def _start_new_install(url: str) -> bool:
    """Replace the install id, once the service holds no cycle of the current one (else they would count twice)."""
    answer = request(counts_url(url), {"install": load_identity().install}, timeout=15)
    stored = answer.body.get("stored", 0) if answer.status == 200 else 0
    if answer.status not in (200, 410):
        return _report(answer)
    if stored:
        print(
            f"refused: {host_of(url)} holds {count(stored, 'cycle')} of this install; a new install would send"
            " them again under another id. Retract them first (pragmatikos-record retract), then use --new-install."
        )
        return False
    replace_identity()
    print("new install id made; the cycles go under it from now on")
    return True


def cmd_retract(args: argparse.Namespace) -> int:
    url = contribution_url(args.url)
    if not args.yes:
        reply = input(f"Delete every cycle this install sent to {url}? Later sends will be refused. [y/N] ")
        if reply.strip().lower() not in ("y", "yes"):
            print("Nothing retracted.")
            return 1
    answer = request(retract_url(url), {"install": load_identity().install})
    if answer.status == 200:
        deleted = count(answer.body.get("deleted", 0), "cycle")
        print(f"deleted {deleted}; this install's later contributions will be refused ({START_AGAIN})")
        return 0
    return int(not _report(answer))


def cmd_status(args: argparse.Namespace) -> int:
    identity = load_identity()
    print(f"identity: {identity.path}")
    print(f"install id: {identity.install if args.show_install else MASKED_INSTALL}")
    roots = _roots(args)
    for harness in _harnesses(args):
        paths, _ = find(harness, roots)
        print(f"{harness}: {count(len(paths), 'log file')}")
    _, summary = _collect(args)
    print(f"would send: {summary.lines()[0]}")
    given = configured_url(args.url)
    if given is None:
        print("service: not asked (--url https://HOST shows what it holds of this install)")
        return 0
    url = contribution_url(given)
    return 0 if _print_service_counts(url, identity.install) else 1


def _print_service_counts(url: str, install: str) -> bool:
    """This install's cycles as the service holds them, then the pool's."""
    host = host_of(url)
    answer = request(counts_url(url), {"install": install}, timeout=15)
    if answer.status == 410:
        print(f"this install at {host}: retracted; {START_AGAIN}")
    elif answer.status == 200:
        mine = answer.body
        print(
            f"this install at {host}: {count(mine.get('stored', 0), 'cycle')} stored, {mine.get('judged', 0)} judged,"
            f" {mine.get('pending', 0)} pending (ship window open when sent; sent again once it closes)"
        )
    else:
        return _report(answer)
    stats = request(stats_url(url), timeout=15).body
    print(
        f"the pool at {host}: {count(stats.get('cycles', 0), 'cycle')}, {stats.get('judged', 0)} judged, "
        f"{count(stats.get('contributors', 0), 'contributor')}"
    )
    return True


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
    except ServiceError as error:  # nothing answered, or not the API: one line naming the address to use
        print(f"pragmatikos-record: {error}", file=sys.stderr)
        return 1
    except OSError as error:  # the service unreachable, a folder unreadable: one sentence, no trace
        print(f"pragmatikos-record: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
