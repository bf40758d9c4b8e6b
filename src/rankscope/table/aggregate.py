"""Per-query values to one number per system, overall and per segment: traffic-weighted,
unique query/context, usage-segmented and group-segmented aggregation (Diaz, "Offline
Metrics").

`rankscope.aggregate` (the front door, in `rankscope.api.aggregation`, which reads the
weights and segments) takes the tidy per-query table (run, query — or user —, measure, value) and
gives, per (run, measure, segment), the aggregate with its size and confidence interval,
and per (run, measure, segmentation) the gap between the highest and the lowest segment (a
fairness view).  docs/aggregation.md states every definition and policy; in short:

* ``how``: ``mean``, ``gmean`` (geometric mean, values floored at ``epsilon``, 1e-5 as
  trec_eval's GMAP) or ``median``;
* ``weights`` (request counts or a request log): the statistic is traffic-weighted, each
  query counting by its weight; ``unique=True`` counts each distinct query once (the
  weights then only define usage segments);
* ``usage``: head / torso / tail by request frequency: the queries, most frequent first
  (equally frequent ones together), starting before the first ``usage[0]`` (50%) of the
  traffic are the head, before ``usage[1]`` (80%) the torso, the rest the tail;
* ``segments``: any attribute of the queries or users (age band, gender, query category);
* intervals at ``level`` (0.95): Student's t for an unweighted mean, else a seeded
  percentile bootstrap over the segment's queries (``resamples``, ``seed``);
* ``missing``: a query of the table without a weight or a segment is an error
  (``"error"``, the default) or, with ``"warn"``, reported once and put in segment
  ``unknown`` (with weight 0).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np

from ..errors import InputError, UsageError, warn
from ..model.frames import NamedTables, column_names, is_frame, to_frame
from ..preference import PreferenceResult
from ..read.frames import frame_columns
from ..stats.intervals import mean_interval, percentile_interval
from .compare import Comparison
from .evaluation import RunEvaluation, evaluation_table

#: The statistics of `aggregate` (``how``).
HOWS = ("mean", "gmean", "median")
#: The default usage thresholds: the head starts within the first 50% of the traffic, the
#: torso within the first 80%, the tail after.
USAGE = (0.5, 0.8)
USAGE_SEGMENTS = ("head", "torso", "tail")
#: The segment of queries missing from the weights or segments (``missing="warn"``).
UNKNOWN = "unknown"
#: The segmentation and segment of the overall row.
ALL = "all"
#: Missing-query policies.
MISSING = ("error", "warn")
#: The summary rows of rankscope's tables (``user``/``query`` ``all``): skipped.
SUMMARY_ID = "all"
#: How many missing ids an error or warning names.
SHOWN = 5
#: Bootstrap draws held in memory at once (resamples × queries).
_BATCH = 4_000_000


@dataclass(frozen=True)
class SegmentValue:
    """One run on one measure in one segment (segmentation ``all``, segment ``all``: every
    query): the aggregate, its interval and the segment's size."""

    run: str
    measure: str
    segmentation: str
    segment: str
    aggregate: str  # mean, gmean, median, prefixed "weighted " when traffic-weighted
    value: float
    ci_low: float
    ci_high: float
    interval: str  # "t", "bootstrap", or "none" (no value)
    queries: int
    weight_share: float | None  # the segment's share of the weight (None: no weights)


@dataclass(frozen=True)
class Gap:
    """The highest and lowest segment of one segmentation for one run and measure.  For a
    measure where lower is better (MAE, RMSE) the highest is the worst."""

    run: str
    measure: str
    segmentation: str
    highest: str
    highest_value: float
    lowest: str
    lowest_value: float
    gap: float  # highest_value - lowest_value
    ratio: float  # lowest_value / highest_value (NaN unless highest > 0 and lowest >= 0)


