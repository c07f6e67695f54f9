"""The ingest while its database connections are cut: gunicorn as deployed, backends terminated under it.

A client posts contributions in a loop (overlapping rows of a few installs, each send with a
later `generated`) to gunicorn started with deploy/gunicorn.conf.py, while another thread
terminates every PostgreSQL backend of the test database but the test's own, again and again.
Every answer must be a 202 or the API's JSON 503 with Retry-After; a connection dropped
without an answer is resent (acceptable: rows are keyed). Afterwards every row acknowledged
with a 202 is stored once, with the facts of its latest acknowledged send.
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.db import connection
from django.db.models import Count

from core.keys import install_hash
from ingest.models import Cycle
from tests.cycles.wire import envelope, wire_cycle
from tests.ingest.conftest import CONTRIBUTE, Api
from tests.pipeline.workers import deployed_gunicorn

pytestmark = pytest.mark.django_db(transaction=True)

SENDS = 120
SECONDS = 30.0
INSTALLS = 3
KEYS_PER_INSTALL = 60
RESENDS = 5


@dataclass
class Server:
    port: int
    log: Path

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


@pytest.fixture
def gunicorn() -> Iterator[Server]:
    limits = {"INGEST_RATE_PER_INSTALL": "100000/hour", "INGEST_RATE_PER_ADDRESS": "100000/hour", "DEBUG": "0"}
    with deployed_gunicorn(WEB_WORKERS="2", WEB_THREADS="4", ALLOWED_HOSTS="127.0.0.1,localhost", **limits) as (
        port,
        log,
    ):
        yield Server(port, log)


def admin_url() -> str:
    """A connection to the server's maintenance database: the cutter is never one of the backends it cuts."""
    db = connection.settings_dict
    return f"postgresql://{db['USER']}:{db['PASSWORD']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/postgres"


class Cutter:
    """Terminates the test database's backends (never another database's, never the test's own) until stopped."""

    def __init__(self, database: str, spared_pid: int) -> None:
        self.database = database
        self.spared_pid = spared_pid
        self.stop = threading.Event()
        self.rounds = 0
        self.terminated = 0
        self.thread = threading.Thread(target=self.run)

    def run(self) -> None:
        rng = random.Random(11)
        with psycopg.connect(admin_url(), autocommit=True) as conn:
            # Often enough to cut requests mid-write, seldom enough that a loaded machine still gets some through.
            while not self.stop.wait(rng.uniform(0.01, 0.1)):
                cut = conn.execute(
                    "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE datname = %s AND pid <> pg_backend_pid() AND pid <> %s",
                    (self.database, self.spared_pid),
                ).fetchone()
                self.rounds += 1
                self.terminated += cut[0] if cut else 0


@dataclass
class Client:
    """Posts with resends on a dropped connection; keeps every answer and the latest acknowledged facts."""

    port: int
    answers: Counter[str] = field(default_factory=Counter)
    bad_answers: list[str] = field(default_factory=list)
    drops: int = 0
    acknowledged: dict[tuple[str, str], tuple[datetime, int, float]] = field(default_factory=dict)

    def send(self, body: dict[str, Any]) -> tuple[int, bytes] | None:
        data = json.dumps(body).encode()
        for _ in range(RESENDS):
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            try:
                conn.request("POST", CONTRIBUTE, body=data, headers={"Content-Type": "application/json"})
                response = conn.getresponse()
                answer = response.read()
            except (OSError, http.client.HTTPException):
                self.drops += 1
                continue
            finally:
                conn.close()
            self.check(response, answer)
            return response.status, answer
        return None

    def check(self, response: http.client.HTTPResponse, answer: bytes) -> None:
        kind = response.getheader("Content-Type") or ""
        retry_after = response.getheader("Retry-After") or ""
        self.answers[str(response.status)] += 1
        is_json = kind.startswith("application/json")
        if response.status == 202 and is_json:
            return
        if response.status == 503 and is_json and retry_after.isdigit() and "error" in json.loads(answer):
            return
        self.bad_answers.append(f"{response.status} {kind} Retry-After={retry_after!r}: {answer[:200]!r}")

    def run(self, stop_at: float) -> int:
        rng = random.Random(5)
        installs = [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(INSTALLS)]
        base = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=10)
        sends = 0
        for number in range(1, SENDS + 1):
            if time.monotonic() > stop_at:
                break
            which = rng.randrange(INSTALLS)
            size = rng.randint(5, 25)
            start = rng.randrange(KEYS_PER_INSTALL - size)
            cost = round(number * 0.01, 4)
            rows = [wire_cycle(which * 1000 + key, tcost=cost) for key in range(start, start + size)]
            for facts in rows:
                if facts["tedits"] and facts["tpaths"] == 1:
                    facts["tship"] = rng.randint(0, 1)
            generated = base + timedelta(milliseconds=number)
            answered = self.send(envelope(rows, install=installs[which], generated=generated))
            sends += 1
            if answered is None or answered[0] != 202:
                continue
            assert json.loads(answered[1])["accepted"] == len(rows)
            for facts in rows:
                self.acknowledged[(installs[which], facts["cycle_key"])] = (generated, facts["tship"], facts["tcost"])
        return sends


