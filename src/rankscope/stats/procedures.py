"""Every statistical test rankscope runs, named once: the table `TESTS`.

A test is a `StatisticalTest`: its canonical name and the other spellings accepted for it,
its null hypothesis in words, the label tables, LaTeX captions and the report print, and
the function(s) computing it:

* ``paired`` — the paired tests (two systems on the same queries): rows of per-query
  differences → a statistic and a two-sided p-value per row (`PairedOutcome`).
  `p_values` runs one; `pairwise_tests` runs one on every pair of systems and corrects the
  p-values over the pairs; ``rankscope compare``, ``recsys --folds`` and
  `rankscope.report.latex.latex_table` reach them through this table.
* ``all_pairs`` — the Tukey procedures, which test every pair of systems at once and
  control the family-wise error themselves (``family_wise``: no correction on top).
* ``preferences`` — randomized Tukey HSD also runs on a queries × systems × systems
  preference tensor (RPP and relatives), so ``rankscope compare`` offers it for
  preference methods too.
* ``unpaired`` — two independent samples (the arms of an online experiment): the values
  of A and of B → a `TestResult` of mean(B) − mean(A) (Welch, Student, Mann–Whitney, the
  two-sample bootstrap).
* ``rates`` — two rates from counts (successes and trials of A and of B) → a `TestResult`
  of rate_B − rate_A (two-proportion z, χ² with and without Yates' correction, Fisher).

Every consumer reads its choices from here: `choices` gives the tests a use accepts
(``"paired"``: a pair of systems, ``"runs"``: ``rankscope compare``'s runs, metrics and
preference methods alike, ``"pairs"``: every pair of systems, ``"unpaired"`` and
``"rates"``: the arms of an experiment, ``"experiment"``: both) and `named` resolves a name
or an alias, with an error that lists the choices.  The randomization test is called
``randomization``; ``permutation`` is accepted as another name for it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ..errors import UsageError
from . import paired
from .contingency import chi_square
from .corrections import adjust
from .multiple import (
    PairwiseResult,
    as_score_matrix,
    check_alpha,
    pairwise_result,
    preference_tukey_pvalues,
    randomized_tukey_hsd,
    randomized_tukey_pvalues,
    seed_sequence,
    system_pairs,
    tukey_hsd,
)
from .proportions import fisher_exact, two_proportion_z
from .result import TestResult
from .unpaired import mann_whitney, student_t, two_sample_bootstrap, welch_t

__all__ = [
    "TESTS",
    "PairedOutcome",
    "StatisticalTest",
    "choices",
    "compare",
    "named",
    "names",
    "p_values",
    "pairwise_tests",
]


class PairedOutcome(NamedTuple):
    """A paired test on rows of per-query differences: per row, the statistic the test
    reports for a pair of systems and the two-sided p-value; ``info`` the test's
    parameters (resamples, exact enumeration)."""

    statistic: np.ndarray
    p_value: np.ndarray
    info: dict[str, Any]


#: rows of differences, resamples (``permutations``), seed → `PairedOutcome`
PairedFunction = Callable[[np.ndarray, int, Any], PairedOutcome]
#: systems × queries scores, names, alpha, resamples, seed → every pair, family-wise
AllPairsFunction = Callable[[Any, Any, float, int, Any], PairwiseResult]
#: measures × systems × queries scores, resamples, seed → each measure's `AllPairsFunction`
#: p-values (measures × pairs a < b), under one draw of the resamples for all
TogetherFunction = Callable[[np.ndarray, int, int], np.ndarray]
#: queries × systems × systems preferences, resamples, seed → systems × systems p-values
#: (or a stack of preference tensors over the same queries → a stack of p-values)
PreferenceFunction = Callable[[np.ndarray, int, int], np.ndarray]
#: A's values, B's values, alternative, confidence, resamples, seed → B − A
UnpairedFunction = Callable[[np.ndarray, np.ndarray, str, float, int, Any], TestResult]
#: successes and trials of A, of B, alternative, confidence → rate_B − rate_A
RatesFunction = Callable[[int, int, int, int, str, float], TestResult]


@dataclass(frozen=True)
class StatisticalTest:
    """One test: names, null hypothesis, label, and the function(s) that compute it."""

    name: str  # canonical: stored in results, listed in choices
    label: str  # in text tables, LaTeX captions and the report ("paired t-test")
    null_hypothesis: str
    aliases: tuple[str, ...] = ()  # other spellings accepted for ``name``
    paired: PairedFunction | None = None
    all_pairs: AllPairsFunction | None = None
    all_pairs_together: TogetherFunction | None = None
    preferences: PreferenceFunction | None = None
    unpaired: UnpairedFunction | None = None
    rates: RatesFunction | None = None
    #: what ``permutations`` counts for a random test ("permutations", "resamples"); None
    #: for a deterministic one
    resamples: str | None = None

    @property
    def family_wise(self) -> bool:
        """The test controls the family-wise error over every pair itself: no correction
        is applied on top of it."""
        return self.all_pairs is not None

    @property
    def random(self) -> bool:
        """The test draws random resamples (``permutations`` of them, seeded)."""
        return self.resamples is not None


# -------------------------------------------------------------------- the computations


def _t(rows: np.ndarray, permutations: int, seed: Any) -> PairedOutcome:
    found = paired.t_test(rows)
    return PairedOutcome(found.statistic, found.p_value, {})


def _signed_rank(rows: np.ndarray, permutations: int, seed: Any) -> PairedOutcome:
    found = paired.signed_rank_test(rows)  # min(W+, W−), as scipy reports it
    return PairedOutcome(np.minimum(found.w_plus, found.w_minus), found.p_value, {})


def _sign(rows: np.ndarray, permutations: int, seed: Any) -> PairedOutcome:
    wins, losses = paired.sign_counts(rows)
    return PairedOutcome(wins.astype(np.float64), paired.sign_p_value(wins, losses), {})


def _randomization(rows: np.ndarray, permutations: int, seed: Any) -> PairedOutcome:
    flips = paired.randomization_test(rows, permutations=permutations, seed=seed)
    info = {"permutations": flips.permutations, "exact": flips.exact}
    return PairedOutcome(flips.statistic, flips.p_value, info)


def _bootstrap(rows: np.ndarray, permutations: int, seed: Any) -> PairedOutcome:
    found = paired.bootstrap_test(rows, samples=permutations, seed=seed)
    return PairedOutcome(found.statistic, found.p_value, {"samples": permutations})


def _tukey(model: str) -> AllPairsFunction:
    def tukey(scores: Any, names: Any, alpha: float, permutations: int, seed: Any):
        return tukey_hsd(scores, model=model, names=names, alpha=alpha)

    return tukey


def _randomized_tukey(scores: Any, names: Any, alpha: float, permutations: int, seed: Any):
    return randomized_tukey_hsd(
        scores, permutations=permutations, seed=seed, names=names, alpha=alpha
    )


def _deterministic(test: Callable[[Any, Any, str, float], TestResult]) -> UnpairedFunction:
    """A deterministic test of two groups as the table calls it (resamples and seed unused)."""

    def run(x: np.ndarray, y: np.ndarray, alternative: str, confidence: float, resamples: int,
            seed: Any) -> TestResult:  # fmt: skip
        return test(x, y, alternative, confidence)

    return run


def _two_sample_bootstrap(x: np.ndarray, y: np.ndarray, alternative: str, confidence: float,
                          resamples: int, seed: Any) -> TestResult:  # fmt: skip
    return two_sample_bootstrap(x, y, alternative, confidence, samples=resamples, seed=seed)


def _two_proportion_z(s_a: int, n_a: int, s_b: int, n_b: int, alternative: str,
                      confidence: float) -> TestResult:  # fmt: skip
    return two_proportion_z(s_a, n_a, s_b, n_b, alternative, confidence=confidence)


def _chi_square(yates: bool) -> RatesFunction:
    def test(s_a: int, n_a: int, s_b: int, n_b: int, alternative: str, confidence: float):
        if alternative != "two-sided":
            raise UsageError("the χ² test is two-sided: use z for a one-sided test of rates")
        return chi_square([[s_a, n_a - s_a], [s_b, n_b - s_b]], yates, confidence)

    return test


def _randomized_tukey_together(stack: np.ndarray, permutations: int, seed: int) -> np.ndarray:
    return randomized_tukey_pvalues(stack, permutations=permutations, seed=seed)


def _randomized_tukey_preferences(prefs: np.ndarray, permutations: int, seed: int):
    return preference_tukey_pvalues(prefs, permutations=permutations, seed=seed)


# -------------------------------------------------------------------------- the table

#: Every test, in the order choices are listed (the first of a use's choices is its default:
#: ``t`` for systems, ``welch`` for two groups of values, ``z`` for two rates).
TESTS: tuple[StatisticalTest, ...] = (
    StatisticalTest(
        "t", "paired t-test", "the per-query differences have mean 0", paired=_t
    ),
    StatisticalTest(
        "wilcoxon", "Wilcoxon signed-rank test",
        "the per-query differences are distributed symmetrically about 0",
        paired=_signed_rank,
    ),  # fmt: skip
    StatisticalTest(
        "sign", "sign test",
        "on a query where the systems differ, each is better with probability 1/2",
        paired=_sign,
    ),  # fmt: skip
    StatisticalTest(
        "randomization", "paired randomization test",
        "the two systems are exchangeable on every query (d and −d equally likely)",
        aliases=("permutation",), paired=_randomization, resamples="permutations",
    ),  # fmt: skip
    StatisticalTest(
        "welch", "Welch's t-test",
        "the two groups have the same mean (variances may differ)",
        aliases=("welch-t",), unpaired=_deterministic(welch_t),
    ),  # fmt: skip
    StatisticalTest(
        "student", "Student's t-test",
        "the two groups have the same mean (and the same variance)",
        aliases=("student-t",), unpaired=_deterministic(student_t),
    ),  # fmt: skip
    StatisticalTest(
        "mann-whitney", "Mann–Whitney U test",
        "a unit of either group is as likely to score above a unit of the other as below",
        aliases=("mwu", "rank-sum"), unpaired=_deterministic(mann_whitney),
    ),  # fmt: skip
    StatisticalTest(
        "bootstrap", "paired bootstrap test",
        "the per-query differences have mean 0 (Sakai's bootstrap of the shifted "
        "differences)",
        paired=_bootstrap, unpaired=_two_sample_bootstrap, resamples="resamples",
    ),  # fmt: skip
    StatisticalTest(
        "z", "two-proportion z-test", "the two groups have the same rate",
        aliases=("two-proportion-z",), rates=_two_proportion_z,
    ),  # fmt: skip
    StatisticalTest(
        "chi-square", "χ² test", "the two groups have the same rate",
        aliases=("chi2",), rates=_chi_square(False),
    ),  # fmt: skip
    StatisticalTest(
        "chi-square-yates", "χ² test with Yates' correction", "the two groups have the same rate",
        aliases=("yates",), rates=_chi_square(True),
    ),  # fmt: skip
    StatisticalTest(
        "fisher", "Fisher's exact test", "the two groups have the same rate",
        aliases=("fisher-exact",), rates=fisher_exact,
    ),  # fmt: skip
    StatisticalTest(
        "tukey", "Tukey HSD, two-way ANOVA",
        "every system has the same mean score (system and query effects, no interaction)",
        all_pairs=_tukey("two-way"),
    ),  # fmt: skip
    StatisticalTest(
        "tukey-one-way", "Tukey HSD, one-way ANOVA",
        "every system has the same mean score (queries as independent replicates)",
        all_pairs=_tukey("one-way"),
    ),  # fmt: skip
    StatisticalTest(
        "randomized-tukey", "randomized Tukey HSD",
        "the systems are exchangeable on every query",
        all_pairs=_randomized_tukey, all_pairs_together=_randomized_tukey_together,
        preferences=_randomized_tukey_preferences,
        resamples="permutations",
    ),  # fmt: skip
)

_USES: dict[str, Callable[[StatisticalTest], bool]] = {
    "paired": lambda test: test.paired is not None,
    "runs": lambda test: test.paired is not None or test.preferences is not None,
    "pairs": lambda test: test.paired is not None or test.all_pairs is not None,
    "unpaired": lambda test: test.unpaired is not None,
    "rates": lambda test: test.rates is not None,
    "experiment": lambda test: test.unpaired is not None or test.rates is not None,
    "any": lambda test: True,
}


def choices(use: str = "pairs") -> tuple[StatisticalTest, ...]:
    """The tests one use accepts: ``"paired"`` (two systems on the same queries:
    ``recsys --folds``, `pairwise_tests`), ``"runs"`` (``rankscope compare``: paired
    tests and those that also run on preference tensors), ``"pairs"`` (every test of
    systems: `compare`, `rankscope.report.latex.latex_table`), ``"unpaired"`` (two
    independent groups of values), ``"rates"`` (two rates from counts) and ``"experiment"``
    (either: the tests `rankscope.experiment.analyse` takes, of means and of rates); ``"any"``
    every test (the choices of the options glossary's ``--test``, which each command narrows)."""
    if use not in _USES:
        raise UsageError(f"unknown use {use!r}: choose {', '.join(_USES)}")
    return tuple(test for test in TESTS if _USES[use](test))


def names(use: str = "pairs") -> tuple[str, ...]:
    """The canonical names of `choices` ``(use)``."""
    return tuple(test.name for test in choices(use))


def named(name: str, use: str = "pairs", what: str = "test") -> StatisticalTest:
    """The test called ``name`` (or one of its aliases) among `choices` ``(use)``;
    `UsageError` ("unknown test ...: choose ...", ``what`` naming the parameter) if none."""
    for test in choices(use):
        if name == test.name or name in test.aliases:
            return test
    raise UsageError(f"unknown {what} {name!r}: choose {', '.join(names(use))}")


def p_values(differences: Any, test: str, permutations: int, seed: Any) -> np.ndarray:
    """Two-sided p-value of each row of paired ``differences`` by the paired test named
    ``test``: ``permutations`` resamples for the random ones, seeded by ``seed``."""
    found = named(test, "paired")
    assert found.paired is not None
    return found.paired(paired.as_rows(differences), permutations, seed).p_value


# ------------------------------------------------------------ every pair of systems


def pairwise_tests(
    scores: ArrayLike | Mapping[str, ArrayLike],
    *,
    test: str = "t",
    correction: str | None = "holm",
    alpha: float = 0.05,
    names: Sequence[str] | None = None,
    permutations: int = 10_000,
    seed: int | np.random.SeedSequence | None = 0,
    include_observed: bool | None = None,
) -> PairwiseResult:
    """A paired two-sided test on every pair of systems, corrected over the pairs.

    ``test`` is any paired test of `TESTS` (``choices("paired")``), computed by
    `rankscope.stats.paired` on all pairs at once, so a pair's ``p_unadjusted`` equals the
    p-value of the matching function of `rankscope.stats.tests` on the same two systems:

    * ``"t"`` — paired t-test (`paired_t`, ``scipy.stats.ttest_rel``; identical systems get
      t = 0, p = 1 where scipy gives NaN);
    * ``"wilcoxon"`` — Wilcoxon signed-rank (`wilcoxon`, ``scipy.stats.wilcoxon`` with its
      defaults); the statistic is min(W+, W−), as scipy reports it;
    * ``"sign"`` — sign test, ties dropped (`sign_test`, ``scipy.stats.binomtest`` on the
      wins); the statistic is the number of wins of system a;
    * ``"randomization"`` (or ``"permutation"``) — paired randomization test (Fisher;
      Smucker et al. 2007; `permutation_test`): all 2^n sign flips up to 20 queries, else
      ``permutations`` random flips from ``numpy.random.default_rng(seed)`` and
      p = (count + 1)/(B + 1);
    * ``"bootstrap"`` — Sakai's paired bootstrap test (`paired_bootstrap`), ``permutations``
      resamples; the statistic is t.

    ``correction``: ``"holm"`` (default), ``"bonferroni"``, ``"bh"`` (Benjamini–Hochberg,
    controls the false discovery rate instead of the family-wise error) or ``None``; the
    family is the ``k(k-1)/2`` pairs (`rankscope.stats.corrections`).  ``p_unadjusted``
    keeps the per-test p-values; ``p_value`` the corrected ones.  Needs at least 2 queries.

    ``include_observed`` is deprecated and has no effect: the randomization test always
    counts the observed arrangement (exact enumeration, or (count + 1)/(B + 1)).
    """
    matrix, names = as_score_matrix(scores, names)
    alpha = check_alpha(alpha)
    found = named(test, "paired")
    assert found.paired is not None
    paired.check_queries(matrix.shape[1], "a paired test")
    if include_observed is not None:
        warnings.warn(
            "pairwise_tests(include_observed=...) has no effect any more: the randomization "
            "test is exact up to 20 queries and uses (count + 1)/(B + 1) beyond",
            DeprecationWarning,
            stacklevel=2,
        )
    first, second = system_pairs(len(names))
    outcome = found.paired(matrix[first] - matrix[second], permutations, seed_sequence(seed))
    info: dict[str, Any] = {"test": found.name, "correction": correction}
    if found.random:
        info.update(outcome.info, seed=seed)
    corrected = adjust(outcome.p_value, correction)
    label = found.label + (f", {correction} correction" if correction else "")
    return pairwise_result(
        names, matrix, outcome.statistic, corrected, outcome.p_value, alpha, label, info
    )


def compare(
    scores: ArrayLike | Mapping[str, ArrayLike],
    method: str = "t",
    *,
    correction: str | None = "holm",
    alpha: float = 0.05,
    names: Sequence[str] | None = None,
    permutations: int = 10_000,
    seed: int | np.random.SeedSequence | None = 0,
) -> PairwiseResult:
    """All pairs by any test of `TESTS`: a paired test through `pairwise_tests` (with
    ``correction``), or a Tukey procedure (``"tukey"``: two-way `tukey_hsd`,
    ``"tukey-one-way"``, ``"randomized-tukey"``: `randomized_tukey_hsd`), which controls
    the family-wise error itself and ignores ``correction``."""
    found = named(method, what="method")
    if found.all_pairs is not None:
        return found.all_pairs(scores, names, alpha, permutations, seed)
    return pairwise_tests(
        scores,
        test=found.name,
        correction=correction,
        alpha=alpha,
        names=names,
        permutations=permutations,
        seed=seed,
    )
