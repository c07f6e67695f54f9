"""Nothing one contributor makes up reaches the public pages or downloads: names need two seasoned senders that
sent them on three days, a known name or an operator's word, in every published column."""

import csv
import gzip
import io
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command
from django.db.models import F
from django.test import Client

from ingest.models import Contributor, NameSighting
from ingest.services import contribute
from leaderboard import cycles_file, recompute
from scoring.public_labels import OTHER_LABEL
from tests.cycles import drawn_cycles
from tests.cycles.stored import make_contributor, make_cycles, store_cycles
from tests.cycles.wire import envelope, wire_cycle
from tests.ingest.conftest import CONTRIBUTE, Api
from tests.ingest.test_services import validated

pytestmark = [pytest.mark.django_db, pytest.mark.public_labels]

SPAM = "alice-macbook-pro"
SEASONED = timedelta(days=5)  # first seen five days ago, latest contribution now: names sighted on 4 days since


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


def test_one_person_with_two_fresh_installs_does_not_unlock_a_name_even_once_they_have_aged(
    client: Client, django_capture_on_commit_callbacks
) -> None:
    """Random install ids cost nothing: what an install sent before it counted never counts, later either."""
    name = "evilcorp-leaked-name"
    api = Api(client)
    for install in (uuid.uuid4(), uuid.uuid4()):
        rows = [wire_cycle(i, pm=name, pp="openrouter", bm="claude-opus-4.8", bp="anthropic") for i in range(6)]
        assert api.post(CONTRIBUTE, envelope(rows, install=str(install))).status_code == 202
    make_cycles(make_contributor(seen_for=SEASONED), count=6, pairings=(("claude-opus-4.8", "gpt-5"),), key_offset=50)
    publish_and_export(django_capture_on_commit_callbacks)

    assert all(name not in body for body in published_bodies(client))

    # The same two installs, seen again days later: seasoned now, but they sent the name while new.
    Contributor.objects.filter(number__in=[1, 2]).update(first_seen=F("first_seen") - SEASONED)
    publish_and_export(django_capture_on_commit_callbacks)

    assert all(name not in body for body in published_bodies(client))


# The names of issue 30's install: release suffixes made up around a sold model, and versions with room for a
# phone number, beside names made up outright.
SUFFIXED = ("us.anthropic.claude-opus-4-5-20251101-v5551234:0", "anthropic.claude-opus-4-5-v8675309:0")
MADE_UP = tuple(f"made-up-model-{n}" for n in range(12))
LONG_VERSIONS = ("555123.456789.012345.6789", "1.2.3-rc.55512345678")


def attack_rows(start: int) -> list[dict[str, object]]:
    names = [*SUFFIXED, "claude-opus-4-5-20991231", *MADE_UP]
    return [
        wire_cycle(start + i, pm=names[i % len(names)], pp="anthropic", hversion=LONG_VERSIONS[i % 2])
        for i in range(len(names) * 2)
    ]


def send_on(install: uuid.UUID, *, day: datetime, start: int) -> None:
    """What the install sends on that day (the server's clock), as the contribution endpoint stores it."""
    contribute(envelope=validated(envelope(attack_rows(start), install=install, generated=day)), now=day)


def test_made_up_names_cost_two_installs_three_days_of_sending_after_a_day_of_tenure(
    client: Client, django_capture_on_commit_callbacks
) -> None:
    now = datetime.now(UTC)
    installs = (uuid.uuid4(), uuid.uuid4())
    make_cycles(make_contributor(seen_for=SEASONED), count=6, pairings=(("claude-opus-4.8", "gpt-5"),), key_offset=900)
    published: list[bool] = []
    # First seen five days ago, then sending the same made-up names on each of the next days.
    for days_ago in (5, 3, 2, 1):
        for install in installs:
            send_on(install, day=now - timedelta(days=days_ago), start=100 * days_ago)
        publish_and_export(django_capture_on_commit_callbacks)
        bodies = published_bodies(client)
        assert all(raw not in body for body in bodies for raw in SUFFIXED), "only canonical names"
        assert "claude-opus-4.5" in bodies[2], "the suffixed names are the model they name, known"
        published.append(all(name in bodies[2] for name in MADE_UP))
        published.append(all(version in bodies[-1] for version in LONG_VERSIONS))  # cycles.csv

    # Not when new, nor once aged a day (days ago 3 and 2: one and two days of sending): only on the third day.
    # Long versions are names like any other then.
    assert published == [False, False, False, False, False, False, True, True]
    assert set(NameSighting.objects.filter(name=MADE_UP[0]).values_list("day", flat=True)) == {
        (now - timedelta(days=days_ago)).date() for days_ago in (5, 3, 2, 1)
    }


def test_a_retraction_deletes_the_names_the_install_sent(client: Client) -> None:
    install, api = str(uuid.uuid4()), Api(client)
    assert api.contribute(envelope(attack_rows(0), install=install)).status_code == 202
    assert NameSighting.objects.filter(name=MADE_UP[0]).exists()

    assert api.retract(install).status_code == 200
    assert not NameSighting.objects.exists()


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
