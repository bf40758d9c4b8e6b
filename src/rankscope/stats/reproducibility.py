"""Has a reproduction reproduced?  The measures of Breuer, Ferro, Fuhr, Maistro, Sakai, Schaer
& Soboroff, "How to measure the reproducibility of system-oriented IR experiments", SIGIR
2020 (implemented in repro_eval), on arrays.

An experiment is a baseline run B and an advanced run A; the original (B, A) is
*reproduced* (B′, A′ on the same test collection) or *replicated* (on another).

* Kendall's τ Union (`ktu`), per topic, between an original and a reproduced ranking.
* Root mean square error (`rmse`) between the per-topic scores of an original and a
  reproduced run (same topics): sqrt(1/n Σ_j (s_j − s′_j)²).
* Effect ratio (`effect_ratio`): ER = mean_j(A′_j − B′_j) / mean_j(A_j − B_j), the mean
  improvement reproduced over the mean improvement originally (1: the same effect; below
  1: smaller; negative: reversed).  Topics may differ (replication).
* Delta relative improvement (`delta_relative_improvement`): ΔRI = RI − RI′ with
  RI = (mean A − mean B) / mean B (0: the same relative improvement).
* Student's t-tests between original and reproduced scores: paired for a reproduction (same
  topics), unpaired (two-sample, equal variances) for a replication, via
  `rankscope.stats.tests` and `rankscope.stats.unpaired` (the one implementation of each
  test).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..errors import UsageError
from .meta import kendall_tau
from .tests import paired_t
from .unpaired import student_t


def _scores(x: ArrayLike, name: str) -> np.ndarray:
    a = np.asarray(x, dtype=np.float64)
    if a.ndim != 1 or len(a) == 0:
        raise UsageError(f"{name} must be a non-empty vector of per-topic scores")
    if not np.all(np.isfinite(a)):
        raise UsageError(f"{name} holds a value that is not a finite number")
    return a


def _same_topics(x: ArrayLike, y: ArrayLike, what: str) -> tuple[np.ndarray, np.ndarray]:
    a, b = _scores(x, "original"), _scores(y, "reproduced")
    if a.shape != b.shape:
        raise UsageError(
            f"{what} needs the scores of the same topics: {len(a)} original, {len(b)} reproduced"
        )
    return a, b


def ktu(original: Sequence[Any], reproduced: Sequence[Any]) -> float:
    """Kendall's τ Union between an original and a reproduced ranking of one topic.

    As Breuer et al. and repro_eval define it: the documents of both rankings form their
    union U, ordered by document id; the i-th document of each ranking is replaced by its
    position in U, and KTU is Kendall's τ_b between the two sequences of positions, paired
    by rank i.  Lists of different lengths are compared over the ranks both have (the
    first min(n, n′)).  Fewer than two such ranks: NaN (τ is undefined).

    >>> ktu(["d1", "d2", "d3"], ["d1", "d2", "d3"])
    1.0
    """
    n = min(len(original), len(reproduced))
    if n < 2:
        return float("nan")
    both = np.array([str(d) for d in original] + [str(d) for d in reproduced])
    _, position = np.unique(both, return_inverse=True)
    x = position[:n].astype(np.float64)
    y = position[len(original) : len(original) + n].astype(np.float64)
    return kendall_tau(x, y)


def rmse(original: ArrayLike, reproduced: ArrayLike) -> float:
    """Root mean square error between the per-topic scores of an original and a reproduced
    run (the same topics, in the same order): sqrt(1/n Σ_j (s_j − s′_j)²)."""
    a, b = _same_topics(original, reproduced, "RMSE")
    return math.sqrt(float(np.mean((a - b) ** 2)))


def effect_ratio(
    original_baseline: ArrayLike,
    original_advanced: ArrayLike,
    reproduced_baseline: ArrayLike,
    reproduced_advanced: ArrayLike,
) -> float:
    """ER = mean_j(A′_j − B′_j) / mean_j(A_j − B_j) (the per-topic improvements of each
    experiment over its own topics).  An original improvement of 0: ±inf, or NaN if the
    reproduced one is 0 too."""
    b, a = _same_topics(original_baseline, original_advanced, "the original experiment")
    b2, a2 = _same_topics(reproduced_baseline, reproduced_advanced, "the reproduced experiment")
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(np.mean(a2 - b2)) / np.float64(np.mean(a - b)))


def relative_improvement(baseline: ArrayLike, advanced: ArrayLike) -> float:
    """RI = (mean A − mean B) / mean B (a baseline mean of 0: ±inf or NaN)."""
    b, a = _same_topics(baseline, advanced, "the relative improvement")
    with np.errstate(divide="ignore", invalid="ignore"):
        return float((np.float64(a.mean()) - b.mean()) / np.float64(b.mean()))


def delta_relative_improvement(
    original_baseline: ArrayLike,
    original_advanced: ArrayLike,
    reproduced_baseline: ArrayLike,
    reproduced_advanced: ArrayLike,
) -> float:
    """ΔRI = RI − RI′, the original relative improvement minus the reproduced one."""
    return relative_improvement(original_baseline, original_advanced) - relative_improvement(
        reproduced_baseline, reproduced_advanced
    )


def reproduction_p_value(original: ArrayLike, reproduced: ArrayLike, *, paired: bool) -> float:
    """Two-sided p-value of Student's t-test between original and reproduced per-topic
    scores: paired (reproduction, the same topics) or two-sample with equal variances
    (replication).  Identical scores: p = 1 (the paired test's convention)."""
    if paired:
        a, b = _same_topics(original, reproduced, "the paired t-test")
        return float(paired_t(a, b).p_value)
    a, b = _scores(original, "original"), _scores(reproduced, "reproduced")
    if len(a) < 2 or len(b) < 2:
        raise UsageError("the unpaired t-test needs at least 2 topics on each side")
    return float(student_t(a, b).p_value)
