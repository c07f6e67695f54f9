import datetime as dt
from collections import defaultdict
from typing import Any

from django.core.management import call_command
from django.test import Client

from ingest.models import Contributor, Cycle, install_hash
from leaderboard import demo, recompute, windows
from leaderboard.models import Snapshot
from leaderboard.public_names import KNOWN_HARNESSES
from tests.cycles.stored import make_contributor, make_cycles
from tests.pages.conftest import page_text

OPUS_PAIRING = "claude-opus-4.8 → claude-opus-4.8"


def test_it_generates_the_same_pool_from_the_same_seed() -> None:
    today = dt.date(2026, 11, 30)
    first = demo.demo_cycles(count=800, today=today)
    again = demo.demo_cycles(count=800, today=today)
    assert first == again
    other = demo.demo_cycles(count=800, today=today, seed=1)
    assert first != other


def test_it_generates_a_realistic_pool() -> None:
    today = dt.date(2026, 11, 30)
    cycles = [fields for _, fields in demo.demo_cycles(count=3000, today=today)]
    assert 2900 <= len(cycles) <= 3100
    pairings = {(c["planner_model"], c["builder_model"]) for c in cycles if c["planner_model"]}
    assert len(pairings) >= 12
    assert all(today - dt.timedelta(days=demo.DAYS) < c["day"] <= today for c in cycles)  # type: ignore[operator]
    statuses = {c["ship_status"] for c in cycles}
    assert statuses == {0, 1, 2}
    # The contract's rules hold: shipping needs edits in a repository and a judged status.
    for c in cycles:
        if c["shipped"]:
            assert c["edits"] and c["edit_paths"] == 1 and c["ship_status"] == 0  # type: ignore[operator]
        assert 0 <= c["edit_errors"] <= c["edits"]  # type: ignore[operator]
        assert len(str(c["cycle_key"])) == 16


def test_it_loads_and_publishes_a_demo_snapshot(db: None) -> None:
    call_command("load_demo", cycles=1200)
    snapshot = Snapshot.objects.get()
    assert snapshot.is_demo
    assert snapshot.cycles == Cycle.objects.count() > 1000
    assert Contributor.objects.count() == len(demo.demo_installs())
    assert Contributor.objects.filter(is_demo=True).count() == len(demo.demo_installs())
    assert len(snapshot.views["modelCombo"]["groups"]) >= 10


def test_it_replaces_rather_than_duplicates_on_a_second_load(db: None) -> None:
    call_command("load_demo", cycles=600)
    count = Cycle.objects.count()
    call_command("load_demo", cycles=600)
    assert Cycle.objects.count() == count
    assert Snapshot.objects.count() == 2


def test_it_loads_nothing_if_asked_to_only_fill_an_empty_database(db: None) -> None:
    call_command("load_demo", "--if-empty", cycles=600)
    count = Cycle.objects.count()
    assert count > 0
    call_command("load_demo", "--if-empty", cycles=900)
    assert Cycle.objects.count() == count
    assert Snapshot.objects.count() == 1


def test_it_keeps_later_recomputes_labelled_demo_while_demo_cycles_are_in(db: None) -> None:
    call_command("load_demo", cycles=600)
    Cycle.objects.filter(id=Cycle.objects.first().id).update(shipped=0, edits=3)  # type: ignore[union-attr]
    later = recompute.publish()
    assert later is not None and later.is_demo
    Cycle.objects.filter(contributor__is_demo=True).delete()
    make_cycles(make_contributor(), count=40, seed=9)
    real = recompute.publish()
    assert real is not None and not real.is_demo


def test_it_takes_demo_cycles_out_of_the_ranking_at_the_first_real_contribution(
    db: None, client: Client, django_capture_on_commit_callbacks
) -> None:
    call_command("load_demo", cycles=600)
    assert "Demo data" in client.get("/").content.decode()
    make_cycles(make_contributor(), count=40, pairings=(("gpt-7", "gpt-7"),), seed=9)

    with django_capture_on_commit_callbacks(execute=True):
        real = recompute.publish()

    assert real is not None and not real.is_demo
    assert (real.cycles, real.contributors) == (40, 1)
    assert [group["label"] for group in real.views["modelCombo"]["groups"]] == ["gpt-7 → gpt-7"]
    page = client.get("/").content.decode()
    assert "Demo data" not in page and "gpt-7 → gpt-7" in page
    stats = client.get("/api/v1/stats").json()
    assert (stats["cycles"], stats["contributors"]) == (40, 1)
    # The demo contributors' rows stay stored; they count again only if every real contributor leaves.
    assert Cycle.objects.filter(contributor__is_demo=True).count() > 0


