"""An online experiment (`rankscope.model.Experiment`) from a delimited text file (TSV, CSV,
``.gz``, ``-``), a Parquet file, a DataFrame or Arrow table, or a dict of columns.

Three shapes, told apart by the columns the header names (`ROLES`; case ignored,
``columns={"role": "name"}`` names others):

* **units** — one row per unit: ``unit`` (optional: without it each row is its own unit, as
  an impression log of the Open Bandit Dataset), ``variant``, and every other column a
  metric (a number per unit: clicks, revenue, a 0/1 conversion); a column ``pre_<metric>``
  is that metric measured before the experiment (the covariate of CUPED); optionally a
  ``stratum`` and a ``timestamp`` (when the unit entered; a number or an ISO 8601
  date-time);
* **events** — an event log, recognised by its ``metric`` and ``value`` columns: rows of
  ``unit variant metric value [timestamp] [stratum]``, summed per unit and metric (a unit
  without an event of a metric has 0 of it; ``pre_<metric>`` events are the covariate), the
  unit's timestamp its first event's;
* **counts** — summary counts, recognised by a ``trials`` column and no unit: one row per
  variant, its ``trials`` (units) and, in every other column, the number of them with a
  success (conversions, clicks): expanded to one 0/1 unit per trial, unnamed, for the tests
  of rates.

=============  ==============================================================================
role           names recognised
=============  ==============================================================================
``unit``       unit, unit_id, user, user_id, userid, uid, visitor, visitor_id, customer,
               customer_id, session, session_id, impression, impression_id
``variant``    variant, arm, group, bucket, cohort, treatment, policy
``stratum``    stratum, strata, segment, block
``timestamp``  timestamp, time, ts, datetime
``metric``     metric, metric_name, event (events)
``value``      value, amount (events)
``trials``     trials, units, users, visitors, exposures (counts)
=============  ==============================================================================

A text file needs its header line (the metrics are named there).  Checks, each an
`InputError` naming the file and line (the row, counted from 0, of a frame or dict): no
variant column; no metric; a number outside `rankscope.read.fields`' grammar (an empty
cell is missing, not 0); a ``pre_<metric>`` column without its metric; a unit listed twice,
or in two variants (both lines named); a unit of an event log under two strata; a variant
listed twice in summary counts, a count that is negative or not whole, more successes than
trials, a variant with no trials; a single variant; no rows.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import InputError, UsageError
from ..model import Experiment, Vocabulary
from ..model.frames import column_names, is_frame
from . import frames
from .fields import PINNED_NOT_A_FINITE_NUMBER, Field, excerpt
from .roles import Columns, Role, check_roles, header_columns, locate

TIMESTAMP = Field("timestamp", not_finite=PINNED_NOT_A_FINITE_NUMBER)
COUNT = Field("trials", integer=True)

#: The roles of an experiment's columns; any other column is a metric.
ROLES: dict[str, Role] = {
    "unit": Role(
        ("unit", "unit_id", "user", "user_id", "userid", "uid", "visitor", "visitor_id",
         "customer", "customer_id", "session", "session_id", "impression", "impression_id"),
        "id",
    ),  # fmt: skip
    "variant": Role(("variant", "arm", "group", "bucket", "cohort", "treatment", "policy"), "id"),
    "stratum": Role(("stratum", "strata", "segment", "block"), "id"),
    "timestamp": Role(("timestamp", "time", "ts", "datetime"), "number", TIMESTAMP),
    "metric": Role(("metric", "metric_name", "event"), "id"),
    "value": Role(("value", "amount"), "number", Field("value")),
    "trials": Role(("trials", "units", "users", "visitors", "exposures"), "number", COUNT),
}
#: The prefix of a metric's pre-experiment covariate column (CUPED).
PRE = "pre_"
#: The most units summary counts expand to (one 0/1 unit per trial).
MOST_TRIALS = 50_000_000


def read_experiment(
    source: Any,
    *,
    columns: Mapping[str, str] | None = None,
    metrics: Sequence[str] | None = None,
) -> Experiment:
    """An experiment's units from a text file (``.gz``, ``-``), a Parquet file, a
    pandas/polars DataFrame or Arrow table, or a dict of equal-length columns (an
    `Experiment` is returned as is); or from one such source per variant, a list of
    ``(variant, source)`` pairs, each without a variant column (the units of two policies
    logged apart).  ``columns`` maps roles to column names the header does not use
    (`ROLES`); ``metrics``: the metric columns to read (with their ``pre_`` covariates),
    the others left unread (default: every column that has no role is a metric).  The
    shapes and the checks are listed in the module's docstring."""
    if isinstance(source, Experiment):
        return source
    check_roles(ROLES, list(columns or ()), "experiment")
    given = dict(columns or {})
    wanted = None if metrics is None else list(metrics)
    if isinstance(source, list | tuple):
        return _per_variant(source, given, wanted)
    experiment = _read(source, given, wanted, None)
    if len(experiment.variants) < 2:
        raise InputError(
            f"{experiment.source}: every unit is in variant {excerpt(experiment.variant_names[0])}"
            ": an experiment compares two variants or more"
        )
    return experiment


