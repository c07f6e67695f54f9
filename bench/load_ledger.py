"""The load benchmark's books: what each request sent and was answered, checked against the database
afterwards; the worker it starts, and how long it spent recomputing, read from its log."""

from __future__ import annotations

import http.client
import json
import random
import re
import subprocess
import sys
import threading
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
from django.conf import settings

from core.keys import install_hash
from tests.cycles.wire import wire_cycle

REPO = Path(__file__).resolve().parent.parent


@dataclass
class Sent:
    """The latest acknowledged send of one row: its `generated` and the facts it carried."""

    generated: datetime
    shipped: int
    cost: float


@dataclass
class Tally:
    """Per-endpoint latencies and status counts, shared by every thread under one lock."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))

    def record(self, endpoint: str, status: str, seconds: float) -> None:
        with self.lock:
            self.latencies[endpoint].append(seconds * 1000)
            self.statuses[endpoint][status] += 1


class Ledger:
    """What the server acknowledged: per (install, cycle_key) the latest 202 by `generated`."""

    def __init__(self, installs: list[str], keys_per_install: int, seed: int) -> None:
        self.lock = threading.Lock()
        self.installs = installs
        self.keys_per_install = keys_per_install
        self.rng = random.Random(seed)
        self.sends = 0
        # Each send's cost is its number (stored to 4 decimals): a stored row tells which send it came from.
        # Times strictly increasing from 20 minutes ago, one millisecond apart (the plugin's precision).
        self.base = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=20)
        self.acknowledged: dict[tuple[str, str], Sent] = {}
        self.retracted: set[str] = set()
        self.gone_answers = 0
        # Installs of the abuse phase, each used for one contribution (and maybe its retraction).
        self.fresh: list[str] = []

    def next_send(self, rng: random.Random) -> tuple[str, datetime, list[dict[str, Any]]]:
        """One send: an install, a fresh `generated` and an overlapping window of its rows, facts varied."""
        with self.lock:
            self.sends += 1
            number = self.sends
        generated = self.base + timedelta(milliseconds=number)
        which = rng.randrange(len(self.installs))
        size = rng.randint(5, 40)
        start = rng.randrange(self.keys_per_install - size)
        rows = []
        for key in range(start, start + size):
            facts = wire_cycle(which * 10_000 + key, tcost=round(number * 0.001, 4))
            if facts["tedits"] and facts["tpaths"] == 1 and facts["tshipe"] == 0:
                facts["tship"] = rng.randint(0, 1)
            rows.append(facts)
        return self.installs[which], generated, rows

    def fresh_send(self, rng: random.Random) -> tuple[str, datetime, list[dict[str, Any]]]:
        """A contribution of a few rows from an install never used before."""
        install = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        with self.lock:
            self.fresh.append(install)
        now = datetime.now(UTC)
        generated = now.replace(microsecond=now.microsecond // 1000 * 1000)  # the plugin's precision
        # Costs to 4 decimals, as they are stored: the check compares them.
        rows = [wire_cycle(key, tcost=round(rng.uniform(0.01, 5), 4)) for key in range(rng.randint(3, 8))]
        return install, generated, rows

    def acknowledge(self, install: str, generated: datetime, rows: list[dict[str, Any]]) -> None:
        with self.lock:
            for facts in rows:
                key = (install, facts["cycle_key"])
                known = self.acknowledged.get(key)
                if known is None or known.generated < generated:
                    self.acknowledged[key] = Sent(generated, facts["tship"], facts["tcost"])


@dataclass
class Verdict:
    """The distinct rows acknowledged, and how often the database disagrees with the ledger, by kind."""

    acknowledged: int = 0
    faults: Counter[str] = field(default_factory=Counter)

    @property
    def ok(self) -> bool:
        return not any(self.faults.values())


def verify(database_url: str, hash_key: str, ledger: Ledger) -> Verdict:
    """The database against the ledger of acknowledged sends."""
    # The server's own keyed hash, under the key the run gave the server (nothing else of Django is used here).
    settings.configure(INSTALL_HASH_KEY=hash_key)
    by_digest = {install_hash(uuid.UUID(install)): install for install in [*ledger.installs, *ledger.fresh]}
    with psycopg.connect(database_url) as conn:
        stored = conn.execute(
            "SELECT c.install_hash, y.cycle_key, y.shipped, y.cost_usd, y.generated "
            "FROM ingest_cycle y JOIN ingest_contributor c ON c.id = y.contributor_id "
            "WHERE c.install_hash = ANY(%s)",
            (list(by_digest),),
        ).fetchall()
    copies: dict[tuple[str, str], list[tuple[int, float, datetime]]] = defaultdict(list)
    verdict = Verdict()
    for digest, key, shipped, cost, generated in stored:
        install = by_digest[digest]
        if install in ledger.retracted:
            verdict.faults["retracted rows"] += 1
            continue
        copies[(install, key)].append((shipped, cost, generated))
    verdict.faults["duplicated"] = sum(len(found) - 1 for found in copies.values() if len(found) > 1)
    for (install, key), sent in ledger.acknowledged.items():
        if install in ledger.retracted:
            continue
        verdict.acknowledged += 1
        found = copies.get((install, key))
        if not found:
            verdict.faults["lost"] += 1
            continue
        shipped, cost, generated = found[0]
        # A later copy than the latest acknowledged one can only come from a send left unanswered.
        if generated < sent.generated or (
            generated == sent.generated and (shipped != sent.shipped or round(cost, 4) != sent.cost)
        ):
            verdict.faults["regressed"] += 1
    return verdict


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def newest_snapshot_id(conn: psycopg.Connection[Any]) -> int:
    """Snapshots are pruned as new ones are published: ids, not rows, count what was published."""
    row = conn.execute("SELECT coalesce(max(id), 0) FROM leaderboard_snapshot").fetchone()
    return int(row[0]) if row else 0


TASK_DONE = re.compile(
    r"^\[(?P<at>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}): [^\]]*\] Task leaderboard\.tasks\.(?P<task>\w+)\[[^\]]*\] "
    r"(?:succeeded|raised unexpected|failed)[^\d]*(?P<seconds>[\d.]+)s"
)


RECOMPUTE_TASKS = {"recompute_rankings", "recompute_if_owed", "scheduled_recompute"}


def recompute_busy_seconds(log: Path, started: float, ended: float) -> tuple[float, int]:
    """Seconds of the worker's recompute tasks that ran within [started, ended] (wall clock), and how
    many ran: each task's time cut to the part inside the phase."""
    busy, count = 0.0, 0
    for line in log.read_text(errors="replace").splitlines():
        matched = TASK_DONE.match(line)
        if matched is None or matched["task"] not in RECOMPUTE_TASKS:
            continue
        finished = datetime.strptime(matched["at"], "%Y-%m-%d %H:%M:%S,%f").timestamp()
        took = float(matched["seconds"])
        inside = min(finished, ended) - max(finished - took, started)
        if inside > 0:
            busy += inside
            count += 1
    return busy, count


def post(conn: http.client.HTTPConnection, path: str, body: dict[str, Any]) -> tuple[int, bytes, dict[str, str]]:
    conn.request("POST", path, body=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    return response.status, response.read(), {k.lower(): v for k, v in response.getheaders()}


def start_worker(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "celery", "-A", "pragmatikos", "worker", "--pool", "prefork"]
    command += ["--concurrency", "1", "--loglevel", "INFO"]  # INFO: each task's time, read for the busy share
    with log.open("wb") as output:
        return subprocess.Popen(command, cwd=REPO, env=env, stdout=output, stderr=subprocess.STDOUT)