def test_it_reuses_its_contributors_and_lets_no_client_send_as_one(db: None) -> None:
    call_command("load_demo", cycles=600)
    before = list(Contributor.objects.filter(is_demo=True).values_list("id", "number"))
    call_command("load_demo", cycles=600)
    assert list(Contributor.objects.filter(is_demo=True).values_list("id", "number")) == before
    seeded = {install_hash(install) for install in demo.demo_installs()}
    assert not Contributor.objects.filter(install_hash__in=seeded).exists()


def test_a_real_pool_below_the_floor_says_what_it_holds_what_each_group_needs_and_that_the_demo_is_hidden(
    db: None, client: Client, django_capture_on_commit_callbacks
) -> None:
    call_command("load_demo", cycles=600)
    contribute = page_text(client.get("/contribute/").content.decode())
    assert "The first real contribution hides it" in contribute  # said before it happens
    person = make_contributor()
    make_cycles(person, count=6, pairings=(("gpt-7", "gpt-7"),), seed=9)
    make_cycles(person, count=3, pairings=(("grok-5", "grok-5"),), seed=10, key_offset=100)
    with django_capture_on_commit_callbacks(execute=True):
        real = recompute.publish()
    assert real is not None and not real.is_demo and real.views["modelCombo"]["groups"] == []
    judged = real.document["meta"]["judged"]
    page = page_text(client.get("/").content.decode())
    assert "Demo data" not in page
    assert f"This pool holds {judged} judged cycles from 1 contributor, and a group is ranked once it has 10" in page
    assert "gpt-7 → gpt-7: 6 judged, 4 more to be ranked" in page
    assert "grok-5 → grok-5: 3 judged, 7 more to be ranked" in page
    assert "The demo pool shown before is hidden" in page
    assert "The first real contribution hides it" not in page_text(client.get("/contribute/").content.decode())


def test_a_pool_that_never_held_the_demo_says_nothing_of_it(db: None, client: Client) -> None:
    make_cycles(make_contributor(), count=4, pairings=(("gpt-7", "gpt-7"),), seed=9)
    assert recompute.publish() is not None
    page = page_text(client.get("/").content.decode())
    assert "gpt-7 → gpt-7: 4 judged, 6 more to be ranked" in page
    assert "demo" not in page.lower()


def test_it_runs_several_harnesses_each_sent_by_several_contributors() -> None:
    names = {harness.name for harness in demo.HARNESSES}
    assert len(names) >= 6 and names <= KNOWN_HARNESSES, "public names: the lens offers them"
    senders: dict[str, set[object]] = defaultdict(set)
    for person, fields in demo.demo_cycles(count=demo.DEFAULT_CYCLES, today=dt.date(2026, 11, 30)):
        senders[str(fields["harness"])].add(person)
    assert set(senders) == names
    assert all(len(people) >= 3 for people in senders.values()), senders


def modelcombo_groups(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {group["label"]: group for group in document["views"]["modelCombo"]["groups"]}


def test_the_demo_offers_the_harness_lens_and_a_pairing_under_each_harness(
    demo_snapshot: Snapshot, client: Client
) -> None:
    names = sorted(harness.name for harness in demo.HARNESSES)
    assert demo_snapshot.document["meta"]["harnesses"] == names
    front = client.get("/").content.decode()
    assert all(f'<option value="{name}">' in front for name in names)

    params = {"view": "modelCombo", "label": OPUS_PAIRING}
    cold = client.get("/pairing/", params).content.decode()
    assert "Under each harness" in cold and cold.count("not computed yet") == len(names)

    windows.warm_windows(snapshot_id=demo_snapshot.id)  # as the worker does after a publish
    warm = client.get("/pairing/", params)
    html = warm.content.decode()
    assert "Under each harness" in html and "not computed yet" not in html and "ETag" in warm
    lenses = {name: client.get("/api/v1/pool.json", {"harness": name}).json() for name in names}
    for name, lens in lenses.items():
        group = modelcombo_groups(lens).get(OPUS_PAIRING)
        if group is not None:
            assert f'<span class="score-num">{group["scoreAdj"]:,.1f}</span>' in html, name
    # The harnesses differ: a pairing leads under its builder's maker's agent, and not every lens has one leader.
    leaders = {name: lens["views"]["modelCombo"]["groups"][0]["label"] for name, lens in lenses.items()}
    assert leaders["claude-code"] == OPUS_PAIRING
    assert len(set(leaders.values())) > 1, leaders
