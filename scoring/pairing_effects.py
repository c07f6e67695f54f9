"""Scoring spec B3: separating a pairing's effect on shipping from its contributors'.

The pool is observational: a pairing used mostly by strong contributors looks strong. For the pairing views we fit
a mixed logistic model of shipping on the judged, ship-judged cycles of ranked pairings,

    logit P(shipped) = β0 + a[pairing] + b[contributor],   a ~ N(0, σ_p²), b ~ N(0, σ_c²),

the Bayesian model of statsmodels' ``BinomialBayesMixedGLM`` with its default priors (β0 ~ N(0, 2²), each log σ ~
N(0, 1)). A pairing's published effect is the centred contrast a[pairing] - mean(a) over the fitted pairings: its
odds of shipping against the average ranked pairing, for the same contributor. Read against the intercept instead,
an interval carries the intercept's own uncertainty and is over-wide (in simulation it covered 98-100% with a width
floor near 0.7 log units); the contrast's variance comes from the joint covariance of the effects, so that shared
part cancels.

How it is fitted, and why not by ``BinomialBayesMixedGLM.fit_vb`` itself: that fit is per-cycle Bernoulli and
measured 1.7 s at 10,000 cycles and 30 s at 100,000; aggregated to cells its objective is the same but BFGS still
took 18 s on 12,000 cells and stopped on "precision loss". Cycles of one (pairing, contributor) cell share their
linear predictor, so their Bernoulli likelihoods multiply into one binomial term: the model is fitted on one row
per cell (trials, successes), which is exact, not an approximation. On those cells we do what glmer (lme4) does:
a Laplace approximation of the marginal likelihood, here with the two variance priors added, maximised over
(log σ_p, log σ_c), whose prior keeps a variance off the boundary at 0; the inner Newton solve uses the crossed
design (the contributor block of the Hessian is diagonal, so a Schur complement leaves a dense system of one row per
pairing). The effects and their 95% intervals are the conditional posterior means and sds of a at the fitted
variances, with β0 integrated over: wider than ``fit_vb``'s mean-field sds, which ignore how β0 and the effects
trade off, and close to 95% coverage on pools drawn from the model (tested). The tests also check the effects
against statsmodels' per-cycle ``fit_vb`` on a small pool (they agree to about 0.01 in log odds).

Pure: numpy, scipy and pandas, no Django.
"""

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import pandas as pd
from scipy import linalg, optimize, sparse
from scipy.special import expit

from scoring.shapes import INTERVAL_LEVEL, SHIP_JUDGED

# The two-sided normal quantile for the interval of a pairing's effect.
Z_INTERVAL = NormalDist().inv_cdf(0.5 + INTERVAL_LEVEL / 2)
# Prior sds of statsmodels' BinomialBayesMixedGLM defaults: fe_p for the intercept, vcp_p for each log σ.
INTERCEPT_PRIOR_SD = 2.0
LOG_SD_PRIOR_SD = 1.0

# The fields a judged cycle brings to the fit; which cycles are judged (A1) is the caller's: scoring.judged.judged_mask.
REQUIRED_COLUMNS = ("contributor", "shipped", "ship_status")
# Optional: how many cycles a row stands for (rows summed per cell); with it, `shipped` counts the shipped ones.
CYCLES_COLUMN = "cycles"

# The variance search starts from σ_p ≈ 0.37, σ_c ≈ 0.61 and a simplex one unit of log σ wide: log σ to 0.001 is
# far finer than the data can tell.
_START_LOG_SDS = np.array([[-1.0, -0.5], [0.0, -0.5], [-1.0, 0.5]])
_NEWTON_MAX_STEPS = 100
_NEWTON_TOLERANCE = 1e-8
# The off-diagonal block (β0 and pairings x contributors) is multiplied densely up to this many entries (32 MB):
# far faster than sparse products at a few hundred pairings and contributors.
_DENSE_BLOCK_CELLS = 4_000_000
# Up to this many multiply-adds (a few tens of ms) the Schur product runs in einsum rather than threaded BLAS.
_EINSUM_PRODUCT_TERMS = 50_000_000


@dataclass(frozen=True)
class PairingEffect:
    """One ranked pairing's odds ratio of shipping against the average ranked pairing, for the same contributor,
    with its 95% interval (scoring spec B3: exp(a_g - mean(a))).

    ``separable`` is False, and the numbers None, where the pairing's fitted cycles all come from one contributor
    (or it has none): pairing and contributor then cannot be told apart.
    """

    odds_ratio: float | None
    ci: tuple[float, float] | None
    separable: bool


