"""The evaluation of recommendation lists (or rating predictions) read into model objects:
`evaluate_inputs` computes each system's measures over `Inputs` (`read_inputs`), the kernel
under the front door `rankscope.evaluate_recsys` (`rankscope.api.recsys`) and the folds;
`check_options`, the options' checks they share with the Dask path."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import UsageError, warn
from ..measures import Request
from ..model import Interactions, Qrels, Run
from .base import Context, Values
from .registry import parse
from .systems import (
    DEFAULT_CATALOG,
    DEFAULT_POPULARITY,
    DEFAULT_TOPN,
    Inputs,
    SystemEvaluation,
    _looks_like_scores,
    _seen_policy,
    check_one_sided,
    tell_no_relevant,
    tell_notes,
)


def check_options(no_relevant: str, seen: str, relevance: str, k: int) -> None:
    """The options of the recommender evaluation, checked before anything is read."""
    if no_relevant not in ("exclude", "zero"):
        raise UsageError(f"no_relevant must be 'exclude' or 'zero', not {no_relevant!r}")
    if seen not in ("keep", "drop"):
        raise UsageError(f"seen must be 'keep' or 'drop', not {seen!r}")
    if relevance not in ("binary", "graded"):
        raise UsageError(f"relevance must be 'binary' or 'graded', not {relevance!r}")
    if k < 1:
        raise UsageError(f"k must be >= 1 (got {k})", cli=f"-k must be >= 1 (got {k})")


def evaluate_inputs(
    read: Inputs, measures: str | Sequence[str] | None, *, k: int, threshold: float | None,
    relevance: str, no_relevant: str, seen: str, ties: str,
) -> list[SystemEvaluation]:
    """Each system of ``read`` evaluated; one `SystemEvaluation` per system, in order (the
    options as `rankscope.evaluate_recsys` takes them, checked by `check_options`)."""
    qrels, requests = prepare(read, measures, k=k, threshold=threshold, relevance=relevance,
                              seen=seen)  # fmt: skip
    popularity = read.item_popularity()
    results = []
    for run in read.runs:
        check_unseen(run, read.train, requests)
        run = _seen_policy(run, read.train, seen, len(read.items))
        ctx = Context(
            qrels=qrels, test=read.test, run=run, k=k, ties=ties, no_relevant=no_relevant,
            train=read.train, item_popularity=popularity, baseline=read.baseline,
            features=read.features, catalog=read.catalog,
        )  # fmt: skip
        check_one_sided(ctx)
        values: list[Values] = [r.measure.kernel(ctx, **r.kwargs) for r in requests]
        _report(ctx, requests, threshold, read.test)
        results.append(SystemEvaluation(run.name, ctx.user_ids, requests, values))
    return results


def prepare(
    read: Inputs, measures: str | Sequence[str] | None, *, k: int, threshold: float | None,
    relevance: str, seen: str,
) -> tuple[Qrels, list[Request]]:
    """The test log's judgments and the measures asked (`requests_for`), before any system
    is evaluated, on one machine or on a cluster."""
    requests = requests_for(
        measures, k, ratings=read.test.rating is not None, train=read.train is not None,
        popularity=read.popularity is not None, baseline=read.baseline is not None,
        features=read.features is not None, seen=seen, relevance=relevance, threshold=threshold,
    )  # fmt: skip
    return read.test.to_qrels(threshold, relevance), requests


def requests_for(
    measures: str | Sequence[str] | None, k: int, *, ratings: bool, train: bool,
    popularity: bool, baseline: bool, features: bool, seen: str, relevance: str,
    threshold: float | None,
) -> list[Request]:
    """The measures asked (default: those the inputs allow), checked against the inputs
    given (whether the test log has ratings; whether training interactions, a popularity
    log, a baseline and item features were given)."""
    if relevance == "graded" and (not ratings or threshold is None):
        # (the command line says it as the API does: a test checks this wording)
        raise UsageError("relevance='graded' needs ratings in the test data and a threshold")
    requests = parse(measures if measures is not None else _defaults(popularity, baseline,
                                                                     features), k)  # fmt: skip
    for r in requests:
        needs = r.measure.needs  # type: ignore[attr-defined]
        if "ratings" in needs and not ratings:
            raise UsageError(f"{r.label} needs ratings in the test data")
        if "popularity" in needs and not popularity:
            said = f"{r.label} needs item popularity: give the training interactions ({{}})"
            raise UsageError(
                said.format("train=..., or popularity=..."), cli=said.format("--train FILE")
            )
        if "baseline" in needs and not popularity and not baseline:
            said = f"{r.label} needs a baseline: the training interactions ({{}}) for the {{}}"
            raise UsageError(
                said.format("train=...", "most-popular list, or baseline=..."),
                cli=said.format("--train FILE", "most-popular list"),
            )
        if "features" in needs and not features:
            said = f"{r.label} needs item features ({{}})"
            raise UsageError(said.format("features=..."), cli=said.format("--features u.item"))
    if seen == "drop" and not train:
        raise UsageError(
            "seen='drop' needs the training interactions (train=...)",
            cli="--seen drop needs the training interactions (--train FILE)",
        )
    return requests


def _defaults(popularity: bool, baseline: bool, features: bool) -> list[str]:
    names = DEFAULT_TOPN + DEFAULT_CATALOG
    if popularity:
        names += DEFAULT_POPULARITY
    elif baseline:
        names.append("Serendipity")
    if features:
        names.append("ILD")
    return names


def check_unseen(run: Run, train: Interactions | None, requests: Sequence[Any]) -> None:
    """Warn when most of the items ``run`` recommends never occur in ``train`` while every
    measure asked is of accuracy: a recommender recommends what it was trained on, so this
    looks like ids mapped one way in training and another in the lists, where the accuracy
    alone would only look poor."""
    if train is None or not requests or not all(r.measure.relevance for r in requests):
        return
    recommended = np.unique(run.doc)
    unseen = recommended[~np.isin(recommended, train.item)]
    if 2 * len(unseen) > len(recommended):
        example = run.docs.strings[int(unseen[0])]
        said = (
            f"{run.name}: {len(unseen)} of the {len(recommended)} items recommended "
            f"(such as '{example}') never occur in the training interactions ({{}}): are "
            "the item ids of the lists and of the training data the same?"
        )
        warn(said.format(train.source), cli=said.format(f"--train {train.source}"))


def _report(ctx: Context, requests, threshold, test_log) -> None:
    relevance = [r for r in requests if r.measure.relevance]
    if relevance:
        tell_no_relevant(
            ctx.run.name, relevance, none=int((ctx.num_relevant == 0).sum()),
            users=ctx.num_users, no_relevant=ctx.no_relevant,
            rule=test_log.rating is not None and threshold is not None, threshold=threshold,
            looks_like_scores=_looks_like_scores(test_log),
        )  # fmt: skip
    tell_notes(ctx.run.name, ctx.told_notes.values())
