"""Score normalisations, per run and per query, before a score-based fusion: each maps the
scores ``s`` a run gives the ``n`` documents it ranks for a query (ranks ``1..n``) to new
scores, as ranx defines them (a denominator is floored at 1e-9, so that a query whose
scores are all equal normalises to zeros rather than dividing by zero)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import UsageError

#: The floor of a denominator (ranx's): equal scores normalise to 0, not to NaN.
FLOOR = 1e-9


@dataclass(frozen=True)
class Normalisation:
    """A score normalisation: its name, formula (for the documentation) and function
    ``(scores, ranks, group, num_groups) -> normalised scores`` over one run's rows;
    ``non_negative``: it means something only for scores >= 0 (``max``: dividing by a
    negative or floored maximum scales a query by 1e9 or reverses it), so a run with a
    negative score is refused (`fusion.fuse.normalised`)."""

    name: str
    formula: str
    doc: str
    function: Callable[[np.ndarray, np.ndarray, np.ndarray, int], np.ndarray]
    non_negative: bool = False


def _extreme(values: np.ndarray, group: np.ndarray, n: int, ufunc: np.ufunc) -> np.ndarray:
    out = np.full(n, np.inf if ufunc is np.minimum else -np.inf)
    ufunc.at(out, group, values)
    return out


def _count(group: np.ndarray, n: int) -> np.ndarray:
    return np.bincount(group, minlength=n).astype(np.float64)


def _none(s: np.ndarray, ranks: np.ndarray, g: np.ndarray, n: int) -> np.ndarray:
    return s.astype(np.float64, copy=True)


def _min_max(s: np.ndarray, ranks: np.ndarray, g: np.ndarray, n: int) -> np.ndarray:
    low, high = _extreme(s, g, n, np.minimum), _extreme(s, g, n, np.maximum)
    return (s - low[g]) / np.maximum(high - low, FLOOR)[g]


def _max(s: np.ndarray, ranks: np.ndarray, g: np.ndarray, n: int) -> np.ndarray:
    return s / np.maximum(_extreme(s, g, n, np.maximum), FLOOR)[g]


def _sum(s: np.ndarray, ranks: np.ndarray, g: np.ndarray, n: int) -> np.ndarray:
    low = _extreme(s, g, n, np.minimum)
    shifted = s - low[g]
    return shifted / np.maximum(np.bincount(g, shifted, minlength=n), FLOOR)[g]


def _zscore(s: np.ndarray, ranks: np.ndarray, g: np.ndarray, n: int) -> np.ndarray:
    count = np.maximum(_count(g, n), 1)
    mean = np.bincount(g, s, minlength=n) / count
    centred = s - mean[g]
    std = np.sqrt(np.bincount(g, centred * centred, minlength=n) / count)
    return centred / np.maximum(std, FLOOR)[g]


def _rank(s: np.ndarray, ranks: np.ndarray, g: np.ndarray, n: int) -> np.ndarray:
    return 1.0 - (ranks - 1) / _count(g, n)[g]


NORMALISATIONS: dict[str, Normalisation] = {
    n.name: n
    for n in (
        Normalisation("none", "s", "the scores as they are", _none),
        Normalisation(
            "min-max", "(s - min s) / (max s - min s)",
            "min-max (Lee 1997): the query's best document 1, its worst 0", _min_max,
        ),
        Normalisation(
            "max", "s / max s",
            "divided by the query's highest score (scores >= 0 only: a run with a negative "
            "score is refused)", _max, non_negative=True,
        ),
        Normalisation(
            "sum", "(s - min s) / Σ (s - min s)",
            "shifted to start at 0 and divided by their sum (Montague & Aslam 2001): the "
            "query's scores sum to 1", _sum,
        ),
        Normalisation(
            "zscore", "(s - mean s) / std s",
            "z-score (Montague & Aslam 2001's ZMUV, zero mean and unit variance; the "
            "population standard deviation, as ranx's zmuv)", _zscore,
        ),
        Normalisation(
            "rank", "1 - (rank - 1) / n",
            "rank-based: the first document 1, the last 1/n (the scores' order only)", _rank,
        ),
    )
}  # fmt: skip

#: Other names users know (ranx's).
ALIASES = {"zmuv": "zscore", "min_max": "min-max", "minmax": "min-max", "z-score": "zscore"}


def normalisation(name: str | None) -> Normalisation:
    """The normalisation called ``name`` (None: ``none``); `UsageError` listing the names
    otherwise."""
    key = "none" if name is None else ALIASES.get(name, name)
    found = NORMALISATIONS.get(key)
    if found is None:
        raise UsageError(
            f"unknown score normalisation {name!r}; choose one of {', '.join(NORMALISATIONS)}",
            cli=f"unknown --norm {name!r}; choose one of {', '.join(NORMALISATIONS)}",
        )
    return found
