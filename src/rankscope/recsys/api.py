"""``rankscope.recsys.evaluate``: recommendation lists (or rating predictions) against a test
log, with optional training log, item features, catalog and baseline; the local path, or the
Dask one (`rankscope.recsys.distributed`) with ``backend="dask"``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict, Unpack

from ..errors import UsageError
from ..model.frames import to_frame
from .base import Context, Values
from .distributed import recsys_evaluate_systems
from .registry import parse
from .systems import (
    DEFAULT_CATALOG,
    DEFAULT_POPULARITY,
    DEFAULT_TOPN,
    SystemEvaluation,
    _looks_like_scores,
    _seen_policy,
    check_one_sided,
    read_inputs,
    tell_no_relevant,
    tell_notes,
    tidy,
)


class RecsysOptions(TypedDict, total=False):
    """The options shared by `evaluate` and `evaluate_systems` (see `evaluate`)."""

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


def evaluate_systems(
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

    See `evaluate` for the parameters.
    """
    if backend != "local" or scheduler is not None:
        return recsys_evaluate_systems(
            test_log, recommendations, measures, backend="dask" if backend == "local" else backend,
            scheduler=scheduler, k=k, threshold=threshold, train=train, features=features,
            popularity=popularity, baseline=baseline, catalog=catalog, relevance=relevance,
            no_relevant=no_relevant, seen=seen, ties=ties, columns=columns, duplicates=duplicates,
        )  # fmt: skip
    if no_relevant not in ("exclude", "zero"):
        raise UsageError(f"no_relevant must be 'exclude' or 'zero', not {no_relevant!r}")
    if seen not in ("keep", "drop"):
        raise UsageError(f"seen must be 'keep' or 'drop', not {seen!r}")
    if relevance not in ("binary", "graded"):
        raise UsageError(f"relevance must be 'binary' or 'graded', not {relevance!r}")
    if k < 1:
        raise UsageError(f"k must be >= 1 (got {k})", cli=f"-k must be >= 1 (got {k})")
    read = read_inputs(
        test_log, recommendations, train, popularity, baseline, features, catalog, columns,
        duplicates,
    )  # fmt: skip
    if relevance == "graded" and (read.test.rating is None or threshold is None):
        # (the command line says it as the API does: a test checks this wording)
        raise UsageError("relevance='graded' needs ratings in the test data and a threshold")
    qrels = read.test.to_qrels(threshold, relevance)
    requests = parse(
        measures if measures is not None else _defaults(read.popularity, read.baseline,
                                                        read.features), k
    )  # fmt: skip
    _check_inputs(requests, read.test, read.popularity, read.baseline, read.features)
    if seen == "drop" and read.train is None:
        raise UsageError(
            "seen='drop' needs the training interactions (train=...)",
            cli="--seen drop needs the training interactions (--train FILE)",
        )
    results = []
    for run in read.runs:
        run = _seen_policy(run, read.train, seen, len(read.items))
        ctx = Context(
            qrels=qrels, test=read.test, run=run, k=k, ties=ties, no_relevant=no_relevant,
            train=read.train, popularity_log=read.popularity, baseline=read.baseline,
            features=read.features, catalog=read.catalog,
        )  # fmt: skip
        check_one_sided(ctx)
        values: list[Values] = [r.measure.kernel(ctx, **r.kwargs) for r in requests]
        _report(ctx, requests, threshold, read.test)
        results.append(SystemEvaluation(run.name, ctx.user_ids, requests, values))
    return results


def _defaults(pop_log, base_run, item_features) -> list[str]:
    names = DEFAULT_TOPN + DEFAULT_CATALOG
    if pop_log is not None:
        names += DEFAULT_POPULARITY
    elif base_run is not None:
        names.append("Serendipity")
    if item_features is not None:
        names.append("ILD")
    return names


def _check_inputs(requests, test_log, pop_log, base_run, item_features) -> None:
    for r in requests:
        needs = r.measure.needs
        if "ratings" in needs and test_log.rating is None:
            raise UsageError(f"{r.label} needs ratings in the test data")
        if "popularity" in needs and pop_log is None:
            raise UsageError(
                f"{r.label} needs item popularity: give the training interactions "
                "(train=..., --train) or popularity=..."
            )
        if "baseline" in needs and pop_log is None and base_run is None:
            raise UsageError(
                f"{r.label} needs a baseline: the training interactions (train=..., --train) "
                "for the most-popular list, or baseline=..."
            )
        if "features" in needs and item_features is None:
            raise UsageError(f"{r.label} needs item features (features=..., --features u.item)")


def _report(ctx: Context, requests, threshold, test_log) -> None:
    relevance = [r for r in requests if r.measure.relevance]
    if relevance:
        tell_no_relevant(
            ctx.run.name, relevance, none=int((ctx.num_relevant == 0).sum()),
            users=ctx.num_users, no_relevant=ctx.no_relevant,
            rule=test_log.rating is not None and threshold is not None, threshold=threshold,
            looks_like_scores=_looks_like_scores(test_log),
        )  # fmt: skip
    tell_notes(ctx)


def evaluate(
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

    Parameters (the keyword options are those of `evaluate_systems`, defaults below)
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
        ``local`` (default) or ``dask``: the users split over a Dask cluster (the top-N
        measures and UserCoverage; the same numbers); ``scheduler`` an address, a cluster
        or a client (default: the current client).  See docs/dask.md.
    per_user, output:
        Per-user rows as well as the summaries; ``pandas`` (default), ``polars`` or ``dict``.

    Examples
    --------
    >>> from rankscope import recsys
    >>> test = {"u1": {"a": 5, "b": 2, "c": 4}}
    >>> recs = {"u1": ["a", "b", "d"]}
    >>> table = recsys.evaluate(test, recs, ["P@3", "Recall@3"], per_user=False, output="dict")
    >>> [round(v, 4) for v in table["value"]]
    [0.3333, 0.5]
    """
    results = evaluate_systems(test_log, recommendations, measures, **options)
    return to_frame(tidy(results, per_user), output)


