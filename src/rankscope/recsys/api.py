"""``rankscope.recsys.evaluate``: recommendation lists (or rating predictions) against a test
log, with optional training log, item features, catalog and baseline."""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict, Unpack

import numpy as np

from ..errors import InputError, UsageError, warn
from ..measures.base import Request
from ..model import Interactions, ItemFeatures, Run, Vocabulary
from ..model.frames import is_frame, to_frame
from ..read.logs import keep_latest, read_interactions, read_item_features, read_recommendations
from ..read.sources import unique_run_names
from ..read.trec import run_files
from .base import Context, Values
from .registry import parse

DEFAULT_TOPN = ["P", "Recall", "F1", "HitRate", "MRR", "MAP", "nDCG", "UserCoverage"]
DEFAULT_CATALOG = ["CatalogCoverage", "Gini", "Entropy"]
DEFAULT_POPULARITY = ["Novelty", "Serendipity", "LongTail"]


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


@dataclass
class SystemEvaluation:
    """One system's values: per evaluated user (NaN: no value) and summaries."""

    name: str
    user_ids: list[str]
    requests: list[Request]
    values: list[Values]

    @property
    def labels(self) -> list[str]:
        return [r.label for r in self.requests]

    @property
    def summary(self) -> dict[str, float]:
        return {r.label: v.summary for r, v in zip(self.requests, self.values, strict=True)}

    @property
    def counts(self) -> dict[str, int]:
        """Users (ratings, for pooled rating measures) behind each summary."""
        return {r.label: v.count for r, v in zip(self.requests, self.values, strict=True)}

    def per_user(self, label: str) -> dict[str, float]:
        """``{user: value}`` for the users with a value."""
        for r, v in zip(self.requests, self.values, strict=True):
            if r.label == label:
                if v.per_user is None:
                    return {}
                return {
                    u: x for u, x in zip(self.user_ids, v.per_user.tolist(), strict=True) if x == x
                }
        raise KeyError(label)


def _systems(recommendations: Any) -> list[tuple[str | None, Any]]:
    """(name, source) per system: one source, a list of them, a directory or a
    ``{name: source}`` dict (told apart from a ``{user: {item: score}}`` dict by depth)."""
    if isinstance(recommendations, Run | str | os.PathLike) or is_frame(recommendations):
        if isinstance(recommendations, str | os.PathLike) and Path(recommendations).is_dir():
            return [(None, p) for p in run_files([recommendations])]
        return [(None, recommendations)]
    if isinstance(recommendations, Mapping):
        first = next(iter(recommendations.values()), None)
        if isinstance(first, Mapping) and first:  # a dict of dicts: one system or several
            inner = next(iter(first.values()))
            if isinstance(inner, Mapping | list | tuple):
                return [(str(k), v) for k, v in recommendations.items()]
        if isinstance(first, Run | str | os.PathLike) or is_frame(first):
            return [(str(k), v) for k, v in recommendations.items()]
        return [(None, recommendations)]
    if isinstance(recommendations, Sequence):
        out: list[tuple[str | None, Any]] = []
        for r in recommendations:
            out.extend(_systems(r))
        return out
    raise UsageError(f"cannot read recommendations from {type(recommendations).__name__}")


@dataclass(frozen=True)
class Inputs:
    """Everything an evaluation reads, users and items interned into shared vocabularies."""

    items: Vocabulary
    test: Interactions
    train: Interactions | None
    popularity: Interactions | None
    runs: list[Run]
    baseline: Run | None
    features: ItemFeatures | None
    catalog: np.ndarray | None