@dataclass(frozen=True)
class Aggregation(NamedTables):
    """The result of `aggregate`: ``rows`` (a `SegmentValue` per run, measure and segment,
    the overall one first) and ``gaps`` (a `Gap` per run, measure and segmentation of at
    least two segments with a value, ``unknown`` left out)."""

    how: str
    weighted: bool
    level: float
    rows: list[SegmentValue]
    gaps: list[Gap]

    #: The two tables of an aggregation, for ``table=``, and their columns: the values, and
    #: the gaps.
    TABLES = {
        "aggregates": tuple(f.name for f in fields(SegmentValue)),
        "gaps": tuple(f.name for f in fields(Gap)),
    }

    def records(self, table: str = "aggregates") -> list[dict[str, Any]]:
        """The rows of ``table`` as dicts at full precision: ``aggregates`` (a `SegmentValue`
        each) or ``gaps`` (a `Gap` each)."""
        return [asdict(row) for row in self._table(table)]

    def to_dict(self) -> dict[str, Any]:
        """The settings and both tables (full precision, JSON-ready)."""
        return {
            "how": self.how, "weighted": self.weighted, "level": self.level,
            **{table: self.records(table) for table in self.TABLES},
        }  # fmt: skip

    def _table(self, table: str) -> list[Any]:
        return self.rows if self.check_table(table) == "aggregates" else self.gaps


# -- tidy tables from rankscope's results ------------------------------------------------------


def preference_table(
    result: PreferenceResult, baseline: str | None = None, output: str = "dict"
) -> Any:
    """Per-query preferences (`rankscope.preferences`) as a tidy table (run, query,
    measure, value): each run's win rate on each query, the sum of its preferences over
    the other runs (eq. 7 of Diaz & Ferraro 2022, the value ``rankscope eval -m RPP``
    gives), measure named after the method; or, given ``baseline`` (a run name), each other
    run's preference over it, in [-1, 1], measure ``"{method} vs {baseline}"``."""
    names = list(result.run_names)
    prefs = np.asarray(result.prefs, dtype=float)
    if baseline is None:
        values = prefs.sum(axis=2)  # queries × runs
        runs, label = list(range(len(names))), result.method
    else:
        if baseline not in names:
            raise UsageError(f"baseline {baseline!r} is not one of the runs ({', '.join(names)})")
        base = names.index(baseline)
        values = prefs[:, :, base]
        runs, label = [r for r in range(len(names)) if r != base], f"{result.method} vs {baseline}"
    cols: dict[str, list] = {"run": [], "query": [], "measure": [], "value": []}
    for r in runs:
        for q, qid in enumerate(result.query_ids):
            cols["run"].append(names[r])
            cols["query"].append(qid)
            cols["measure"].append(label)
            cols["value"].append(float(values[q, r]))
    return to_frame(cols, output)


def comparison_table(comparison: Comparison, output: str = "dict") -> Any:
    """The per-query values a comparison (`rankscope.compare`) tested, as a tidy table
    (run, query, measure, value): a metric's values (a run missing a query scoring 0 on
    it); a preference method's preference of each run over the baseline, or each run's
    win rate when every pair was compared (the baseline itself has no preference row)."""
    cols: dict[str, list] = {"run": [], "query": [], "measure": [], "value": []}
    for label in comparison.measures:
        if label in comparison.values:
            matrix = np.asarray(comparison.values[label], dtype=float)
        else:  # all pairs: the win rates
            matrix = np.asarray(comparison.preferences[label], dtype=float).sum(axis=2).T
        kind = comparison.kinds[comparison.measures.index(label)]
        for r, run in enumerate(comparison.run_names):
            if kind == "preference" and run == comparison.baseline:
                continue  # its preference over itself: no value
            for q, qid in enumerate(comparison.query_ids):
                cols["run"].append(run)
                cols["query"].append(qid)
                cols["measure"].append(label)
                cols["value"].append(float(matrix[r, q]))
    return to_frame(cols, output)


# -- reading the table -----------------------------------------------------------------------


@dataclass
class Cell:
    """One (run, measure): its queries (in table order) and values."""

    run: str
    measure: str
    queries: list[str]
    values: list[float]