@dataclass(frozen=True)
class PairingFit:
    """The B3 result for one view.

    ``contributor_variance_share`` is σ_c² / (σ_c² + σ_p²): the contributor and pairing variance components at
    their fitted values (the posterior mode of log σ_c and log σ_p under the Laplace approximation).
    """

    effects: dict[str, PairingEffect]
    contributor_variance_share: float | None
    converged: bool
    message: str


class FitFailed(Exception):
    """The numerical fit could not produce a trustworthy answer."""


@dataclass(frozen=True)
class _Cells:
    """One row per (pairing, contributor) cell; ``pairing`` and ``contributor`` are 0-based codes."""

    pairing: np.ndarray
    contributor: np.ndarray
    trials: np.ndarray
    successes: np.ndarray
    n_pairings: int
    n_contributors: int


@dataclass(frozen=True)
class _Mode:
    """The conditional posterior mode of (β0, a, b) at given variances, and what Laplace needs of it."""

    effects: np.ndarray
    log_marginal: float
    schur_cholesky: tuple[np.ndarray, bool]  # of the negative Hessian's Schur complement on (β0, a)

    def top_block_covariance(self) -> np.ndarray:
        """Posterior covariance of (β0, a): the inverse Schur complement is exactly that block of the inverse
        Hessian."""
        return np.asarray(linalg.cho_solve(self.schur_cholesky, np.eye(len(self.schur_cholesky[0]))))