def _read(
    source: Any, columns: dict[str, str], metrics: list[str] | None, variant: str | None
) -> Experiment:
    """One source; ``variant``: the variant of all its rows (it has no variant column)."""
    if isinstance(source, Mapping):
        table = {str(k): np.asarray(v) for k, v in source.items()}
        lengths = {len(v) for v in table.values()}
        if len(lengths) > 1:
            raise InputError("<experiment dict>: columns of different lengths")
        return _build(table, columns, "<experiment dict>", None, metrics, variant)
    if is_frame(source):
        return _from_frame(source, columns, "<experiment frame>", metrics, variant)
    if isinstance(source, str | os.PathLike) and str(source).lower().endswith((".parquet", ".pq")):
        return _from_frame(frames.read_parquet(source), columns, str(source), metrics, variant)
    if not isinstance(source, str | os.PathLike):
        raise UsageError(
            f"cannot read an experiment from {type(source).__name__}: give a file, a Parquet "
            "file, a DataFrame or a dict of columns"
        )
    return _from_text(source, columns, metrics, variant)


def _per_variant(
    parts: Sequence[Any], columns: dict[str, str], metrics: list[str] | None
) -> Experiment:
    """One experiment from one source per variant, in the order given."""
    if len(parts) < 2 or not all(isinstance(p, tuple) and len(p) == 2 for p in parts):
        raise UsageError(
            "give one source per variant as (variant, source) pairs, two or more",
            cli="give one FILE per variant as VARIANT=FILE, two or more",
        )
    names = [str(name) for name, _ in parts]
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice is not None:
        raise UsageError(f"variant {excerpt(twice)} is given two sources")
    read = [_read(part, columns, metrics, name) for name, part in parts]
    shapes = {e.shape for e in read}
    if shapes != {"units"}:
        raise UsageError("one source per variant takes one row per unit in each (no summary "
                         "counts or event logs)")  # fmt: skip
    keys = [set(e.metrics) for e in read]
    if any(k != keys[0] for k in keys):
        raise InputError(
            "the variants' sources have different metrics: "
            + "; ".join(f"{e.source}: {', '.join(map(excerpt, e.metrics))}" for e in read)
        )
    return _joined(read, names)


def _joined(read: Sequence[Experiment], names: Sequence[str]) -> Experiment:
    """The units of several one-variant experiments, in order; a unit id in two of them is
    an `InputError` naming both places."""
    variants = Vocabulary()
    variants.intern_many(list(names))
    named = [e.units is not None for e in read]
    units = None
    if all(named):
        units = Vocabulary()
        codes = np.concatenate([units.intern_many(e.units.strings_of(np.arange(len(e))))
                                for e in read if e.units is not None])  # fmt: skip
        if len(units) != len(codes):
            part = np.repeat(np.arange(len(read)), [len(e) for e in read])
            row = np.concatenate([np.arange(len(e)) for e in read])
            order = np.argsort(codes, kind="stable")
            k = int(np.flatnonzero(codes[order][1:] == codes[order][:-1])[0])
            a, b = int(order[k]), int(order[k + 1])
            first, second = read[part[a]], read[part[b]]
            raise InputError(
                f"{first.where(int(row[a]))} and {second.where(int(row[b]))}: unit "
                f"{excerpt(units.strings_of(codes[a : a + 1])[0])} is in two variants, "
                f"{excerpt(names[part[a]])} and {excerpt(names[part[b]])}: a unit is assigned "
                "once"
            )
    elif any(named):
        raise InputError("some variants' sources have a unit column and some have none")

    def joined(get: Any) -> Any:
        columns = [get(e) for e in read]
        return None if any(c is None for c in columns) else np.concatenate(columns)

    strata = None
    stratum = None
    if all(e.strata is not None for e in read):
        strata = Vocabulary()
        stratum = np.concatenate([strata.intern_many(e.strata.strings_of(e.stratum))
                                  for e in read if e.strata is not None
                                  and e.stratum is not None])  # fmt: skip
    return Experiment(
        variants=variants,
        variant=np.repeat(np.arange(len(read), dtype=np.int32), [len(e) for e in read]),
        metrics={m: np.concatenate([e.metrics[m] for e in read]) for m in read[0].metrics},
        units=units,
        covariates={m: np.concatenate([e.covariates[m] for e in read])
                    for m in read[0].covariates if all(m in e.covariates for e in read)},
        strata=strata, stratum=stratum, timestamp=joined(lambda e: e.timestamp),
        shape="units", source=", ".join(e.source for e in read), line=None,
        from_text=all(e.from_text for e in read),
    )  # fmt: skip


