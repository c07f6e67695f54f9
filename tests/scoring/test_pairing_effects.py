"""Scoring spec B3: the pairing effect net of contributors (scoring/pairing_effects.py). Pure: no database."""

import math
import time
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import sparse
from statsmodels.genmod.bayes_mixed_glm import BinomialBayesMixedGLM

from scoring.judged import judged_mask
from scoring.pairing_effects import PairingEffect, PairingFit, centred_contrasts, fit_pairing_effects


def _pool(contributor: np.ndarray, pairing: np.ndarray, log_odds: np.ndarray, rng: np.random.Generator):
    """Judged, ship-judged cycles whose shipping is drawn from the given log odds; labels beside them."""
    shipped = (rng.random(len(log_odds)) < 1 / (1 + np.exp(-log_odds))).astype(np.int16)
    n = len(contributor)
    cycles = pd.DataFrame(
        {
            "contributor": contributor.astype(np.int64),
            "shipped": shipped,
            "ship_status": np.zeros(n, dtype=np.int16),
            "assistant_steps": np.full(n, 12),
            "edits": np.full(n, 3),
            "edit_paths": np.ones(n, dtype=np.int16),
        }
    )
    return cycles, np.asarray(pairing, dtype=object)


def _crossed_pool(seed: int, *, n: int, pairing_effects: dict[str, float], contributor_sd: float, n_contributors: int):
    """Every contributor uses every pairing at random: no confounding."""
    rng = np.random.default_rng(seed)
    names = np.array(list(pairing_effects), dtype=object)
    pairing = rng.integers(0, len(names), n)
    contributor = rng.integers(0, n_contributors, n)
    ability = rng.normal(0.0, contributor_sd, n_contributors)
    effect = np.array(list(pairing_effects.values()))
    cycles, labels = _pool(contributor, names[pairing], 0.2 + effect[pairing] + ability[contributor], rng)
    return cycles, labels


def _raw_odds_ratio(cycles: pd.DataFrame, labels: np.ndarray, label: str) -> tuple[float, tuple[float, float]]:
    """The pairing's odds of shipping over the pool's (all cycles given), with a Wald 95% interval."""
    mine = labels == label
    shipped, cycles_n = int(cycles["shipped"][mine].sum()), int(mine.sum())
    pool_shipped, pool_n = int(cycles["shipped"].sum()), len(cycles)
    log_or = math.log(shipped / (cycles_n - shipped)) - math.log(pool_shipped / (pool_n - pool_shipped))
    se = math.sqrt(1 / shipped + 1 / (cycles_n - shipped))
    return math.exp(log_or), (math.exp(log_or - 1.96 * se), math.exp(log_or + 1.96 * se))


def test_it_adjusts_a_pairing_used_by_strong_contributors_below_its_raw_odds_ratio() -> None:
    # Ten strong contributors put 90% of their cycles on the weak pairing; thirty weak ones mostly use the others.
    rng = np.random.default_rng(20260909)
    names = np.array(["weak", "b", "c", "d"], dtype=object)
    ability = np.r_[np.full(10, 1.5), np.full(30, -0.8)] + rng.normal(0, 0.2, 40)
    effect = np.array([-0.6, 0.0, 0.1, 0.2])
    contributor = np.repeat(np.arange(40), 150)
    strong = contributor < 10
    on_weak = rng.random(len(contributor)) < np.where(strong, 0.9, 0.05)
    pairing = np.where(on_weak, 0, rng.integers(1, 4, len(contributor)))
    cycles, labels = _pool(contributor, names[pairing], effect[pairing] + ability[contributor], rng)

    fit = fit_pairing_effects(cycles, labels=labels, ranked=set(names))

    raw, _ = _raw_odds_ratio(cycles, labels, "weak")
    weak = fit.effects["weak"]
    assert fit.converged, fit.message
    assert raw > 1.5  # the confounder makes the weak pairing look strong
    assert weak.odds_ratio is not None and weak.ci is not None
    assert weak.odds_ratio < 1.0
    assert weak.ci[1] < raw
    # The raw ranking puts the weak pairing first; the adjusted one puts it last.
    assert max(names, key=lambda label: _raw_odds_ratio(cycles, labels, label)[0]) == "weak"
    assert min(names, key=lambda label: fit.effects[label].odds_ratio or math.inf) == "weak"
    assert fit.contributor_variance_share is not None and fit.contributor_variance_share > 0.5