def _columns(table: Any) -> tuple[str, dict[str, list]]:
    """(the id column's name, the table's run/id/measure/value columns as lists)."""
    if isinstance(table, PreferenceResult):
        table = preference_table(table)
    elif isinstance(table, Comparison):
        table = comparison_table(table)
    elif isinstance(table, Sequence) and table and all(isinstance(r, RunEvaluation) for r in table):
        table = evaluation_table(table)
    if is_frame(table):
        available = column_names(table)
    elif isinstance(table, Mapping):
        available = [str(c) for c in table]
    else:
        raise UsageError(
            f"cannot aggregate a {type(table).__name__}: give the tidy per-query table "
            "(run, query, measure, value) as a DataFrame or a dict of columns, a "
            "PreferenceResult, a comparison or a list of RunEvaluation"
        )
    id_column = "query" if "query" in available else "user"
    wanted = ["run", id_column, "measure", "value"]
    missing = [c for c in wanted if c not in available]
    if missing:
        raise InputError(
            f"<table>: missing column(s) {', '.join(map(repr, missing))}; an aggregated "
            f"table has columns run, query (or user), measure, value; it has "
            f"{', '.join(map(repr, available))}"
        )
    if is_frame(table):
        arrays = frame_columns(table, wanted, "<table>")
        return id_column, {c: a.tolist() for c, a in zip(wanted, arrays, strict=True)}
    return id_column, {c: list(table[c]) for c in wanted}


def _number(value: object) -> float | None:
    """A value as a float; None for one that is not a number (text measures)."""
    if isinstance(value, bool | str | bytes) or value is None:
        return None
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def table_cells(table: Any) -> tuple[str, list[Cell]]:
    """The table's (run, measure) cells in order of first appearance; summary rows (id
    ``all``), values that are no number and NaN values left out, each with a warning."""
    id_column, cols = _columns(table)
    lengths = {len(v) for v in cols.values()}
    if len(lengths) > 1:
        raise InputError("<table>: its columns have different lengths")
    cells: dict[tuple[str, str], Cell] = {}
    seen: set[tuple[str, str, str]] = set()
    text_measures: dict[str, None] = {}
    summary_only: dict[tuple[str, str], None] = {}
    no_value = 0
    for row, (run, query, measure, value) in enumerate(
        zip(cols["run"], cols[id_column], cols["measure"], cols["value"], strict=True)
    ):
        run, query, measure = str(run), str(query), str(measure)
        if query == SUMMARY_ID:
            summary_only.setdefault((run, measure))
            continue
        number = _number(value)
        if number is None:
            text_measures.setdefault(measure)
            continue
        key = (run, measure, query)
        if key in seen:
            raise InputError(
                f"<table>: row {row}: {id_column} '{query}' of run '{run}' has a value of "
                f"{measure} already; a per-query table has one row per (run, {id_column}, "
                "measure)"
            )
        seen.add(key)
        if math.isnan(number):
            no_value += 1
            continue
        if not math.isfinite(number):
            raise InputError(f"<table>: row {row}: value {number} of {measure} is not finite")
        cell = cells.get((run, measure))
        if cell is None:
            cell = cells[(run, measure)] = Cell(run, measure, [], [])
        cell.queries.append(query)
        cell.values.append(number)
    if text_measures:
        listed = ", ".join(text_measures)
        warn(f"measures whose values are not numbers are not aggregated: {listed}")
    catalog = [f"{m} ({r})" for r, m in summary_only if (r, m) not in cells]
    if catalog:
        warn(
            "measures without per-" + id_column + " values (only a summary) are not "
            f"aggregated: {', '.join(catalog[:SHOWN])}" + (" ..." if len(catalog) > SHOWN else "")
        )
    if no_value:
        warn(f"{no_value} NaN value(s) of the table (no value) are left out")
    if not cells:
        raise InputError(f"<table>: no per-{id_column} value to aggregate")
    return id_column, list(cells.values())


# -- statistics ------------------------------------------------------------------------------


