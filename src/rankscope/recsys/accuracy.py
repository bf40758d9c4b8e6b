"""Rating prediction: how close predicted ratings come to the users' test ratings.

The recommendations' scores are read as predicted ratings and joined with the test ratings
on (user, item).  A test rating without a prediction is left out of the errors (and counted
by ``PredictionCoverage``), with a warning that says how many.
"""

from __future__ import annotations

import numpy as np

from ..errors import UsageError
from ..measures.base import IrSpelling, Param
from ..stats.exact import ExactSum
from .base import Context, Note, RecsysMeasure, Values, finished, user_mean

AVERAGE = Param(
    "average",
    str,
    "ratings",
    "ratings: pooled over every predicted test rating (default); users: the mean of the "
    "per-user values",
    choices=("ratings", "users"),
)


def _joined(ctx: Context):
    """(user slot, error) of every predicted test rating, and the number of test ratings."""

    def make():
        test, run = ctx.test, ctx.run
        if test.rating is None:
            raise UsageError("rating measures need ratings in the test data")
        n = ctx.num_items
        run_keys = run.query.astype(np.int64) * n + run.doc
        order = np.argsort(run_keys, kind="stable")
        sorted_keys = run_keys[order]
        test_keys = test.keys(n)
        pos = np.minimum(np.searchsorted(sorted_keys, test_keys), max(len(order) - 1, 0))
        found = sorted_keys[pos] == test_keys if len(order) else np.zeros(len(test), dtype=bool)
        slot = np.full(len(test.users), -1, dtype=np.int64)
        slot[ctx.user_codes] = np.arange(ctx.num_users)
        users = slot[test.user]
        error = run.score[order[pos[found]]] - test.rating[found]
        ctx.note(
            "unpredicted",
            Note(
                "{missing} of {ratings} test ratings have no prediction; rating errors are "
                "over the predicted ones (PredictionCoverage gives the share)",
                (("missing", int((~found).sum())), ("ratings", len(test))), when="missing",
            ),
        )  # fmt: skip
        return users[found], error, users

    return ctx.cached("rating-join", make)


def _per_user(ctx: Context, users: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, ...]:
    sums = np.bincount(users, weights=values, minlength=ctx.num_users)
    counts = np.bincount(users, minlength=ctx.num_users)
    return sums, counts


def _mean_error(ctx: Context, power: int, average: str, root: bool, finish) -> Values:
    users, error, _ = _joined(ctx)
    loss = np.abs(error) ** power
    sums, counts = _per_user(ctx, users, loss)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_user = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    if root:
        per_user = np.sqrt(per_user)
    if average == "users":
        return user_mean(per_user)
    return finished(per_user, _loss_tally(loss), finish)


def _loss_tally(loss: np.ndarray) -> dict:
    return {"loss": ExactSum.of(loss), "n": len(loss)}


def _finish_mean(tally: dict, **params: object) -> tuple[float, int]:
    """The pooled mean of the losses, rounded once."""
    n = tally["n"]
    return (tally["loss"].divided(n) if n else float("nan")), n


def _mae(ctx: Context, average: str = "ratings") -> Values:
    return _mean_error(ctx, 1, average, False, _finish_mean)


def _mse(ctx: Context, average: str = "ratings") -> Values:
    return _mean_error(ctx, 2, average, False, _finish_mean)


def _rmse(ctx: Context, average: str = "ratings") -> Values:
    return _mean_error(ctx, 2, average, True, _finish_rmse)


def _finish_rmse(tally: dict, **params: object) -> tuple[float, int]:
    pooled, n = _finish_mean(tally)
    return float(np.sqrt(pooled)), n


def _se(ctx: Context, average: str = "ratings") -> Values:
    users, error, _ = _joined(ctx)
    loss = error**2
    sums, counts = _per_user(ctx, users, loss)
    per_user = np.where(counts > 0, sums, np.nan)
    if average == "users":
        return user_mean(per_user)
    return finished(per_user, _loss_tally(loss), _finish_se)


def _finish_se(tally: dict, **params: object) -> tuple[float, int]:
    return tally["loss"].value, tally["n"]


