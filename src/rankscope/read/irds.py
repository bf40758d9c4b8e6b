"""Judgments, topics and official measures from `ir_datasets`_, named by a dataset id.

``ir_datasets:ID`` (say ``ir_datasets:msmarco-passage/trec-dl-2019/judged``) is a source of
judgments wherever a qrels file is accepted (`rankscope.read_qrels`, and through it every
command), and of topic titles wherever a topics file is (`rankscope.read.topics`).  The
package is an optional extra (``pip install 'rankscope[irds]'``), imported only when such a
source is read; ir_datasets downloads (and caches) what a dataset needs the first time it is
read, as it always does.

* Judgments: the dataset's qrels, any of its formats (``TrecQrel``'s ``iteration`` and the
  other columns beyond query, document and relevance ignored), relevance an integer checked as
  every reader checks it.  The `Qrels`' ``source`` is ``ir_datasets:ID``, which messages name.
* Topics: ``{query id: text}`` from the dataset's queries, the text being ir_datasets' own
  ``default_text()`` (a TREC topic's title), else a ``title`` or ``text`` field.
* Official measures: the ``official_measures`` of the dataset's documentation (ir_measures
  names, such as ``nDCG@10`` and ``RR(rel=2)``), which `rankscope.evaluate` and
  `rankscope.compare` use when no measure is named.

On the command line a bare id is accepted too (see `rankscope.cli.options.judgments`).

.. _ir_datasets: https://ir-datasets.com
"""

from __future__ import annotations

from typing import Any, TypeGuard

import numpy as np

from ..errors import InputError, UsageError
from ..model import Qrels, Vocabulary
from .fields import vocabularies
from .frames import RELEVANCE

#: What marks a dataset id where a file name is expected.
PREFIX = "ir_datasets:"

_TOLD = 200  # characters of an ir_datasets error shown


def is_dataset(source: Any) -> TypeGuard[str]:
    """Whether ``source`` names an ir_datasets dataset: a string ``ir_datasets:ID``."""
    return isinstance(source, str) and source.startswith(PREFIX)


def dataset_id(source: str) -> str:
    """The id in ``ir_datasets:ID``."""
    return source.removeprefix(PREFIX)


def _ir_datasets(source: str) -> Any:
    """The ir_datasets module, imported now; a `UsageError` naming the extra without it."""
    try:
        import ir_datasets
    except ImportError:
        raise UsageError(
            f"{source} needs the ir_datasets package: pip install 'rankscope[irds]'"
        ) from None
    return ir_datasets


def known(dataset: str) -> bool:
    """Whether ir_datasets is installed and knows the dataset id ``dataset`` (no prefix);
    nothing is downloaded."""
    try:
        import ir_datasets
    except ImportError:
        return False
    try:
        ir_datasets.load(dataset)
    except KeyError:
        return False
    return True


def load(source: str) -> Any:
    """The ir_datasets dataset ``source`` (``ir_datasets:ID``) names; a `UsageError` when
    ir_datasets is not installed or does not know it (with the ids it knows that are
    closest)."""
    module = _ir_datasets(source)
    name = dataset_id(source)
    try:
        return module.load(name)
    except KeyError:
        import difflib  # (only for this message: not on every command's start)

        close = difflib.get_close_matches(name, list(module.registry), n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise UsageError(
            f"ir_datasets has no dataset {name!r}{hint}; `ir_datasets list` lists them"
        ) from None


def _provides(dataset: Any) -> str:
    kinds = ("docs", "queries", "qrels", "scoreddocs", "docpairs", "qlogs")
    return ", ".join(k for k in kinds if getattr(dataset, f"has_{k}", lambda: False)())


def _records(source: str, dataset: Any, kind: str) -> list[Any]:
    """The dataset's ``kind`` (``qrels``, ``queries``) records, all read: a `UsageError` if
    it has none of that kind, an `InputError` naming the source if ir_datasets fails to
    download or parse them (the data's fault or the network's, not rankscope's)."""
    if not getattr(dataset, f"has_{kind}")():
        raise UsageError(f"{source} has no {kind} (it provides {_provides(dataset) or 'nothing'})")
    try:
        return list(getattr(dataset, f"{kind}_iter")())
    except Exception as exc:  # any failure inside ir_datasets (download, parse) is the input's
        # (a failed download's message lists every mirror tried; ir_datasets has logged it)
        told = str(exc) if len(str(exc)) <= _TOLD else str(exc)[: _TOLD - 1] + "…"
        raise InputError(
            f"{source}: ir_datasets could not read its {kind}: {type(exc).__name__}: {told}"
        ) from exc


def read_qrels(
    source: str, queries: Vocabulary | None = None, docs: Vocabulary | None = None
) -> Qrels:
    """The judgments of the dataset ``source`` (``ir_datasets:ID``) as `Qrels`, the ids
    interned into ``queries`` and ``docs`` (new ones when None).

    Each record's ``query_id``, ``doc_id`` and ``relevance`` are kept, whatever else its
    format has (a TREC qrels' iteration, a subtopic); a relevance that is not a whole number
    is an `InputError` naming the record (``row``, counted from 0)."""
    records = _records(source, load(source), "qrels")
    if not records:
        raise InputError(f"{source}: no judgments found")
    try:
        query_ids = [str(r.query_id) for r in records]
        doc_ids = [str(r.doc_id) for r in records]
        grades = [r.relevance for r in records]
    except AttributeError as exc:
        raise InputError(
            f"{source}: its qrels have no query_id, doc_id and relevance ({exc})"
        ) from None
    grade = RELEVANCE.values(np.asarray(grades, dtype=object), source)
    queries, docs = vocabularies(queries, docs)
    return Qrels(
        queries, docs, queries.intern_many(query_ids), docs.intern_many(doc_ids), grade,
        source=source,
    )  # fmt: skip


def _text(query: Any) -> str:
    default_text = getattr(query, "default_text", None)
    if callable(default_text):
        return str(default_text())
    for field in ("title", "text"):
        if isinstance(getattr(query, field, None), str):
            return str(getattr(query, field))
    others = [v for k, v in zip(query._fields, query, strict=True) if k != "query_id"]
    return str(others[0]) if others else ""


def read_topics(source: str) -> dict[str, str]:
    """``{query id: text}`` from the queries of the dataset ``source`` (``ir_datasets:ID``):
    a query's ``default_text()`` (a TREC topic's title, an MS MARCO question), whitespace
    collapsed."""
    records = _records(source, load(source), "queries")
    topics = {str(q.query_id): " ".join(_text(q).split()) for q in records}
    if not topics:
        raise InputError(f"{source}: no topics found")
    return topics


def has_topics(source: Any) -> bool:
    """Whether ``source`` is ``ir_datasets:ID`` and the dataset has queries (nothing is
    downloaded)."""
    return is_dataset(source) and bool(load(source).has_queries())


def official_measures(source: str) -> list[str]:
    """The measures the dataset ``source`` (``ir_datasets:ID``) documents as official, in
    ir_measures' spelling (``["nDCG@10", "RR(rel=2)", "AP(rel=2)"]``); empty when it
    documents none.  Nothing is downloaded."""
    documentation = getattr(load(source), "documentation", None)
    if not callable(documentation):
        return []
    measures = (documentation() or {}).get("official_measures") or []
    if isinstance(measures, str):
        measures = [measures]
    return [str(m) for m in measures]
