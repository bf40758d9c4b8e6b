"""The recommender evaluation's front door: `evaluate_recsys` and `evaluate_recsys_systems`
read recommendation lists (or rating predictions), a test log and the optional training log,
item features, catalog and baseline from anything (files, frames, dicts, `Partitioned`
datasets), pick the backend (local, or Dask or Spark through `rankscope.recsys.distributed`)
and hand model objects to `rankscope.recsys.evaluation`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict, Unpack

from ..model.frames import to_frame
from ..recsys.distributed import recsys_evaluate_systems
from ..recsys.evaluation import check_options, evaluate_inputs
from ..recsys.systems import SystemEvaluation, read_inputs, tidy

__all__ = ["RecsysOptions", "evaluate_recsys", "evaluate_recsys_systems"]


class RecsysOptions(TypedDict, total=False):
    """The options shared by `evaluate_recsys` and `evaluate_recsys_systems` (see
    `evaluate_recsys`)."""

    k: int
    threshold: float | None
    train: Any
    features: Any
    popularity: Any
    baseline: Any
    catalog: Any
    relevance: str
    no_relevant: str
    seen: str
    ties: str
    columns: Mapping[str, str] | None
    duplicates: str
    backend: str
    scheduler: Any


def evaluate_recsys_systems(
    test_log: Any,
    recommendations: Any,
    measures: str | Sequence[str] | None = None,
    *,
    k: int = 10,
    threshold: float | None = 4.0,
    train: Any = None,
    features: Any = None,
    popularity: Any = None,
    baseline: Any = None,
    catalog: Any = None,
    relevance: str = "binary",
    no_relevant: str = "exclude",
    seen: str = "keep",
    ties: str = "input-order",
    columns: Mapping[str, str] | None = None,
    duplicates: str = "max-score",
    backend: str = "local",
    scheduler: Any = None,
) -> list[SystemEvaluation]:
    """Evaluate each system; one `SystemEvaluation` per system, in input order.

    See `evaluate_recsys` for the parameters.
    """
    if backend != "local" or scheduler is not None:
        return recsys_evaluate_systems(
            test_log, recommendations, measures, backend="dask" if backend == "local" else backend,
            scheduler=scheduler, k=k, threshold=threshold, train=train, features=features,
            popularity=popularity, baseline=baseline, catalog=catalog, relevance=relevance,
            no_relevant=no_relevant, seen=seen, ties=ties, columns=columns, duplicates=duplicates,
        )  # fmt: skip
    check_options(no_relevant, seen, relevance, k)
    read = read_inputs(
        test_log, recommendations, train, popularity, baseline, features, catalog, columns,
        duplicates,
    )  # fmt: skip
    return evaluate_inputs(
        read, measures, k=k, threshold=threshold, relevance=relevance, no_relevant=no_relevant,
        seen=seen, ties=ties,
    )  # fmt: skip


def evaluate_recsys(
    test_log: Any,
    recommendations: Any,
    measures: str | Sequence[str] | None = None,
    *,
    per_user: bool = True,
    output: str = "pandas",
    **options: Unpack[RecsysOptions],
) -> Any:
    """Evaluate recommendation lists (or rating predictions) against a test log.

    Returns a tidy table with columns run, user, measure, value: one row per (system, user,
    measure) for the users with a value (``per_user=True``), then one summary row per
    (system, measure) with user ``"all"``.  Summaries are not always means of the per-user
    rows (pooled rating errors, catalog-level measures), so use the ``"all"`` rows.

    Parameters (the keyword options are those of `evaluate_recsys_systems`, defaults below)
    ----------
    test_log:
        Test interactions (user, item[, rating][, timestamp]): a file, DataFrame, Parquet
        file or ``{user: {item: rating}}`` (``test`` is a statistical test elsewhere:
        `evaluate_folds`, `rankscope.compare`).
    recommendations:
        One system's lists — a TREC run or delimited file, DataFrame, ``{user: {item:
        score}}`` or ``{user: [items]}`` — or several: a list, a directory, a ``{name:
        source}`` dict.  For rating measures the scores are the predicted ratings.
    measures:
        Names (``P@10``, ``nDCG``, ``MAP(denominator=min)@5``, ``MAE``; nicknames
        ``topn``, ``beyond``, ``rating``, ``all``).  Default: the top-N measures, the
        coverage and exposure measures, Novelty/Serendipity/LongTail when popularity is
        known and ILD when features are given.
    k:
        The cutoff of names without ``@k`` (default 10).
    threshold:
        A test item is relevant when its rating is >= threshold (default 4); None, or a
        log without ratings: every test interaction is relevant.
    train:
        Training interactions: item popularity (Novelty, LongTail, the Serendipity
        baseline), the default catalog, and the seen-items policy.
    features:
        Item features for ILD: MovieLens ``u.item``, a table, ``{item: vector}``.
    popularity:
        Interactions to compute popularity from, instead of ``train``.
    baseline:
        Recommendations of the primitive model for Serendipity (default: most popular).
    catalog:
        Item ids of the catalog (default: every item of train and test).
    relevance:
        ``binary`` (default): gain 1 for a relevant item in nDCG; ``graded``: its rating.
    no_relevant:
        Users whose test items are all below the threshold: ``exclude`` (default) leaves
        them out of the means of the relevance-based measures; ``zero`` counts them as 0.
    seen:
        Recommended items from the user's training data: ``keep`` (default; they count as
        non-relevant unless also in the test) or ``drop`` (removed before the cutoff).
    ties:
        Order of equal scores: ``input-order`` (default: the list's own order),
        ``docno-desc`` (trec_eval's), ``docno-asc``.
    columns:
        Column names of DataFrames/headers: ``{"user": ..., "item": ..., "rating": ...,
        "score": ..., "rank": ...}``.
    duplicates:
        An item listed twice for a user in a recommendation list: ``max-score`` (default;
        its best score is kept, with a warning), ``first`` or ``error``.
    backend, scheduler:
        ``local`` (default), ``dask`` or ``spark``: the users split over a Dask or Spark
        cluster (every measure; the same numbers); ``scheduler`` as for `evaluate_many`
        (giving one implies ``dask``).  See docs/distributed.md.
    per_user, output:
        Per-user rows as well as the summaries; ``pandas`` (default), ``polars`` or ``dict``.

    Examples
    --------
    >>> import rankscope
    >>> test = {"u1": {"a": 5, "b": 2, "c": 4}}
    >>> recs = {"u1": ["a", "b", "d"]}
    >>> table = rankscope.evaluate_recsys(test, recs, ["P@3", "Recall@3"], per_user=False,
    ...                                   output="dict")
    >>> [round(v, 4) for v in table["value"]]
    [0.3333, 0.5]
    """
    results = evaluate_recsys_systems(test_log, recommendations, measures, **options)
    return to_frame(tidy(results, per_user), output)


