"""trec_eval's other judgment formats, and its z-score table.

* ``-R prefs``: preference judgments, ``qid jg jsg docno rel_level`` (5 fields).  Within a
  judgment group (jg, one user's information need) and sub-group (jsg), a document with a
  higher ``rel_level`` is preferred to one with a lower; 0 marks a non-relevant document.
* ``-R qrels_prefs``: ordinary qrels read as preferences, ``qid jg docno rel_level``: the
  second column names the judgment group, and each group has one sub-group.
* ``-R qrels_jg``: qrels in judgment groups, ``qid jg docno grade`` (integer grades): each
  group is a separate set of judgments (a user), and measures are averaged over the groups.
* ``-Z``: ``qid measure mean stddev`` per line, for trec_eval's z-scores.

Fields are separated by any run of spaces or tabs.  As in `rankscope.read.trec`, a line whose
first non-blank character is ``#`` is a comment (trec_eval 10 wants the ``#`` in the first
column; a ``#`` anywhere else is part of a field, as in a document id ``CR93E-10505#37``)
and blank lines are skipped.  Levels, grades, means and standard deviations must be numbers
(trec_eval would read ``abc`` as 0), in the syntax of `rankscope.read.fields` (grades are
integers, the others reals): a malformed line raises `InputError` naming the file, the line
and the problem.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..model import GroupedQrels, Prefs, Vocabulary, ZScores
from .duplicates import check_judged_once, first_repeated
from .fields import NOT_A_NUMBER, Field, content_lines, decode, vocabularies
from .trec import PathLike, graded_rows, read_bytes, source_name

# tests/test_trec_prefs.py pins "relevance level 'nan' is not a number"
LEVEL = Field("relevance level", nan=NOT_A_NUMBER)
MEAN = Field("mean")
STDDEV = Field("standard deviation")


def parse_prefs(
    data: bytes,
    source: str = "<prefs>",
    queries: Vocabulary | None = None,
    docs: Vocabulary | None = None,
    *,
    subgroups: bool = True,
):
    """Preference judgments from text: 5 fields (``-R prefs``), or 4 with ``subgroups=False``
    (``-R qrels_prefs``: every judgment group has the single sub-group ``0``)."""
    queries, docs = vocabularies(queries, docs)
    labels = Vocabulary(pure=True)
    count, layout = (5, "qid jg jsg docno rel_level") if subgroups else (4, "qid jg docno rel")
    qs, gs, ss, ds, levels, lines = [], [], [], [], [], []
    for number, fields in content_lines(data, source, count, layout=layout):
        qs.append(decode(fields[0]))
        gs.append(decode(fields[1]))
        ss.append(decode(fields[2]) if subgroups else "0")
        ds.append(decode(fields[count - 2]))
        levels.append(LEVEL.parse(fields[count - 1], source, number))
        lines.append(number)
    if not qs:
        raise InputError(f"{source}: no preference judgments found")
    return Prefs(
        queries, docs, queries.intern_many(qs), docs.intern_many(ds), labels,
        labels.intern_many(gs), labels.intern_many(ss), np.asarray(levels, dtype=np.float64),
        source=source, line=np.asarray(lines, dtype=np.int32),
    )  # fmt: skip


def read_prefs(path: PathLike, queries: Vocabulary | None = None, docs: Vocabulary | None = None):
    """Read preference judgments, ``qid jg jsg docno rel_level`` (trec_eval ``-R prefs``)."""
    return parse_prefs(read_bytes(path), source_name(path), queries, docs)


def read_qrels_prefs(
    path: PathLike, queries: Vocabulary | None = None, docs: Vocabulary | None = None
):
    """Read qrels as preference judgments, ``qid jg docno rel_level`` (``-R qrels_prefs``)."""
    return parse_prefs(read_bytes(path), source_name(path), queries, docs, subgroups=False)


def parse_qrels_jg(
    data: bytes,
    source: str = "<qrels_jg>",
    queries: Vocabulary | None = None,
    docs: Vocabulary | None = None,
):
    """Judgments in judgment groups from text, ``qid jg docno grade`` (``-R qrels_jg``)."""
    queries, docs = vocabularies(queries, docs)
    labels = Vocabulary(pure=True)
    qs, gs, ds, grades, lines = graded_rows(data, source, "qid jg docno grade", "judgments")
    q, d, g = queries.intern_many(qs), docs.intern_many(ds), labels.intern_many(gs)
    groups = [f"in judgment group '{g}'" for g in gs]
    check_judged_once(first_repeated(q, g, d), source, qs, ds, lines, groups)
    return GroupedQrels(
        queries, docs, q, d, np.asarray(grades, dtype=np.int64), labels, g, source=source,
        line=np.asarray(lines, dtype=np.int32),
    )  # fmt: skip


def read_qrels_jg(
    path: PathLike, queries: Vocabulary | None = None, docs: Vocabulary | None = None
):
    """Read judgments in judgment groups, ``qid jg docno grade`` (``-R qrels_jg``)."""
    return parse_qrels_jg(read_bytes(path), source_name(path), queries, docs)


def parse_zscores(data: bytes, source: str = "<zscores>"):
    """The z-score table from text, ``qid measure mean stddev`` (trec_eval ``-Z``)."""
    table: dict[tuple[str, str], tuple[float, float]] = {}
    first_line: dict[tuple[str, str], int] = {}
    for number, fields in content_lines(data, source, 4, layout="qid measure mean stddev"):
        key = (decode(fields[0]), decode(fields[1]))
        if key in table:
            raise InputError(
                f"{source}: measure '{key[1]}' of query '{key[0]}' is given twice "
                f"(lines {first_line[key]} and {number})"
            )
        mean = MEAN.parse(fields[2], source, number)
        stddev = STDDEV.parse(fields[3], source, number)
        table[key] = (mean, stddev)
        first_line[key] = number
    if not table:
        raise InputError(f"{source}: no z-score parameters found")
    return ZScores(table, source)


def read_zscores(path: PathLike):
    """Read trec_eval's z-score table, ``qid measure mean stddev`` per line (``-Z``)."""
    return parse_zscores(read_bytes(path), source_name(path))
