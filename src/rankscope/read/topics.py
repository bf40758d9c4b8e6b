"""Topic titles, for showing next to query ids (the HTML report's hover text).

Two formats, told apart by the first non-blank character:

* ``qid<TAB>title`` lines (blank lines and lines starting with ``#`` skipped);
* TREC topics in SGML or XML: ``<top> <num> Number: 401 <title> foreign minorities ...
  </top>`` (closing tags optional, as in the TREC ad hoc topics), and the XML spellings
  ``<topic number="1"> <query>...</query>`` (TREC Web) or ``<query> <id>...</id>
  <title>...</title> </query>`` (CLEF eHealth).  Per topic, its id comes from ``<num>``,
  ``<id>``, ``<qid>`` or the ``number``/``id`` attribute, its title from ``<title>`` (else
  ``<query>``); ``Number:`` and ``Topic:`` prefixes are dropped, whitespace is collapsed and
  XML entities are decoded.

A malformed file is an `rankscope.errors.InputError` naming the file and the line.  Titles
are the file's text: whoever shows them escapes them.  ``ir_datasets:ID`` reads the topics
of an ir_datasets dataset instead (`rankscope.read.irds`).
"""

from __future__ import annotations

import gzip
import html
import os
import re
from collections.abc import Iterator

from ..errors import InputError
from . import irds
from .fields import keyed

_BLOCK = re.compile(r"<(top|topic|query)\b([^>]*)>(.*?)(?:</\1\s*>|(?=<\1\b)|\Z)", re.I | re.S)
_ATTRIBUTE_ID = re.compile(r"""\b(?:number|id)\s*=\s*["']?([^"'\s>]+)""", re.I)
_FIELD = "<{tag}\\b[^>]*>(.*?)(?=<|\\Z)"
_PREFIX = re.compile(r"^(?:number|topic|title)\s*:\s*", re.I)


def _text(path: str | os.PathLike[str]) -> str:
    opener = gzip.open if os.fspath(path).endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8") as f:
            return f.read()
    except UnicodeDecodeError as exc:
        raise InputError(f"{os.fspath(path)}: not UTF-8 text ({exc.reason})") from None


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _field(block: str, *tags: str) -> str | None:
    for tag in tags:
        found = re.search(_FIELD.format(tag=tag), block, re.I | re.S)
        if found:
            value = " ".join(html.unescape(found.group(1)).split())
            return _PREFIX.sub("", value)
    return None


def _read_tagged(text: str, name: str) -> dict[str, str]:
    none = f"{name}: no <top>, <topic> or <query> element found"
    return keyed(_tagged_rows(text, name), "topic {} is given twice", none)


def _tagged_rows(text: str, name: str) -> Iterator[tuple[str, str, str]]:
    for block in _BLOCK.finditer(text):
        tag, attributes, body = block.group(1).lower(), block.group(2), block.group(3)
        line = _line_of(text, block.start())
        if tag == "query" and re.search(r"<(?:id|num|qid)\b", body, re.I) is None:
            continue  # a <query> field inside a <topic>, read with it
        qid = _field(body, "num", "id", "qid")
        if qid is None:
            attribute = _ATTRIBUTE_ID.search(attributes)
            qid = attribute.group(1) if attribute else None
        if not qid:
            raise InputError(f"{name}, line {line}: a <{tag}> without a topic number")
        title = _field(body, "title", "query")
        if title is None:
            raise InputError(f"{name}, line {line}: topic {qid} has no <title>")
        yield f"{name}, line {line}", qid, title


def _read_lines(text: str, name: str) -> dict[str, str]:
    # an empty file named on purpose is a mistake, as an empty qrels file is
    return keyed(_line_rows(text, name), "topic {} is given twice", f"{name}: no topics found")


def _line_rows(text: str, name: str) -> Iterator[tuple[str, str, str]]:
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        qid, tab, title = line.partition("\t")
        qid = qid.strip()
        if not tab or not qid:
            raise InputError(
                f"{name}, line {number}: expected 'query id<TAB>title', got {line[:60]!r}"
            )
        yield f"{name}, line {number}", qid, " ".join(title.split())


def read_topics(path: str | os.PathLike[str]) -> dict[str, str]:
    """``{query id: title}`` from a topics file (``qid<TAB>title`` lines, or TREC SGML/XML
    topics; gzip-compressed when the name ends in ``.gz``), or from the queries of an
    ir_datasets dataset, ``"ir_datasets:ID"`` (`rankscope.read.irds.read_topics`)."""
    if irds.is_dataset(path):
        return irds.read_topics(str(path))
    name = os.fspath(path)
    text = _text(path)
    if text.lstrip().startswith("<"):
        return _read_tagged(text, name)
    return _read_lines(text, name)
