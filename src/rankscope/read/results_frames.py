"""PyTerrier's and ir_measures' results frames as rankscope reads frames.

PyTerrier names the columns of a results frame ``qid``, ``docno``, ``score`` and of its qrels
``qid``, ``docno``, ``label``; ir_measures (and rankscope) ``query_id``, ``doc_id``,
``score`` / ``relevance``.  A frame of several systems' results (PyTerrier's results
concatenated) tells them apart by a ``name`` (or ``system``, ``run``) column.  Here such
frames become what `rankscope.read.read_run` / `read_qrels` read: frames with rankscope's
column names, one per system, in the order the systems first appear.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import InputError
from ..model.frames import column_names, is_frame
from .frames import frame_columns, id_strings

__all__ = ["SYSTEM_COLUMNS", "from_results_frames", "qrels_from_results", "results_columns"]

#: The columns that name the system of each row of a results frame of several systems.
SYSTEM_COLUMNS = ("name", "system", "run")

_QUERY = ("query_id", "qid")
_DOC = ("doc_id", "docno")


def _first(present: list[str], names: tuple[str, ...]) -> str | None:
    return next((n for n in names if n in present), None)


def results_columns(frame: Any, *values: str) -> tuple[str, str, str]:
    """The query, document and value columns of a frame: rankscope's and ir_measures' names
    (``query_id``, ``doc_id``) or PyTerrier's (``qid``, ``docno``), and the first of
    ``values`` present (``score``; ``relevance`` or ``label`` for judgments).  A frame with
    neither is an `InputError` listing its columns."""
    present = column_names(frame)
    query, doc = _first(present, _QUERY), _first(present, _DOC)
    value = _first(present, values)
    if query is None or doc is None or value is None:
        raise InputError(
            f"a results frame has columns {', '.join(_QUERY)}|{', '.join(_DOC)} and "
            f"{'|'.join(values)}; this one has {', '.join(map(repr, present))}"
        )
    return query, doc, value


def _renamed(frame: Any, mapping: dict[str, str]) -> Any:
    """``frame`` with columns renamed (pandas, polars or Arrow)."""
    mapping = {k: v for k, v in mapping.items() if k != v}
    if not mapping:
        return frame
    if hasattr(frame, "rename_columns"):  # Arrow
        return frame.rename_columns([mapping.get(c, c) for c in column_names(frame)])
    if type(frame).__module__.startswith("polars"):
        return frame.rename(mapping)
    return frame.rename(columns=mapping)


def _is_pyterrier(frame: Any) -> bool:
    present = column_names(frame)
    return "qid" in present and "docno" in present and "query_id" not in present


def _as_rankscope(frame: Any, value: str) -> Any:
    query, doc, found = results_columns(frame, value, "label")
    return _renamed(frame, {query: "query_id", doc: "doc_id", found: value})


def qrels_from_results(qrels: Any) -> Any:
    """PyTerrier qrels (``qid``, ``docno``, ``label``) as a frame with rankscope's columns;
    anything else unchanged."""
    if is_frame(qrels) and _is_pyterrier(qrels):
        return _as_rankscope(qrels, "relevance")
    return qrels


def from_results_frames(runs: Any) -> Any:
    """Runs as PyTerrier gives them, as rankscope reads runs: one results frame of several
    systems (a ``name``, ``system`` or ``run`` column) becomes ``{system: frame}``, in the
    order the systems first appear; a frame or a ``{name: frame}`` dict with PyTerrier's
    columns gets rankscope's.  Anything else is returned unchanged.

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({"qid": ["1", "1", "1"], "docno": ["a", "b", "a"],
    ...                         "score": [2.0, 1.0, 3.0], "name": ["bm25", "bm25", "dph"]})
    >>> runs = from_results_frames(results)
    >>> list(runs), list(runs["dph"].columns)
    (['bm25', 'dph'], ['query_id', 'doc_id', 'score', 'name'])
    """
    if isinstance(runs, Mapping):
        if any(is_frame(v) and _is_pyterrier(v) for v in runs.values()):
            return {k: _as_rankscope(v, "score") if is_frame(v) else v for k, v in runs.items()}
        return runs
    if not is_frame(runs):
        return runs
    system = _first(column_names(runs), SYSTEM_COLUMNS)
    if system is None:
        return _as_rankscope(runs, "score") if _is_pyterrier(runs) else runs
    (values,) = frame_columns(runs, [system], "<results frame>")
    names = np.asarray(id_strings(values, "<results frame>", "system name"), dtype=object)
    order = list(dict.fromkeys(names.tolist()))
    renamed = _as_rankscope(runs, "score")
    return {name: _rows_where(renamed, names == name) for name in order}


def _rows_where(frame: Any, mask: np.ndarray) -> Any:
    """The rows of a pandas/polars frame or Arrow table where ``mask`` holds."""
    if hasattr(frame, "loc"):  # pandas (whose .filter selects columns)
        return frame[mask]
    return frame.filter(mask)