def read_inputs(
    test_log: Any, recommendations: Any, train: Any, popularity: Any, baseline: Any,
    features: Any, catalog: Any, columns: Mapping[str, str] | None, duplicates: str = "max-score",
) -> Inputs:  # fmt: skip
    """Every input of an evaluation read (see `evaluate` for each), users and items
    interned into shared vocabularies."""
    users, items = Vocabulary(), Vocabulary()

    def log(source: Any) -> Interactions:
        return read_interactions(source, users=users, items=items, columns=columns)

    def lists(source: Any, name: str | None) -> Run:
        return read_recommendations(
            source, users=users, items=items, name=name, columns=columns, duplicates=duplicates
        )

    test_log = keep_latest(log(test_log))
    train_log = None if train is None else keep_latest(log(train))
    pop_log = train_log if popularity is None else log(popularity)
    runs = unique_run_names([lists(src, name) for name, src in _systems(recommendations)])
    base_run = None if baseline is None else lists(baseline, "baseline")
    item_features = None
    if features is not None:
        item_features = read_item_features(features, items=items, columns=columns)
    catalog_codes = None
    if catalog is not None:
        ids = [str(i) for i in catalog]
        if not ids:
            raise InputError("catalog is empty")
        catalog_codes = items.intern_many(ids).astype(np.int64)
    return Inputs(
        items, test_log, train_log, pop_log, runs, base_run, item_features, catalog_codes
    )


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
        # The Dask backend (rankscope.scale) is a layer above this one (it imports it), so it
        # is reached by name, at run time only.
        scale = importlib.import_module("rankscope.scale")
        return scale.recsys_evaluate_systems(
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


def _seen_policy(run: Run, train_log: Interactions | None, seen: str, num_items: int) -> Run:
    """Find (and with ``seen="drop"`` remove) recommended items of the user's training data."""
    if train_log is None:
        return run
    seen_keys = np.unique(train_log.keys(num_items))
    keys = run.query.astype(np.int64) * num_items + run.doc
    pos = np.minimum(np.searchsorted(seen_keys, keys), max(len(seen_keys) - 1, 0))
    hit = seen_keys[pos] == keys if len(seen_keys) else np.zeros(len(keys), dtype=bool)
    found = int(hit.sum())
    if not found:
        return run
    if seen == "keep":
        text = (
            f"{run.name}: {found} recommended (user, item) pairs are in the training data; "
            "they count as non-relevant unless also in the test data"
        )
        warn(f"{text} (seen='drop' removes them)", cli=f"{text} (--seen drop removes them)")
        return run
    warn(f"{run.name}: {found} recommended (user, item) pairs of the training data removed")
    keep = ~hit
    return Run(
        run.name, run.queries, run.docs, run.query[keep], run.doc[keep], run.score[keep],
        run.source, None if run.line is None else run.line[keep], run.tag,
    )  # fmt: skip


def check_one_sided(ctx: Context) -> None:
    """`tell_one_sided` for the users of ``ctx``'s test log and recommendation lists."""
    test_users = np.zeros(len(ctx.qrels.queries), dtype=bool)
    test_users[ctx.test.user] = True
    rec_users = np.zeros(len(ctx.qrels.queries), dtype=bool)
    rec_users[ctx.run.query] = True
    examples = None
    if rec_users.any() and not (rec_users & test_users).any():
        vocabulary = ctx.qrels.queries
        examples = (
            vocabulary.strings[int(np.flatnonzero(rec_users)[0])],
            vocabulary.strings[int(np.flatnonzero(test_users)[0])],
        )
    tell_one_sided(
        ctx.run.name, ctx.run.source, ctx.test.source,
        only_recs=int((rec_users & ~test_users).sum()),
        only_test=int((test_users & ~rec_users).sum()),
        test_users=int(test_users.sum()), overlap=bool((rec_users & test_users).any()),
        examples=examples,
    )  # fmt: skip


def tell_one_sided(
    name: str,
    recs_source: str,
    test_source: str,
    *,
    only_recs: int,
    only_test: int,
    test_users: int,
    overlap: bool,
    examples: tuple[str, str] | None = None,
) -> None:
    """Users on one side only, from their counts: lists sharing no user with the test log
    are an `InputError` (``examples``: a user of each side, to show), others a warning."""
    if only_recs and not overlap:  # nothing to evaluate
        shown = (
            f" (the lists have {examples[0]!r}, the test log {examples[1]!r})" if examples else ""
        )
        raise InputError(
            f"{recs_source}: no user of the recommendation lists is in the test log "
            f"{test_source}: every measure would be 0; are the user ids spelled alike{shown}, "
            "and the files given in the order TEST RECS?"
        )
    if only_recs:
        warn(f"{name}: {only_recs} users with recommendations have no test data; ignored")
    if only_test:
        warn(
            f"{name}: {only_test} of {test_users} test users have no "
            "recommendations; they count with an empty list"
        )


def _looks_like_scores(test_log: Interactions) -> bool:
    """Whether a test log's ratings look like a recommender's scores (some not whole
    numbers), as when the recommendations were given as the test log."""
    ratings = test_log.rating
    if ratings is None or not len(ratings):
        return False
    return bool(np.any(ratings != np.round(ratings)))


def _report(ctx: Context, requests, threshold, test_log) -> None:
    relevance = [r for r in requests if r.measure.relevance]
    if relevance:
        tell_no_relevant(
            ctx.run.name, relevance, none=int((ctx.num_relevant == 0).sum()),
            users=ctx.num_users, no_relevant=ctx.no_relevant,
            rule=test_log.rating is not None and threshold is not None, threshold=threshold,
            looks_like_scores=_looks_like_scores(test_log),
        )  # fmt: skip
    for key, text in ctx.notes.items():
        if isinstance(key, tuple) and key[0] == "note":
            warn(f"{ctx.run.name}: {text}")


def tell_no_relevant(
    name: str,
    requests: Sequence[Any],
    *,
    none: int,
    users: int,
    no_relevant: str,
    rule: bool,
    threshold: float | None,
    looks_like_scores: bool,
) -> None:
    """The warning for ``none`` of ``users`` test users without a relevant test item, for
    the ``requests`` that count relevant items (``rule``: relevance is ``rating >=
    threshold``, else any interaction); all of them, and test ratings that look like
    scores (``looks_like_scores``), suggest the arguments were swapped."""
    if not none:
        return
    relevance = [r.label for r in requests]
    rule_text = f"rating >= {threshold:g}" if rule and threshold is not None else "any interaction"
    what, option = (
        ("left out of the means", "")
        if no_relevant == "exclude"
        else ("counted as 0", "no_relevant='zero'")
    )
    shown = ", ".join(relevance[:4]) + (", ..." if len(relevance) > 4 else "")
    text = (
        f"{name}: {none} of {users} test users have no relevant test item "
        f"({rule_text}); {what}{{}} of {shown}"
    )
    swapped = ""
    if none == users and looks_like_scores:
        swapped = (
            "; the test ratings look like recommendation scores: are the arguments "
            "swapped? The test log comes first, then the recommendations"
        )
    warn(
        text.format(f" ({option})" if option else "") + swapped,
        cli=text.format(" (--no-relevant zero)" if option else "") + swapped,
    )


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


def tidy(results: list[SystemEvaluation], per_user: bool = True) -> dict[str, list]:
    cols: dict[str, list] = {"run": [], "user": [], "measure": [], "value": []}
    for res in results:
        if per_user:
            for r, v in zip(res.requests, res.values, strict=True):
                if v.per_user is None:
                    continue
                for user, x in zip(res.user_ids, v.per_user.tolist(), strict=True):
                    if x == x:  # NaN: no value for this user
                        cols["run"].append(res.name)
                        cols["user"].append(user)
                        cols["measure"].append(r.label)
                        cols["value"].append(x)
        for r, v in zip(res.requests, res.values, strict=True):
            cols["run"].append(res.name)
            cols["user"].append("all")
            cols["measure"].append(r.label)
            cols["value"].append(v.summary)
    return cols