def test_it_agrees_with_raw_odds_ratios_without_a_confounder() -> None:
    effects = {"p1": -0.6, "p2": -0.2, "p3": 0.2, "p4": 0.6}
    cycles, labels = _crossed_pool(11, n=8000, pairing_effects=effects, contributor_sd=0.7, n_contributors=60)

    fit = fit_pairing_effects(cycles, labels=labels, ranked=set(effects))

    assert fit.converged, fit.message
    for label in effects:
        adjusted = fit.effects[label]
        raw, raw_ci = _raw_odds_ratio(cycles, labels, label)
        assert adjusted.ci is not None
        assert adjusted.ci[0] <= raw <= adjusted.ci[1]
        assert raw_ci[0] <= adjusted.odds_ratio <= raw_ci[1]  # type: ignore[operator]
    ordered = sorted(effects, key=lambda label: fit.effects[label].odds_ratio or 0.0)
    assert ordered == ["p1", "p2", "p3", "p4"]


def test_it_covers_planted_pairing_effects_at_about_the_stated_rate() -> None:
    # Pools drawn from the model itself: the 95% intervals should hold the planted contrast about 95% of the time.
    covered = intervals = 0
    for seed in range(25):
        rng = np.random.default_rng(1000 + seed)
        planted = rng.normal(0.0, 0.5, 6)
        ability = rng.normal(0.0, 1.0, 30)
        pairing, contributor = rng.integers(0, 6, 1500), rng.integers(0, 30, 1500)
        names = np.array([f"p{i}" for i in range(6)], dtype=object)
        cycles, labels = _pool(contributor, names[pairing], 0.2 + planted[pairing] + ability[contributor], rng)

        fit = fit_pairing_effects(cycles, labels=labels, ranked=set(names))

        assert fit.converged, fit.message
        for i, label in enumerate(names):
            ci = fit.effects[label].ci
            assert ci is not None
            # The published effect is the centred contrast: against the average pairing (B3).
            covered += ci[0] < math.exp(planted[i] - planted.mean()) < ci[1]
            intervals += 1
    assert 0.88 <= covered / intervals <= 0.99


