"""Agreement between assessors and their labels made into one grade per document, on
labels already read (`rankscope.model.Labels`): the result types (`AgreementRow`,
`AgreementResult`) and the kernels the front door `rankscope.agreement` (in
`rankscope.api.agreement`) and ``rankscope agree`` hand read labels to.  The statistics on
arrays are `rankscope.stats.agreement`'s."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..errors import InputError, UsageError, warn
from ..model import Labels, Qrels
from ..model.frames import records_frame
from ..stats.agreement import (
    ALPHA_LEVELS,
    KAPPA_WEIGHTS,
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    percent_agreement,
)

#: How `to_qrels` makes one grade of a document's labels.
AGGREGATIONS = ("majority", "mean")
#: Which grade a tie gives (two grades with as many votes, a mean halfway between two).
TIE_BREAKS = ("lower", "higher")


@dataclass(frozen=True)
class AgreementRow:
    """Agreement over one query's items (or all items: ``query`` ``"all"``).

    ``items``: documents labelled (query, document pairs for ``"all"``); ``assessors``:
    distinct assessors among the labels; ``labels``: their number; ``pairable``: items with
    at least 2 labels, the only ones agreement is measured on.  Each statistic is ``None``
    where it does not apply (no pairable item; Cohen's kappa without exactly two assessors
    who labelled an item in common; Fleiss' kappa unless every item has the same number, at
    least 2, of labels) and ``NaN`` where it applies but is undefined (one category only).
    """

    query: str
    items: int
    assessors: int
    labels: int
    pairable: int
    percent: float | None
    cohen: float | None
    fleiss: float | None
    alpha: float | None


#: The statistics of a row, in the order tables print them.
STATISTICS = ("percent", "cohen", "fleiss", "alpha")


@dataclass(frozen=True)
class AgreementResult:
    """`label_agreement`'s answer: the row of all items and one per query (sorted by id)."""

    overall: AgreementRow
    per_query: tuple[AgreementRow, ...]
    level: str
    weights: str | None
    source: str

    def row(self, query: str) -> AgreementRow:
        """The row of ``query`` (``"all"``: the overall row unless a query has that id)."""
        for row in self.per_query:
            if row.query == query:
                return row
        if query == "all":
            return self.overall
        raise UsageError(f"no query {query!r} in {self.source}")

    def records(self, per_query: bool = True) -> list[dict[str, Any]]:
        """The per-query rows (with ``per_query``), then the overall row, as dicts: query,
        items, assessors, labels, pairable, percent, cohen, fleiss, alpha (None where a
        statistic does not apply; full precision)."""
        chosen = [*self.per_query, self.overall] if per_query else [self.overall]
        return [asdict(row) for row in chosen]

    def to_frame(self, output: str = "pandas", per_query: bool = True) -> Any:
        """One row per query, then ``all`` (`records`); pandas, polars or a dict of columns."""
        return records_frame(self.records(per_query), list(AgreementRow.__annotations__), output)

    def to_dict(self) -> dict[str, Any]:
        """The source, the settings and every row (per query, then ``all``), JSON-ready."""
        return {
            "source": self.source, "level": self.level, "weights": self.weights,
            "rows": self.records(),
        }  # fmt: skip


def check_agreement_options(level: str, weights: str | None) -> None:
    """A `UsageError` unless ``level`` is Krippendorff's and ``weights`` Cohen's."""
    if level not in ALPHA_LEVELS:
        raise UsageError(f"unknown level {level!r}: choose {', '.join(ALPHA_LEVELS)}")
    if weights not in KAPPA_WEIGHTS:
        raise UsageError(f"unknown weights {weights!r}: choose None, 'linear' or 'quadratic'")


def label_agreement(
    labels: Labels, level: str = "nominal", weights: str | None = None
) -> AgreementResult:
    """Agreement of the assessors of ``labels``, over all items and per query (see
    `rankscope.api.agreement.agreement`, the front door that reads them)."""
    check_agreement_options(level, weights)
    present = np.unique(labels.assessor)
    if len(present) < 2:
        raise InputError(
            f"{labels.source}: every label is by one assessor "
            f"('{labels.assessors.strings[present[0]]}'): agreement needs two or more (is it "
            "a qrels file? The second column names the assessor: qid assessor docno grade)"
        )
    scale = np.unique(labels.grade).tolist()
    overall = _row(labels, None, "all", level, weights, scale)
    if overall.pairable == 0:
        warn(
            f"{labels.source}: no item has labels by two assessors, so agreement is undefined "
            f"(every statistic is empty; the {overall.items:,} items have one label each): do "
            "the assessors' query or document ids differ?"
        )
    order = np.argsort(labels.query, kind="stable")
    query_codes, starts = np.unique(labels.query[order], return_index=True)
    bounds = [*starts.tolist(), len(order)]
    names = labels.queries.strings_of(query_codes)
    rows = [
        _row(labels, np.sort(order[bounds[i] : bounds[i + 1]]), name, level, weights, scale)
        for i, name in enumerate(names)
    ]
    rows.sort(key=lambda row: row.query)
    return AgreementResult(overall, tuple(rows), level, weights, labels.source)


