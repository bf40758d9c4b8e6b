"""Multiple-comparison corrections of p-values: Bonferroni, Holm, Benjamini–Hochberg.

Each function takes an array of p-values of any shape, treats all of its entries as one
family of ``m`` hypotheses and returns the adjusted p-values in the same shape, so that
rejecting the hypotheses whose adjusted p-value is ``<= alpha`` is the corresponding
procedure at level ``alpha``.  With ``p_(1) <= ... <= p_(m)`` the sorted p-values:

* **Bonferroni** (family-wise error): ``min(1, m p_i)``.
* **Holm** (1979; step-down, family-wise error, uniformly more powerful than Bonferroni):
  ``p~_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))``.
* **Benjamini–Hochberg** (1995; step-up, false discovery rate under independence or
  positive dependence): ``p~_(i) = min_{j >= i} min(1, m p_(j) / j)``.

The running maximum (Holm) and minimum (BH) make the adjusted values monotone in the raw
ones, as in R's ``p.adjust`` and statsmodels' ``multipletests``, whose outputs these match.

NaN entries (a test that could not be computed) are not part of the family: they stay NaN
and ``m`` counts the other entries.  Ties keep equal adjusted values.

>>> holm([0.01, 0.04, 0.03, 0.005]).tolist()
[0.03, 0.06, 0.06, 0.02]
>>> benjamini_hochberg([0.01, 0.04, 0.03, 0.005]).tolist()
[0.02, 0.04, 0.04, 0.02]

References: Holm, "A simple sequentially rejective multiple test procedure", Scand. J.
Statist. 6 (1979); Benjamini & Hochberg, "Controlling the false discovery rate", JRSS B 57
(1995).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from ..errors import UsageError

__all__ = [
    "ALIASES", "CORRECTIONS", "adjust", "benjamini_hochberg", "bonferroni", "correction_named",
    "holm",
]


def _family(p: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The p-values as float64, the flat positions of the non-NaN ones and their values."""
    values = np.array(p, dtype=np.float64)  # a copy: the result is written into it
    flat = values.reshape(-1)
    present = np.flatnonzero(~np.isnan(flat))
    family = flat[present]
    if family.size and (family.min() < 0.0 or family.max() > 1.0):
        raise UsageError("p-values must lie in [0, 1] (or be NaN)")
    return values, present, family


def bonferroni(p: ArrayLike) -> np.ndarray:
    """Bonferroni-adjusted p-values: ``min(1, m p_i)``, ``m`` the number of non-NaN p."""
    values, present, family = _family(p)
    values.reshape(-1)[present] = np.minimum(1.0, family * family.size)
    return values


def holm(p: ArrayLike) -> np.ndarray:
    """Holm's step-down adjusted p-values: ``max_{j<=i} min(1, (m-j+1) p_(j))``."""
    values, present, family = _family(p)
    m = family.size
    order = np.argsort(family, kind="stable")
    scaled = np.minimum(1.0, family[order] * (m - np.arange(m)))
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(scaled)
    values.reshape(-1)[present] = adjusted
    return values


def benjamini_hochberg(p: ArrayLike) -> np.ndarray:
    """Benjamini–Hochberg step-up adjusted p-values: ``min_{j>=i} min(1, m p_(j) / j)``."""
    values, present, family = _family(p)
    m = family.size
    order = np.argsort(family, kind="stable")
    scaled = np.minimum(1.0, family[order] * m / np.arange(1, m + 1))
    adjusted = np.empty(m)
    adjusted[order] = np.minimum.accumulate(scaled[::-1])[::-1]
    values.reshape(-1)[present] = adjusted
    return values


#: The corrections of a family of p-values, by canonical name: every ``correction=`` of
#: rankscope (and every ``--correction``) takes these names or an alias; ``none`` leaves the
#: p-values as they are.
CORRECTIONS: dict[str, Callable[[ArrayLike], np.ndarray] | None] = {
    "holm": holm,
    "bonferroni": bonferroni,
    "bh": benjamini_hochberg,
    "none": None,
}
#: Other spellings of the same corrections (statsmodels' and PyTerrier's ``fdr_bh``).
ALIASES = {"benjamini-hochberg": "bh", "fdr_bh": "bh"}


def correction_named(method: str | None) -> str:
    """The canonical name of the correction ``method`` (an alias, any case; None is
    ``"none"``); `UsageError` for an unknown one."""
    if method is None:
        return "none"
    name = ALIASES.get(method.lower(), method.lower())
    if name not in CORRECTIONS:
        raise UsageError(
            f"unknown correction {method!r}: choose {', '.join(CORRECTIONS)}",
            cli=f"--correction {method}: choose {', '.join(CORRECTIONS)}",
        )
    return name


def adjust(p: ArrayLike, method: str | None) -> np.ndarray:
    """Adjusted p-values by ``method``: ``"bonferroni"``, ``"holm"``, ``"bh"`` (aliases
    ``"benjamini-hochberg"``, ``"fdr_bh"``), or ``None``/``"none"`` for a float copy of
    ``p`` unchanged."""
    function = CORRECTIONS[correction_named(method)]
    return _family(p)[0] if function is None else function(p)
