"""trec_eval's preference measures (``-m all_prefs`` with ``-R prefs`` or ``-R qrels_prefs``).

Each kernel maps one query's `QueryPreferences` (judgment groups with their counts of
preferences A > B fulfilled and possible, see `rankscope.judge.prefs`) to a value; they are
evaluated by `rankscope.table.prefs.evaluate_prefs`, not on `Ranked` batches.

Three families differ in which preferences count, for A > B:

* plain (``prefs_simp``, ``prefs_pair``, ``prefs_avgjg``, ``prefs_avgjg_Rnonrel``): all of
  them; one of A, B retrieved counts as fulfilled when it is A, neither retrieved as failed;
* ``_ret``: only those with both A and B retrieved (for dynamic collections);
* ``_imp``: those with at least one of A, B retrieved.

Arithmetic follows trec_eval 10 (m_prefs_*.c) step by step, including its quirks in
``prefs_avgjg_Rnonrel`` and ``prefs_avgjg_Rnonrel_ret`` (see their documentation).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .base import Measure

if TYPE_CHECKING:  # pragma: no cover
    from ..judge.prefs import JudgmentGroup, QueryPreferences

_REF = (
    "trec_eval's m_prefs_*.c (Buckley); Carterette, Bennett, Chickering & Dumais, Here or "
    "There: Preference Judgments for Relevance, ECIR 2008; Carterette & Bennett, Evaluation "
    "Measures for Preference Judgments, SIGIR 2008."
)
_ASSUMES = "\n\nNeeds preference judgments: ``-R prefs`` or ``-R qrels_prefs``."


def _ratio(numerator: int, denominator: int) -> float:
    """``numerator / denominator`` as C computes it with doubles (0/0 is NaN)."""
    if denominator == 0:
        return float("nan") if numerator == 0 else float("inf")
    return numerator / denominator


def _sum(values) -> float:
    """Left-to-right sum from 0.0, as trec_eval adds (Python's sum() may compensate)."""
    total = 0.0
    for v in values:
        total += v
    return total


def _counts(group: JudgmentGroup, which: str) -> tuple[int, int]:
    """(fulfilled, possible) of a group: ``all``, ``ret`` or ``imp``."""
    if which == "ret":
        return group.fulfilled_ret, group.possible_ret
    fulfilled = group.fulfilled_ret + group.fulfilled_imp
    possible = group.possible_ret + group.possible_imp
    if which == "all":
        possible += group.possible_notoccur
    return fulfilled, possible


def _simple(which: str):
    def kernel(query: QueryPreferences) -> float:
        fulfilled = possible = 0
        for group in query.groups:
            f, p = _counts(group, which)
            fulfilled, possible = fulfilled + f, possible + p
        return fulfilled / possible if possible else 0.0

    return kernel


def _per_group(which: str):
    def kernel(query: QueryPreferences) -> float:
        ratios = []
        for group in query.groups:
            f, p = _counts(group, which)
            if p:
                ratios.append(f / p)
        total = _sum(ratios)
        return total / len(query.groups) if total > 0.0 else 0.0

    return kernel


def _pairs(regions: int):
    """Mean over document pairs of the share of groups that the run agrees with; regions: 1
    both retrieved, 2 also one retrieved, 3 also neither (counted as 0)."""

    def kernel(query: QueryPreferences) -> float:
        low, high, forward, backward = query.pair_counts
        njr = query.num_judged_ret
        ratios = forward / (forward + backward)
        both = high < njr
        one = (low < njr) & ~both
        neither = low >= njr
        terms = [ratios[both]]
        if regions >= 2:
            terms.append(ratios[one])
        num_pairs = sum(len(t) for t in terms)
        if regions == 3:
            num_pairs += int(np.count_nonzero(neither))
        total = _sum(np.concatenate(terms).tolist())
        return total / num_pairs if num_pairs else 0.0

    return kernel


def _count(which: str):
    def kernel(query: QueryPreferences) -> float:
        if which == "fulfilled_ret":
            return float(sum(g.fulfilled_ret for g in query.groups))
        index = 0 if which == "fulfilled" else 1
        return float(sum(_counts(g, "all")[index] for g in query.groups))  # integers

    return kernel


# -- prefs_avgjg_Rnonrel ---------------------------------------------------------------------


def _split(better: np.ndarray, worse: np.ndarray, njr: int, retrieved_only: bool):
    """(fulfilled, not fulfilled) over the pairs better x worse (each sorted by rank): a pair
    is fulfilled when its better document is retrieved and ranks above the worse one.  With
    ``retrieved_only`` only retrieved documents take part."""
    if retrieved_only:
        better, worse = better[better < njr], worse[worse < njr]
    above = len(worse) - np.searchsorted(worse, better[better < njr], side="right")
    fulfilled = int(above.sum())
    return fulfilled, len(better) * len(worse) - fulfilled


def _recount_classes(group: JudgmentGroup, njr: int, keep: int, retrieved_only: bool):
    """trec_eval's recount for a group of equivalence classes, the last class (the
    non-relevant documents) cut to its first ``keep`` documents by rank.  As in trec_eval,
    the pairs between classes leave the last class out, and then every class, the last one
    too, is paired with the kept documents."""
    classes = group.classes
    assert classes is not None  # a group of equivalence classes
    kept = classes[-1][:keep]
    fulfilled = other = 0
    for a, better in enumerate(classes):
        for worse in [*classes[a + 1 : -1], kept]:
            f, o = _split(better, worse, njr, retrieved_only)
            fulfilled, other = fulfilled + f, other + o
    return fulfilled, other + fulfilled


def _recount_order(group: JudgmentGroup, njr: int, num_judged: int, retrieved_only: bool):
    """trec_eval's recount for a group with several sub-groups: the non-relevant documents
    after the first ``num_rel`` ones (by docid rank; among the retrieved ones for ``_ret``)
    leave the preference order."""
    levels, first, second = group.levels, group.preferred, group.other
    assert levels is not None and first is not None and second is not None  # several JSGs
    zeros = np.flatnonzero((levels[:njr] if retrieved_only else levels) == 0.0)
    # both variants keep num_rel non-relevant documents (not num_rel_ret), as trec_eval
    end = njr if retrieved_only else num_judged
    first_dropped = zeros[group.num_rel] if len(zeros) > group.num_rel else end
    dropped = (np.arange(num_judged) >= first_dropped) & (levels == 0.0)
    keep = ~dropped[first] & ~dropped[second]
    if retrieved_only:
        keep &= (first < njr) & (second < njr)
    first, second = first[keep], second[keep]
    return int(np.count_nonzero((first < njr) & (first < second))), len(first)


def _rnonrel(retrieved_only: bool):
    def kernel(query: QueryPreferences) -> float:
        njr = query.num_judged_ret
        ratios = []
        for group in query.groups:
            if retrieved_only:
                rel, nonrel = group.num_rel_ret, group.num_nonrel_ret
                fulfilled, possible = group.fulfilled_ret, group.possible_ret
            else:
                rel, nonrel = group.num_rel, group.num_nonrel
                fulfilled, possible = _counts(group, "all")
            if rel >= nonrel:
                # add rel - nonrel imaginary non-relevant documents, below every retrieved
                # relevant one (trec_eval multiplies the possible ones by num_rel in both
                # variants)
                fulfilled += group.num_rel_ret * (rel - nonrel)
                possible += group.num_rel * (rel - nonrel)
            elif group.classes is not None:
                fulfilled, possible = _recount_classes(group, njr, rel, retrieved_only)
            else:
                fulfilled, possible = _recount_order(group, njr, query.num_judged, retrieved_only)
            ratios.append(_ratio(fulfilled, possible))
        total = _sum(ratios)
        # a group with nothing to compare gives NaN, and the query 0 (as in trec_eval)
        return total / len(query.groups) if total > 0.0 else 0.0

    return kernel


def _measure(name: str, kernel, doc: str, value: str = "float") -> Measure:
    return Measure(
        name,
        kernel,
        doc=doc + _ASSUMES,
        value=value,
        aggregate="sum" if value == "int" else "mean",
        family="trec_prefs",
        reference=_REF,
    )


_RET = " Only preferences between two retrieved documents count."
_IMP = (
    " Preferences with exactly one document retrieved count (fulfilled when it is the "
    "preferred one); those with neither retrieved are ignored."
)
_ALL = (
    " A preference with exactly one document retrieved is fulfilled when it is the preferred "
    "one; with neither retrieved it fails."
)

prefs_num_prefs_poss = _measure(
    "prefs_num_prefs_poss",
    _count("possible"),
    "Number of preferences in the judgments (summed over judgment groups), whether or not the "
    "run retrieves the documents. The summary is the sum over queries.",
    value="int",
)
prefs_num_prefs_ful = _measure(
    "prefs_num_prefs_ful",
    _count("fulfilled"),
    "Number of preferences A > B the run fulfils: A ranked above B, or A retrieved and B "
    "not. The summary is the sum over queries.",
    value="int",
)
prefs_num_prefs_ful_ret = _measure(
    "prefs_num_prefs_ful_ret",
    _count("fulfilled_ret"),
    "Number of preferences A > B with both documents retrieved and A ranked above B. The "
    "summary is the sum over queries.",
    value="int",
)

_SIMP = (
    "Fulfilled / possible preferences, over all judgment groups: Σ_g ful_g / Σ_g poss_g "
    "(0 without preferences). A document pair ordered by two groups counts twice; conflicting "
    "groups make 1 unreachable.\n\nUser model: every stated preference is one unit of "
    "satisfaction."
)
_PAIR = (
    "Mean over document pairs of the share of judgment groups whose preference between the "
    "two the run agrees with: mean_{A,B} n(A > B fulfilled) / n(groups ordering A, B). "
    "Equals prefs_simp when no pair is ordered by two groups.\n\nUser model: each pair of "
    "documents matters once, however many users judged it."
)
_AVGJG = (
    "Fulfilled / possible preferences within each judgment group, averaged over the groups "
    "(a group without possible preferences adds 0): (1/G) Σ_g ful_g / poss_g.\n\nUser model: "
    "one judgment group per user; many preferences from one user do not swamp a few from "
    "another."
)
_RNONREL = (
    "prefs_avgjg with the number of non-relevant documents (level 0) of each group set to R, "
    "its number of relevant ones: with N < R non-relevant, R − N imaginary non-relevant "
    "documents are added below every retrieved relevant one (ful += R_ret (R − N), poss += "
    "R (R − N)); with N > R only the first R non-relevant by rank stay and the preferences "
    "are recounted. Addresses topics whose many judged non-relevant documents would swamp "
    "the rest; with one group of two classes it is akin to bpref.\n\ntrec_eval's recount, "
    "kept for identical output: pairs between classes leave out the non-relevant class, "
    "and then every class, the non-relevant one included, is paired with the R kept "
    "non-relevant documents; a group with nothing to compare makes the query's value 0. "
    "Levels below 0 (outside trec_eval's documented format) count as non-relevant in a group "
    "with one sub-group; when the lowest class then holds fewer than R documents, trec_eval "
    "reads past its end (undefined), and rankscope keeps the whole class."
)

prefs_simp = _measure("prefs_simp", _simple("all"), _SIMP + _ALL)
prefs_pair = _measure("prefs_pair", _pairs(3), _PAIR + _ALL)
prefs_avgjg = _measure("prefs_avgjg", _per_group("all"), _AVGJG + _ALL)
prefs_avgjg_Rnonrel = _measure("prefs_avgjg_Rnonrel", _rnonrel(False), _RNONREL + _ALL)
prefs_simp_ret = _measure("prefs_simp_ret", _simple("ret"), _SIMP + _RET)
prefs_pair_ret = _measure("prefs_pair_ret", _pairs(1), _PAIR + _RET)
prefs_avgjg_ret = _measure("prefs_avgjg_ret", _per_group("ret"), _AVGJG + _RET)
prefs_avgjg_Rnonrel_ret = _measure(
    "prefs_avgjg_Rnonrel_ret",
    _rnonrel(True),
    _RNONREL
    + _RET
    + " R and N count retrieved documents; as in trec_eval, the added preferences are still "
    "R (R − N) with R all relevant documents, and the recount keeps the first R non-relevant.",
)
prefs_simp_imp = _measure("prefs_simp_imp", _simple("imp"), _SIMP + _IMP)
prefs_pair_imp = _measure("prefs_pair_imp", _pairs(2), _PAIR + _IMP)
prefs_avgjg_imp = _measure("prefs_avgjg_imp", _per_group("imp"), _AVGJG + _IMP)

#: In trec_eval's order (measures.c).
TREC_PREFS_MEASURES = [
    prefs_num_prefs_poss, prefs_num_prefs_ful, prefs_num_prefs_ful_ret, prefs_simp,
    prefs_pair, prefs_avgjg, prefs_avgjg_Rnonrel, prefs_simp_ret, prefs_pair_ret,
    prefs_avgjg_ret, prefs_avgjg_Rnonrel_ret, prefs_simp_imp, prefs_pair_imp, prefs_avgjg_imp,
]  # fmt: skip