def centred_contrasts(effects: np.ndarray, covariance: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """a_g - mean(a) for every g, and its sd from the joint covariance of a: c' Σ c with c = e_g - 1/P.

    Var(a_g - mean a) = Σ_gg - 2 mean_k Σ_gk + mean_jk Σ_jk; what all effects share (the intercept's trade-off
    with them) cancels.
    """
    row_means = covariance.mean(axis=1)
    variance = np.diag(covariance) - 2 * row_means + covariance.mean()
    return effects - effects.mean(), np.sqrt(np.maximum(variance, 0.0))


class _CrossedLogit:
    """Binomial cells with an intercept and crossed random intercepts for pairing and contributor."""

    def __init__(self, cells: _Cells):
        self.cells = cells
        self.n_top = 1 + cells.n_pairings  # β0 then a; b follows
        self.warm_start = np.zeros(self.n_top + cells.n_contributors)
        # Columns of the off-diagonal block B (top rows × contributors): β0's row, then each cell's pairing row.
        rows = np.r_[np.zeros(cells.n_contributors, dtype=np.int64), 1 + cells.pairing]
        cols = np.r_[np.arange(cells.n_contributors), cells.contributor]
        self._b_rows, self._b_cols = rows, cols

    def _linear_predictor(self, u: np.ndarray) -> np.ndarray:
        c = self.cells
        predictor: np.ndarray = u[0] + u[1 + c.pairing] + u[self.n_top + c.contributor]
        return predictor

    def _log_joint(self, u: np.ndarray, precision: np.ndarray) -> float:
        c = self.cells
        eta = self._linear_predictor(u)
        loglik = float(np.sum(c.successes * eta - c.trials * np.logaddexp(0.0, eta)))
        return loglik - 0.5 * float(np.sum(precision * u * u))

    def mode(self, log_sd_pairing: float, log_sd_contributor: float) -> _Mode:
        c = self.cells
        precision = np.r_[
            INTERCEPT_PRIOR_SD**-2,
            np.full(c.n_pairings, math.exp(-2 * log_sd_pairing)),
            np.full(c.n_contributors, math.exp(-2 * log_sd_contributor)),
        ]
        u = self.warm_start.copy()
        objective = self._log_joint(u, precision)
        for _ in range(_NEWTON_MAX_STEPS):
            step, _, _ = self._newton_step(u, precision)
            if np.max(np.abs(step)) < _NEWTON_TOLERANCE:
                break
            # The log joint is strictly concave, so a full Newton step can only overshoot far from the mode: halve it
            # until it does not lose (beyond rounding).
            floor = objective - 1e-12 * max(1.0, abs(objective))
            scale = 1.0
            while (candidate := self._log_joint(u + scale * step, precision)) < floor and scale > 1e-8:
                scale /= 2
            if candidate < floor:
                raise FitFailed("the inner Newton solve stalled")
            u, objective = u + scale * step, candidate
        else:
            raise FitFailed("the inner Newton solve did not converge")
        _, cho, d_c = self._newton_step(u, precision)
        self.warm_start = u
        log_det = float(np.sum(np.log(d_c)) + 2 * np.sum(np.log(np.diag(cho[0]))))
        log_marginal = (
            objective
            - c.n_pairings * log_sd_pairing
            - c.n_contributors * log_sd_contributor
            - 0.5 * log_det
            - 0.5 * (log_sd_pairing**2 + log_sd_contributor**2) / LOG_SD_PRIOR_SD**2
        )
        return _Mode(effects=u, log_marginal=log_marginal, schur_cholesky=cho)

    def _newton_step(
        self, u: np.ndarray, precision: np.ndarray
    ) -> tuple[np.ndarray, tuple[np.ndarray, bool], np.ndarray]:
        """Solve H·step = gradient with H the negative Hessian, through its Schur complement on (β0, a)."""
        c = self.cells
        mean = c.trials * expit(self._linear_predictor(u))
        weight = mean * (1.0 - mean / c.trials)
        residual = c.successes - mean

        gradient = -precision * u
        gradient[0] += residual.sum()
        gradient[1 : self.n_top] += np.bincount(c.pairing, residual, c.n_pairings)
        gradient[self.n_top :] += np.bincount(c.contributor, residual, c.n_contributors)

        weight_by_pairing = np.bincount(c.pairing, weight, c.n_pairings)
        weight_by_contributor = np.bincount(c.contributor, weight, c.n_contributors)
        top = np.zeros((self.n_top, self.n_top))
        top[0, 0] = weight.sum()
        top[0, 1:] = top[1:, 0] = weight_by_pairing
        top[np.arange(1, self.n_top), np.arange(1, self.n_top)] = weight_by_pairing
        top[np.diag_indices(self.n_top)] += precision[: self.n_top]
        d_c = weight_by_contributor + precision[self.n_top :]
        values = np.r_[weight_by_contributor, weight]
        shape = (self.n_top, c.n_contributors)
        off: np.ndarray | sparse.csr_array
        scaled: np.ndarray | sparse.csr_array
        if self.n_top * c.n_contributors <= _DENSE_BLOCK_CELLS:
            # Each (row, contributor) entry occurs once: β0's row has one per contributor, cells are distinct.
            off = np.zeros(shape)
            off[self._b_rows, self._b_cols] = values
            scaled = off / d_c[np.newaxis, :]
            if self.n_top * self.n_top * c.n_contributors <= _EINSUM_PRODUCT_TERMS:
                # einsum, not BLAS: a threaded GEMM this small ran 5-20x slower whenever the cores were busy.
                schur = top - np.einsum("ik,jk->ij", scaled, off)
            else:
                schur = top - scaled @ off.T
        else:
            off = sparse.csr_array((values, (self._b_rows, self._b_cols)), shape=shape)
            scaled = off.multiply(1.0 / d_c[np.newaxis, :]).tocsr()
            schur = top - (scaled @ off.T).toarray()
        cho = linalg.cho_factor(schur)
        g_top, g_c = gradient[: self.n_top], gradient[self.n_top :]
        step_top = linalg.cho_solve(cho, g_top - scaled @ g_c)
        step_c = (g_c - off.T @ step_top) / d_c
        return np.r_[step_top, step_c], cho, d_c


def _label_array(cycles: pd.DataFrame, labels: pd.Series | np.ndarray) -> np.ndarray:
    if isinstance(labels, pd.Series) and not labels.index.equals(cycles.index):
        labels = labels.reindex(cycles.index)
    values = np.asarray(labels, dtype=object)
    if len(values) != len(cycles):
        raise ValueError(f"labels has {len(values)} entries for {len(cycles)} cycles")
    return values


def _cell_counts(cycles: pd.DataFrame, labels: np.ndarray, ranked: set[str]) -> pd.DataFrame:
    """Trials and successes per (pairing, contributor) over the ship-judged cycles of ranked pairings."""
    in_fit = pd.Series(labels, index=cycles.index).isin(ranked).to_numpy() & (
        cycles["ship_status"].to_numpy() == SHIP_JUDGED
    )
    shipped = cycles["shipped"].to_numpy()[in_fit]
    weighted = CYCLES_COLUMN in cycles.columns
    frame = pd.DataFrame(
        {
            "pairing": labels[in_fit],
            "contributor": cycles["contributor"].to_numpy()[in_fit],
            "trials": cycles[CYCLES_COLUMN].to_numpy()[in_fit] if weighted else np.ones(len(shipped), np.int64),
            "shipped": shipped.astype(np.int64) if weighted else (shipped == 1).astype(np.int64),
        }
    )
    return (
        frame.groupby(["pairing", "contributor"], sort=True)
        .agg(trials=("trials", "sum"), successes=("shipped", "sum"))
        .reset_index()
    )


def _unavailable(separable: dict[str, bool], reason: str) -> PairingFit:
    effects = {label: PairingEffect(odds_ratio=None, ci=None, separable=flag) for label, flag in separable.items()}
    return PairingFit(
        effects=effects, contributor_variance_share=None, converged=False, message=f"adjustment unavailable: {reason}"
    )


def _fit(cells: _Cells) -> tuple[_Mode, float, float]:
    """Maximise the Laplace marginal posterior over (log σ_p, log σ_c); return the mode there and both σ²."""
    model = _CrossedLogit(cells)

    def negative_log_marginal(log_sds: np.ndarray) -> float:
        return -model.mode(float(log_sds[0]), float(log_sds[1])).log_marginal

    outer = optimize.minimize(
        negative_log_marginal,
        x0=_START_LOG_SDS[0],
        method="Nelder-Mead",
        options={"initial_simplex": _START_LOG_SDS, "xatol": 1e-3, "fatol": 1e-6, "maxiter": 400},
    )
    if not outer.success:
        raise FitFailed("the variance search did not converge")
    log_sd_pairing, log_sd_contributor = (float(x) for x in outer.x)
    mode = model.mode(log_sd_pairing, log_sd_contributor)
    return mode, math.exp(2 * log_sd_pairing), math.exp(2 * log_sd_contributor)


def fit_pairing_effects(judged: pd.DataFrame, *, labels: pd.Series | np.ndarray, ranked: set[str]) -> PairingFit:
    """Fit B3's mixed logistic model for one pairing view; never raises on data it cannot fit.

    ``judged`` holds judged cycles only (A1: select them with scoring.judged.judged_mask) with the stored fields
    named in ``REQUIRED_COLUMNS``; ``labels`` gives each row's pairing label
    (rows labelled "" or NaN are not pairings); only cycles of the ``ranked`` pairings enter the fit. Every ranked
    pairing gets an entry in ``effects``. A fit that fails, yields non-finite numbers or does not converge comes
    back with ``converged`` False, no numbers and the reason in ``message``.
    """
    missing = [column for column in REQUIRED_COLUMNS if column not in judged.columns]
    if missing:
        raise ValueError(f"judged lacks columns: {', '.join(missing)}")
    counts = _cell_counts(judged, _label_array(judged, labels), ranked)

    contributors_per_pairing = counts.groupby("pairing")["contributor"].nunique()
    separable = {label: bool(contributors_per_pairing.get(label, 0) >= 2) for label in sorted(ranked)}

    trials = int(counts["trials"].sum())
    successes = int(counts["successes"].sum())
    if trials == 0:
        return _unavailable(separable, "no judged, ship-judged cycles in ranked pairings")
    if successes in (0, trials):
        return _unavailable(separable, "every cycle shipped" if successes else "no cycle shipped")
    pairing_codes, pairings = pd.factorize(counts["pairing"], sort=True)
    contributor_codes, contributors = pd.factorize(counts["contributor"], sort=True)
    if len(pairings) < 2:
        return _unavailable(separable, "fewer than two ranked pairings")
    if len(contributors) < 2:
        return _unavailable(separable, "one contributor")
    cells = _Cells(
        pairing=pairing_codes,
        contributor=contributor_codes,
        trials=counts["trials"].to_numpy(dtype=float),
        successes=counts["successes"].to_numpy(dtype=float),
        n_pairings=len(pairings),
        n_contributors=len(contributors),
    )

    try:
        with np.errstate(all="ignore"):
            mode, var_pairing, var_contributor = _fit(cells)
    except (FitFailed, ArithmeticError, ValueError, linalg.LinAlgError) as error:
        return _unavailable(separable, str(error) if isinstance(error, FitFailed) else "the fit failed")
    pairing_means, pairing_sds = centred_contrasts(
        mode.effects[1 : 1 + len(pairings)], mode.top_block_covariance()[1:, 1:]
    )
    share = var_contributor / (var_contributor + var_pairing)
    if not (np.all(np.isfinite(pairing_means)) and np.all(np.isfinite(pairing_sds)) and math.isfinite(share)):
        return _unavailable(separable, "the fit produced non-finite numbers")

    position = {label: i for i, label in enumerate(pairings)}
    effects: dict[str, PairingEffect] = {}
    for label, is_separable in separable.items():
        if not is_separable:
            effects[label] = PairingEffect(odds_ratio=None, ci=None, separable=False)
            continue
        mean, half_width = float(pairing_means[position[label]]), Z_INTERVAL * float(pairing_sds[position[label]])
        effects[label] = PairingEffect(
            odds_ratio=math.exp(mean), ci=(math.exp(mean - half_width), math.exp(mean + half_width)), separable=True
        )
    return PairingFit(
        effects=effects,
        contributor_variance_share=share,
        converged=True,
        message=f"fitted on {trials} cycles: {len(pairings)} pairings, {len(contributors)} contributors",
    )
