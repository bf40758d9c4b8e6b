"""The aggregation's front door: `aggregate` reads the request weights and the segments
(files, frames, dicts) and hands the table's cells to
`rankscope.table.aggregate.aggregate_cells`."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ..read.segments import read_segments, read_weights
from ..table.aggregate import (
    Aggregation,
    aggregate_cells,
    aggregation_options,
    table_cells,
    usage_segments,
)
from ..table.evaluation import MIN_GEO_MEAN

__all__ = ["aggregate"]


def aggregate(
    table: Any,
    weights: Any = None,
    segments: Any = None,
    how: str = "mean",
    *,
    usage: bool | Sequence[float] | None = None,
    unique: bool = False,
    confidence: float = 0.95,
    epsilon: float = MIN_GEO_MEAN,
    resamples: int = 1000,
    seed: int = 0,
    missing: str = "error",
) -> Aggregation:
    """Aggregate per-query (or per-user) values into one number per run and measure,
    overall and per segment, with intervals and the gap between segments.

    Parameters
    ----------
    table:
        The tidy per-query table: columns run, query (or user), measure, value, as
        `rankscope.evaluate(..., per_query=True)` and `rankscope.evaluate_recsys` return it
        (pandas, polars, a dict of columns); rows with id ``all`` (summaries) are skipped,
        and a measure with only those (catalog coverage, Gini) is left out with a warning.
        Also a `rankscope.preferences` result (`preference_table`: win rates), a
        comparison (`comparison_table`) or a list of `RunEvaluation`.
    weights:
        Request weights: ``{id: weight}``, a file of ``id weight`` lines, a request log
        (a file of one id per line, or a sequence of ids: an id's weight is its count) or
        a frame (`rankscope.read.segments.read_weights`).  The statistic becomes
        traffic-weighted: Σ w·v / Σ w (and the weighted geometric mean and median).
    segments:
        Group segments: ``{id: segment}``, ``{name: {id: segment}}``, a file of ``id
        segment`` lines or a frame (the id column first, then one column per segmentation).
    how:
        ``mean`` (default), ``gmean`` (exp of the mean of log max(v, ``epsilon``); values
        must not be negative) or ``median``.
    usage:
        Usage segments head / torso / tail from the weights: ``True`` for the default
        shares (0.5, 0.8), or two shares (see `usage_segments`).  Needs ``weights``.
    unique:
        Each distinct query counts once (the unique-request mean), the weights only
        defining usage segments.
    confidence:
        Confidence level of the intervals (0.95): Student's t for an unweighted mean, else a
        percentile bootstrap with ``resamples`` resamples of the queries, seeded by
        ``seed``.
    epsilon:
        The floor of the geometric mean (trec_eval's GMAP: 1e-5).
    missing:
        A query of the table missing from the weights or the segments: ``error``
        (default, an `InputError` naming a few) or ``warn`` (a warning, and segment
        ``unknown``; weight 0).

    Examples
    --------
    >>> import rankscope
    >>> table = {"run": ["a"] * 3, "query": ["q1", "q2", "q3"], "measure": ["AP"] * 3,
    ...          "value": [0.2, 0.4, 0.9]}
    >>> result = rankscope.aggregate(table, weights={"q1": 3, "q2": 1, "q3": 0})
    >>> result.rows[0].aggregate, round(result.rows[0].value, 4)
    ('weighted mean', 0.25)
    >>> result = rankscope.aggregate(table, segments={"q1": "nav", "q2": "nav", "q3": "info"})
    >>> [(r.segment, round(r.value, 2)) for r in result.rows]
    [('all', 0.5), ('info', 0.9), ('nav', 0.3)]
    >>> round(result.gaps[0].gap, 2)
    0.6
    """
    usage_shares = aggregation_options(
        how, missing, confidence, epsilon, resamples, usage, weights is not None
    )
    id_column, cells = table_cells(table)
    weight_of = None if weights is None else read_weights(weights)
    segmentations: list[tuple[str, dict[str, str]]] = []
    if usage_shares is not None and weight_of is not None:
        segmentations.append(("usage", usage_segments(weight_of, usage_shares)))
    if segments is not None:
        segmentations += list(read_segments(segments).items())
    return aggregate_cells(
        id_column, cells, weight_of, segmentations, how, unique=unique, level=confidence,
        epsilon=epsilon, resamples=resamples, seed=seed, missing=missing,
        weights_source=_path(weights), segments_source=_path(segments),
    )  # fmt: skip


def _path(source: Any) -> str | None:
    """The file a source was read from (None: given as a value), for messages."""
    return str(source) if isinstance(source, str | os.PathLike) else None