def _from_frame(
    frame: Any, columns: dict[str, str], source: str, metrics: list[str] | None,
    variant: str | None,
) -> Experiment:  # fmt: skip
    names = column_names(frame)
    return _build(dict(zip(names, frames.frame_columns(frame, names, source), strict=True)),
                  columns, source, None, metrics, variant)  # fmt: skip


def _from_text(
    path: str | os.PathLike, columns: dict[str, str], metrics: list[str] | None,
    variant: str | None,
) -> Experiment:  # fmt: skip
    source, header, fields, lines = header_columns(
        path, ROLES, columns=columns, min_fields=2, what="units",
        expected="unit, variant and one column per metric; or variant, trials and successes; "
        "or unit, variant, metric, value",
    )  # fmt: skip
    table = dict(zip(header, fields, strict=True))
    if len(table) != len(header):
        twice = next(n for n in header if header.count(n) > 1)
        raise InputError(f"{source}: column {excerpt(twice)!s} is named twice in the header")
    return _build(table, columns, source, np.asarray(lines, dtype=np.int64), metrics, variant)


# -- the three shapes ----------------------------------------------------------------------


def _build(
    table: dict[str, Any], columns: dict[str, str], source: str, lines: np.ndarray | None,
    metrics: list[str] | None, variant: str | None,
) -> Experiment:  # fmt: skip
    data = Columns(table, source, lines)
    if data.rows == 0:
        raise InputError(f"{source}: no units found (an empty experiment)")
    names = list(table)
    at = locate(names, ROLES, source=source, header=lines is not None, columns=columns,
                require=("variant",) if variant is None else ())  # fmt: skip
    if variant is not None:
        if "variant" in at:
            raise InputError(
                f"{source}: a variant's own source has no variant column (it has "
                f"{excerpt(names[at['variant']])}); give one file with a variant column instead"
            )
        names.append(" variant")
        table[" variant"] = [variant] * data.rows if lines is not None else np.full(
            data.rows, variant, dtype=object)  # fmt: skip
        at["variant"] = len(names) - 1
    role_of = {names[j]: role for role, j in at.items()}
    rest = [name for name in names if name not in role_of]
    if metrics is not None:
        rest = _selected(data, rest, metrics)
    if "metric" in at or "value" in at:
        for role in ("unit", "metric", "value"):
            if role not in at:
                locate(names, ROLES, source=source, header=lines is not None, columns=columns,
                       require=(role,))  # fmt: skip (the error naming the missing column)
        return _events(data, {role: names[j] for role, j in at.items()}, rest)
    if "trials" in at and "unit" not in at:
        return _counts(data, names[at["trials"]], names[at["variant"]], rest, at)
    return _units(data, {role: names[j] for role, j in at.items()}, rest)


def _selected(data: Columns, rest: Sequence[str], metrics: Sequence[str]) -> list[str]:
    """The columns of the metrics asked for, and of their covariates."""
    missing = [m for m in metrics if m not in rest]
    if missing:
        raise InputError(
            f"{data.source}: no metric column {', '.join(map(excerpt, missing))} (the columns "
            f"without a role: {', '.join(map(excerpt, rest))})"
        )
    return [n for n in rest if n in metrics or (n.lower().startswith(PRE)
                                                 and n[len(PRE):] in metrics)]  # fmt: skip


