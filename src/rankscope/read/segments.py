"""What aggregation reads besides the per-query table: request weights (traffic) and the
segments queries or users belong to (`rankscope.table.aggregate`).

Weights, from a file, either

* ``query weight`` per line: the weight of each request (a query or a user id), a finite
  non-negative number, each id once; or
* ``query`` per line: a request log, one line per request, the weight of an id being the
  number of its lines (traffic);

decided by the first line holding data, every line then holding the same number of fields;
or from a ``{id: weight}`` mapping, a sequence of ids (a request log, counted), or a frame
whose first column is the id and second the weight.

Segments, from a file of ``id segment`` lines (each id once), a ``{id: segment}`` mapping
(one segmentation) or ``{name: {id: segment}}`` (several), or a frame whose first column is
the id and every other column a segmentation named after it (MovieLens ``u.user``'s age
band, gender, occupation).  A segment is a label (numbers in a frame are labels too).

Text files follow the rules of every reader (`rankscope.read.fields`): blank lines and
``#`` comments skipped, gzip read, a BOM skipped with a warning, NUL bytes and CR-only line
endings refused; an error names the file and line.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError, UsageError
from ..model.frames import column_names, is_frame
from .fields import Field, at_row, content_lines, decode, text_start
from .frames import frame_columns, id_strings
from .trec import read_bytes, source_name

WEIGHT = Field("weight", non_negative=True)

_WEIGHTS_LAYOUT = "query weight"
_LOG_LAYOUT = "query: a request log, one line per request"
_SEGMENTS_LAYOUT = "query segment"


def _first_field_count(data: bytes, source: str) -> int:
    """The number of fields of the first line of ``data`` holding data (0 if none)."""
    start = text_start(data, source)
    for raw in data[start:].split(b"\n"):
        fields = raw.split()
        if fields and not fields[0].startswith(b"#"):
            return len(fields)
    return 0


def _weights_from_file(path: str | os.PathLike) -> dict[str, float]:
    source = source_name(path)
    data = read_bytes(path)
    fields_per_line = _first_field_count(data, source)
    if fields_per_line == 0:
        raise InputError(
            f"{source}: no weights found (expected '{_WEIGHTS_LAYOUT}' lines, or a request "
            "log with one query per line)"
        )
    if fields_per_line == 1:  # a request log: an id's weight is its number of lines
        counts: Counter[str] = Counter()
        for _, fields in content_lines(data, source, 1, layout=_LOG_LAYOUT):
            counts[decode(fields[0])] += 1
        return {query: float(n) for query, n in counts.items()}
    weights: dict[str, float] = {}
    first_line: dict[str, int] = {}
    for number, fields in content_lines(data, source, 2, layout=_WEIGHTS_LAYOUT):
        query = decode(fields[0])
        if query in weights:
            raise InputError(
                f"{source}:{number}: query '{query}' has a weight already (line "
                f"{first_line[query]}); a request log lists one query per line"
            )
        weights[query] = float(WEIGHT.parse(fields[1], source, number))
        first_line[query] = number
    return weights


def read_weights(source: Any) -> dict[str, float]:
    """Request weights ``{id: weight}`` from a file, a mapping, a sequence of ids (a request
    log, counted) or a frame (id, weight); see the module for the formats.  Weights are
    finite and non-negative, and at least one is positive (else `InputError`)."""
    name = "<weights>"
    if isinstance(source, str | os.PathLike):
        name = source_name(source)
        weights = _weights_from_file(source)
    elif is_frame(source):
        columns = column_names(source)
        if len(columns) < 2:
            raise InputError(
                f"{name}: a weights frame needs two columns, the id and the weight; it has "
                f"{', '.join(map(repr, columns)) or 'none'}"
            )
        ids, values = frame_columns(source, columns[:2], name)
        queries = id_strings(ids, name, columns[0])
        numbers = WEIGHT.values(values, name).tolist()
        weights = {}
        for row, (query, weight) in enumerate(zip(queries, numbers, strict=True)):
            if query in weights:
                raise InputError(f"{at_row(name, row)}: id '{query}' has a weight already")
            weights[query] = weight
    elif isinstance(source, Mapping):
        listed = WEIGHT.values(np.asarray(list(source.values()), dtype=object), name).tolist()
        weights = dict(zip(map(str, source), listed, strict=True))
    elif isinstance(source, Sequence | np.ndarray):
        counts = Counter(id_strings(np.asarray(source, dtype=object), name, "query"))
        weights = {query: float(n) for query, n in counts.items()}
    else:
        raise UsageError(
            f"cannot read weights from {type(source).__name__}: give a file, a mapping "
            "{query: weight}, a sequence of query ids (a request log) or a frame"
        )
    if not weights:
        raise InputError(f"{name}: no weights found")
    if not any(w > 0 for w in weights.values()):
        raise InputError(f"{name}: every weight is 0: there is no traffic to weight by")
    return weights


def _segment_label(value: object, where: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        raise InputError(f"{where}: missing segment")
    if isinstance(value, np.generic):
        value = value.item()
    label = value if isinstance(value, str) else str(value)
    if not label.strip():
        raise InputError(f"{where}: empty segment")
    return label


def _segments_from_file(path: str | os.PathLike) -> dict[str, str]:
    source = source_name(path)
    out: dict[str, str] = {}
    first_line: dict[str, int] = {}
    for number, fields in content_lines(read_bytes(path), source, 2, layout=_SEGMENTS_LAYOUT):
        query = decode(fields[0])
        if query in out:
            raise InputError(
                f"{source}:{number}: query '{query}' has a segment already (line "
                f"{first_line[query]})"
            )
        out[query] = decode(fields[1])
        first_line[query] = number
    if not out:
        raise InputError(f"{source}: no segments found (expected '{_SEGMENTS_LAYOUT}' lines)")
    return out


def _one_segmentation(mapping: Mapping, name: str) -> dict[str, str]:
    out = {str(k): _segment_label(v, f"{name}: id '{k}'") for k, v in mapping.items()}
    if not out:
        raise InputError(f"{name}: no segments found")
    return out


def read_segments(source: Any) -> dict[str, dict[str, str]]:
    """Segmentations ``{name: {id: segment}}`` from a file (named after it), a mapping
    (``{id: segment}``, named ``segment``, or ``{name: {id: segment}}``) or a frame (the
    first column the id, each other a segmentation named after its column); see the
    module."""
    if isinstance(source, str | os.PathLike):
        return {Path(source_name(source)).name: _segments_from_file(source)}
    if is_frame(source):
        name = "<segments>"
        columns = column_names(source)
        if len(columns) < 2:
            raise InputError(
                f"{name}: a segments frame needs an id column and at least one segment "
                f"column; it has {', '.join(map(repr, columns)) or 'none'}"
            )
        arrays = frame_columns(source, columns, name)
        ids = id_strings(arrays[0], name, columns[0])
        out: dict[str, dict[str, str]] = {}
        for column, values in zip(columns[1:], arrays[1:], strict=True):
            segmentation: dict[str, str] = {}
            for row, (query, value) in enumerate(zip(ids, values.tolist(), strict=True)):
                if query in segmentation:
                    raise InputError(f"{at_row(name, row)}: id '{query}' is listed twice")
                segmentation[query] = _segment_label(value, f"{at_row(name, row)}: {column}")
            out[column] = segmentation
        return out
    if isinstance(source, Mapping):
        if not source:
            raise InputError("<segments>: no segments found")
        if all(isinstance(v, Mapping) for v in source.values()):
            return {str(k): _one_segmentation(v, f"<segments {k}>") for k, v in source.items()}
        return {"segment": _one_segmentation(source, "<segments>")}
    raise UsageError(
        f"cannot read segments from {type(source).__name__}: give a file of 'query segment' "
        "lines, a mapping {query: segment} (or {name: {query: segment}}) or a frame"
    )