def test_it_answers_202_or_json_503_and_keeps_every_acknowledged_row_while_connections_are_cut(
    gunicorn: Server,
) -> None:
    own_pid = connection.cursor().connection.info.backend_pid
    cutter = Cutter(connection.settings_dict["NAME"], own_pid)
    client = Client(gunicorn.port)

    cutter.thread.start()
    try:
        sends = client.run(stop_at=time.monotonic() + SECONDS)
    finally:
        cutter.stop.set()
        cutter.thread.join()
    print(
        f"\n{sends} sends, answers {dict(client.answers)}, {client.drops} dropped and resent; "
        f"{cutter.terminated} backends terminated in {cutter.rounds} rounds; "
        f"{len(client.acknowledged)} rows acknowledged"
    )

    assert not client.bad_answers, (client.bad_answers[:3], gunicorn.log_text()[-6000:])
    assert "Traceback" not in gunicorn.log_text(), gunicorn.log_text()[-3000:]
    # The faults were real and the service still got work through between them.
    assert cutter.terminated >= 20
    assert client.answers["503"] >= 1
    assert client.answers["202"] >= 10
    stored = {
        (digest, key): (generated, shipped, round(cost, 4))
        for digest, key, generated, shipped, cost in Cycle.objects.values_list(
            "contributor__install_hash", "cycle_key", "generated", "shipped", "cost_usd"
        )
    }
    expected = {(install_hash(uuid.UUID(install)), key): sent for (install, key), sent in client.acknowledged.items()}
    lost = [key for key in expected if key not in stored]
    # A newer copy than the latest acknowledged can only come from a send answered 503 after its commit.
    regressed = [key for key, sent in expected.items() if key in stored and stored[key][0] < sent[0]]
    changed = [
        key for key, sent in expected.items() if key in stored and stored[key][0] == sent[0] and stored[key] != sent
    ]
    doubled = Cycle.objects.values("contributor__install_hash", "cycle_key").annotate(n=Count("id")).filter(n__gt=1)
    assert (len(lost), len(regressed), len(changed), doubled.count()) == (0, 0, 0, 0)


def test_it_answers_json_503_when_the_connection_is_cut_just_before_the_rows_are_copied(api: Api) -> None:
    pid = connection.cursor().connection.info.backend_pid

    def cut_after_reading_stored_copies(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        result = execute(sql, params, many, context)
        if sql.lstrip().startswith("SELECT") and 'FROM "ingest_cycle"' in sql:
            # The next statement is the COPY of the new rows; wait (up to 5 s) until the backend is gone.
            with psycopg.connect(admin_url(), autocommit=True) as admin:
                admin.execute("SELECT pg_terminate_backend(%s, 5000)", (pid,))
        return result

    with connection.execute_wrapper(cut_after_reading_stored_copies):
        response = api.contribute(envelope(3))
    connection.close()

    assert response.status_code == 503
    assert response["Content-Type"].startswith("application/json")
    assert int(response["Retry-After"]) > 0
    assert Cycle.objects.count() == 0
