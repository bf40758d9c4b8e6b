"""The outcome of an interleaving experiment — one type, `InterleavingOutcomes` — and its
uniform-p(k) variant.

Per impression: the credits h_a, h_b and the outcome sgn(h_a − h_b) (+1 a wins, −1 b wins,
0 a tie; a marginalised probabilistic outcome is its expectation, in [−1, 1], and counts as
a win when > 0).  Totals: wins, ties, losses; the win rate wins / (wins + losses)
(impressions without a decision left out); the preference, the mean outcome over all
impressions, in [−1, 1] (Chapelle et al.'s Δ_AB = (wins + ties/2)/impressions − 1/2 is half
of it for the discrete methods); and the two-sided exact sign test of H0: P(a wins |
decided) = 1/2 (`rankscope.interleaving.power.sign_test`, ties left out).

The uniform-p(k) variant (Diaz & Ferraro 2022, §7)
--------------------------------------------------
Diaz & Ferraro write the interleaving preference as I = E_k[sgn(ν_k(a) − ν_k(b))], where the
cutoff k is set by the position of the last click and p(k) comes from the users: skewed to
the top of the list, so that differences deeper down are under-weighted, and suggest that a
more uniform p(k) could make interleaving more sensitive.  `uniform_depth` re-weights the
impressions so that the last-click depths are uniform: with p̂(k) the share of clicked
impressions whose last click is at position k and K the set of depths observed,

    w_i = (1/|K|) / p̂(k_i),    I_u = (1/n_c) Σ_i w_i o_i = (1/|K|) Σ_{k ∈ K} ō_k,

the average over the observed depths of the mean outcome at each depth (n_c: impressions
with a click; impressions without one are ties under any p(k)).  Its test is the sign-flip
randomisation test of T = Σ w_i o_i (under H0 each outcome is as likely to be negated, given
the depths): exact by enumeration up to 16 non-zero outcomes, otherwise the normal
approximation z = T / sqrt(Σ w_i² o_i²), p = 2 Φ(−|z|).  Whether it is more sensitive than
the standard test depends on where the rankings differ: bench/interleave_sensitivity.py
measures it on simulated users (docs/clicks.md, "Interleaving from clicks").

References
----------
* O. Chapelle, T. Joachims, F. Radlinski, Y. Yue. Large-scale validation and analysis of
  interleaved search evaluation. ACM TOIS 30(1), 2012.
* F. Diaz, A. Ferraro. Offline retrieval evaluation without evaluation metrics. SIGIR 2022.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import UsageError
from ..model.frames import plain, records_frame
from .power import sign_test

#: Up to this many non-zero outcomes the uniform-depth test enumerates every sign flip.
EXACT_FLIPS = 16


@dataclass(frozen=True, eq=False)
class InterleavingOutcomes:
    """The outcome of an interleaving experiment, per impression and in total.

    ``method``: the interleaving method whose credit rule scored it (None when the log gave
    each click's credit).  Per impression (in order of first appearance in the log):
    ``impressions`` (ids), ``queries`` (None without a query column), ``outcome``
    (sgn(h_a − h_b); probabilistic with marginalisation: its expectation, in [−1, 1]),
    ``credit_a``/``credit_b`` (h_a, h_b; expected for marginalised probabilistic) and
    ``last_click`` (1-based position of the lowest click, 0 without a click; None when the
    log has no positions).  Totals: ``wins``/``ties``/``losses`` (outcome > 0, = 0, < 0),
    ``win_rate`` = wins / (wins + losses) (NaN without a decided impression),
    ``preference`` = mean outcome, ``p_value``: the two-sided exact sign test.  Its length
    is the number of impressions.
    """

    method: str | None
    impressions: tuple[Hashable, ...]
    queries: tuple[str, ...] | None
    outcome: np.ndarray = field(repr=False)
    credit_a: np.ndarray = field(repr=False)
    credit_b: np.ndarray = field(repr=False)
    last_click: np.ndarray | None = field(repr=False)
    wins: int = 0
    ties: int = 0
    losses: int = 0
    preference: float = 0.0
    win_rate: float = math.nan
    p_value: float = 1.0

    def __len__(self) -> int:
        return len(self.impressions)

    @classmethod
    def of(
        cls,
        method: str | None,
        impressions: Sequence[Hashable],
        queries: Sequence[str] | None,
        credit_a: Any,
        credit_b: Any,
        outcome: Any,
        last_click: Any = None,
    ) -> InterleavingOutcomes:
        """The outcomes and their totals, from the per-impression columns."""
        outcome = np.asarray(outcome, dtype=np.float64)
        wins, losses = int(np.sum(outcome > 0)), int(np.sum(outcome < 0))
        decided = wins + losses
        return cls(
            method=method,
            impressions=tuple(impressions),
            queries=None if queries is None else tuple(queries),
            outcome=outcome,
            credit_a=np.asarray(credit_a, dtype=np.float64),
            credit_b=np.asarray(credit_b, dtype=np.float64),
            last_click=None if last_click is None else np.asarray(last_click, dtype=np.int64),
            wins=wins,
            ties=outcome.size - decided,
            losses=losses,
            preference=float(outcome.mean()),
            win_rate=wins / decided if decided else math.nan,
            p_value=sign_test(wins, losses),
        )

    def _columns(self) -> list[str]:
        names = ["impression"] + (["query"] if self.queries is not None else [])
        names += ["credit_a", "credit_b"]
        names += ["last_click"] if self.last_click is not None else []
        return [*names, "outcome"]

    def records(self) -> list[dict[str, Any]]:
        """One row per impression: impression, query (if known), credit_a, credit_b,
        last_click (if known), outcome."""
        columns: dict[str, list[Any]] = {"impression": list(self.impressions)}
        if self.queries is not None:
            columns["query"] = list(self.queries)
        columns.update(credit_a=self.credit_a.tolist(), credit_b=self.credit_b.tolist())
        if self.last_click is not None:
            columns["last_click"] = self.last_click.tolist()
        columns["outcome"] = self.outcome.tolist()
        names = self._columns()
        return [dict(zip(names, row, strict=True)) for row in zip(*columns.values(), strict=True)]

    def to_frame(self, output: str = "pandas") -> Any:
        """`records` as a DataFrame (pandas, polars) or a dict of columns."""
        return records_frame(self.records(), self._columns(), output)

    def to_dict(self) -> dict[str, Any]:
        """The totals and the per-impression rows (JSON-ready, full precision)."""
        totals = {name: getattr(self, name) for name in (
            "method", "wins", "ties", "losses", "preference", "win_rate", "p_value"
        )}  # fmt: skip
        return plain({**totals, "impressions": self.records()})


# --------------------------------------------------------------------------------------
# The uniform-p(k) variant


@dataclass(frozen=True, eq=False)
class UniformDepth:
    """The uniform-p(k) re-weighting of an experiment (see the module documentation).

    ``weight``: per impression w_i = (1/|K|)/p̂(k_i) (0 for impressions without a click);
    ``depths``: the observed last-click depths K; ``preference``: I_u = (1/|K|) Σ_k ō_k;
    ``statistic``: T = Σ w_i o_i; ``z``: T / sqrt(Σ w_i² o_i²) (0 when every outcome is 0);
    ``p_value``: the two-sided sign-flip test of T (exact up to `EXACT_FLIPS` non-zero
    outcomes, normal approximation beyond); ``exact``: whether it was exact.
    """

    weight: np.ndarray = field(repr=False)
    depths: tuple[int, ...]
    preference: float
    statistic: float
    z: float
    p_value: float
    exact: bool

    def records(self) -> list[dict[str, Any]]:
        """The variant as the one row a table of it holds (without the weights)."""
        return [{name: getattr(self, name) for name in _UNIFORM_DEPTH_ROW}]

    def to_frame(self, output: str = "pandas") -> Any:
        """`records` as a one-row DataFrame (pandas, polars) or a dict of columns."""
        return records_frame(self.records(), _UNIFORM_DEPTH_ROW, output)

    def to_dict(self) -> dict[str, Any]:
        """Every field, the weights included (JSON-ready, full precision)."""
        return plain({**self.records()[0], "depths": list(self.depths), "weight": self.weight})


_UNIFORM_DEPTH_ROW = ("preference", "statistic", "z", "p_value", "exact")


def uniform_depth(outcomes: InterleavingOutcomes) -> UniformDepth:
    """The uniform-p(k) variant of an interleaving experiment's preference and test:
    impressions re-weighted so that their last-click depths are uniform over the depths
    observed (Diaz & Ferraro 2022, §7; the module documentation gives the estimator and the
    sign-flip test)."""
    last = outcomes.last_click
    if last is None:
        raise UsageError("the uniform-depth variant needs each impression's last-click position")
    clicked = last > 0
    depths, counts = np.unique(last[clicked], return_counts=True)
    weight = np.zeros(last.size)
    if depths.size == 0:
        return UniformDepth(weight, (), 0.0, 0.0, 0.0, 1.0, True)
    share = dict(zip(depths.tolist(), (counts / counts.sum()).tolist(), strict=True))
    weight[clicked] = [1.0 / depths.size / share[k] for k in last[clicked].tolist()]
    terms = weight * outcomes.outcome
    statistic = float(terms.sum())
    preference = statistic / int(clicked.sum())
    nonzero = np.abs(terms[terms != 0])
    variance = float(np.sum(nonzero**2))
    z = statistic / math.sqrt(variance) if variance > 0 else 0.0
    exact = nonzero.size <= EXACT_FLIPS
    if nonzero.size == 0:
        p_value = 1.0
    elif exact:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=nonzero.size)))
        totals = signs @ nonzero
        # ties within rounding count as at least as extreme
        p_value = float(np.mean(np.abs(totals) >= abs(statistic) * (1 - 1e-12)))
    else:
        from scipy.special import ndtr

        p_value = float(min(1.0, 2.0 * ndtr(-abs(z))))
    return UniformDepth(weight, tuple(depths.tolist()), preference, statistic, z, p_value, exact)


__all__ = ["EXACT_FLIPS", "InterleavingOutcomes", "UniformDepth", "uniform_depth"]