def _row(
    labels: Labels,
    rows: np.ndarray | None,
    name: str,
    level: str,
    weights: str | None,
    scale: list[int],
) -> AgreementRow:
    """The agreement of ``rows`` of the labels (all with None)."""
    selected = slice(None) if rows is None else rows
    assessors = len(np.unique(labels.assessor[selected]))
    pooled, _ = labels.matrix(rows, by_assessor=False)  # each item's labels, as a set
    count = (~np.isnan(pooled)).sum(axis=1)
    pairable = int((count >= 2).sum())
    percent = cohen = fleiss = alpha = None
    if pairable:
        percent = percent_agreement(pooled)
        alpha = krippendorff_alpha(pooled, level, categories=scale)
        if (count == count[0]).all():
            fleiss = fleiss_kappa(pooled)
        if assessors == 2:
            by_assessor, _ = labels.matrix(rows)
            if (~np.isnan(by_assessor)).all(axis=1).any():
                cohen = cohen_kappa(by_assessor[:, 0], by_assessor[:, 1], weights, scale)
    return AgreementRow(
        name, len(pooled), assessors, int(count.sum()), pairable, percent, cohen, fleiss, alpha
    )


def check_aggregation_options(how: str, tie_break: str) -> None:
    """A `UsageError` unless ``how`` is one of `AGGREGATIONS` and ``tie_break`` of
    `TIE_BREAKS`."""
    if how not in AGGREGATIONS:
        raise UsageError(f"unknown aggregation {how!r}: choose {', '.join(AGGREGATIONS)}")
    if tie_break not in TIE_BREAKS:
        raise UsageError(
            f"unknown tie_break {tie_break!r}: choose {', '.join(TIE_BREAKS)}",
        )


def labels_to_qrels(labels: Labels, how: str = "majority", tie_break: str = "lower") -> Qrels:
    """One grade per (query, document) of ``labels`` (see
    `rankscope.api.agreement.to_qrels`, the front door that reads them)."""
    check_aggregation_options(how, tie_break)
    item, first = labels.items()
    if how == "majority":
        grade, tied = _majority(item, labels.grade, len(first), tie_break)
        problem = "a tied majority vote"
    else:
        grade, tied = _mean(item, labels.grade, len(first), tie_break)
        problem = "a mean grade halfway between two grades"
    order = np.argsort(first, kind="stable")  # documents in the order of their first label
    if tied.any():
        example = int(order[np.flatnonzero(tied[order])[0]])
        row = int(first[example])
        shown = ", ".join(str(g) for g in sorted(labels.grade[item == example].tolist()))
        kept = f"the {tie_break} grade is kept"
        other = TIE_BREAKS[1 - TIE_BREAKS.index(tie_break)]
        message = (
            f"{labels.source}: {int(tied.sum())} of {len(first)} documents have {problem} "
            f"(first: document '{labels.docs.strings[labels.doc[row]]}' of query "
            f"'{labels.queries.strings[labels.query[row]]}', grades {shown}): {kept}"
        )
        warn(f"{message} (tie_break='{other}' keeps the {other})",
             cli=f"{message} (--tie-break {other} keeps the {other})")  # fmt: skip
    rows = first[order]
    return Qrels(
        labels.queries, labels.docs, labels.query[rows], labels.doc[rows], grade[order],
        source=labels.source, line=None if labels.line is None else labels.line[rows],
    )  # fmt: skip


def _majority(
    item: np.ndarray, grade: np.ndarray, items: int, tie_break: str
) -> tuple[np.ndarray, np.ndarray]:
    """Each item's most frequent grade (``tie_break`` among equals), and whether it tied."""
    grades, code = np.unique(grade, return_inverse=True)
    votes = np.zeros((items, len(grades)), dtype=np.int64)
    np.add.at(votes, (item, code.reshape(-1)), 1)
    most = votes == votes.max(axis=1, keepdims=True)
    tied = most.sum(axis=1) > 1
    if tie_break == "lower":
        chosen = np.argmax(most, axis=1)
    else:
        chosen = len(grades) - 1 - np.argmax(most[:, ::-1], axis=1)
    return grades[chosen].astype(np.int64), tied


def _mean(
    item: np.ndarray, grade: np.ndarray, items: int, tie_break: str
) -> tuple[np.ndarray, np.ndarray]:
    """Each item's mean grade rounded to the nearest integer (``tie_break`` at halves),
    in exact integer arithmetic, and whether it was a half."""
    count = np.bincount(item, minlength=items).astype(np.int64)
    big = len(grade) > 0 and int(np.abs(grade).max()) * int(count.max()) >= 1 << 60
    total: np.ndarray = np.zeros(items, dtype=object if big else np.int64)
    np.add.at(total, item, grade.astype(object) if big else grade)
    # the mean s/c rounded: half up floor((2s + c) / 2c), half down -floor((c - 2s) / 2c)
    if tie_break == "higher":
        rounded = (2 * total + count) // (2 * count)
    else:
        rounded = -((count - 2 * total) // (2 * count))
    tied = ((2 * total) % count == 0) & (((2 * total) // count) % 2 == 1)
    return np.asarray(rounded, dtype=np.int64), np.asarray(tied, dtype=bool)
