"""Confidence: how far a recommender's predicted scores can be trusted.

The predictions are the recommendation scores, joined with the test interactions on (user,
item) as for the rating measures; a recommended item absent from the test data has no known
outcome and is not counted.  The outcome of a test interaction is its relevance (rating >=
threshold, 1; else 0; every test interaction is relevant in a log without ratings), and the
score is read as the predicted probability of that outcome, so it must lie in [0, 1]: where
the joined scores do not, the probability measures have no value (NaN) and a warning says
why.  ``ECE(target=rating)`` instead reads the scores as predicted ratings and compares them
with the test ratings.

Calibration: `reliability_bins` (the reliability diagram's data), ECE, Brier score and log
loss.  Confidence–accuracy: `coverage_accuracy_curve` (accuracy of the predictions the system
is most sure about, as the share it answers grows) and its area, CoverageAccuracy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import UsageError
from ..measures.base import IrSpelling, Param
from ..stats.exact import ExactSum
from .base import Context, Note, RecsysMeasure, Sample, Values, finished

#: Log loss floors the probability of the observed outcome at EPSILON (log 0 is infinite).
EPSILON = 1e-15


@dataclass(frozen=True)
class Joined:
    """The predicted test interactions of one system."""

    slot: np.ndarray  # evaluated-user slot of each prediction
    score: np.ndarray  # the prediction (probability or rating)
    outcome: np.ndarray  # 1.0 relevant, 0.0 not
    rating: np.ndarray | None  # the test rating, when the test log has ratings
    line: np.ndarray | None  # input line of each prediction, for messages
    test_line: np.ndarray  # the position of its test interaction (line, or row)


def joined(ctx: Context) -> Joined:
    """Every test interaction with a prediction (in test-log order), computed once."""

    def make() -> Joined:
        test, run = ctx.test, ctx.run
        n = ctx.num_items
        run_keys = run.query.astype(np.int64) * n + run.doc
        order = np.argsort(run_keys, kind="stable")
        sorted_keys = run_keys[order]
        test_keys = test.keys(n)
        if len(order):
            pos = np.minimum(np.searchsorted(sorted_keys, test_keys), len(order) - 1)
            found = sorted_keys[pos] == test_keys
        else:
            pos, found = np.zeros(len(test), dtype=np.int64), np.zeros(len(test), dtype=bool)
        rows = order[pos[found]]
        slot = np.full(len(test.users), -1, dtype=np.int64)
        slot[ctx.user_codes] = np.arange(ctx.num_users)
        outcome = (ctx.qrels.grade[found] >= 1).astype(np.float64)
        rating = None if test.rating is None else test.rating[found]
        line = None if run.line is None else run.line[rows]
        test_line = np.flatnonzero(found) if test.line is None else test.line[found]
        return Joined(slot[test.user[found]], run.score[rows], outcome, rating, line, test_line)

    return ctx.cached("confidence-join", make)


def probabilities(ctx: Context, measure: str) -> Joined | None:
    """The joined predictions if every score is a probability in [0, 1]; otherwise None,
    with a warning naming the first score out of range."""
    data = joined(ctx)
    bad = (data.score < 0) | (data.score > 1)
    example = None
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        where = ""
        if data.line is not None:
            source = ctx.run.source
            unit = "row" if source.startswith("<") else "line"  # frames and dicts: rows
            where = f" ({source}, {unit} {int(data.line[i])})"
        example = (int(data.test_line[i]), f"{float(data.score[i])!r}{where}")
    ctx.note("not-probabilities", Note(
        "{bad} of {predictions} predictions for test interactions are not probabilities in "
        f"[0, 1], e.g. {{example}}; {measure} and the other probability measures have no "
        "value (ECE(target=rating) reads predicted ratings)",
        (("bad", int(bad.sum())), ("predictions", len(bad))), example=example, when="bad",
    ))  # fmt: skip
    if bad.any():
        return None
    ctx.note("no-predictions", Note(
        "no test interaction has a prediction: the confidence measures have no value",
        (("predicted", len(data.score)),), when="!predicted",
    ))  # fmt: skip
    return data


def _pooled(ctx: Context, data: Joined, loss: np.ndarray) -> Values:
    sums = np.bincount(data.slot, weights=loss, minlength=ctx.num_users)
    counts = np.bincount(data.slot, minlength=ctx.num_users)
    per_user = np.full(ctx.num_users, np.nan)
    np.divide(sums, counts, out=per_user, where=counts > 0)
    return finished(per_user, {"loss": ExactSum.of(loss), "n": len(loss)}, _finish_pooled)


def _finish_pooled(tally: dict, **params: object) -> tuple[float, int]:
    """The mean loss over the pooled predictions (rounded once); no value when some scores
    were not probabilities."""
    n = tally["n"]
    if tally.get("invalid") or not n:
        return float("nan"), 0 if tally.get("invalid") else n
    return tally["loss"].divided(n), n


def _nothing(ctx: Context, finish) -> Values:
    """No value: the scores are not probabilities (a tally that says so, for a cluster)."""
    return finished(None, {"invalid": 1, "n": 0}, finish)


def _brier(ctx: Context) -> Values:
    data = probabilities(ctx, "Brier")
    if data is None:
        return _nothing(ctx, _finish_pooled)
    return _pooled(ctx, data, (data.score - data.outcome) ** 2)


def _log_loss(ctx: Context, epsilon: float = EPSILON) -> Values:
    data = probabilities(ctx, "LogLoss")
    if data is None:
        return _nothing(ctx, _finish_pooled)
    y = data.outcome
    given = np.where(y == 1, data.score, 1 - data.score)  # probability of what happened
    return _pooled(ctx, data, -np.log(np.maximum(given, epsilon)))


# -- reliability -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Bins:
    """A reliability diagram's data: per bin, its bounds, size, mean prediction and mean
    outcome (NaN for an empty bin)."""

    lower: np.ndarray
    upper: np.ndarray
    count: np.ndarray
    mean_predicted: np.ndarray
    observed: np.ndarray

    @property
    def ece(self) -> float:
        """Σ_b (n_b / N) |mean predicted_b − observed_b| over the non-empty bins."""
        n = int(self.count.sum())
        if not n:
            return float("nan")
        filled = self.count > 0
        gap = np.abs(self.mean_predicted[filled] - self.observed[filled])
        return float((self.count[filled] * gap).sum() / n)


def reliability_bins(
    predicted: np.ndarray, observed: np.ndarray, bins: int, lower: float, upper: float
) -> Bins:
    """Equal-width bins over [lower, upper]: bin b holds edge_b < p <= edge_(b+1), the first
    bin its lower edge too (as scikit-learn's ``calibration_curve``)."""
    edges = np.linspace(lower, upper, bins + 1)
    which = np.searchsorted(edges[1:-1], predicted, side="left")
    count = np.bincount(which, minlength=bins)
    mean_p = np.full(bins, np.nan)
    mean_y = np.full(bins, np.nan)
    order = np.argsort(which, kind="stable")
    starts = np.concatenate(([0], np.cumsum(count)))
    for b in np.flatnonzero(count).tolist():  # exact sums: the same in any order
        rows = order[starts[b] : starts[b + 1]]
        mean_p[b] = ExactSum.of(predicted[rows]).divided(int(count[b]))
        mean_y[b] = ExactSum.of(observed[rows]).divided(int(count[b]))
    return Bins(edges[:-1], edges[1:], count, mean_p, mean_y)


def calibration(ctx: Context, bins: int = 10, target: str = "relevance") -> Bins | None:
    """The reliability bins of ``ctx``'s predictions: probabilities against relevance on
    [0, 1] (``target="relevance"``), or predicted against test ratings on the range of the
    predictions (``target="rating"``); None when the scores are not probabilities."""
    if target == "rating":
        data = joined(ctx)
        if data.rating is None:
            raise UsageError("ECE(target=rating) needs ratings in the test data")
        return _binned(data.score, data.rating, bins, target)
    probs = probabilities(ctx, "ECE")
    if probs is None:
        return None
    return _binned(probs.score, probs.outcome, bins, target)


def _binned(predicted: np.ndarray, observed: np.ndarray, bins: int, target: str) -> Bins:
    """The reliability bins: over [0, 1] for probabilities, over the range of the predictions
    for ratings (one bin when they are all equal)."""
    if target != "rating" or not len(predicted):
        return reliability_bins(predicted, observed, bins, 0.0, 1.0)
    low, high = float(predicted.min()), float(predicted.max())
    return reliability_bins(predicted, observed, bins if high > low else 1, low, high)


def _ece(ctx: Context, bins: int = 10, target: str = "relevance") -> Values:
    if target == "rating":
        data = joined(ctx)
        if data.rating is None:
            raise UsageError("ECE(target=rating) needs ratings in the test data")
        pairs = Sample((data.score, data.rating))
    else:
        probs = probabilities(ctx, "ECE")
        if probs is None:
            return _nothing(ctx, _finish_ece)
        pairs = Sample((probs.score, probs.outcome))
    return finished(None, {"pairs": pairs, "n": len(pairs.columns[0])}, _finish_ece, bins=bins,
                    target=target)  # fmt: skip


def _finish_ece(tally: dict, bins: int = 10, target: str = "relevance") -> tuple[float, int]:
    """ECE from the pooled (prediction, outcome) pairs: `calibration`'s bins."""
    if tally.get("invalid"):
        return float("nan"), 0
    predicted, observed = tally["pairs"].columns
    return _binned(predicted, observed, bins, target).ece, int(tally["n"])


# -- coverage and accuracy -------------------------------------------------------------------


@dataclass(frozen=True)
class CoverageCurve:
    """Accuracy of the most confident predictions, at the end of each block of equally
    confident ones."""

    covered: np.ndarray  # predictions answered (int)
    coverage: np.ndarray  # covered / all
    confidence: np.ndarray  # the block's confidence |p − 0.5|·2
    accuracy: np.ndarray  # share of the covered predictions that are right

    @property
    def area(self) -> float:
        """(1/N) Σ_{n=1..N} accuracy(n): the mean accuracy over the coverages 1/N ... 1,
        equally confident predictions taken in random order (their expectation)."""
        if not len(self.covered):
            return float("nan")
        total = int(self.covered[-1])
        starts = np.concatenate(([0], self.covered[:-1]))
        right_after = self.accuracy * self.covered
        right_before = np.concatenate(([0.0], right_after[:-1]))
        sizes = self.covered - starts
        block = np.repeat(np.arange(len(sizes)), sizes)  # the block of each position
        n = np.arange(1, total + 1)
        rate = (right_after - right_before) / sizes
        right = right_before[block] + rate[block] * (n - starts[block])
        return float((right / n).sum() / total)


def coverage_accuracy_curve(probability: np.ndarray, outcome: np.ndarray) -> CoverageCurve:
    """The coverage–accuracy curve of probabilistic predictions: predicted relevant when p >=
    0.5, confidence |p − 0.5|·2, most confident first; one point per distinct confidence."""
    confidence = np.abs(probability - 0.5) * 2
    right = ((probability >= 0.5) == (outcome >= 1)).astype(np.float64)
    order = np.argsort(-confidence, kind="stable")
    confidence, right = confidence[order], right[order]
    if not len(confidence):
        empty = np.zeros(0)
        return CoverageCurve(empty.astype(np.int64), empty, empty, empty)
    ends = np.flatnonzero(np.concatenate((confidence[1:] != confidence[:-1], [True])))
    covered = ends + 1
    cumulative = np.cumsum(right)[ends]
    return CoverageCurve(
        covered.astype(np.int64), covered / len(right), confidence[ends], cumulative / covered
    )


def _coverage_accuracy(ctx: Context) -> Values:
    data = probabilities(ctx, "CoverageAccuracy")
    if data is None:
        return _nothing(ctx, _finish_coverage_accuracy)
    pairs = Sample((data.score, data.outcome))
    return finished(None, {"pairs": pairs, "n": len(data.score)}, _finish_coverage_accuracy)


def _finish_coverage_accuracy(tally: dict, **params: object) -> tuple[float, int]:
    """The curve's area from the pooled pairs (in any order: equally confident predictions
    count in expectation over their order)."""
    if tally.get("invalid"):
        return float("nan"), 0
    return coverage_accuracy_curve(*tally["pairs"].columns).area, int(tally["n"])


# -- the measures ----------------------------------------------------------------------------

_INPUT = (
    "The predictions are the scores of the recommendations for test interactions (user, item "
    "in the test log), read as the probability p that the item is relevant (test rating >= "
    "threshold; y = 1, else 0); they must lie in [0, 1], else the value is NaN with a warning"
)
_POOLED = "pooled over the N predicted test interactions (an exact sum, rounded once)"
BINS = Param("bins", int, 10, "number of equal-width bins (default 10)", minimum=1)
TARGET = Param(
    "target",
    str,
    "relevance",
    "relevance: probabilities against relevance (default); rating: predicted against test "
    "ratings",
    choices=("relevance", "rating"),
)

Brier = RecsysMeasure(
    "Brier", _brier, ir=(IrSpelling("Brier"),), kind="confidence", summary_doc=_POOLED,
    finish=_finish_pooled,
    reference="Brier, Verification of forecasts expressed in terms of probability, Monthly "
        "Weather Review 78(1), 1950.",
    doc=f"""\
    Brier score: (1/N) Σ (p − y)², the mean squared difference between the predicted
    probability and the outcome. {_INPUT}. Per user: the mean over the user's predictions.

    Meaning: 0 for certain and right predictions, 0.25 for always saying 0.5, 1 for certain
    and wrong; it rewards calibration and sharpness together. Lower is better.
    """,
)

LogLoss = RecsysMeasure(
    "LogLoss", _log_loss, ir=(IrSpelling("LogLoss"),), kind="confidence", summary_doc=_POOLED,
    finish=_finish_pooled,
    params=(
        Param(
            "epsilon", float, EPSILON,
            "the probability of the observed outcome is floored at epsilon (default 1e-15)",
            minimum=0.0,
        ),
    ),  # fmt: skip
    reference="Good, Rational decisions, Journal of the Royal Statistical Society B 14(1), "
        "1952; Bishop, Pattern Recognition and Machine Learning, 2006, §4.3.2.",
    doc=f"""\
    Log loss (binary cross-entropy): −(1/N) Σ [y ln p + (1 − y) ln(1 − p)], natural
    logarithm, the probability given to the observed outcome (p, or 1 − p) floored at ε =
    1e-15 (parameter epsilon; the same as clipping p to [ε, 1 − ε]) so that a certain wrong
    prediction costs ln(1/ε) ≈ 34.5 instead of infinity. {_INPUT}. Per user: the mean
    over the user's predictions.

    Meaning: the surprise of the outcomes under the predicted probabilities; confident
    mistakes cost most. ln 2 ≈ 0.693 for always saying 0.5. Lower is better.
    """,
)

ECE = RecsysMeasure(
    "ECE", _ece, ir=(IrSpelling("ECE"),), kind="confidence", finish=_finish_ece,
    params=(BINS, TARGET),
    summary_doc="one value for the system, over the N predicted test interactions (no "
        "per-user value)",
    reference="Naeini, Cooper & Hauskrecht, Obtaining well calibrated probabilities using "
        "Bayesian binning, AAAI 2015; Guo, Pleiss, Sun & Weinberger, On calibration of modern "
        "neural networks, ICML 2017.",
    doc=f"""\
    Expected calibration error: ECE = Σ_b (n_b / N) |p̄_b − ȳ_b| over B equal-width bins of
    the predictions (bins=10), p̄_b the mean prediction and ȳ_b the mean outcome of the n_b
    predictions in bin b (edge_b < p <= edge_(b+1), the first bin closed, as scikit-learn's
    calibration_curve). {_INPUT}.
    target=rating: the scores are predicted ratings, the outcome the test rating, the bins
    equal-width over the range of the predictions, and ECE is in rating points.

    Meaning: how far, on average, the stated probability is from the observed frequency
    (rankscope.recsys.reliability gives the bins, the reliability diagram's data). 0 for a
    perfectly calibrated system. Lower is better.
    """,
)

CoverageAccuracy = RecsysMeasure(
    "CoverageAccuracy", _coverage_accuracy, ir=(IrSpelling("CoverageAccuracy"),),
    kind="confidence", finish=_finish_coverage_accuracy,
    summary_doc="one value for the system, over the N predicted test interactions (no "
        "per-user value)",
    reference="Geifman & El-Yaniv, Selective classification for deep neural networks, NeurIPS "
        "2017; El-Yaniv & Wiener, On the foundations of noise-free selective classification, "
        "JMLR 11, 2010; McNee, Lam, Guetzlaff, Konstan & Riedl, Confidence displays and "
        "training in recommender systems, INTERACT 2003.",
    doc=f"""\
    Area under the coverage–accuracy curve: (1/N) Σ_{{n=1..N}} acc(n), acc(n) the accuracy of
    the n predictions the system is most confident about. A prediction says relevant when p
    >= 0.5 and is right when that matches y; its confidence is |p − 0.5|·2. Equally
    confident predictions count in expectation over their order. {_INPUT}.
    (rankscope.recsys.coverage_accuracy gives the curve.)

    Meaning: whether the system knows when it is right: high when its confident predictions
    are the accurate ones (1 − the area is the AURC of selective classification). Higher is
    better; the overall accuracy is the curve's last point.
    """,
)

CONFIDENCE_MEASURES = [Brier, LogLoss, ECE, CoverageAccuracy]
