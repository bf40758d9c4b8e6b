"""User-model measures: cumulated gain at a cutoff (CG, DCG, nDCG with a choice of gain and
discount), expected reciprocal rank (ERR), expected utility with a stopping model (EU) and
pFound.

Each measure describes a user who reads the ranking from the top and collects gain; they
differ in how her attention decays (a discount, a persistence) and whether she stops once
satisfied (a cascade).

Gains: ``gain="linear"`` (the grade) or ``gain="exp"`` (``2^grade - 1``); a ``gains``
dictionary ``{grade: gain}`` (API) replaces the gain of the grades it names.  Negative grades
(pooled but unjudged, as in the TREC Web track's -2 "junk" label) and documents outside the
judgments have gain 0, unless ``gains`` names them.  The ideal ranking orders every judged
document of the query, retrieved or not, by decreasing gain (positive gains only), and is cut
at the same rank k as the ranking.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..errors import UsageError
from ..judge import BEYOND, PAD, Ranked
from .base import REL, IrSpelling, Measure, Param, cutoff_spelling, safe_divide, sequential_sum
from .gains import _discounted, _retrieved, ideal_gains, persistence_weights

CUTOFF = Param("cutoff", int, None, "rank cutoff k (default: the whole ranking)", minimum=1)
GAIN = Param(
    "gain",
    str,
    "linear",
    "gain of grade g: linear (g) or exp (2^g - 1)",
    choices=("linear", "exp"),
)
GAINS = Param("gains", dict, None, "gain of each grade, {grade: gain}, overriding `gain`")
DISCOUNT = Param(
    "discount",
    str,
    "log2",
    "log2: 1/log2(i+1) at rank i; jk: Järvelin–Kekäläinen's 1/max(1, log_b(i))",
    choices=("log2", "jk"),
)
BASE = Param("base", float, 2.0, "base b of the jk discount (ranks below b are not discounted)")

_CUTOFFS = (5, 10, 20)


def _whole_and_at_k(name: str) -> tuple[IrSpelling, IrSpelling]:
    """The two ir_measures spellings of a measure with an optional cutoff: ``Name`` (the whole
    ranking) and ``Name@k``."""
    return IrSpelling(name), IrSpelling(name, cutoff="cutoff")


def _cut(cutoff: int | None) -> int:
    return BEYOND - 1 if cutoff is None else int(cutoff)


# -- gains and discounts ------------------------------------------------------------------------


def _gain_table(r: Ranked, gain: str, gains: dict[int, float] | None) -> dict[int, float]:
    """``{grade: gain}`` for every judged grade of the batch, with the user's overrides."""
    levels = range(r.rel_levels.shape[1])
    table = {g: float(2.0**g - 1.0) if gain == "exp" else float(g) for g in levels}
    if gains:
        table.update(gains)
    return table


def _jk_discount(ranks: np.ndarray, base: float) -> np.ndarray:
    """Järvelin–Kekäläinen's divisor ``max(1, log_b(rank))`` (1 for padding)."""
    if base <= 1:
        raise UsageError(f"jk discount needs a base > 1 (got {base})")
    real = np.where(ranks < BEYOND, ranks, 1).astype(np.float64)
    with np.errstate(divide="ignore"):
        logb = np.log2(real) / np.log2(base)
    return np.maximum(logb, 1.0)


def _discount_terms(values: np.ndarray, ranks: np.ndarray, discount: str, base: float):
    if discount == "log2":
        return _discounted(values, ranks)  # the C library's log2, as trec_eval
    return np.where(values != 0, values / _jk_discount(ranks, base), 0.0)