def _metric_names(data: Columns, rest: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """The metric columns and the covariate column of each metric that has one."""
    covariates = {n[len(PRE):]: n for n in rest if n.lower().startswith(PRE) and len(n) > 4}
    metrics = [n for n in rest if n not in covariates.values()]
    for metric, column in covariates.items():
        if metric not in metrics:
            raise InputError(
                f"{data.source}: column {excerpt(column)} is the pre-experiment covariate of a "
                f"metric {excerpt(metric)}, and there is no such column"
            )
    if not metrics:
        raise InputError(
            f"{data.source}: no metric column: besides unit, variant, stratum and timestamp, "
            "each column is a metric (a number per unit)"
        )
    return metrics, covariates


def _metric(data: Columns, name: str) -> np.ndarray:
    """A metric column's numbers; a cell that is not one names the column as a metric."""
    try:
        return data.numbers(name, Field(name))
    except InputError as error:
        raise InputError(
            f"{error}: column {excerpt(name)} is read as a metric (a number per unit); name a "
            "stratum with columns={'stratum': ...}",
            cli=f"{error}: column {excerpt(name)} is read as a metric (a number per unit); "
            "name a stratum with --columns stratum=NAME",
        ) from None


def _units(data: Columns, role: dict[str, str], rest: Sequence[str]) -> Experiment:
    metrics, covariates = _metric_names(data, rest)
    variants = Vocabulary()
    variant = data.codes(role["variant"], variants, "variant")
    units = None
    if "unit" in role:
        units = Vocabulary()
        unit = data.codes(role["unit"], units, "unit id")
        _check_once(data, unit, units, variant, variants)
    values = {name: _metric(data, name) for name in metrics}
    pre = {metric: _metric(data, column) for metric, column in covariates.items()}
    strata = Vocabulary() if "stratum" in role else None
    stratum = None if strata is None else data.codes(role["stratum"], strata, "stratum")
    timestamp = None if "timestamp" not in role else data.timestamps(role["timestamp"], TIMESTAMP)
    return _experiment(data, variants, variant, values, units, pre, strata, stratum, timestamp,
                       "units", np.arange(data.rows))  # fmt: skip


def _check_once(
    data: Columns, unit: np.ndarray, units: Vocabulary, variant: np.ndarray,
    variants: Vocabulary,
) -> None:  # fmt: skip
    """An `InputError` naming both lines of the first unit listed twice."""
    order = np.argsort(unit, kind="stable")
    twice = np.flatnonzero(unit[order][1:] == unit[order][:-1])
    if not len(twice):
        return
    first, second = int(order[twice[0]]), int(order[twice[0] + 1])
    name = excerpt(units.strings_of(unit[first : first + 1])[0])
    if variant[first] == variant[second]:
        raise InputError(
            f"{data.where(first)} and {data.where(second)}: unit {name} is listed twice (one "
            "row per unit; an event log has metric and value columns)"
        )
    a, b = variants.strings_of(variant[[first, second]])
    raise InputError(
        f"{data.where(first)} and {data.where(second)}: unit {name} is in two variants, "
        f"{excerpt(a)} and {excerpt(b)}: a unit is assigned once"
    )


def _events(data: Columns, role: dict[str, str], rest: Sequence[str]) -> Experiment:
    if rest:
        raise InputError(
            f"{data.source}: column(s) {', '.join(map(excerpt, rest))} of an event log are not "
            "unit, variant, metric, value, timestamp or stratum"
        )
    units, variants, names = Vocabulary(), Vocabulary(), Vocabulary()
    unit = data.codes(role["unit"], units, "unit id")
    variant = data.codes(role["variant"], variants, "variant")
    metric = data.codes(role["metric"], names, "metric")
    value = data.numbers(role["value"], ROLES["value"].field or Field("value"))
    count = len(units)
    first = np.full(count, data.rows, dtype=np.int64)
    np.minimum.at(first, unit, np.arange(data.rows))

    def constant(codes: np.ndarray, vocabulary: Vocabulary, what: str) -> np.ndarray:
        per_unit = codes[first][unit]
        other = np.flatnonzero(per_unit != codes)
        if len(other):
            row = int(other[0])
            a = int(first[unit[row]])
            shown = vocabulary.strings_of(codes[[a, row]])
            raise InputError(
                f"{data.where(a)} and {data.where(row)}: unit "
                f"{excerpt(units.strings_of(unit[row : row + 1])[0])} is in two {what}s, "
                f"{excerpt(shown[0])} and {excerpt(shown[1])}"
            )
        return codes[first]

    unit_variant = constant(variant, variants, "variant")
    strata = Vocabulary() if "stratum" in role else None
    stratum = None
    if strata is not None:
        stratum = constant(data.codes(role["stratum"], strata, "stratum"), strata, "stratum")
    metric_names = names.strings_of(np.arange(len(names)))
    sums = {
        name: np.bincount(unit[metric == code], value[metric == code], minlength=count)
        for code, name in enumerate(metric_names)
    }
    metrics, covariates = _metric_names(data, metric_names)
    timestamp = None
    if "timestamp" in role:
        timestamp = np.full(count, np.inf)
        np.minimum.at(timestamp, unit, data.timestamps(role["timestamp"], TIMESTAMP))
    return _experiment(
        data, variants, unit_variant, {m: sums[m] for m in metrics}, units,
        {m: sums[c] for m, c in covariates.items()}, strata, stratum, timestamp, "events", first,
    )  # fmt: skip


def _counts(
    data: Columns, trials_column: str, variant_column: str, rest: Sequence[str],
    at: Mapping[str, int],
) -> Experiment:  # fmt: skip
    extra = [role for role in ("stratum", "timestamp") if role in at]
    if extra:
        raise InputError(
            f"{data.source}: summary counts (a trials column, no unit) have no "
            f"{' or '.join(extra)}: give one row per unit for that"
        )
    if not rest:
        raise InputError(
            f"{data.source}: no successes column: summary counts give variant, trials and the "
            "successes of each metric (conversions, clicks)"
        )
    variants = Vocabulary()
    variant = data.codes(variant_column, variants, "variant")
    if len(variants) != data.rows:
        _, index = np.unique(variant, return_index=True)
        seen = set(index.tolist())
        row = next(r for r in range(data.rows) if r not in seen)
        earlier = int(np.flatnonzero(variant == variant[row])[0])
        raise InputError(
            f"{data.where(earlier)} and {data.where(row)}: variant "
            f"{excerpt(variants.strings_of(variant[row : row + 1])[0])} is listed twice in "
            "summary counts"
        )
    trials = _whole(data, trials_column)
    empty = np.flatnonzero(trials == 0)
    if len(empty):
        row = int(empty[0])
        raise InputError(
            f"{data.where(row)}: variant {excerpt(variants.strings_of(variant[row:row + 1])[0])}"
            " has no units (trials 0)"
        )
    if trials.sum() > MOST_TRIALS:
        raise InputError(
            f"{data.source}: {int(trials.sum()):,} trials in all; summary counts are expanded "
            f"to one unit per trial, up to {MOST_TRIALS:,}"
        )
    metrics: dict[str, np.ndarray] = {}
    for name in rest:
        successes = _whole(data, name)
        over = np.flatnonzero(successes > trials)
        if len(over):
            row = int(over[0])
            raise InputError(
                f"{data.where(row)}: {name} {int(successes[row])} exceeds the trials "
                f"({int(trials[row])}): a unit succeeds at most once"
            )
        metrics[name] = np.concatenate(
            [np.repeat([1.0, 0.0], [s, t - s]) for s, t in zip(successes.tolist(),
                                                                trials.tolist(), strict=True)]
        )  # fmt: skip
    row_of_unit = np.repeat(np.arange(data.rows), trials)
    return _experiment(data, variants, variant[row_of_unit], metrics, None, {}, None, None, None,
                       "counts", row_of_unit)  # fmt: skip


def _whole(data: Columns, name: str) -> np.ndarray:
    """A column of counts: whole numbers, not negative."""
    field = Field(name, integer=True)
    values = data.numbers(name, field).astype(np.int64)
    negative = np.flatnonzero(values < 0)
    if len(negative):
        row = int(negative[0])
        raise InputError(f"{data.where(row)}: {name} {int(values[row])} is negative: "
                         "a count is 0 or more")  # fmt: skip
    return values


def _experiment(
    data: Columns, variants: Vocabulary, variant: np.ndarray, metrics: dict[str, np.ndarray],
    units: Vocabulary | None, covariates: dict[str, np.ndarray], strata: Vocabulary | None,
    stratum: np.ndarray | None, timestamp: np.ndarray | None, shape: str, rows: np.ndarray,
) -> Experiment:  # fmt: skip
    """The container of the units read."""
    line = data.lines[rows] if data.lines is not None else np.asarray(rows, dtype=np.int64)
    return Experiment(
        variants=variants, variant=np.asarray(variant, dtype=np.int32),
        metrics={k: np.asarray(v, dtype=np.float64) for k, v in metrics.items()}, units=units,
        covariates={k: np.asarray(v, dtype=np.float64) for k, v in covariates.items()},
        strata=strata, stratum=None if stratum is None else np.asarray(stratum, dtype=np.int32),
        timestamp=timestamp, shape=shape, source=data.source, line=line,
        from_text=data.lines is not None,
    )  # fmt: skip


__all__ = ["MOST_TRIALS", "PRE", "ROLES", "read_experiment"]