def _prediction_coverage(ctx: Context, average: str = "ratings") -> Values:
    predicted_users, _, all_users = _joined(ctx)
    predicted = np.bincount(predicted_users, minlength=ctx.num_users)
    total = np.bincount(all_users, minlength=ctx.num_users)
    per_user = predicted / np.maximum(total, 1)
    if average == "users":
        return user_mean(per_user)
    tally = {"predicted": int(predicted.sum()), "total": int(total.sum())}
    return finished(per_user, tally, _finish_coverage)


def _finish_coverage(tally: dict, **params: object) -> tuple[float, int]:
    n = tally["total"]
    return (float(tally["predicted"] / n) if n else float("nan")), n


_POOLED = (
    "pooled over all predicted test ratings (average=ratings, the default; an exact sum, "
    "rounded once), or the mean of the per-user values (average=users)"
)
_REF_HERLOCKER = (
    "Herlocker, Konstan, Terveen & Riedl, Evaluating collaborative filtering recommender "
    "systems, ACM TOIS 22(1), 2004."
)

MAE = RecsysMeasure(
    "MAE", _mae, reference=_REF_HERLOCKER, params=(AVERAGE,), ir=(IrSpelling("MAE"),),
    kind="rating", needs=("ratings",), summary_doc=_POOLED, finish=_finish_mean,
    doc="""\
    Mean absolute error of the predicted ratings: MAE = (1/N) Σ |p(u,i) − r(u,i)| over the N
    test ratings r with a prediction p.

    Meaning: the average number of rating points a displayed prediction is off by; every error
    counts in proportion to its size. Lower is better.
    """,
)

RMSE = RecsysMeasure(
    "RMSE", _rmse,
    reference=_REF_HERLOCKER + " Bennett & Lanning, The Netflix Prize, KDD Cup and Workshop, 2007.",
    params=(AVERAGE,), ir=(IrSpelling("RMSE"),), kind="rating", needs=("ratings",),
    finish=_finish_rmse,
    summary_doc=_POOLED,
    doc="""\
    Root mean squared error of the predicted ratings: RMSE = sqrt((1/N) Σ (p(u,i) − r(u,i))²)
    over the N test ratings with a prediction.

    Meaning: like MAE, in rating points, but large errors weigh more (the Netflix Prize
    measure). Lower is better.
    """,
)

MSE = RecsysMeasure(
    "MSE", _mse, reference=_REF_HERLOCKER, params=(AVERAGE,), ir=(IrSpelling("MSE"),),
    kind="rating", needs=("ratings",), summary_doc=_POOLED, finish=_finish_mean,
    doc="""\
    Mean squared error of the predicted ratings: MSE = (1/N) Σ (p(u,i) − r(u,i))² = RMSE².
    Lower is better.
    """,
)

SE = RecsysMeasure(
    "SE", _se, reference="Diaz, Offline Metrics (lecture notes); " + _REF_HERLOCKER,
    params=(AVERAGE,),
    ir=(IrSpelling("SE"),), kind="rating", needs=("ratings",), finish=_finish_se,
    summary_doc="the sum over all predicted test ratings (average=ratings, the default), or the "
        "mean of the per-user sums (average=users)",
    doc="""\
    Squared error, the sum Σ (p(u,i) − r(u,i))² over the test ratings with a prediction: the
    training loss of Diaz's 'metric: accuracy' (Σ_i (y_i − f_θ(x_i))²). Per user: the
    user's sum.

    Meaning: the total squared deviation; it grows with the number of ratings, so compare
    systems on the same test set only. Lower is better.
    """,
)

PredictionCoverage = RecsysMeasure(
    "PredictionCoverage", _prediction_coverage, reference=_REF_HERLOCKER, params=(AVERAGE,),
    ir=(IrSpelling("PredictionCoverage"),), kind="rating", needs=("ratings",),
    finish=_finish_coverage,
    summary_doc="pooled over all test ratings (default), or the mean over users",
    doc="""\
    Prediction coverage: the share of the test ratings for which the system predicts a rating,
    |{(u,i) in test: p(u,i) exists}| / |test|.

    Meaning: how often the system can say something at all; rating errors are computed over the
    covered ratings only, so read them together. Higher is better.
    """,
)

RATING_MEASURES = [MAE, RMSE, MSE, SE, PredictionCoverage]
