"""How far several assessors agree, and their labels made into one set of judgments.

>>> from rankscope import agreement
>>> result = agreement.agreement("labels.txt")      # doctest: +SKIP
>>> result.overall.alpha, result.row("q1").cohen    # doctest: +SKIP
>>> qrels = agreement.to_qrels("labels.txt", how="majority")  # doctest: +SKIP

Labels come from a ``qid assessor docno grade`` file or a DataFrame (`read_labels`); an item
is a (query, document) pair.  `agreement` reports, over all items and per query, percent
agreement, Cohen's kappa (exactly two assessors), Fleiss' kappa (the same number of labels
for every item) and Krippendorff's alpha (missing labels allowed); `to_qrels` aggregates the
labels of each document into one grade (majority vote or mean grade), as `rankscope.Qrels`
for `rankscope.evaluate`.  The statistics themselves, on arrays, are
`rankscope.stats.agreement`'s, re-exported here; the kernels on labels already read are
`rankscope.table.agreement`'s.  This module is the front door: it is reached as
``rankscope.agreement``.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..model import Labels, Qrels
from ..read.labels import LabelsLike, labels_from_frame, parse_labels, read_labels
from ..stats.agreement import (
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    percent_agreement,
)
from ..table.agreement import (
    AgreementResult,
    AgreementRow,
    check_aggregation_options,
    check_agreement_options,
    label_agreement,
    labels_to_qrels,
)

__all__ = [
    "AgreementResult",
    "AgreementRow",
    "Labels",
    "agreement",
    "cohen_kappa",
    "fleiss_kappa",
    "krippendorff_alpha",
    "labels_from_frame",
    "parse_labels",
    "percent_agreement",
    "read_labels",
    "to_qrels",
]


def agreement(
    labels: LabelsLike,
    *,
    scale: str = "nominal",
    kappa_weights: str | None = None,
    columns: Mapping[str, str] | None = None,
) -> AgreementResult:
    """Agreement of several assessors' labels, over all items and per query.

    ``labels``: a ``qid assessor docno grade`` file, a DataFrame (its columns named by role
    in ``columns``, `read_labels`) or `Labels`.  ``scale``: Krippendorff's level of measurement for
    alpha (``nominal``, ``ordinal``, ``interval``, ``ratio``); ``kappa_weights``: Cohen's
    kappa's (``None``, ``"linear"``, ``"quadratic"``).  Categories are the grades of the whole file,
    sorted: weighted kappa and ordinal alpha place the grades of every query on that scale.

    An item is a (query, document) pair: the overall row pools every query's items (an
    assessor is the same assessor across queries when the id is).  Labels of a single
    assessor are an `InputError` (a qrels file, whose second column is read as the
    assessor?).
    """
    check_agreement_options(scale, kappa_weights)
    return label_agreement(read_labels(labels, columns=columns), scale, kappa_weights)


def to_qrels(
    labels: LabelsLike,
    how: str = "majority",
    *,
    tie_break: str = "lower",
    columns: Mapping[str, str] | None = None,
) -> Qrels:
    """One grade per (query, document) from several assessors' labels, as judgments.

    ``how="majority"``: the grade most assessors gave; when two or more grades have as many
    votes, ``tie_break`` decides: ``"lower"`` (default: a document is as relevant as a
    majority says, no more) or ``"higher"``.  ``how="mean"``: the mean grade rounded to the
    nearest grade, a mean halfway between two (1.5) going to the ``tie_break`` side (lower:
    1, higher: 2).  Ties are reported in one warning (how many, and the first).  A document
    with one label keeps it.  Rows come in the order of each document's first label; the
    qrels' source is the labels'.  ``columns``: a frame's column names by role
    (`read_labels`).
    """
    check_aggregation_options(how, tie_break)
    return labels_to_qrels(read_labels(labels, columns=columns), how, tie_break)
