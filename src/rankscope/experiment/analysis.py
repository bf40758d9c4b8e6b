"""The analysis of an online experiment (`analyse`): every variant against the control on
every metric, in this order:

1. **The sample-ratio check**, first: Pearson's χ² goodness-of-fit test of the units per
   variant against the planned ``split``.  p < ``srm_threshold`` (0.001) is a mismatch: the
   assignment or the logging is broken and no effect can be trusted, so every decision is
   `WITHHELD` (the numbers are still computed) unless ``allow_mismatch=True``; a note says
   why.
2. **Each metric** is a ``proportion`` (every value 0 or 1: the test of rates from
   successes and units, `z` by default), a ``mean`` (the test of two groups, `welch` by
   default) or a ``ratio`` (Σx/Σy of two per-unit metrics, clicks over impressions: the
   z-test of the delta-method estimates, ``delta-z``).
3. **Variance reduction**: with a pre-period covariate of the metric, CUPED (θ pooled over
   every arm; the test runs on the adjusted values; a 0/1 metric so adjusted is tested as a
   mean, by Welch's test); with a stratum column, each arm's mean post-stratified (weights
   the strata's pooled shares) and the z-test of the two estimates (``stratified-z``); with
   both, the CUPED-adjusted values are post-stratified.  ``variance_reduction`` is
   1 − Var(adjusted difference)/Var(plain difference), the plain one s²_a/n_a + s²_b/n_b.
   Ratio metrics are neither adjusted nor stratified (a note says so when it could apply).
4. **Effects**: the difference and its interval from the test, the relative lift with
   Fieller's (or the delta method's) interval, the p-value corrected over the variants
   (``correction``: a name of `rankscope.stats.corrections.CORRECTIONS`, or ``dunnett`` for
   means), and the decision at ``alpha``: `BETTER` / `WORSE` when the corrected p-value is
   below it (by the sign of the difference), else `NO_DIFFERENCE`.
5. **Omnibus** with three arms or more: the r×c χ² of a 0/1 metric, Welch's one-way ANOVA of
   a mean (of the CUPED-adjusted values when adjusted) or of a ratio's linearisation.
6. **Sequential looks** when the units have a timestamp: the units ordered by it, the
   cumulative difference (of the plain values) at each look, its always-valid p-value and
   confidence sequence, and, with ``looks`` planned, the group-sequential boundary on |z|.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import UsageError, shown
from ..model.experiments import Experiment
from ..stats import delta
from ..stats.contingency import chi_square, goodness_of_fit
from ..stats.corrections import adjust, correction_named
from ..stats.delta import Estimate, estimate_z, mean_estimate, post_stratified, ratio_estimate
from ..stats.procedures import StatisticalTest, choices, named, names
from ..stats.result import TestResult
from ..stats.sequential import SPENDING, always_valid, group_sequential
from ..stats.unpaired import dunnett, welch_anova
from .results import (
    BETTER,
    NO_DIFFERENCE,
    WITHHELD,
    WORSE,
    Arm,
    Effect,
    ExperimentResult,
    Look,
    Omnibus,
    SampleRatio,
)

__all__ = ["DEFAULT_LOOKS", "KINDS", "analyse"]

#: The kinds of metric: a mean of values, a rate of 0/1 values, a ratio of two per-unit sums.
KINDS = ("mean", "proportion", "ratio")
#: Looks taken at the cumulative units when no number of looks is planned.
DEFAULT_LOOKS = 20
#: The tests of a ratio metric (delta method) and of post-stratified means (z of estimates).
RATIO_TEST, STRATIFIED_TEST = "delta-z", "stratified-z"


@dataclass(frozen=True)
class _Metric:
    """A metric as analysed: its kind, the per-unit values (the numerator and denominator of a
    ratio), and the covariate of CUPED when there is one."""

    name: str
    kind: str
    values: np.ndarray
    denominator: np.ndarray | None = None
    covariate: np.ndarray | None = None


@dataclass(frozen=True)
class _Comparison:
    """One variant against the control on a metric, before the correction."""

    variant: int  # position in the analysis' order (0 the control)
    test: str
    result: TestResult
    control: Estimate
    treatment: Estimate
    adjustment: str | None
    variance_reduction: float | None


def _order(experiment: Experiment, baseline: str | None) -> list[int]:
    """The variants' codes in the analysis' order: the control first, then code order."""
    variants = experiment.variant_names
    if baseline is None:
        lowered = [name.lower() for name in variants]
        first = lowered.index("control") if "control" in lowered else 0
    elif baseline in variants:
        first = variants.index(baseline)
    else:
        raise UsageError(
            f"unknown baseline {shown(baseline)}: the variants are "
            f"{', '.join(shown(v) for v in variants)}",
            cli=f"--baseline {baseline} names no variant: the variants are "
            f"{', '.join(shown(v) for v in variants)}",
        )
    return [first] + [code for code in range(len(variants)) if code != first]


def _shares(split: Sequence[float] | None, count: int) -> np.ndarray:
    """The planned shares of the variants (in the analysis' order), normalised to sum 1."""
    if split is None:
        return np.full(count, 1 / count)
    shares = np.asarray(list(split), dtype=float)
    if shares.ndim != 1 or len(shares) != count:
        raise UsageError(
            f"split needs one share per variant ({count}, the control first), got "
            f"{len(shares) if shares.ndim == 1 else shares.size}",
            cli=f"--split needs one share per variant ({count}, the control first)",
        )
    if not np.all(np.isfinite(shares)) or np.any(shares <= 0):
        raise UsageError("split: every planned share must be a positive number")
    return shares / shares.sum()


def _sample_ratio(names_: list[str], counts: np.ndarray, shares: np.ndarray,
                  threshold: float) -> SampleRatio:  # fmt: skip
    if not 0 < threshold < 1:
        raise UsageError(f"srm_threshold must lie strictly between 0 and 1, got {shown(threshold)}")
    found = goodness_of_fit(counts.tolist(), shares.tolist())
    p = float(found.p_value)
    return SampleRatio(tuple(names_), tuple(int(c) for c in counts),
                       tuple(float(s) for s in shares), float(found.statistic), int(found.df), p,
                       float(threshold), p < threshold)  # fmt: skip


def _percent(values: Iterable[float]) -> str:
    return "/".join(f"{100 * v:.1f}%" for v in values)


def _tests(tests: Sequence[str] | str) -> tuple[dict[str, StatisticalTest], set[str]]:
    """The tests by use (``unpaired``: of means, ``rates``: of proportions), the defaults
    filling in, and the uses asked for; a test that is not a test of an experiment's arms is
    an error saying what it applies to."""
    asked = [tests] if isinstance(tests, str) else list(tests)
    offer = (f"of means choose {', '.join(names('unpaired'))}; of proportions "
             f"{', '.join(names('rates'))}")  # fmt: skip
    chosen: dict[str, StatisticalTest] = {}
    for name in asked:
        try:
            test = named(name, "experiment")
        except UsageError:
            systems = any(name == t.name or name in t.aliases for t in choices("pairs"))
            what = ("applies to systems compared on the same queries, not to an experiment's "
                    "arms" if systems else "is unknown")  # fmt: skip
            raise UsageError(f"test {shown(name)} {what}: {offer}",
                             cli=f"--test {name} {what}: {offer}") from None  # fmt: skip
        use = "unpaired" if test.unpaired is not None else "rates"
        if use in chosen and chosen[use].name != test.name:
            kind = "means" if use == "unpaired" else "proportions"
            raise UsageError(f"give one test of {kind}, got {chosen[use].name} and {test.name}")
        chosen[use] = test
    uses = set(chosen)
    chosen.setdefault("unpaired", choices("unpaired")[0])
    chosen.setdefault("rates", choices("rates")[0])
    return chosen, uses


def _metrics(experiment: Experiment, metrics: Sequence[str] | str | None,
             ratios: Mapping[str, tuple[str, str]] | None) -> list[_Metric]:  # fmt: skip
    """The metrics to analyse, in order: ``metrics`` (default: every metric of the experiment
    but those used only inside ``ratios``), then the ratios."""
    ratios = dict(ratios or {})
    available = list(experiment.metrics)
    listing = ", ".join(shown(m) for m in available)
    for name, parts in ratios.items():
        if name in experiment.metrics:
            raise UsageError(f"ratio {shown(name)} has the name of a metric: name it otherwise")
        if not (isinstance(parts, Sequence) and not isinstance(parts, str) and len(parts) == 2):
            raise UsageError(f"ratio {shown(name)} needs (numerator, denominator) metrics")
        for part in parts:
            if part not in experiment.metrics:
                raise UsageError(f"ratio {shown(name)}: unknown metric {shown(part)}; the "
                                 f"metrics are {listing}")  # fmt: skip
    if metrics is None:
        inside = {part for parts in ratios.values() for part in parts}
        wanted = [m for m in available if m not in inside] + list(ratios)
    else:
        wanted = [metrics] if isinstance(metrics, str) else list(dict.fromkeys(metrics))
        wanted += [r for r in ratios if r not in wanted]
    if not wanted:
        raise UsageError("no metric to analyse")
    out = []
    for name in wanted:
        if name in ratios:
            top, bottom = ratios[name]
            out.append(_Metric(name, "ratio", experiment.metrics[top],
                               experiment.metrics[bottom]))  # fmt: skip
        elif name in experiment.metrics:
            values = experiment.metrics[name]
            binary = bool(np.all((values == 0) | (values == 1)))
            out.append(_Metric(name, "proportion" if binary else "mean", values,
                               covariate=experiment.covariates.get(name)))  # fmt: skip
        else:
            raise UsageError(f"unknown metric {shown(name)}: the metrics are {listing}")
    return out


def _check_metric(metric: _Metric, arms: list[np.ndarray], variants: list[str]) -> None:
    """A metric with nothing to test is an error naming it: constant in every arm, or a
    ratio whose denominator sums to 0 in an arm."""
    if metric.kind == "ratio":
        assert metric.denominator is not None
        for rows, variant in zip(arms, variants, strict=True):
            if metric.denominator[rows].sum() == 0:
                raise UsageError(f"ratio {shown(metric.name)}: the denominator sums to 0 in "
                                 f"variant {shown(variant)}: the ratio is undefined")  # fmt: skip
        return
    if all(np.ptp(metric.values[rows]) == 0 for rows in arms):
        values = np.unique(metric.values)
        what = (f"is constant ({shown(float(values[0]))} for every unit)" if len(values) == 1
                else "has zero variance in every variant")  # fmt: skip
        raise UsageError(f"metric {shown(metric.name)} {what}: there is nothing to test")


def _estimate(metric: _Metric, rows: np.ndarray, values: np.ndarray | None = None) -> Estimate:
    """An arm's plain estimate: the ratio's by the delta method, else the mean's."""
    if metric.kind == "ratio":
        assert metric.denominator is not None
        return ratio_estimate(metric.values[rows], metric.denominator[rows])
    return mean_estimate((metric.values if values is None else values)[rows])


def _arm(metric: _Metric, variant: str, rows: np.ndarray) -> Arm:
    estimate = _estimate(metric, rows)
    return Arm(metric.name, variant, len(rows), estimate.value,
               math.sqrt(estimate.variance * len(rows)),
               float(metric.values[rows].sum()))  # fmt: skip


def _linearised(metric: _Metric, rows: np.ndarray) -> np.ndarray:
    """A ratio's per-unit linearisation in one arm: R + (x − R y)/ȳ, whose mean is R and whose
    variance over n is the delta method's."""
    assert metric.denominator is not None
    x, y = metric.values[rows], metric.denominator[rows]
    ratio = x.sum() / y.sum()
    return ratio + (x - ratio * y) / y.mean()


class _Analysis:
    """The settings of one `analyse` call, shared by its metrics."""

    def __init__(self, experiment: Experiment, order: list[int], tests: dict[str, StatisticalTest],
                 confidence: float, permutations: int, seed: Any, use_cuped: bool,
                 stratify: bool) -> None:  # fmt: skip
        self.experiment = experiment
        self.arms = [experiment.arm(code) for code in order]
        self.variants = [experiment.variant_names[code] for code in order]
        self.tests = tests
        self.confidence = confidence
        self.permutations = permutations
        self.seed = seed
        self.use_cuped = use_cuped
        self.stratify = stratify and experiment.stratum is not None
        self.strata: np.ndarray | None = None  # each unit's stratum by name
        self.weights: dict[Any, float] = {}  # each stratum's share of every unit
        if self.stratify:
            assert experiment.strata is not None and experiment.stratum is not None
            self.strata = np.asarray(experiment.strata.strings_of(experiment.stratum), dtype=object)
            names_, counts = np.unique(self.strata, return_counts=True)
            self.weights = {name: count / len(self.strata) for name, count in zip(names_, counts,
                                                                                  strict=True)}

    def values(self, metric: _Metric) -> tuple[np.ndarray, float | None]:
        """The unit values the tests of a mean or a proportion run on and CUPED's θ:
        adjusted when the metric has a covariate (and CUPED is on), else as given (θ None)."""
        if metric.covariate is None or not self.use_cuped:
            return metric.values, None
        adjusted = delta.cuped(metric.values, metric.covariate)
        return adjusted.values, adjusted.theta

    def compare(self, metric: _Metric, values: np.ndarray, adjusted: bool,
                position: int) -> _Comparison:  # fmt: skip
        """The variant at ``position`` against the control on ``metric``."""
        a, b = self.arms[0], self.arms[position]
        if metric.kind == "ratio":
            ea, eb = _estimate(metric, a), _estimate(metric, b)
            found = estimate_z(ea, eb, confidence=self.confidence,
                               name="z-test of the delta-method ratios")  # fmt: skip
            return _Comparison(position, RATIO_TEST, found, ea, eb, None, None)
        plain = (mean_estimate(metric.values[a]).variance
                 + mean_estimate(metric.values[b]).variance)  # fmt: skip
        if self.strata is not None:
            try:
                ea = post_stratified(values[a], self.strata[a], self.weights)
                eb = post_stratified(values[b], self.strata[b], self.weights)
            except UsageError as error:
                raise UsageError(f"metric {shown(metric.name)}, variants "
                                 f"{shown(self.variants[0])} and {shown(self.variants[position])}: "
                                 f"{error}") from None  # fmt: skip
            found = estimate_z(ea, eb, confidence=self.confidence,
                               name="z-test of the post-stratified means")  # fmt: skip
            how = "cuped+stratified" if adjusted else "stratified"
            return _Comparison(position, STRATIFIED_TEST, found, ea, eb, how,
                               1 - (ea.variance + eb.variance) / plain)  # fmt: skip
        ea, eb = mean_estimate(values[a]), mean_estimate(values[b])
        if metric.kind == "proportion" and not adjusted:
            rates = self.tests["rates"]
            assert rates.rates is not None
            found = rates.rates(int(values[a].sum()), len(a), int(values[b].sum()), len(b),
                                "two-sided", self.confidence)  # fmt: skip
            return _Comparison(position, rates.name, found, ea, eb, None, None)
        test = self.tests["unpaired"] if metric.kind == "mean" else choices("unpaired")[0]
        assert test.unpaired is not None
        found = test.unpaired(values[a], values[b], "two-sided", self.confidence,
                              self.permutations, self.seed)  # fmt: skip
        if not adjusted:
            return _Comparison(position, test.name, found, ea, eb, None, None)
        return _Comparison(position, test.name, found, ea, eb, "cuped",
                           1 - (ea.variance + eb.variance) / plain)  # fmt: skip


def _lift(comparison: _Comparison, confidence: float, method: str) -> tuple[float, float, float]:
    """The relative lift and its interval; NaN when the control's value is 0."""
    if comparison.control.value == 0:
        return math.nan, math.nan, math.nan
    return delta.lift_interval(comparison.control, comparison.treatment, confidence, method)


def _decision(p: float, difference: float, alpha: float, withheld: bool) -> str:
    if withheld:
        return WITHHELD
    if p < alpha:
        return BETTER if difference > 0 else WORSE
    return NO_DIFFERENCE


def _omnibus(metric: _Metric, values: np.ndarray, adjusted: bool,
             arms: list[np.ndarray]) -> Omnibus | None:  # fmt: skip
    """All arms at once: the r×c χ² of a 0/1 metric, else Welch's one-way ANOVA (of a ratio's
    linearisation); None when an arm's values are constant (Welch's weights are undefined)."""
    if metric.kind == "proportion" and not adjusted:
        table = [[values[rows].sum(), len(rows) - values[rows].sum()] for rows in arms]
        found = chi_square(table)
        return Omnibus(metric.name, found.name, float(found.statistic), float(found.df),
                       float(found.p_value))  # fmt: skip
    groups = ([_linearised(metric, rows) for rows in arms] if metric.kind == "ratio"
              else [values[rows] for rows in arms])  # fmt: skip
    if any(np.ptp(group) == 0 for group in groups):
        return None
    found = welch_anova(*groups)
    return Omnibus(metric.name, found.name, float(found.statistic), float(found.df),
                   float(found.p_value), float(found.details["df_denominator"]))  # fmt: skip


def _look_points(total: int, looks: int) -> np.ndarray:
    """The cumulative numbers of units at ``looks`` equally spaced looks (with fewer units
    than looks, some look at the same units: `_sequential` takes those once, under the
    first look's number)."""
    return np.ceil(np.arange(1, looks + 1) * total / looks).astype(np.int64)


def _sequential(analysis: _Analysis, metric: _Metric, looks: int | None, alpha: float,
                spending: str) -> list[Look]:  # fmt: skip
    """The cumulative looks at every variant against the control, the units in timestamp
    order; a look is taken once both arms have 2 units and a positive variance."""
    experiment = analysis.experiment
    assert experiment.timestamp is not None
    order = np.argsort(experiment.timestamp, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    points = _look_points(len(order), looks or DEFAULT_LOOKS)
    design = group_sequential(looks, alpha, spending) if looks else None
    out: list[Look] = []
    control = analysis.arms[0]
    for position in range(1, len(analysis.arms)):
        treatment = analysis.arms[position]
        taken: list[tuple[int, int, float, float, float]] = []
        for k, m in enumerate(points):
            if k > 0 and m == points[k - 1]:
                continue
            a, b = control[rank[control] < m], treatment[rank[treatment] < m]
            if len(a) < 2 or len(b) < 2:
                continue
            if metric.kind == "ratio":
                assert metric.denominator is not None
                if metric.denominator[a].sum() == 0 or metric.denominator[b].sum() == 0:
                    continue
            ea, eb = _estimate(metric, a), _estimate(metric, b)
            if ea.variance + eb.variance <= 0:
                continue
            time = float(experiment.timestamp[order[m - 1]])
            taken.append((k, len(a) + len(b), time, eb.value - ea.value,
                          ea.variance + eb.variance))  # fmt: skip
        if not taken:
            continue
        n = np.array([t[1] for t in taken], dtype=float)
        differences = np.array([t[3] for t in taken])
        variances = np.array([t[4] for t in taken])
        valid = always_valid(differences, variances, n, alpha)
        z = differences / np.sqrt(variances)
        for i, (k, units, time, difference, _) in enumerate(taken):
            boundary = float(design.critical[k]) if design is not None else None
            stop = bool(valid.p_value[i] < alpha
                        or (boundary is not None and abs(z[i]) >= boundary))  # fmt: skip
            out.append(Look(metric.name, analysis.variants[position], k + 1, units, time,
                            difference, float(valid.ci_low[i]), float(valid.ci_high[i]),
                            float(valid.p_value[i]), float(z[i]), boundary, stop))  # fmt: skip
    return out


def analyse(
    experiment: Experiment,
    *,
    baseline: str | None = None,
    metrics: Sequence[str] | str | None = None,
    ratios: Mapping[str, tuple[str, str]] | None = None,
    tests: Sequence[str] | str = (),
    alpha: float = 0.05,
    correction: str | None = "holm",
    split: Sequence[float] | None = None,
    srm_threshold: float = 0.001,
    allow_mismatch: bool = False,
    cuped: bool = True,
    stratify: bool = True,
    lift_interval: str = "fieller",
    looks: int | None = None,
    spending: str = "obrien-fleming",
    permutations: int = 10_000,
    seed: int = 0,
    notes: Sequence[str] = (),
) -> ExperimentResult:
    """Every variant of ``experiment`` against the control on every metric (the module's text
    says how, in order).

    ``baseline``: the control, a variant's name (default: the one called ``control``, any
    case, else the first).  ``metrics``: the metrics to test (default: all but those only inside
    ``ratios``); ``ratios``: ``{"ctr": ("clicks", "impressions")}`` per-unit numerator and
    denominator metrics.  ``tests``: names of `rankscope.stats.TESTS` of an experiment's
    arms (``choices("experiment")``), at most one of means (default ``welch``) and one of
    proportions (default ``z``).  ``correction`` of the p-values over the variants: holm
    (default), bonferroni, bh, none, or dunnett (means only).  ``split``: the planned shares
    of the variants, the control first (default: equal).  ``srm_threshold``: the p-value
    below which the split is a mismatch and the decisions are withheld unless
    ``allow_mismatch``.
    ``cuped``/``stratify``: use the covariates and the stratum column when present.
    ``lift_interval``: ``fieller`` or ``delta``.  ``looks``: the planned number of looks
    for group-sequential boundaries by ``spending`` (default: 20 looks, no boundaries).
    ``permutations`` and ``seed``: the resamples of the bootstrap and Dunnett's integration.
    ``notes``: what the caller wants said with the result (the units are impressions, ...).
    """
    if not 0 < alpha < 1:
        raise UsageError(f"alpha must lie strictly between 0 and 1, got {shown(alpha)}")
    if lift_interval not in ("fieller", "delta"):
        raise UsageError(f"unknown lift interval {shown(lift_interval)}: choose fieller or delta")
    if spending not in SPENDING:
        raise UsageError(f"unknown spending function {shown(spending)}: choose "
                         f"{', '.join(SPENDING)}")  # fmt: skip
    if looks is not None and (isinstance(looks, bool) or not isinstance(looks, int | np.integer)
                              or looks < 1):  # fmt: skip
        raise UsageError(f"looks must be a whole number of at least 1, got {shown(looks)}")
    dunnett_asked = isinstance(correction, str) and correction.lower() == "dunnett"
    method = "dunnett" if dunnett_asked else correction_named(correction)
    order = _order(experiment, baseline)
    variants = [experiment.variant_names[code] for code in order]
    counts = experiment.counts()[order]
    for variant, count in zip(variants, counts, strict=True):
        if count < 2:
            raise UsageError(f"variant {shown(variant)} has {count} unit(s): every variant needs "
                             "at least 2 to estimate a variance")  # fmt: skip
    srm = _sample_ratio(variants, counts, _shares(split, len(variants)), srm_threshold)
    said = list(notes)
    if srm.mismatch:
        observed = _percent(c / counts.sum() for c in counts)
        ratio = (f"sample-ratio mismatch: observed shares {observed}"
                 f" against planned {_percent(srm.expected)} (χ² = {srm.statistic:.4g}, "
                 f"p = {srm.p_value:.3g} < {srm.threshold:g})")  # fmt: skip
        said.append(f"{ratio}: the decisions are given only because the mismatch was allowed"
                    if allow_mismatch else f"{ratio}: the assignment or its logging is broken, "
                    "so every decision is withheld (allowing the mismatch gives them anyway: "
                    "--allow-mismatch, allow_mismatch=True)")  # fmt: skip
    chosen, asked = _tests(tests)
    analysed = _metrics(experiment, metrics, ratios)
    kinds = {metric.kind for metric in analysed}
    for use, kind, takes in (("unpaired", "mean", "any values"),
                             ("rates", "proportion", "values 0 or 1")):  # fmt: skip
        if use in asked and kind not in kinds:
            raise UsageError(f"test {chosen[use].name} applies to {kind} metrics ({takes}); "
                             f"the metrics analysed are {', '.join(sorted(kinds))}")  # fmt: skip
    if method == "dunnett":
        wrong = [shown(m.name) for m in analysed if m.kind != "mean"]
        if wrong:
            raise UsageError(f"dunnett corrects tests of means only, and metric "
                             f"{', '.join(wrong)} is not a mean: choose holm, bonferroni, bh "
                             "or none", cli=f"--correction dunnett corrects tests of means "
                             f"only, and metric {', '.join(wrong)} is not a mean")  # fmt: skip
    confidence = 1 - alpha
    analysis = _Analysis(experiment, order, chosen, confidence, permutations, seed, cuped,
                         stratify)  # fmt: skip
    withheld = srm.mismatch and not allow_mismatch
    arms: list[Arm] = []
    effects: list[Effect] = []
    omnibus: list[Omnibus] = []
    sequential: list[Look] = []
    distributions: dict[str, dict[str, tuple[tuple[float, ...], tuple[int, ...]]]] = {}
    for metric in analysed:
        _check_metric(metric, analysis.arms, variants)
        distributions[metric.name] = _histograms(metric, analysis.arms, variants)
        arms += [_arm(metric, v, rows) for v, rows in zip(variants, analysis.arms, strict=True)]
        values, theta = analysis.values(metric) if metric.kind != "ratio" else (metric.values, None)
        adjusted = theta is not None
        if metric.kind == "ratio" and ({p for p in (ratios or {})[metric.name]}
                                       & set(experiment.covariates)) and cuped:  # fmt: skip
            said.append(f"ratio {shown(metric.name)}: CUPED is not applied to ratio metrics")
        if adjusted:
            said.append(f"metric {shown(metric.name)}: CUPED with θ = {theta:.6g} (pooled over the "
                        "variants)" + ("; a 0/1 metric so adjusted is tested as a mean (Welch)"
                                       if metric.kind == "proportion" else ""))  # fmt: skip
        compared = [analysis.compare(metric, values, adjusted, position)
                    for position in range(1, len(variants))]  # fmt: skip
        p = np.array([float(c.result.p_value) for c in compared])
        if method == "dunnett":
            found = dunnett(*(values[rows] for rows in analysis.arms), confidence=confidence,
                            seed=seed)  # fmt: skip
            corrected = np.array([float(r.p_value) for r in found])
        else:
            corrected = adjust(p, method)
        for c, p_value, q in zip(compared, p, corrected, strict=True):
            lift, low, high = _lift(c, confidence, lift_interval)
            difference = float(c.result.mean_difference)
            effects.append(Effect(
                metric.name, metric.kind, variants[0], variants[c.variant], c.test,
                c.control.value, c.treatment.value, difference, float(c.result.ci_low),
                float(c.result.ci_high), lift, low, high, lift_interval,
                float(c.result.statistic), c.result.statistic_name, float(p_value), float(q),
                method, _decision(float(q), difference, alpha, withheld),
                len(analysis.arms[0]), len(analysis.arms[c.variant]), c.adjustment,
                c.variance_reduction,
            ))  # fmt: skip
        if len(variants) >= 3:
            overall = _omnibus(metric, values, adjusted, analysis.arms)
            if overall is None:
                said.append(f"metric {shown(metric.name)}: no omnibus test, a variant's values "
                            "are constant (Welch's ANOVA needs a variance in every variant)")
            else:
                omnibus.append(overall)
        if experiment.timestamp is not None:
            sequential += _sequential(analysis, metric, looks, alpha, spending)
    if analysis.stratify:
        said.append("post-stratified by the stratum column (weights: the strata's pooled "
                    "shares): means and rates are compared by the z-test of the "
                    "post-stratified estimates")
    zero = list(dict.fromkeys(shown(e.metric) for e in effects if math.isnan(e.lift)))
    if zero:
        said.append(f"the control's value is 0 on {', '.join(zero)}: the relative lift is "
                    "undefined")  # fmt: skip
    if experiment.timestamp is None and looks is not None:
        said.append("no timestamp: no sequential looks")
    settings = {
        "tests": {use: test.name for use, test in chosen.items()}, "split": list(srm.expected),
        "srm_threshold": srm_threshold, "cuped": cuped, "stratify": stratify,
        "lift_interval": lift_interval, "looks": looks, "spending": spending,
        "permutations": permutations, "seed": seed,
        "ratios": {name: list(parts) for name, parts in (ratios or {}).items()},
    }  # fmt: skip
    return ExperimentResult(
        source=experiment.source, shape=experiment.shape, control=variants[0],
        variants=tuple(variants), alpha=alpha, confidence=confidence, correction=method,
        srm=srm, mismatch_allowed=bool(allow_mismatch and srm.mismatch), arms=tuple(arms),
        effects=tuple(effects),
        omnibus=tuple(omnibus), sequential=tuple(sequential), notes=tuple(said),
        settings=settings, distributions=distributions,
    )  # fmt: skip


#: The most bins of an arm's histogram (numpy's ``auto`` rule chooses fewer on small arms).
MOST_BINS = 40


def _histograms(
    metric: _Metric, arms: Sequence[np.ndarray], variants: Sequence[str]
) -> dict[str, tuple[tuple[float, ...], tuple[int, ...]]]:
    """Each variant's histogram of a metric's per-unit values (a ratio's: x/y of the units
    with a denominator), on bin edges shared by the arms: two bins for a 0/1 metric, else
    numpy's ``auto`` rule over the pooled values, at most `MOST_BINS` bins."""
    values = metric.values
    if metric.kind == "ratio" and metric.denominator is not None:
        shown_units = metric.denominator != 0
        values = np.where(shown_units, values / np.where(shown_units, metric.denominator, 1),
                          np.nan)  # fmt: skip
    pooled = values[np.isfinite(values)]
    if metric.kind == "proportion":
        edges = np.array([0.0, 0.5, 1.0])
    else:
        edges = np.histogram_bin_edges(pooled, bins="auto")
        if len(edges) > MOST_BINS + 1:
            edges = np.histogram_bin_edges(pooled, bins=MOST_BINS)
    out = {}
    for variant, rows in zip(variants, arms, strict=True):
        arm = values[rows]
        counts, _ = np.histogram(arm[np.isfinite(arm)], bins=edges)
        out[variant] = (tuple(float(e) for e in edges), tuple(int(c) for c in counts))
    return out
