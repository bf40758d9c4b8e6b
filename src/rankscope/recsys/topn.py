"""Top-N accuracy: the top k of each user's list against the user's relevant test items.

A test item is relevant when its rating is at least the threshold (every test interaction,
for logs without ratings).  The test interactions are the judgments (user = query, item =
document, grade 1 or 0) and the lists a run, so each value below is the trec_eval-exact
kernel of the measure named, computed on the top k; nothing is re-implemented here.

Policies (see docs/recsys.md):

* A list shorter than k, or empty (a test user without recommendations), is not padded:
  the missing ranks count as non-relevant (P@k still divides by k).
* A user without relevant test items has no value: left out of the mean (default,
  ``no_relevant="exclude"``), or 0 with ``no_relevant="zero"``; a warning says how many.
* A recommended item from the user's training data counts like any other item: relevant
  only if it is also a relevant test item (``seen="drop"`` removes such items before the
  cutoff).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..measures import parse_measures
from ..measures.base import IrSpelling, Param, safe_divide
from ..table import evaluate_judged
from .base import Context, K, RecsysKernel, RecsysMeasure, Values, user_mean


def kernel_values(ctx: Context, name: str, k: int) -> np.ndarray:
    """Per-user values of rankscope's measure ``name`` (ir_measures spelling) on the top k."""

    def make():
        request = parse_measures([name])[0]
        return evaluate_judged(ctx.judged(k), [request], complete=True).values[0]

    return ctx.cached(("kernel", name, k), make)


def _topn(ctx: Context, values: np.ndarray) -> Values:
    return user_mean(ctx.relevance_policy(values))


def _precision(ctx: Context, k: int) -> Values:
    return _topn(ctx, kernel_values(ctx, f"P@{k}", k))


def _recall(ctx: Context, k: int) -> Values:
    return _topn(ctx, kernel_values(ctx, f"R@{k}", k))


def _f1(ctx: Context, k: int) -> Values:
    p = kernel_values(ctx, f"P@{k}", k)
    r = kernel_values(ctx, f"R@{k}", k)
    return _topn(ctx, safe_divide(2 * p * r, p + r))


def _hit_rate(ctx: Context, k: int) -> Values:
    return _topn(ctx, kernel_values(ctx, f"Success@{k}", k))


def _mrr(ctx: Context, k: int) -> Values:
    return _topn(ctx, kernel_values(ctx, "RR", k))


def _map(ctx: Context, k: int, denominator: str = "R") -> Values:
    ap = kernel_values(ctx, f"AP@{k}", k)
    if denominator == "min":
        big_r = ctx.num_relevant.astype(np.float64)
        ap = ap * safe_divide(big_r, np.minimum(big_r, k))
    return _topn(ctx, ap)


def _ndcg(ctx: Context, k: int) -> Values:
    return _topn(ctx, kernel_values(ctx, f"nDCG@{k}", k))


def _spell(*names: str) -> tuple[IrSpelling, ...]:
    return tuple(s for n in names for s in (IrSpelling(n, cutoff="k"), IrSpelling(n)))


_REL = "R = the user's relevant test items, rel(i) = 1 if the item at rank i is relevant"
_TREC = "Computed by rankscope's trec_eval-exact kernel"

def _measure(
    name: str, kernel: RecsysKernel, names: tuple[str, ...], **fields: Any
) -> RecsysMeasure:
    """A top-N accuracy measure: cutoff k, relevance from the test ratings, the kernel of
    the same name in rankscope.measures."""
    fields.setdefault("params", (K,))
    return RecsysMeasure(
        name, kernel, ir=_spell(*names), kind="topn", relevance=True, **fields
    )


