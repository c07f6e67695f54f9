import re

import pytest
from django.template import Context, Template, TemplateSyntaxError
from django.test import Client

from leaderboard.models import Snapshot
from pages import wording
from pages.glossary import TERMS
from tests.pages.conftest import page_text, ranked_labels


def linked_terms(page: str) -> set[str]:
    return set(re.findall(r'<a class="term" href="/glossary/#([a-z-]+)">', page))


def test_it_defines_every_term_under_its_own_anchor(demo_snapshot: Snapshot, client: Client) -> None:
    response = client.get("/glossary/")
    assert response.status_code == 200
    page = response.content.decode()
    anchors = re.findall(r'<dt id="([a-z-]+)">', page)
    assert anchors == list(TERMS)
    text = page_text(page)
    meta = demo_snapshot.views["modelCombo"]["meta"]
    assert f"k = {meta['evidenceK']}" in text  # the method's numbers, as the snapshot states them
    assert f"fewer than {meta['minJudged']} judged cycles" in text
    for term in TERMS.values():
        assert term.lower() in text.lower()


def test_the_front_page_links_its_terms_to_the_glossary(demo_snapshot: Snapshot, client: Client) -> None:
    page = client.get("/").content.decode()
    assert {"judged", "contributor", "pending", "unshippable", "variance-share", "provisional"} <= linked_terms(page)
    assert {"score", "score-parts", "rank-range", "odds", "top-share"} <= linked_terms(page)
    # The counts still read as a sentence once the links are in.
    meta = demo_snapshot.document["meta"]
    assert f"{meta['pending']} pending · {meta['unshippable']} unshippable" in page_text(page)


def test_the_pairing_page_links_its_terms_to_the_glossary(demo_snapshot: Snapshot, client: Client) -> None:
    label = ranked_labels(demo_snapshot, "modelCombo")[0]
    page = client.get("/pairing/", {"view": "modelCombo", "label": label}).content.decode()
    assert {"judged", "contributor", "shrinkage", "k", "pool", "variance-share"} <= linked_terms(page)
    provisional = demo_snapshot.views["modelCombo"]["provisional"][0]["label"]
    page = client.get("/pairing/", {"view": "modelCombo", "label": provisional}).content.decode()
    assert {"provisional", "judged"} <= linked_terms(page)


def test_every_term_link_names_an_entry(demo_snapshot: Snapshot, client: Client) -> None:
    label = ranked_labels(demo_snapshot, "modelCombo")[0]
    pages = [
        client.get("/").content.decode(),
        client.get("/pairing/", {"view": "modelCombo", "label": label}).content.decode(),
        client.get("/matrix/", {"view": "modelCombo"}).content.decode(),
    ]
    glossary = client.get("/glossary/").content.decode()
    for page in pages:
        for anchor in linked_terms(page) | set(re.findall(r'href="/glossary/#([a-z-]+)"', page)):
            assert f'<dt id="{anchor}">' in glossary, anchor
    assert 'href="/glossary/"' in client.get("/methodology/").content.decode()  # and in every footer


def test_a_term_not_in_the_glossary_fails_the_template() -> None:
    with pytest.raises(TemplateSyntaxError):
        Template('{% load glossary %}{% term "nonsense" %}').render(Context())


def test_the_pairing_page_keeps_the_rank_words_apart_from_the_evidence(demo_snapshot: Snapshot, client: Client) -> None:
    group = demo_snapshot.views["modelCombo"]["groups"][0]
    page = client.get("/pairing/", {"view": "modelCombo", "label": group["label"]}).content.decode()
    assert f'<p class="note rank-words">{wording.RANK_RANGE_WORDS}</p>' in page
    evidence = re.search(r'<p class="evidence">(.*?)</p>', page, re.S)
    assert evidence is not None
    assert page_text(evidence.group(1)).startswith(f"{group['hjudged']} judged cycles, {group['hshipped']} shipped")


def test_the_data_page_links_the_api_reference_with_named_operations(demo_snapshot: Snapshot, client: Client) -> None:
    page = client.get("/data/").content.decode()
    assert 'href="/api/docs/"' in page and 'href="/api/schema/"' in page
    assert client.get("/api/docs/").status_code == 200


def test_the_methodology_tables_take_the_pages_width(demo_snapshot: Snapshot, client: Client) -> None:
    """The prose keeps its measure; the tables are outside it (the browser test measures that they fit)."""
    page = client.get("/methodology/").content.decode()
    assert '<article class="prose wide-tables">' in page
    assert page.count('<div class="table-wrap"') >= 3


def test_it_defines_the_score_its_six_parts_and_the_caveats(demo_snapshot: Snapshot, client: Client) -> None:
    from scoring.shapes import DOMINATED_SHARE, THIN_BELOW

    page = client.get("/glossary/").content.decode()
    assert {"score", "score-parts", "rank-range", "odds", "top-share", "thin", "dominated", "directional"} <= set(
        re.findall(r'<dt id="([a-z-]+)">', page)
    )
    text = page_text(page)
    for tier in wording.SHOWN_TIERS:
        assert f"{tier.name}, weight {tier.weight}: high means {tier.high}, low {tier.low}" in text
    assert "Cost 40 means costlier than the pool" in text
    # The caveats' thresholds are the method's own.
    assert f"fewer than {THIN_BELOW} judged cycles" in text and f"gave {round(DOMINATED_SHARE * 100)}% or more" in text
    for flag in wording.FLAG_WORDS:
        assert f'<dt id="{flag}">' in page


def test_directional_reads_the_labs_own_number_of_runs(demo_snapshot: Snapshot, client: Client) -> None:
    from lab.stats import THIN_RUNS

    text = page_text(client.get("/glossary/").content.decode())
    assert f"a row with fewer than {THIN_RUNS} runs" in text
