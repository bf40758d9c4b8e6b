"""Agreement between assessors: percent agreement, Cohen's kappa (weighted too), Fleiss'
kappa and Krippendorff's alpha.

Arrays in, numbers out.  Labels are given as a matrix of **items × assessors** (one row per
item, one column per assessor; for two assessors, ``cohen_kappa`` takes their two columns),
of numbers or strings; a missing label is ``NaN`` or ``None``.

Categories are the distinct labels present, sorted (numbers by value, strings
alphabetically) unless ``categories=`` gives the scale in its order (then a label outside it
is an error); ordinal and weighted statistics use that order.

Degenerate cases, the same in every function:

* **One category only** (every label the same): chance agreement is total, and kappa and
  alpha are 0/0: ``NaN`` (not 1: the labels show no variation to agree on; scikit-learn
  and Krippendorff (2011) say the same).  Percent agreement is 1.
* **Perfect agreement** over two or more categories: 1 for every statistic.
* **Fewer than 2 labels for an item**: the item is not pairable, and alpha and percent
  agreement leave it out; Cohen's kappa leaves out an item one of the two did not label;
  Fleiss' kappa needs the same number (at least 2) of labels for every item and is an error
  naming the first item that has another number (use Krippendorff's alpha for missing
  labels).
* **Nothing to compare** (no item with 2 labels, or none labelled by both assessors): an
  error (`rankscope.errors.UsageError`).

References: J. Cohen, "A coefficient of agreement for nominal scales", Educational and
Psychological Measurement 20(1), 1960; J. Cohen, "Weighted kappa", Psychological Bulletin
70(4), 1968; J. L. Fleiss, "Measuring nominal scale agreement among many raters",
Psychological Bulletin 76(5), 1971; K. Krippendorff, "Computing Krippendorff's
alpha-reliability", 2011, and *Content Analysis*, 2nd ed., 2004, ch. 11.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import UsageError

#: The weights of Cohen's weighted kappa: the disagreement of categories i and j (their
#: positions on the scale).
KAPPA_WEIGHTS = (None, "linear", "quadratic")
#: Krippendorff's levels of measurement (the difference function δ²).
ALPHA_LEVELS = ("nominal", "ordinal", "interval", "ratio")

Labels = Any  # array-like: a matrix (items × assessors) or a vector, numbers or strings


def _missing(value: object) -> bool:
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return True
    return isinstance(value, float | np.floating) and math.isnan(value)


def _coded(
    labels: Labels, categories: Sequence[Any] | None, what: str
) -> tuple[np.ndarray, np.ndarray]:
    """The labels as codes (int64, -1 for a missing label) into the categories, and the
    categories (sorted, or ``categories`` in its order).  The one validator of this module."""
    array = np.asarray(labels) if not isinstance(labels, np.ndarray) else labels
    if array.dtype.kind in "biuf":
        values = array.astype(np.float64)
        missing = np.isnan(values)
        if np.isinf(values).any():
            raise UsageError(f"{what}: labels must be finite (missing labels are NaN)")
        present: np.ndarray = values[~missing]
        numeric = True
    elif array.dtype.kind in "OUS":
        flat = array.reshape(-1).tolist()
        missing = np.fromiter((_missing(v) for v in flat), dtype=bool, count=len(flat))
        missing = missing.reshape(array.shape)
        kept = [v for v, m in zip(flat, missing.reshape(-1).tolist(), strict=True) if not m]
        numeric = all(isinstance(v, int | float | np.number) for v in kept) and kept != []
        if numeric:
            return _coded(np.where(missing, np.nan, array).astype(np.float64), categories, what)
        if any(isinstance(v, int | float | np.number) for v in kept):
            raise UsageError(f"{what}: labels mix numbers and other values")
        present = np.asarray(kept, dtype=object)
        values = array
    else:
        raise UsageError(f"{what}: labels must be numbers or strings, got {array.dtype}")
    try:
        if categories is None:
            scale = np.unique(present) if numeric else np.asarray(sorted(set(kept)), dtype=object)
        else:
            scale = np.asarray(list(categories), dtype=np.float64 if numeric else object)
    except (TypeError, ValueError) as exc:  # strings among numbers, unorderable labels
        raise UsageError(f"{what}: the labels (or categories) cannot be ordered: {exc}") from None
    if categories is not None:
        if len(set(scale.tolist())) != len(scale):
            raise UsageError(f"{what}: categories are repeated: {list(categories)!r}")
        unknown = sorted(set(present.tolist()) - set(scale.tolist()), key=str)
        if unknown:
            label = unknown[0]
            if isinstance(label, float) and label.is_integer():
                label = int(label)  # numbers are compared as floats: show 3, not 3.0
            raise UsageError(
                f"{what}: label {label!r} is not among the categories {list(categories)!r}"
            )
    codes = np.full(array.shape, -1, dtype=np.int64)
    if numeric:
        order = np.argsort(scale, kind="stable")
        codes[~missing] = order[np.searchsorted(scale[order], present)]
    else:
        index = {c: i for i, c in enumerate(scale.tolist())}
        codes[~missing] = [index[v] for v in present.tolist()]
    return codes, scale


def _matrix(labels: Labels, categories: Sequence[Any] | None, what: str):
    codes, scale = _coded(labels, categories, what)
    if codes.ndim != 2:
        raise UsageError(
            f"{what} takes a matrix of items × assessors, got {codes.ndim} dimension(s)"
        )
    if codes.shape[0] == 0:
        raise UsageError(f"{what}: no items")
    return codes, scale


def _counts(codes: np.ndarray, size: int) -> np.ndarray:
    """items × categories: how many labels of each category each item has."""
    items = np.repeat(np.arange(codes.shape[0]), codes.shape[1])
    flat = codes.reshape(-1)
    kept = flat >= 0
    counts = np.zeros((codes.shape[0], max(size, 1)), dtype=np.float64)
    np.add.at(counts, (items[kept], flat[kept]), 1.0)
    return counts


def _pairable_counts(codes: np.ndarray, size: int, what: str) -> tuple[np.ndarray, np.ndarray]:
    """The items with 2 labels or more (the pairable ones): each one's `_counts` and its
    number of labels; none is a `UsageError` naming ``what``."""
    counts = _counts(codes, size)
    m = counts.sum(axis=1)
    pairable = m >= 2
    if not pairable.any():
        raise UsageError(f"{what}: no item has 2 labels")
    return counts[pairable], m[pairable]


def percent_agreement(labels: Labels) -> float:
    """The share of agreeing pairs of labels, averaged over the items (Fleiss' P̄).

    ``labels``: items × assessors, ``NaN``/``None`` for a missing label.  For an item with
    m ≥ 2 labels, n_c of them in category c, its agreement is Σ_c n_c (n_c − 1) / (m (m − 1)),
    the share of ordered pairs of its labels that agree; items with fewer than 2 labels are
    left out.  For two assessors, the share of items they label alike.

    >>> percent_agreement([[1, 1], [0, 1], [0, 0], [2, 2]])
    0.75
    """
    codes, scale = _matrix(labels, None, "percent_agreement")
    counts, m = _pairable_counts(codes, len(scale), "percent_agreement")
    per_item = (counts * (counts - 1)).sum(axis=1) / (m * (m - 1))
    return float(per_item.mean())


def cohen_kappa(
    a: Labels,
    b: Labels,
    weights: str | None = None,
    categories: Sequence[Any] | None = None,
) -> float:
    """Cohen's kappa between two assessors (weighted, Cohen 1968, with ``weights``).

    ``a`` and ``b``: each assessor's label of the same items (numbers or strings; ``NaN`` or
    ``None`` where an assessor gave none: such items are left out).  With O the proportions
    of items labelled i by ``a`` and j by ``b`` over the categories (sorted, or
    ``categories`` in its order), E = the product of their marginals (the agreement expected
    by chance) and w_ij the disagreement weight — 1 for i ≠ j (``weights=None``), |i − j|
    (``"linear"``) or (i − j)² (``"quadratic"``), i and j positions on the scale —

        κ = 1 − Σ w_ij O_ij / Σ w_ij E_ij

    (unweighted: (p_o − p_e) / (1 − p_e)).  1 for perfect agreement, 0 for agreement at
    chance level; ``NaN`` when chance agreement is total (one category only).  Equals
    scikit-learn's ``cohen_kappa_score(a, b, weights=..., labels=categories)``.

    >>> round(cohen_kappa([1, 1, 0, 0, 1], [1, 0, 0, 0, 1]), 4)
    0.6154
    """
    if weights not in KAPPA_WEIGHTS:
        raise UsageError(f"unknown weights {weights!r}: choose None, 'linear' or 'quadratic'")
    first, second = np.asarray(a), np.asarray(b)
    if first.dtype.kind not in "biuf" or second.dtype.kind not in "biuf":
        first, second = np.asarray(a, dtype=object), np.asarray(b, dtype=object)
    if first.ndim != 1 or second.ndim != 1:
        raise UsageError("cohen_kappa takes two vectors of labels (one per assessor)")
    if len(first) != len(second):
        raise UsageError(
            f"cohen_kappa: the assessors label different numbers of items "
            f"({len(first)} and {len(second)})"
        )
    if len(first) == 0:
        raise UsageError("cohen_kappa: no items")
    numeric = first.dtype.kind in "biuf"
    pair = np.empty((len(first), 2), dtype=np.float64 if numeric else object)
    pair[:, 0], pair[:, 1] = first, second
    codes, scale = _coded(pair, categories, "cohen_kappa")
    codes = codes[(codes >= 0).all(axis=1)]
    if len(codes) == 0:
        raise UsageError("cohen_kappa: no item is labelled by both assessors")
    size = len(scale)
    observed = np.zeros((size, size), dtype=np.float64)
    np.add.at(observed, (codes[:, 0], codes[:, 1]), 1.0)
    observed /= len(codes)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    position = np.arange(size, dtype=np.float64)
    distance = np.abs(position[:, None] - position[None, :])
    weight = {None: (distance > 0).astype(np.float64), "linear": distance}.get(weights, distance**2)
    chance = float((weight * expected).sum())
    if chance == 0:
        return math.nan
    return 1.0 - float((weight * observed).sum()) / chance


def fleiss_kappa(labels: Labels) -> float:
    """Fleiss' kappa: agreement among many assessors (Fleiss 1971).

    ``labels``: items × assessors, every item with the same number m ≥ 2 of labels (the
    assessors may differ from item to item; a missing label, ``NaN``/``None``, is allowed
    as long as every item has m).  With n_ic the labels of item i in category c, N items:

        P_i = (Σ_c n_ic² − m) / (m (m − 1)),  P̄ = mean P_i,
        p_c = Σ_i n_ic / (N m),  P̄_e = Σ_c p_c²,  κ = (P̄ − P̄_e) / (1 − P̄_e)

    ``NaN`` when P̄_e = 1 (one category only).  An item with another number of labels is
    an error naming it (Fleiss' kappa is not defined for it: use `krippendorff_alpha`).
    Equals statsmodels' ``fleiss_kappa(aggregate_raters(labels)[0])``.

    >>> round(fleiss_kappa([[1, 1, 1], [0, 0, 1], [0, 0, 0], [1, 0, 1]]), 4)
    0.3333
    """
    codes, scale = _matrix(labels, None, "fleiss_kappa")
    counts = _counts(codes, len(scale))
    m = counts.sum(axis=1)
    other = np.flatnonzero(m != m[0])
    if len(other):
        i = int(other[0])
        raise UsageError(
            f"fleiss_kappa needs the same number of labels for every item: item 0 has "
            f"{int(m[0])}, item {i} has {int(m[i])} (for missing labels, use "
            "krippendorff_alpha)"
        )
    raters = float(m[0])
    if raters < 2:
        raise UsageError(f"fleiss_kappa needs at least 2 labels per item, got {int(raters)}")
    observed = float(((counts * counts).sum(axis=1) - raters).mean() / (raters * (raters - 1)))
    shares = counts.sum(axis=0) / counts.sum()
    chance = float((shares * shares).sum())
    if chance >= 1.0:
        return math.nan
    return (observed - chance) / (1.0 - chance)


def krippendorff_alpha(
    labels: Labels, level: str = "nominal", categories: Sequence[Any] | None = None
) -> float:
    """Krippendorff's alpha, with missing labels (Krippendorff 2004, 2011).

    ``labels``: items (units) × assessors (coders), ``NaN``/``None`` for a missing label;
    items with fewer than 2 labels are not pairable and left out.  From the coincidence
    matrix o_ck = Σ_u (number of ordered pairs of labels (c, k) in unit u) / (m_u − 1), its
    marginals n_c = Σ_k o_ck and n = Σ_c n_c (the pairable labels):

        α = 1 − D_o / D_e = 1 − (n − 1) Σ_ck o_ck δ²_ck / Σ_ck n_c n_k δ²_ck

    with δ² by ``level``: ``nominal`` 1 for c ≠ k; ``ordinal`` (Σ_{g=c..k} n_g − (n_c +
    n_k)/2)², the categories in order (sorted, or ``categories`` in its order);
    ``interval`` (c − k)²; ``ratio`` ((c − k)/(c + k))² (non-negative values).  1 for
    perfect agreement, 0 at chance, below 0 for systematic disagreement; ``NaN`` when
    D_e = 0 (one value only).  Equals the ``krippendorff`` package's ``alpha`` on the
    transposed matrix.

    >>> round(krippendorff_alpha([[1, 1], [0, 1], [0, 0], [1, None]]), 4)
    0.4444
    """
    if level not in ALPHA_LEVELS:
        raise UsageError(f"unknown level {level!r}: choose {', '.join(ALPHA_LEVELS)}")
    codes, scale = _matrix(labels, categories, "krippendorff_alpha")
    if level in ("interval", "ratio"):
        if scale.dtype.kind != "f":
            raise UsageError(f"krippendorff_alpha: the {level} level needs numeric labels")
        if level == "ratio" and (scale < 0).any():
            raise UsageError("krippendorff_alpha: the ratio level needs non-negative labels")
    counts, m = _pairable_counts(codes, len(scale), "krippendorff_alpha")
    per_pair = 1.0 / (m - 1.0)
    coincidence = (counts * per_pair[:, None]).T @ counts - np.diag(
        (counts * per_pair[:, None]).sum(axis=0)
    )
    marginal = coincidence.sum(axis=1)
    total = float(marginal.sum())
    delta = _difference(level, scale, marginal)
    expected = float((np.outer(marginal, marginal) * delta).sum())
    if expected == 0:
        return math.nan
    observed = float((coincidence * delta).sum())
    return 1.0 - (total - 1.0) * observed / expected


def _difference(level: str, scale: np.ndarray, marginal: np.ndarray) -> np.ndarray:
    """δ²_ck, categories × categories, at ``level``."""
    size = len(scale)
    if level == "nominal":
        return 1.0 - np.eye(size)
    if level == "ordinal":
        upto = np.cumsum(marginal)  # Σ_{g ≤ k} n_g
        low = np.minimum.outer(np.arange(size), np.arange(size))
        high = np.maximum.outer(np.arange(size), np.arange(size))
        between = upto[high] - upto[low] + marginal[low]  # Σ_{g = low..high} n_g
        return (between - (marginal[:, None] + marginal[None, :]) / 2.0) ** 2
    values = scale.astype(np.float64)
    difference = values[:, None] - values[None, :]
    if level == "interval":
        return difference**2
    total = values[:, None] + values[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(total == 0, 0.0, difference / np.where(total == 0, 1.0, total))
    return ratio**2