def _dcg_parts(r, cutoff, gain, gains, discount, base):
    """(DCG@k, ideal DCG@k) per query."""
    k = _cut(cutoff)
    table = _gain_table(r, gain, gains)
    ranks, got = _retrieved(r, table)
    within = (ranks <= k) & (ranks < BEYOND)
    dcg = sequential_sum(_discount_terms(np.where(within, got, 0.0), ranks, discount, base))
    ideal = ideal_gains(r, table)
    ideal = ideal[:, : min(k, ideal.shape[1])]
    positions = np.broadcast_to(np.arange(1, ideal.shape[1] + 1)[None, :], ideal.shape)
    idcg = sequential_sum(_discount_terms(ideal, positions, discount, base))
    return dcg, idcg


def _cg(r: Ranked, cutoff=None, gain="linear", gains=None) -> np.ndarray:
    k = _cut(cutoff)
    ranks, got = _retrieved(r, _gain_table(r, gain, gains))
    return sequential_sum(np.where((ranks <= k) & (ranks < BEYOND), got, 0.0))


def _dcg_k(r: Ranked, cutoff=None, gain="linear", gains=None, discount="log2", base=2.0):
    return _dcg_parts(r, cutoff, gain, gains, discount, base)[0]


def _against_ideal(dcg: np.ndarray, idcg: np.ndarray) -> np.ndarray:
    """DCG ÷ the ideal ranking's DCG; 0 where the ideal gains nothing."""
    return safe_divide(dcg, np.where(idcg > 0, idcg, 0.0))


def _ndcg_k(r: Ranked, cutoff=None, gain="linear", gains=None, discount="log2", base=2.0):
    dcg, idcg = _dcg_parts(r, cutoff, gain, gains, discount, base)
    return _against_ideal(dcg, idcg)


_JK = (
    "Järvelin & Kekäläinen, Cumulated gain-based evaluation of IR techniques, "
    "ACM TOIS 20(4), 2002; Burges et al., Learning to rank using gradient descent, ICML 2005 "
    "(exponential gain)."
)

CG = Measure(
    "cg", _cg, params=(CUTOFF, GAIN, GAINS), trec=cutoff_spelling(_CUTOFFS),
    ir=_whole_and_at_k("CG"), family="user_models", reference=_JK,
    doc="""\
    Cumulated gain at cutoff k: CG@k = sum_{i<=k} gain_i, no discount.

    User model: a user who reads exactly the top k documents, all with the same attention, and
    collects their gain.
    """,
)

_DCG_DOC = (
    "sum_{i<=k} gain_i / d(i), with gain_i = g (gain=linear) or 2^g - 1 (gain=exp) for the "
    "grade g at rank i, and discount d(i) = log2(i + 1) (discount=log2) or Järvelin and "
    "Kekäläinen's original max(1, log_b(i)) (discount=jk, base b: rel_1 + sum_{i>=2} rel_i / "
    "log_2(i) for b = 2; ranks below b are not discounted)."
)

dcg_k = Measure(
    "dcg_k",
    _dcg_k,
    doc=(
        "Discounted cumulated gain at cutoff k, with a choice of gain and discount: DCG@k = "
        + _DCG_DOC
        + "\n\nUser model: a user reading down to rank k whose attention decays with the "
        "logarithm of the rank; the value is the total discounted gain she collects."
    ),
    params=(CUTOFF, GAIN, GAINS, DISCOUNT, BASE),
    trec=cutoff_spelling(_CUTOFFS),
    ir=_whole_and_at_k("DCGk"),
    family="user_models",
    reference=_JK,
)

ndcg_k = Measure(
    "ndcg_k",
    _ndcg_k,
    doc=(
        "Normalised DCG at cutoff k, with a choice of gain and discount: nDCG@k = DCG@k / "
        "ideal DCG@k, DCG@k = "
        + _DCG_DOC
        + " The ideal ranking sorts all judged documents of the query by gain (0 when no "
        "document has positive gain). nDCGk(gain=exp)@k is the TREC Web track's nDCG "
        "(gdeval.pl).\n\n"
        "User model: DCG's user; the value is the share of the best possible discounted "
        "gain she collects."
    ),
    params=(CUTOFF, GAIN, GAINS, DISCOUNT, BASE),
    trec=cutoff_spelling(_CUTOFFS),
    ir=_whole_and_at_k("nDCGk"),
    family="user_models",
    reference=_JK,
)