Precision = _measure(
    "P", _precision, ("P", "Precision"),
    reference="Herlocker et al., ACM TOIS 2004; Cremonesi, Koren & Turrin, Performance of "
        "recommender algorithms on top-N recommendation tasks, RecSys 2010.",
    doc=f"""\
    Precision at k: P@k = |top-k ∩ relevant| / k.

    Meaning: the share of the k recommendations the user would like; the user looks at all k. A
    list shorter than k is penalised (missing ranks are not relevant). {_TREC} (P@k).
    """,
)

Recall = _measure(
    "Recall", _recall, ("Recall", "R"),
    reference="Cremonesi, Koren & Turrin, RecSys 2010; Herlocker et al., ACM TOIS 2004.",
    doc=f"""\
    Recall at k: Recall@k = |top-k ∩ relevant| / R, {_REL}.

    Meaning: the share of what the user likes that the list finds. The denominator is R
    (trec_eval, RecBole); some libraries use min(R, k) so that 1 is reachable when R > k.
    {_TREC} (R@k).
    """,
)

F1 = _measure(
    "F1", _f1, ("F1",),
    reference="van Rijsbergen, Information Retrieval, 1979; Herlocker et al., ACM TOIS 2004.",
    doc="""\
    F1 at k: the harmonic mean of P@k and Recall@k per user, 2·P·R / (P + R) (0 when both are
    0), then averaged over users (not the F1 of the mean P and R).

    Meaning: one number balancing precision and recall of the list.
    """,
)

HitRate = _measure(
    "HitRate", _hit_rate, ("HitRate", "HR", "Success"),
    reference="Deshpande & Karypis, Item-based top-N recommendation algorithms, ACM TOIS 2004.",
    doc=f"""\
    Hit rate at k: 1 if at least one relevant item is in the top k, else 0; the mean is the
    share of users with a hit.

    Meaning: the user is satisfied by a single good recommendation. {_TREC} (Success@k).
    """,
)

MRR = _measure(
    "MRR", _mrr, ("MRR", "RR"),
    reference="Voorhees, The TREC-8 question answering track report, TREC 1999.",
    doc=f"""\
    Reciprocal rank at k: 1 / (rank of the first relevant item in the top k), 0 if there is
    none; the mean over users is MRR@k.

    Meaning: the user reads down the list and stops at the first good item; the value is the
    inverse of the effort. {_TREC} (RR on the top k).
    """,
)

MAP = _measure(
    "MAP", _map, ("MAP", "AP"),
    reference="Buckley & Voorhees, Evaluating evaluation measure stability, SIGIR 2000; "
        "Cremonesi et al., RecSys 2010.",
    params=(
        K,
        Param(
            "denominator",
            str,
            "R",
            "R: all relevant test items of the user (default); min: min(R, k)",
            choices=("R", "min"),
        ),
    ),
    doc=f"""\
    Average precision at k: AP@k = (1/D) Σ_{{i<=k}} rel(i)·P@i, with D = R (default,
    trec_eval's map_cut) or D = min(R, k) (denominator=min, as RecBole and the Kaggle apk);
    {_REL}. The mean over users is MAP@k.

    Meaning: precision read at each relevant item the user reaches, so relevant items near the
    top count more. {_TREC} (AP@k).
    """,
)

NDCG = _measure(
    "nDCG", _ndcg, ("nDCG", "NDCG"),
    reference="Järvelin & Kekäläinen, Cumulated gain-based evaluation of IR techniques, ACM TOIS "
        "20(4), 2002.",
    doc=f"""\
    Normalised discounted cumulative gain at k: DCG@k / ideal DCG@k with DCG@k = Σ_{{i<=k}} g_i
    / log2(i + 1), the gain g_i = 1 for a relevant item (relevance=binary, default) or its
    rating (relevance=graded), and the ideal ranking of all the user's test items by gain.

    Meaning: a user who reads down the list with decreasing attention; 1 for the best possible
    list. {_TREC} (nDCG@k, trec_eval's ndcg_cut).
    """,
)

TOPN_MEASURES = [Precision, Recall, F1, HitRate, MRR, MAP, NDCG]