def test_it_matches_statsmodels_per_cycle_variational_fit_of_the_same_model() -> None:
    # The cell-level Laplace fit must land where BinomialBayesMixedGLM.fit_vb lands on the raw Bernoulli rows.
    effects = {"p1": -0.5, "p2": 0.0, "p3": 0.2, "p4": 0.7, "p5": -0.1}
    cycles, labels = _crossed_pool(3, n=4000, pairing_effects=effects, contributor_sd=1.0, n_contributors=40)
    names = sorted(effects)
    pairing_code = pd.Categorical(labels, categories=names).codes
    contributor_code = cycles["contributor"].to_numpy()
    rows = np.arange(len(cycles))
    design = sparse.csr_array(
        (np.ones(2 * len(rows)), (np.r_[rows, rows], np.r_[pairing_code, len(names) + contributor_code])),
        shape=(len(rows), len(names) + 40),
    )
    reference = BinomialBayesMixedGLM(
        cycles["shipped"].to_numpy(dtype=float),
        np.ones((len(rows), 1)),
        design,
        np.r_[np.zeros(len(names), dtype=int), np.ones(40, dtype=int)],
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vb = reference.fit_vb(rng=0)
    vb_sd_pairing, vb_sd_contributor = np.exp(vb.vcp_mean)

    fit = fit_pairing_effects(cycles, labels=labels, ranked=set(effects))

    assert vb.optim_retvals.success
    assert fit.converged, fit.message
    vb_centred = vb.vc_mean[: len(names)] - vb.vc_mean[: len(names)].mean()
    for i, label in enumerate(names):
        assert math.log(fit.effects[label].odds_ratio) == pytest.approx(vb_centred[i], abs=0.03)  # type: ignore[arg-type]
    vb_share = vb_sd_contributor**2 / (vb_sd_contributor**2 + vb_sd_pairing**2)
    assert fit.contributor_variance_share == pytest.approx(vb_share, abs=0.05)


def test_it_gives_contributors_the_variance_share_when_they_differ_more_than_pairings() -> None:
    many = {f"p{i}": effect for i, effect in enumerate(np.linspace(-0.1, 0.1, 8))}
    cycles, labels = _crossed_pool(7, n=12000, pairing_effects=many, contributor_sd=1.5, n_contributors=60)
    contributors_matter = fit_pairing_effects(cycles, labels=labels, ranked=set(many))

    spread = {f"p{i}": effect for i, effect in enumerate(np.linspace(-2.0, 2.0, 8))}
    cycles, labels = _crossed_pool(7, n=12000, pairing_effects=spread, contributor_sd=0.1, n_contributors=60)
    pairings_matter = fit_pairing_effects(cycles, labels=labels, ranked=set(spread))

    assert contributors_matter.contributor_variance_share is not None
    assert pairings_matter.contributor_variance_share is not None
    assert contributors_matter.contributor_variance_share > 0.8
    assert pairings_matter.contributor_variance_share < 0.2


def test_it_reports_a_one_contributor_pairing_as_not_separable() -> None:
    effects = {"p1": -0.3, "p2": 0.0, "p3": 0.3}
    cycles, labels = _crossed_pool(13, n=3000, pairing_effects=effects, contributor_sd=0.8, n_contributors=30)
    rng = np.random.default_rng(13)
    solo, solo_labels = _pool(np.full(40, 7), np.full(40, "solo"), np.full(40, 0.5), rng)

    fit = fit_pairing_effects(
        pd.concat([cycles, solo], ignore_index=True),
        labels=np.r_[labels, solo_labels],
        ranked={*effects, "solo"},
    )

    assert fit.converged, fit.message
    assert fit.effects["solo"] == PairingEffect(odds_ratio=None, ci=None, separable=False)
    assert all(fit.effects[label].separable and fit.effects[label].odds_ratio for label in effects)


def test_it_counts_only_ship_judged_cycles_towards_separability() -> None:
    effects = {"p1": -0.3, "p2": 0.3}
    cycles, labels = _crossed_pool(17, n=2000, pairing_effects=effects, contributor_sd=0.8, n_contributors=20)
    rng = np.random.default_rng(17)
    mostly_one, mostly_one_labels = _pool(
        np.r_[np.full(30, 3), np.full(10, 4)], np.full(40, "mostly-one"), np.zeros(40), rng
    )
    mostly_one.loc[30:, "ship_status"] = 1  # the second contributor's cycles are all still pending

    fit = fit_pairing_effects(
        pd.concat([cycles, mostly_one], ignore_index=True),
        labels=np.r_[labels, mostly_one_labels],
        ranked={*effects, "mostly-one"},
    )

    assert fit.effects["mostly-one"].separable is False


def test_it_leaves_out_unjudged_pending_unlabelled_and_unranked_cycles() -> None:
    effects = {"p1": -0.4, "p2": 0.0, "p3": 0.4}
    cycles, labels = _crossed_pool(19, n=3000, pairing_effects=effects, contributor_sd=0.8, n_contributors=25)
    noise = pd.DataFrame(
        {
            "contributor": [1, 2, 3, 4, 5, 6, 7, 8],
            "shipped": [1, 1, 1, 1, 1, 1, 1, 1],
            "ship_status": [0, 0, 0, 1, 2, 0, 0, 0],
            "assistant_steps": [0, 5, 5, 5, 5, 5, 5, 5],
            "edits": [3, 0, 3, 3, 3, 3, 3, 3],
            "edit_paths": [1, 1, 2, 1, 1, 1, 1, 1],
        }
    )
    noise_labels = np.array(["p1", "p1", "p1", "p1", "p1", "", np.nan, "unranked"], dtype=object)

    clean = fit_pairing_effects(cycles, labels=labels, ranked=set(effects))
    everything, every_label = pd.concat([cycles, noise], ignore_index=True), np.r_[labels, noise_labels]
    judged = judged_mask(everything)  # the caller's A1 filter, as scoring.enrich applies it
    noisy = fit_pairing_effects(everything[judged], labels=every_label[judged], ranked=set(effects))

    assert clean.converged
    assert noisy == clean


def test_it_aligns_labels_given_as_a_series_by_index() -> None:
    effects = {"p1": -0.4, "p2": 0.0, "p3": 0.4}
    cycles, labels = _crossed_pool(23, n=3000, pairing_effects=effects, contributor_sd=0.8, n_contributors=25)
    shuffled = pd.Series(labels, index=cycles.index).sample(frac=1.0, random_state=1)

    assert fit_pairing_effects(cycles, labels=shuffled, ranked=set(effects)) == fit_pairing_effects(
        cycles, labels=labels, ranked=set(effects)
    )


def test_it_gives_the_same_numbers_for_the_same_cycles() -> None:
    effects = {"p1": -0.4, "p2": 0.0, "p3": 0.4}
    cycles, labels = _crossed_pool(29, n=3000, pairing_effects=effects, contributor_sd=0.8, n_contributors=25)

    first = fit_pairing_effects(cycles, labels=labels, ranked=set(effects))

    assert first.converged
    assert fit_pairing_effects(cycles.copy(), labels=labels.copy(), ranked=set(effects)) == first


def _assert_unavailable(fit: PairingFit, ranked: set[str]) -> None:
    assert fit.converged is False
    assert fit.message.startswith("adjustment unavailable: ")
    assert fit.contributor_variance_share is None
    assert set(fit.effects) == ranked
    assert all(effect.odds_ratio is None and effect.ci is None for effect in fit.effects.values())


def test_it_reports_unavailable_when_every_cycle_shipped() -> None:
    effects = {"p1": 0.0, "p2": 0.0}
    cycles, labels = _crossed_pool(31, n=500, pairing_effects=effects, contributor_sd=0.5, n_contributors=10)
    cycles["shipped"] = 1

    fit = fit_pairing_effects(cycles, labels=labels, ranked=set(effects))

    _assert_unavailable(fit, set(effects))
    assert fit.message == "adjustment unavailable: every cycle shipped"
    assert all(effect.separable for effect in fit.effects.values())


def test_it_reports_unavailable_for_a_single_pairing() -> None:
    cycles, labels = _crossed_pool(37, n=500, pairing_effects={"only": 0.0}, contributor_sd=0.5, n_contributors=10)

    _assert_unavailable(fit_pairing_effects(cycles, labels=labels, ranked={"only"}), {"only"})


def test_it_reports_unavailable_for_a_single_contributor() -> None:
    effects = {"p1": -0.5, "p2": 0.5}
    cycles, labels = _crossed_pool(41, n=500, pairing_effects=effects, contributor_sd=0.5, n_contributors=1)

    fit = fit_pairing_effects(cycles, labels=labels, ranked=set(effects))

    _assert_unavailable(fit, set(effects))
    assert not any(effect.separable for effect in fit.effects.values())


def test_it_reports_unavailable_for_no_cycles_and_keeps_ranked_labels_without_cycles() -> None:
    cycles, labels = _crossed_pool(43, n=0, pairing_effects={"p1": 0.0}, contributor_sd=0.5, n_contributors=3)

    _assert_unavailable(fit_pairing_effects(cycles, labels=labels, ranked={"p1", "p2"}), {"p1", "p2"})


def test_it_stays_finite_when_one_pairing_always_ships_and_another_never_does() -> None:
    rng = np.random.default_rng(47)
    contributor = rng.integers(0, 12, 600)
    names = np.array(["always", "never", "mixed"], dtype=object)
    pairing = rng.integers(0, 3, 600)
    cycles, labels = _pool(contributor, names[pairing], np.zeros(600), rng)
    cycles.loc[pairing == 0, "shipped"] = 1
    cycles.loc[pairing == 1, "shipped"] = 0

    fit = fit_pairing_effects(cycles, labels=labels, ranked=set(names))

    if fit.converged:
        always, never = fit.effects["always"].odds_ratio, fit.effects["never"].odds_ratio
        assert always is not None and never is not None
        assert math.isfinite(always) and math.isfinite(never)
        assert never < 1.0 < always
    else:
        _assert_unavailable(fit, set(names))


def test_it_fits_a_million_cycles_within_seconds() -> None:
    effects = {f"p{i}": effect for i, effect in enumerate(np.linspace(-0.5, 0.5, 40))}
    cycles, labels = _crossed_pool(53, n=1_000_000, pairing_effects=effects, contributor_sd=1.0, n_contributors=500)

    started = time.perf_counter()
    fit = fit_pairing_effects(cycles, labels=labels, ranked=set(effects))
    elapsed = time.perf_counter() - started

    assert fit.converged, fit.message
    assert elapsed < 5.0


def test_it_cancels_what_all_effects_share_in_the_centred_contrast() -> None:
    # Three effects sharing a common uncertainty (variance 1, as the intercept's trade-off gives them) plus their
    # own (0.04 each): the contrast a_g - mean(a) keeps only the own part, (1 - 1/3) * 0.04.
    effects = np.array([0.5, 0.0, -0.2])
    covariance = np.full((3, 3), 1.0) + np.diag(np.full(3, 0.04))
    centred, sds = centred_contrasts(effects, covariance)
    assert centred.tolist() == pytest.approx([0.4, -0.1, -0.3])
    assert sds.tolist() == pytest.approx([math.sqrt(0.04 * 2 / 3)] * 3)