# -- cascade measures ---------------------------------------------------------------------------


def _exclusive_cumprod(values: np.ndarray) -> np.ndarray:
    """Per row, the product of the values before each column (1 for the first), multiplied
    left to right."""
    out = np.ones_like(values)
    if values.shape[1] > 1:
        out[:, 1:] = np.cumprod(values[:, :-1], axis=1)
    return out


def _err(r: Ranked, cutoff=None, max_grade=4) -> np.ndarray:
    k = _cut(cutoff)
    ranks, grades = r.rank, r.grade
    g = np.clip(np.where(grades > 0, grades, 0), 0, max_grade).astype(np.float64)
    stop = np.where((ranks <= k) & (grades != PAD), (2.0**g - 1.0) / 2.0**max_grade, 0.0)
    reach = _exclusive_cumprod(1.0 - stop)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(stop > 0, reach * stop / ranks, 0.0)
    return sequential_sum(terms)


err = Measure(
    "err", _err, trec=cutoff_spelling(_CUTOFFS),
    ir=_whole_and_at_k("ERR"), family="user_models",
    params=(
        CUTOFF,
        Param("max_grade", int, 4, "highest grade g_max, satisfaction 1 - 2^-g_max", minimum=1),
    ),
    reference="Chapelle, Metzler, Zhang & Grinspan, Expected reciprocal rank for graded "
    "relevance, CIKM 2009.",
    doc="""\
    Expected reciprocal rank at cutoff k: ERR@k = sum_{r<=k} (1/r) R_r prod_{i<r} (1 - R_i),
    with R = (2^g - 1) / 2^g_max the probability that a document of grade g satisfies the user
    (g_max = max_grade, 4 as in the TREC Web track's gdeval.pl; grades above it count as g_max,
    negative grades as 0).

    User model: the cascade user reads from the top and stops at rank r, once satisfied, with
    probability R_r; ERR is the expected value of 1/r at her stopping rank (0 if she never
    stops).
    """,
)