def _weighted_median(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Weighted median of each row: the mean of the lower (first value whose cumulative
    weight reaches half the total) and upper (first exceeding half) medians; with equal
    weights the ordinary median.  NaN for a row of total weight 0."""
    order = np.argsort(values, axis=1, kind="stable")
    ordered = np.take_along_axis(values, order, axis=1)
    cumulative = np.cumsum(np.take_along_axis(weights, order, axis=1), axis=1)
    half = cumulative[:, -1:] / 2
    tolerance = 1e-12 * half
    lower = np.argmax(cumulative >= half - tolerance, axis=1)
    upper = np.argmax(cumulative > half + tolerance, axis=1)
    rows = np.arange(len(values))
    out = (ordered[rows, lower] + ordered[rows, upper]) / 2
    return np.where(cumulative[:, -1] > 0, out, math.nan)


def _statistic(how: str, values: np.ndarray, weights: np.ndarray, epsilon: float) -> np.ndarray:
    """``how`` of each row of ``values`` (2-D) with ``weights``; NaN where they sum to 0."""
    total = weights.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        if how == "mean":
            return (weights * values).sum(axis=1) / total
        if how == "gmean":
            return np.exp((weights * np.log(np.maximum(values, epsilon))).sum(axis=1) / total)
    return _weighted_median(values, weights)


def _bootstrap_interval(
    how: str, values: np.ndarray, weights: np.ndarray, epsilon: float, level: float,
    resamples: int, seed: int,
) -> tuple[float, float]:  # fmt: skip
    """The percentile interval of ``how`` over ``resamples`` resamples of the queries (with
    replacement, each with its weight), drawn from ``numpy.random.default_rng(seed)``: the
    same seed, values and weights give the same interval, whatever else is aggregated."""
    n = len(values)
    if n < 2:
        return math.nan, math.nan
    rng = np.random.default_rng(seed)
    batch = max(1, _BATCH // n)
    found = []
    for start in range(0, resamples, batch):
        index = rng.integers(0, n, size=(min(batch, resamples - start), n))
        found.append(_statistic(how, values[index], weights[index], epsilon))
    stats = np.concatenate(found)
    stats = stats[~np.isnan(stats)]
    if not len(stats):
        return math.nan, math.nan
    return percentile_interval(stats, level)


# -- segments ---------------------------------------------------------------------------------


def usage_segments(weights: Mapping[str, float], usage: Sequence[float] = USAGE) -> dict[str, str]:
    """``{id: "head" | "torso" | "tail"}`` by request frequency: ids sorted by weight,
    highest first, ids of equal weight kept together; an id (with those of equal weight) is
    in the head when the traffic of the more frequent ids is below ``usage[0]`` of the
    total, in the torso when below ``usage[1]``, else in the tail.  So the head is the most
    frequent ids making the first 50% of the traffic (by default), the one that crosses the
    line included, and is never empty."""
    head, torso = _check_usage(usage)
    weights = _scaled(weights)
    total = float(sum(weights.values()))
    by_weight: dict[float, list[str]] = {}
    for query, weight in weights.items():
        by_weight.setdefault(weight, []).append(query)
    out: dict[str, str] = {}
    before = 0.0
    for weight in sorted(by_weight, reverse=True):
        share = before / total
        label = "head" if share < head else "torso" if share < torso else "tail"
        for query in by_weight[weight]:
            out[query] = label
        before += weight * len(by_weight[weight])
    return out


def _scaled(weights: Mapping[str, float]) -> dict[str, float]:
    """``weights`` divided by the largest: the same shares and order (every statistic and
    segment reads only weights relative to each other), but sums of up to n and products
    with values <= the values themselves, so weights near 1e308 stay finite instead of
    overflowing to inf and nan.  (A weight below 1e-308 of the largest becomes 0: it could
    not move a statistic anyway.)"""
    top = max(weights.values(), default=0.0)
    if not top > 0:
        return dict(weights)
    return {key: weight / top for key, weight in weights.items()}


def _check_usage(usage: Sequence[float]) -> tuple[float, float]:
    try:
        head, torso = (float(x) for x in usage)
    except (TypeError, ValueError):
        raise UsageError(
            f"usage must be two traffic shares (head, torso), e.g. (0.5, 0.8); got {usage!r}"
        ) from None
    if not 0 < head < torso < 1:
        raise UsageError(
            f"usage shares must satisfy 0 < head < torso < 1; got ({head}, {torso})",
            cli=f"--usage shares must satisfy 0 < head < torso < 1; got {head},{torso}",
        )
    return head, torso


def _first_ids(ids: list[str]) -> str:
    """The first `SHOWN` ids, quoted, and ``...`` when there are more."""
    return ", ".join(f"'{q}'" for q in ids[:SHOWN]) + (" ..." if len(ids) > SHOWN else "")


def _tell_missing(what: str, source: str, missing: list[str], id_column: str, policy: str) -> None:
    if not missing:
        return
    shown = _first_ids(missing)
    text = f"{len(missing)} {id_column}(s) of the table have no {what} in {source}: {shown}"
    if policy == "error":
        raise InputError(
            text + f"; give every {id_column} one, or missing='warn' (segment 'unknown')",
            cli=text + f"; give every {id_column} one, or --missing warn (segment 'unknown')",
        )
    warn(text + f": they form segment '{UNKNOWN}'" + (", weight 0" if what == "weight" else ""))


def _tell_unused(what: str, source: str, unused: list[str], id_column: str) -> None:
    """A warning for the ids given a weight or a segment that the table does not hold: they
    change nothing, and ids that match no row at all usually mean an id-mapping mistake."""
    if not unused:
        return
    shown = _first_ids(unused)
    warn(f"{len(unused)} {id_column}(s) given a {what} in {source} are not in the table: "
         f"{shown}; their {what}s are not used (do the ids match the table's?)")  # fmt: skip


# -- aggregate --------------------------------------------------------------------------------


def aggregation_options(
    how: str,
    missing: str,
    level: float,
    epsilon: float,
    resamples: int,
    usage: bool | Sequence[float] | None,
    weighted: bool,
) -> tuple[float, float] | None:
    """Check the options of an aggregation (a `UsageError` naming the one that is wrong);
    the usage shares asked for (None: no usage segments).  ``weighted``: weights are given
    (usage segments need them)."""
    if how not in HOWS:
        raise UsageError(f"unknown aggregate {how!r}: choose {', '.join(HOWS)}")
    if missing not in MISSING:
        raise UsageError(f"missing must be one of {', '.join(MISSING)}, not {missing!r}")
    if not 0 < level < 1:
        raise UsageError(f"confidence level must lie strictly between 0 and 1, got {level}")
    if not 0 < epsilon < 1 or not math.isfinite(epsilon):
        raise UsageError(f"epsilon must lie strictly between 0 and 1, got {epsilon}")
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise UsageError(f"resamples must be a whole number >= 1, got {resamples!r}")
    usage_shares: tuple[float, float] | None = None
    if usage is True:
        usage_shares = USAGE
    elif usage is not None and usage is not False:
        usage_shares = _check_usage(usage)
    if usage_shares is not None and not weighted:
        raise UsageError(
            "usage segments (head, torso, tail) need the request weights (weights=...)",
            cli="--usage needs the request weights (--weights FILE)",
        )
    return usage_shares


def aggregate_cells(
    id_column: str,
    cells: Sequence[Cell],
    weight_of: Mapping[str, float] | None,
    segmentations: Sequence[tuple[str, Mapping[str, str]]],
    how: str,
    *,
    unique: bool,
    level: float,
    epsilon: float,
    resamples: int,
    seed: int,
    missing: str,
    weights_source: str | None,
    segments_source: str | None,
) -> Aggregation:
    """The aggregation of the (run, measure) ``cells`` of a table (`table_cells`) by the
    weights and segmentations read: the kernel of `rankscope.aggregate` (in
    `rankscope.api.aggregation`, which reads them, and documents the options and their
    defaults).  The sources name the files read in messages (None: given as values)."""
    names = [name for name, _ in segmentations]
    if len(set(names)) < len(names):
        raise UsageError(f"two segmentations have one name: {', '.join(names)}")
    queries = list(dict.fromkeys(q for cell in cells for q in cell.queries))
    known = set(queries)
    if weight_of is not None:
        weight_of = _scaled(weight_of)
        _tell_missing("weight", weights_source or "the weights",
                      [q for q in queries if q not in weight_of], id_column, missing)  # fmt: skip
        _tell_unused("weight", weights_source or "the weights",
                     [q for q in weight_of if q not in known], id_column)  # fmt: skip
    for name, mapping in segmentations:
        source = "the usage segments" if name == "usage" else segments_source or name
        _tell_missing("segment", source, [q for q in queries if q not in mapping],
                      id_column, missing)  # fmt: skip
        _tell_unused("segment", source, [q for q in mapping if q not in known], id_column)
    weighted = weight_of is not None and not unique
    if how == "gmean":
        negative = [f"{c.measure} ({c.run})" for c in cells if min(c.values) < 0]
        if negative:
            raise UsageError(
                f"the geometric mean needs values >= 0; negative values in {negative[0]}"
            )
    settings = _Settings(how, weighted, level, epsilon, resamples, seed)
    rows: list[SegmentValue] = []
    gaps: list[Gap] = []
    for cell in cells:
        if weight_of is None:
            traffic = None
        else:
            traffic = np.asarray([weight_of.get(q, 0.0) for q in cell.queries], dtype=float)
        rows.append(_segment_value(cell, traffic, ALL, ALL, None, settings))
        for name, mapping in segmentations:
            of_query = np.asarray([mapping.get(q, UNKNOWN) for q in cell.queries], dtype=object)
            segment_rows = [
                _segment_value(cell, traffic, name, segment, of_query == segment, settings)
                for segment in _segment_order(name, set(of_query.tolist()))
            ]
            rows += segment_rows
            gap = _gap(segment_rows)
            if gap is not None:
                gaps.append(gap)
    return Aggregation(how, weighted, level, rows, gaps)


@dataclass(frozen=True)
class _Settings:
    how: str
    weighted: bool
    level: float
    epsilon: float
    resamples: int
    seed: int


def _segment_value(
    cell: Cell, traffic: np.ndarray | None, segmentation: str, segment: str,
    mask: np.ndarray | None, settings: _Settings,
) -> SegmentValue:  # fmt: skip
    """The row of the queries of ``cell`` that ``mask`` selects (None: all of them);
    ``traffic``: the weight of each of its queries (None: no weights)."""
    how = settings.how
    values = np.asarray(cell.values, dtype=float)
    counted = traffic if settings.weighted and traffic is not None else np.ones(len(values))
    share = None
    if mask is not None:
        values, counted = values[mask], counted[mask]
    if traffic is not None:
        total = float(traffic.sum())
        part = float((traffic if mask is None else traffic[mask]).sum())
        share = part / total if total > 0 else math.nan
    if not len(values) or counted.sum() == 0:
        value, low, high, interval = math.nan, math.nan, math.nan, "none"
    else:
        value = float(_statistic(how, values[None, :], counted[None, :], settings.epsilon)[0])
        if how == "mean" and not settings.weighted:
            low, high = mean_interval(values, settings.level)
            interval = "t"
        else:
            low, high = _bootstrap_interval(
                how, values, counted, settings.epsilon, settings.level, settings.resamples,
                settings.seed,
            )  # fmt: skip
            interval = "bootstrap"
    label = f"weighted {how}" if settings.weighted else how
    return SegmentValue(
        cell.run, cell.measure, segmentation, segment, label, value, low, high, interval,
        int(len(values)), share,
    )  # fmt: skip


def _segment_order(name: str, found: set[str]) -> list[str]:
    """Usage segments in their order, group segments by name; ``unknown`` last."""
    if name == "usage":
        known = [s for s in USAGE_SEGMENTS if s in found]
    else:
        known = sorted(s for s in found if s != UNKNOWN)
    return known + ([UNKNOWN] if UNKNOWN in found else [])


def _gap(rows: list[SegmentValue]) -> Gap | None:
    """The highest and lowest segment with a value (``unknown`` left out; the first in
    segment order on a tie); None with fewer than two."""
    valued = [r for r in rows if r.segment != UNKNOWN and not math.isnan(r.value)]
    if len(valued) < 2:
        return None
    highest = max(valued, key=lambda r: r.value)
    lowest = min(valued, key=lambda r: r.value)
    positive = highest.value > 0 and lowest.value >= 0
    ratio = lowest.value / highest.value if positive else math.nan
    return Gap(
        highest.run, highest.measure, highest.segmentation, highest.segment, highest.value,
        lowest.segment, lowest.value, highest.value - lowest.value, ratio,
    )  # fmt: skip
