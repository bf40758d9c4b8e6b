"""Measures averaged over judgment groups (``-m qrels_jg`` with ``-R qrels_jg``).

With judgments ``qid jg docno grade``, each judgment group (JG) of a query is a complete set
of judgments, typically one user's.  These measures compute the usual kernel (AP, P@k,
P@(m·R)) once per group and average over the query's groups; they are evaluated by
`rankscope.table.groups.evaluate_judgment_groups` ((query, group) pairs as queries).
"""

from __future__ import annotations

from .base import REL, Measure, Param, TrecSpelling, cutoff_spelling
from .ranks import CUTOFF, _average_precision, _precision, _rprec_mult

_AVG = (
    "\n\nWith several judgment groups (sets of judgments, e.g. one per user) the value is "
    "the mean over the query's groups, each group scored against its own judgments (its own "
    "R); with one group it is the measure itself. Needs ``-R qrels_jg`` judgments."
)
_REF = "trec_eval's m_{}_avgjg.c (Buckley)."

map_avgjg = Measure(
    "map_avgjg", _average_precision, params=(REL,), family="judgment_groups",
    reference=_REF.format("map"),
    doc="""\
    Average precision, (1/R) Σ over relevant retrieved ranks i of rel(i)/i, averaged over
    judgment groups.
    """ + _AVG,
)

P_avgjg = Measure(
    "P_avgjg", _precision, params=(CUTOFF, REL), family="judgment_groups",
    trec=cutoff_spelling(), reference=_REF.format("P"),
    doc="""\
    Precision at k, rel(k)/k (ranks past the end count as non-relevant), averaged over judgment
    groups.
    """ + _AVG,
)

_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)

Rprec_mult_avgjg = Measure(
    "Rprec_mult_avgjg", _rprec_mult, params=(Param("multiple", float, None, "multiple of R"), REL),
    trec=TrecSpelling("fractions", "multiple", _MULTIPLES), family="judgment_groups",
    reference=_REF.format("Rprec_mult"),
    doc="""\
    Precision at a multiple m of R, P@k with k = floor(m R + 0.9), averaged over judgment groups
    (R is each group's number of relevant documents).
    """ + _AVG,
)

#: In trec_eval's order (measures.c).
JUDGMENT_GROUP_MEASURES = [map_avgjg, P_avgjg, Rprec_mult_avgjg]