def _dense_grades(r: Ranked, cutoff: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Grade at every rank (negative grades and unknown documents as 0) and a mask of the
    ranks within the ranking and the cutoff."""
    ranks, grades = r.entries(dense=True)
    inside = (grades != PAD) & (ranks <= _cut(cutoff))
    return np.where(inside & (grades > 0), grades, 0), inside


def _per_grade(grades: np.ndarray, table: dict[int, float] | None, default) -> np.ndarray:
    if table is None:
        return default(grades)
    out = np.zeros(grades.shape)
    for level, value in table.items():
        if level >= 0:  # negative grades were mapped to 0 with the unknown documents
            out[grades == level] = value
    return out


def _stopping_sum(
    r: Ranked, cutoff: int | None, table: dict[int, float] | None,
    default: Callable[[np.ndarray], np.ndarray], patience: float, error: str, graded: bool,
) -> np.ndarray:
    """Expected utility at the stopping rank, Σ_r utility_r · stop_r · reach_r, of a user who
    goes on to each next rank with probability ``patience`` and stops after rank r with
    probability ``stop_r`` (reach_r: patience^(r-1) Π_{r'<r} (1 - stop_r')); ranks outside the
    ranking or the cutoff count 0.  ``stop_r`` is ``table``'s value for the grade at rank r
    (``default`` of the grades without a table; `UsageError` ``error`` outside [0, 1]); the
    utility is the grade (``graded``) or 1.  EU and pFound are this sum."""
    grades, inside = _dense_grades(r, cutoff)
    stop = _per_grade(grades, table, default)
    if np.any((stop < 0) | (stop > 1)):
        raise UsageError(error)
    stop = np.where(inside, stop, 0.0)
    reach = persistence_weights(patience, stop.shape[1])[None, :] * _exclusive_cumprod(1.0 - stop)
    utility = grades.astype(np.float64) if graded else 1.0
    return sequential_sum(np.where(inside, utility * stop * reach, 0.0))


def _eu(r: Ranked, phi=None, gamma=0.9, cutoff=None) -> np.ndarray:
    return _stopping_sum(
        r, cutoff, phi, lambda g: np.where(g > 0, 1.0 - 2.0 ** (-g), 0.0), gamma,
        "EU: stopping probabilities phi must lie in [0, 1]", graded=True,
    )  # fmt: skip


eu = Measure(
    "eu", _eu, ir=_whole_and_at_k("EU"), family="user_models",
    params=(
        Param("phi", dict, None, "stopping probability per grade, {grade: phi}"),
        Param("gamma", float, 0.9, "patience: probability of reaching the next rank", minimum=0),
        CUTOFF,
    ),
    reference="Diaz, Offline metrics (lecture slides); cf. Chapelle et al., CIKM 2009 "
    "and Moffat & Zobel, ACM TOIS 27(1), 2008.",
    doc="""\
    Expected utility with a stopping model: EU = sum_r y_r phi(y_r) gamma^(r-1) prod_{r'<r} (1
    - phi(y_r')), with y_r the grade at rank r (negative grades and documents outside the
    judgments: 0), phi(y) the probability that the user stops after an item of grade y
    (parameter phi, {grade: probability}, grades not listed 0; default 1 - 2^-y for y > 0, so
    0.5, 0.75, 0.875, ... and 0 for y = 0) and gamma the patience.

    User model: a user who traverses the ranking in order, reaches each next rank with
    probability gamma, and stops after an item of grade y with probability phi(y); the utility
    is the grade of the item she stops at, EU its expectation.
    """,
)


def _pfound(r: Ranked, p_rel=None, p_break=0.15, cutoff=None) -> np.ndarray:
    error = "pFound: p_rel and p_break must lie in [0, 1]"
    if not 0 <= p_break <= 1:
        raise UsageError(error)
    return _stopping_sum(
        r, cutoff, p_rel, lambda g: np.where(g > 0, 0.4, 0.0), 1.0 - p_break, error, graded=False
    )


pfound = Measure(
    "pfound", _pfound, ir=_whole_and_at_k("pFound"), family="user_models",
    params=(
        Param("p_rel", dict, None, "probability that a document of a grade satisfies"),
        Param("p_break", float, 0.15, "probability of giving up after each document", minimum=0),
        CUTOFF,
    ),
    reference="Segalovich, Machine learning in search quality at Yandex, SIGIR 2010 industry "
    "track; Gulin, Karpovich, Raskovalov & Segalovich, Yandex at ROMIP'2009.",
    doc="""\
    pFound: the probability that the user finds a relevant document, sum_i pLook[i] pRel[i],
    with pLook[1] = 1 and pLook[i] = pLook[i-1] (1 - pRel[i-1]) (1 - pBreak). pRel is given per
    grade (parameter p_rel, {grade: probability}, grades not listed 0; default 0.4 for every
    grade > 0, 0 otherwise); pBreak (default 0.15) is the chance of giving up after any
    document.

    User model: Yandex's user reads from the top, stops when she finds a relevant document
    (probability pRel of its grade) or, after each document, out of fatigue (probability
    pBreak).
    """,
)

# -- time-biased gain -----------------------------------------------------------------------

_SMUCKER = (
    "Smucker & Clarke, Time-based calibration of effectiveness measures, SIGIR 2012 "
    "(constants from their user study, Table 2)."
)


def _tbg(
    r: Ranked,
    halflife=224.0,
    length=0.0,
    summary_time=4.4,
    click_rel=0.64,
    click_nonrel=0.39,
    save_rel=0.77,
    rel=None,
    cutoff=None,
) -> np.ndarray:
    probabilities = {"click_rel": click_rel, "click_nonrel": click_nonrel, "save_rel": save_rel}
    for name, p in probabilities.items():
        if not 0 <= p <= 1:
            raise UsageError(f"TBG: {name} must lie in [0, 1] (got {p})")
    if halflife <= 0:
        raise UsageError(f"TBG: halflife must be positive (got {halflife})")
    ranks, grades = r.entries(dense=True)
    inside = (grades != PAD) & (ranks <= _cut(cutoff))
    relevant = inside & (grades >= r.level(rel))
    words = r.doc_lengths()
    if words is None:
        words = np.full(grades.shape, float(length))
    else:
        words = np.where(np.isnan(words), float(length), words)
    reading = 0.018 * words + 7.8
    spent = np.where(
        inside, summary_time + np.where(relevant, click_rel, click_nonrel) * reading, 0.0
    )
    before = np.cumsum(spent, axis=1) - spent  # time to reach each rank
    decay = np.exp(-before * np.log(2.0) / halflife)
    return sequential_sum(np.where(relevant, click_rel * save_rel * decay, 0.0))


tbg = Measure(
    "tbg", _tbg, ir=_whole_and_at_k("TBG"), family="user_models",
    reference=_SMUCKER,
    params=(
        Param("halflife", float, 224.0, "half-life h of the user's persistence, seconds"),
        Param("length", float, 0.0, "words per document when its length is unknown", minimum=0),
        Param("summary_time", float, 4.4, "seconds to read a summary (T_s)", minimum=0),
        Param("click_rel", float, 0.64, "P(click | relevant)"),
        Param("click_nonrel", float, 0.39, "P(click | not relevant)"),
        Param("save_rel", float, 0.77, "P(save | relevant, clicked)"),
        REL,
        CUTOFF,
    ),
    doc="""\
    Time-biased gain: TBG = sum_k g_k D(T(k)), with g_k = P(click|rel) P(save|rel) = 0.64 x
    0.77 for a relevant document at rank k (0 otherwise), the decay D(t) = exp(-t ln 2 / h) of
    the half-life h = 224 s, and T(k) the expected time to reach rank k: sum over the ranks
    above of the summary time T_s = 4.4 s plus, with probability P(click) (0.64 relevant, 0.39
    otherwise), the time to read the document, T_d(l) = 0.018 l + 7.8 s for l words. Document
    lengths come from the evaluation's `doc_lengths` (API) / `--doc-lengths` (CLI); without
    them, or for documents they do not list, every document has `length` words (default 0: the
    7.8 s intercept).

    User model: a user who scans summaries top-down at a constant pace, clicks and reads some
    documents (longer ones take longer) and whose chance of still being at the task halves
    every h seconds; TBG is the expected number of relevant documents she saves.
    """,
)


# -- grid layouts ------------------------------------------------------------------------------

_GRID = (
    "The row-major grid user follows Xie, Liu, Zhang, Zhou, Ma, Zhang & Ma, Grid-based "
    "evaluation metrics for web image search, WWW 2019 (users examine grids row by row, "
    "with a row-level position bias); RBP: Moffat & Zobel, ACM TOIS 27(1), 2008."
)
WIDTH = Param("width", int, 5, "results per row of the grid", minimum=1)


def _grid_position(ranks: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """0-based (row, column) of each rank, filled row-major."""
    real = np.where(ranks < BEYOND, ranks, 1) - 1
    return real // width, real % width


def _grid_rbp(r: Ranked, width=5, p_row=0.8, p_col=0.9, rel=None) -> np.ndarray:
    if not (0 <= p_row < 1 and 0 <= p_col <= 1):
        raise UsageError("grid RBP: p_row must lie in [0, 1) and p_col in [0, 1]")
    relevant = r.rel(rel)
    row, col = _grid_position(r.rank, width)
    weight = np.power(p_row, row.astype(np.float64)) * np.power(p_col, col.astype(np.float64))
    per_row = width if p_col == 1 else (1.0 - p_col**width) / (1.0 - p_col)
    scale = (1.0 - p_row) / per_row
    return sequential_sum(np.where(relevant, weight, 0.0)) * scale


grid_rbp = Measure(
    "grid_rbp", _grid_rbp, ir=(IrSpelling("gridRBP"),), family="user_models", reference=_GRID,
    params=(
        WIDTH,
        Param("p_row", float, 0.8, "probability of moving on to the next row", minimum=0),
        Param("p_col", float, 0.9, "probability of moving on to the next column", minimum=0),
        REL,
    ),
    doc="""\
    Grid RBP: results fill a grid of `width` columns row by row (rank r at row
    floor((r-1)/width), column (r-1) mod width, both from 0). gridRBP = (1 - p_row) (1 - p_col)
    / (1 - p_col^width) sum_r rel_r p_row^row(r) p_col^col(r) (with p_col = 1 the factor is (1
    - p_row) / width).

    User model: the user traverses the grid row-major: she moves on to the next row with
    probability p_row and, within a row, to the next column with probability p_col; the utility
    of a relevant item does not depend on where she stops. The factor scales an all-relevant,
    endless grid to 1. With width 1 it is RBP(p_row).
    """,
)


def _grid_dcg_parts(r, cutoff, gain, gains, width):
    k = _cut(cutoff)
    table = _gain_table(r, gain, gains)
    ranks, got = _retrieved(r, table)
    within = (ranks <= k) & (ranks < BEYOND)
    row, _ = _grid_position(ranks, width)
    dcg = sequential_sum(np.where(within & (got != 0), got / np.log2(row + 2.0), 0.0))
    ideal = ideal_gains(r, table)
    ideal = ideal[:, : min(k, ideal.shape[1])]
    irow = np.arange(ideal.shape[1]) // width
    idcg = sequential_sum(np.where(ideal != 0, ideal / np.log2(irow + 2.0)[None, :], 0.0))
    return dcg, idcg


def _grid_dcg(r: Ranked, cutoff=None, gain="linear", gains=None, width=5) -> np.ndarray:
    return _grid_dcg_parts(r, cutoff, gain, gains, width)[0]


def _grid_ndcg(r: Ranked, cutoff=None, gain="linear", gains=None, width=5) -> np.ndarray:
    dcg, idcg = _grid_dcg_parts(r, cutoff, gain, gains, width)
    return _against_ideal(dcg, idcg)


_GRID_DCG_DOC = (
    "Grid DCG@k: DCG with a row-level discount, sum_{r<=k} gain_r / log2(row(r) + 2), rank "
    "r in row floor((r-1)/width) (from 0) of a grid filled row-major; gains as CG "
    "(linear or exp). With width 1 it is DCG@k."
)

grid_dcg = Measure(
    "grid_dcg",
    _grid_dcg,
    doc=(
        _GRID_DCG_DOC + "\n\nUser model: a user who takes in a row of results at a glance "
        "and whose attention decays logarithmically from row to row, not from item to item."
    ),
    params=(CUTOFF, GAIN, GAINS, WIDTH),
    ir=_whole_and_at_k("gridDCG"),
    family="user_models",
    reference=_GRID,
)

grid_ndcg = Measure(
    "grid_ndcg", _grid_ndcg, params=(CUTOFF, GAIN, GAINS, WIDTH),
    ir=_whole_and_at_k("gridnDCG"), family="user_models",
    reference=_GRID,
    doc="""\
    Grid nDCG@k: grid DCG@k divided by the grid DCG@k of the ideal ranking (every judged
    document of the query by decreasing gain, laid out in the same grid).

    User model: as grid DCG.
    """,
)

#: In the order they print.
USER_MODEL_MEASURES: list[Measure] = [
    CG, dcg_k, ndcg_k, err, eu, pfound, tbg, grid_rbp, grid_dcg, grid_ndcg
]  # fmt: skip
