"""Nothing one contributor makes up reaches the public pages or downloads: names need two seasoned senders,
a known name or an operator's word, in every published column."""

import csv
import gzip
import io
import uuid
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db.models import F
from django.test import Client

from ingest.models import Contributor
from rankings import cycles_file, recompute
from scoring.public_labels import OTHER_LABEL
from tests.cycles import drawn_cycles
from tests.cycles.stored import make_contributor, make_cycles, store_cycles
from tests.cycles.wire import envelope, wire_cycle
from tests.ingest.conftest import CONTRIBUTE, Api

pytestmark = [pytest.mark.django_db, pytest.mark.public_labels]

SPAM = "alice-macbook-pro"
SEASONED = timedelta(days=3)  # first seen three days ago, latest contribution now


def publish_and_export(callbacks) -> None:  # type: ignore[no-untyped-def]
    with callbacks(execute=True):
        snapshot = recompute.publish(force=True)
    assert snapshot is not None
    assert cycles_file.write_cycles_export(snapshot_id=snapshot.id) is not None


def published_bodies(client: Client) -> list[str]:
    """Every place a name could be published: the pages, pool.json, both downloads."""
    bodies = [
        client.get(path, params).content.decode()
        for path, params in (
            ("/", {}),
            ("/", {"view": "model"}),
            ("/api/v1/pool.json", {}),
            ("/data/rankings.csv", {"view": "modelCombo"}),
        )
    ]
    download = client.get("/data/cycles.csv.gz")
    assert download.status_code == 200
    bodies.append(gzip.decompress(b"".join(download.streaming_content)).decode())  # type: ignore[attr-defined]
    return bodies


def downloaded(client: Client) -> list[dict[str, str]]:
    response = client.get("/data/cycles.csv.gz")
    return list(csv.DictReader(io.StringIO(gzip.decompress(b"".join(response.streaming_content)).decode())))  # type: ignore[attr-defined]


def test_it_folds_a_name_one_contributor_sent_into_other_on_every_page(
    client: Client, django_capture_on_commit_callbacks
) -> None:
    make_cycles(make_contributor(), count=24, pairings=((SPAM, "claude-opus-4.8"), ("claude-opus-4.8", SPAM)))
    with django_capture_on_commit_callbacks(execute=True):
        recompute.publish()

    pages = [
        client.get(path, params) for path, params in (("/", {}), ("/", {"view": "model"}), ("/api/v1/pool.json", {}))
    ]
    rankings = client.get("/data/rankings.csv", {"view": "modelCombo"})

    for response in [*pages, rankings]:
        assert response.status_code == 200
        body = response.content.decode()
        assert SPAM not in body
    assert f"{OTHER_LABEL} → claude-opus-4.8" in rankings.content.decode()
    assert "fewer than 2 contributors sent" in pages[0].content.decode()
    assert "2 or more contributors" in client.get("/methodology/").content.decode()


def test_it_shows_a_name_once_a_second_contributor_sends_it_and_a_known_one_at_once(
    client: Client, django_capture_on_commit_callbacks
) -> None:
    make_cycles(make_contributor(seen_for=SEASONED), count=12, pairings=(("qwen3:32b", "claude-opus-4.8"),), seed=1)
    make_cycles(
        make_contributor(seen_for=SEASONED), count=12, pairings=(("claude-haiku-4.5", "gpt-5"),), seed=2, key_offset=100
    )
    with django_capture_on_commit_callbacks(execute=True):
        recompute.publish()
    before = client.get("/api/v1/pool.json").content.decode()
    make_cycles(
        make_contributor(seen_for=SEASONED),
        count=12,
        pairings=(("qwen3:32b", "claude-opus-4.8"),),
        seed=3,
        key_offset=200,
    )
    with django_capture_on_commit_callbacks(execute=True):
        recompute.publish()
    after = client.get("/api/v1/pool.json").content.decode()

    assert "qwen3:32b" not in before and "claude-haiku-4.5 → gpt-5" in before
    assert "qwen3:32b → claude-opus-4.8" in after


def test_one_person_with_two_fresh_installs_does_not_unlock_a_name(
    client: Client, django_capture_on_commit_callbacks
) -> None:
    """Random install ids cost nothing: senders count once seen on occasions a day apart."""
    name = "evilcorp-leaked-name"
    api = Api(client)
    for install in (uuid.uuid4(), uuid.uuid4()):
        rows = [wire_cycle(i, pm=name, pp="openrouter", bm="claude-opus-4.8", bp="anthropic") for i in range(6)]
        assert api.post(CONTRIBUTE, envelope(rows, install=str(install))).status_code == 202
    make_cycles(make_contributor(seen_for=SEASONED), count=6, pairings=(("claude-opus-4.8", "gpt-5"),), key_offset=50)
    publish_and_export(django_capture_on_commit_callbacks)

    assert all(name not in body for body in published_bodies(client))

    # The same two installs, seen again a day later: two seasoned senders.
    Contributor.objects.filter(number__in=[1, 2]).update(first_seen=F("first_seen") - SEASONED)
    publish_and_export(django_capture_on_commit_callbacks)

    assert all(name in body for body in published_bodies(client)[2:])


def test_it_folds_providers_harnesses_and_versions_one_contributor_sent_in_every_download(
    client: Client, django_capture_on_commit_callbacks
) -> None:
    private = {"provider": "contoso-prod", "harness": "acme-internal-harness", "harness_version": "9.9.9-contosoprod"}
    store_cycles(
        make_contributor(seen_for=SEASONED),
        [{**cycle, **private} for cycle in drawn_cycles(8, pairings=(("claude-opus-4.8", "gpt-5"),))],
    )
    for number in range(2):  # two others with the usual names: opencode, 1.14.2, anthropic
        make_cycles(make_contributor(seen_for=SEASONED), count=4, seed=number, key_offset=100 * (number + 1))
    publish_and_export(django_capture_on_commit_callbacks)

    rows = downloaded(client)
    for column, value in private.items():
        assert value not in {row[column] for row in rows}
        assert OTHER_LABEL in {row[column] for row in rows}
    assert {"opencode", OTHER_LABEL} == {row["harness"] for row in rows}
    assert "1.14.2" in {row["harness_version"] for row in rows}
    assert all(value not in body for body in published_bodies(client) for value in private.values())


def test_an_operator_denies_a_known_name_and_allows_an_unknown_one_by_command(
    client: Client, django_capture_on_commit_callbacks
) -> None:
    make_cycles(make_contributor(), count=12, pairings=(("qwen3:32b", "claude-opus-4.8"),), seed=4)
    out = io.StringIO()
    call_command("public_names", "allow", "qwen3:32b", stdout=out)
    call_command("public_names", "deny", "claude-opus-4.8", stdout=out)
    call_command("public_names", "list", stdout=out)
    publish_and_export(django_capture_on_commit_callbacks)

    bodies = published_bodies(client)
    assert all("claude-opus-4.8" not in body for body in bodies)
    assert f"qwen3:32b → {OTHER_LABEL}" in bodies[3]
    assert out.getvalue().splitlines()[-2:] == ["deny\tclaude-opus-4.8", "allow\tqwen3:32b"]

    call_command("public_names", "forget", "claude-opus-4.8", stdout=out)
    publish_and_export(django_capture_on_commit_callbacks)
    assert "qwen3:32b → claude-opus-4.8" in published_bodies(client)[3]
