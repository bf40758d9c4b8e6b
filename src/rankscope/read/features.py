"""Item features (`ItemFeatures`), read from files, DataFrames or dicts, with the items
interned into the evaluation's shared vocabulary (`rankscope.read.interactions`).

Text files (``.gz`` and ``-`` accepted): MovieLens ``u.item`` (``id|title|date|video
date|url|19 genre flags``), or a delimited table whose first column is the item and whose
other columns are numbers, or ``|``-separated labels in a column named ``genres``, ``tags``
or ``labels`` (MovieLens ``movies.csv``).  Features follow `rankscope.read.fields`; a
malformed value is an `InputError` naming the file and line (the row, for frames and dicts).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from ..model import ItemFeatures, Vocabulary
from ..model.frames import column_names, is_frame
from . import delimited, frames
from .duplicates import first_repeated
from .fields import (
    PINNED_NOT_A_FINITE_NUMBER,
    Field,
    looks_numeric,
)
from .interactions import (
    ITEM_NAMES,
    frame_column,
    frame_role,
)


def _feature(name: str) -> Field:
    return Field(f"feature {name}", not_finite=PINNED_NOT_A_FINITE_NUMBER)


LABEL_NAMES = ("genres", "genre", "tags", "labels")


def read_item_features(
    source: Any, *, items: Vocabulary | None = None, columns: Mapping[str, str] | None = None
) -> ItemFeatures:
    """Item feature vectors from MovieLens ``u.item``, a delimited table (first column the
    item, numeric columns, or ``|``-separated labels in a ``genres``/``tags`` column), a
    DataFrame, ``{item: vector}``, ``{item: [labels]}`` or a tuple ``(item_ids, matrix)``."""
    items = Vocabulary() if items is None else items
    if isinstance(source, ItemFeatures):
        if source.items is items:
            return source
        codes = items.intern_many(source.items.strings_of(source.item))
        return ItemFeatures(items, codes, source.matrix, source.names, source.source)
    if isinstance(source, tuple) and len(source) == 2:
        ids, vectors = source
        ids = [str(i) for i in ids]
        matrix = _feature_matrix(vectors, "<features>")
        if matrix is None or matrix.shape[0] != len(ids):
            raise InputError("features: (item_ids, matrix) needs one matrix row per item id")
        names = [f"f{j}" for j in range(matrix.shape[1])]
        return _features(items, ids, matrix, names, "<features>")
    if isinstance(source, Mapping):
        return _features_from_dict(source, items)
    if is_frame(source):
        return _features_from_frame(source, items, columns, "<features frame>")
    raw, name = delimited.load(source)
    content = delimited.content(delimited.lines(raw))
    if not content:
        raise InputError(f"{name}: no item features found")
    if content[0][1].count("|") >= 5 and "," not in content[0][1].split("|")[0]:
        return _movielens_items(content, items, name)
    sep = delimited.separator(content[0][1])
    rows = delimited.split_lines(content, sep, name)
    header = None
    if not all(looks_numeric(f) for f in rows[0][1][1:]):
        header = rows.pop(0)[1]
    return _features_from_rows(rows, header, items, name)


def _movielens_items(content, items, source) -> ItemFeatures:
    ids, vectors = [], []
    width = None
    for n, line in content:
        fields = line.split("|")
        flags = fields[5:]
        if len(fields) < 6 or not all(f in ("0", "1") for f in flags):
            raise InputError(
                f"{source}:{n}: expected MovieLens u.item fields "
                "(id|title|date|video date|url|genre flags 0/1)"
            )
        if width is None:
            width = len(flags)
        elif len(flags) != width:
            raise InputError(f"{source}:{n}: {len(flags)} genre flags, {width} on the first line")
        ids.append(fields[0])
        vectors.append([float(f) for f in flags])
    matrix = np.asarray(vectors, dtype=np.float64)
    genre = Path(source).with_name("u.genre") if source != "<stdin>" else None
    names = [f"genre{j}" for j in range(matrix.shape[1])]
    if genre is not None and genre.is_file():
        listed = [g.split("|")[0] for g in genre.read_text("latin-1").split("\n") if "|" in g]
        if len(listed) == matrix.shape[1]:
            names = listed
    return _features(items, ids, matrix, names, source)


def _features_from_rows(rows, header, items, source) -> ItemFeatures:
    width = len(header) if header is not None else len(rows[0][1])
    label_at = delimited.find(header, LABEL_NAMES) if header is not None else None
    numeric = []
    for j in range(1, width):
        if j == label_at:
            continue
        # a column most of whose values look like numbers holds numbers: its other values
        # (x, 1_000, nan, a missing one) are reported with their line, not read as text
        if 2 * sum(len(f) > j and looks_numeric(f[j]) for _, f in rows) > len(rows):
            numeric.append(j)
    ids = [f[0] for _, f in rows]
    lines = [n for n, _ in rows]
    parts = []
    names: list[str] = []
    if numeric:
        names += [header[j] if header else f"f{j}" for j in numeric]
        values = [
            _feature(names[k]).tokens([f[j] if len(f) > j else "" for _, f in rows], source, lines)
            for k, j in enumerate(numeric)
        ]
        parts.append(np.stack(values, axis=1))
    if label_at is not None:
        labels = [f[label_at].split("|") if len(f) > label_at else [] for _, f in rows]
        onehot, vocab = _one_hot(labels)
        parts.append(onehot)
        names += vocab
    if not parts:
        raise InputError(
            f"{source}: no numeric feature columns and no genres/tags column after the item id"
        )
    return _features(items, ids, np.hstack(parts), names, source)


def _one_hot(labels: list[list[str]]) -> tuple[np.ndarray, list[str]]:
    """One row per item, one column per distinct label (empty labels ignored)."""
    vocab = sorted({x for ls in labels for x in ls if x})
    index = {x: j for j, x in enumerate(vocab)}
    onehot = np.zeros((len(labels), len(vocab)))
    for r, ls in enumerate(labels):
        for x in ls:
            if x:
                onehot[r, index[x]] = 1.0
    return onehot, vocab


def _features_from_frame(frame, items, columns, source) -> ItemFeatures:
    names = column_names(frame)
    i = frame_role(names, columns, "item", ITEM_NAMES, source)
    label = frame_column(names, columns, "labels", LABEL_NAMES, source)
    cols = dict(zip(names, frames.frame_columns(frame, names, source), strict=True))
    ids = frames.id_strings(cols[i], source, "item id")
    parts, out_names = [], []
    for n in names:
        if n in (i, label):
            continue
        col = cols[n]
        if col.dtype.kind in "iufb":
            parts.append(_feature(n).values(col, source)[:, None])
            out_names.append(n)
    if label is not None:
        rows = [[] if v is None else str(v).split("|") for v in cols[label].tolist()]
        onehot, vocab = _one_hot(rows)
        parts.append(onehot)
        out_names += vocab
    if not parts:
        raise InputError(f"{source}: no numeric feature columns (columns: {names})")
    return _features(items, ids, np.hstack(parts), out_names, source)


def _features_from_dict(mapping, items) -> ItemFeatures:
    source = "<features dict>"
    ids = [str(k) for k in mapping]
    values = list(mapping.values())
    if values and all(isinstance(v, set | frozenset) or _is_labels(v) for v in values):
        vocab = sorted({str(x) for v in values for x in v})
        index = {x: j for j, x in enumerate(vocab)}
        matrix = np.zeros((len(ids), len(vocab)))
        for r, v in enumerate(values):
            for x in v:
                matrix[r, index[str(x)]] = 1.0
        return _features(items, ids, matrix, vocab, source)
    vectors = _feature_matrix(values, source)
    if vectors is None:
        raise InputError(f"{source}: expected {{item: vector}} or {{item: [labels]}}")
    return _features(items, ids, vectors, [f"f{j}" for j in range(vectors.shape[1])], source)


def _is_labels(v) -> bool:
    return isinstance(v, list | tuple) and all(isinstance(x, str) for x in v)


def _feature_matrix(vectors: Any, source: str) -> np.ndarray | None:
    """One row per vector, each column ``f{j}`` checked as every reader checks numbers (a bad
    one is an error naming its row); None when the vectors are not a matrix."""
    try:
        cells = np.asarray(vectors)
    except ValueError:  # ragged
        try:
            cells = np.asarray(vectors, dtype=object)
        except (TypeError, ValueError):
            return None
    if cells.ndim != 2:
        if cells.ndim == 1 and len({len(np.atleast_1d(v)) for v in cells.tolist()}) > 1:
            raise InputError(f"{source}: feature vectors must all have the same length")
        return None
    columns = [_feature(f"f{j}").values(cells[:, j], source) for j in range(cells.shape[1])]
    return np.stack(columns, axis=1) if columns else np.zeros(cells.shape)


def _features(items, ids, matrix, names, source) -> ItemFeatures:
    codes = items.intern_many(ids)
    pair = first_repeated(codes)
    if pair is not None:
        raise InputError(f"{source}: item '{ids[pair[1]]}' is described twice")
    return ItemFeatures(items, codes, matrix, list(names), source)
