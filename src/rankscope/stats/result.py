"""The result of every significance test of `rankscope.stats`: `TestResult`.

One frozen value for the paired tests (`rankscope.stats.tests`), the unpaired ones
(`rankscope.stats.unpaired`) and the tests of two rates (`rankscope.stats.proportions`):
statistic, p-value, the difference B − A, its confidence interval, an effect size and
Hedges' g, for one comparison or (array fields) one per row of a 2-D input.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar

import numpy as np

from ..model.frames import plain, records_frame
from .intervals import scalar_or_array, t_interval

__all__ = ["TestResult", "t_difference_result"]


def _same(a, b) -> bool:
    if isinstance(a, dict) or isinstance(b, dict):
        return (
            isinstance(a, dict)
            and isinstance(b, dict)
            and a.keys() == b.keys()
            and all(_same(a[key], b[key]) for key in a)
        )
    if isinstance(a, str | bool | type(None)) or isinstance(b, str | bool | type(None)):
        return type(a) is type(b) and a == b
    try:
        return bool(np.array_equal(a, b, equal_nan=True))
    except TypeError:
        return bool(np.array_equal(a, b))


def _number(value) -> str:
    if value is None:
        return "—"
    value = float(value)
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    return f"{value:.4g}"


@dataclass(frozen=True, eq=False)
class TestResult:
    """The outcome of one test, or of one test per row of a 2-D input (then array fields).

    Attributes
    ----------
    name : the procedure, e.g. ``"paired t-test"``.
    statistic : the test statistic (``statistic_name`` says which: t, z, W+, ...).
    p_value : the p-value for ``alternative``.
    alternative : ``"two-sided"``, ``"greater"`` (B > A) or ``"less"`` (B < A).
    mean_difference : the estimated difference B − A (mean of y − x; difference of means
        or of rates for unpaired tests).
    ci_low, ci_high : confidence interval of ``mean_difference`` at level ``confidence``
        (one-sided alternatives: one bound is infinite).
    effect_size : standardised effect (``effect_size_name``: d_z, d or h).
    hedges_g : the effect size with Hedges' small-sample correction (None for rates).
    n : number of queries (paired), or of observations in both groups (unpaired, rates).
    df : degrees of freedom of the reference t distribution, or None.
    method : how the p-value was obtained, in words.
    details : further values (standard deviation, counts, Monte Carlo error, ...).
    seed : the seed of a randomised procedure, None otherwise.
    """

    __test__: ClassVar[bool] = False  # a result, not a pytest test class

    name: str
    statistic: Any
    p_value: Any
    alternative: str
    mean_difference: Any
    ci_low: Any
    ci_high: Any
    confidence: float
    effect_size: Any
    hedges_g: Any
    n: int
    df: Any = None
    statistic_name: str = "statistic"
    effect_size_name: str = "d_z"
    method: str = ""
    details: dict = field(default_factory=dict)
    seed: int | None = None

    # Array fields: equality is by value and results are not hashable.  Defining __eq__ in
    # the class body leaves __hash__ None (and eq=False keeps dataclass from touching it).

    def __eq__(self, other):
        if not isinstance(other, TestResult):
            return NotImplemented
        return all(_same(getattr(self, f.name), getattr(other, f.name)) for f in fields(self))

    @property
    def batched(self) -> bool:
        """True when the fields hold one value per compared pair (a 2-D input)."""
        return np.ndim(self.p_value) > 0

    def __getitem__(self, row: int) -> TestResult:
        """The result of one row of a batched result."""
        if not self.batched:
            raise TypeError("only a batched result (from a 2-D input) can be indexed")
        count = len(self.p_value)

        def pick(value):
            if isinstance(value, dict):
                return {key: pick(item) for key, item in value.items()}
            if isinstance(value, np.ndarray) and value.ndim >= 1 and len(value) == count:
                item = value[row]
                return item.item() if isinstance(item, np.generic) else item
            return value

        changes = {f.name: pick(getattr(self, f.name)) for f in fields(self)}
        return replace(self, **changes)

    def to_dict(self) -> dict:
        """All fields as plain Python values (lists for batched results)."""
        return {f.name: plain(getattr(self, f.name)) for f in fields(self)}

    def records(self) -> list[dict[str, Any]]:
        """One flat row per compared pair (one row for a single test): every field but
        ``details``, as plain Python values."""
        rows = [self[i] for i in range(len(self.p_value))] if self.batched else [self]
        return [
            {f.name: plain(getattr(row, f.name)) for f in fields(row) if f.name != "details"}
            for row in rows
        ]

    def to_frame(self, output: str = "pandas") -> Any:
        """`records` as a DataFrame (pandas, polars) or a dict of columns."""
        names = [f.name for f in fields(self) if f.name != "details"]
        return records_frame(self.records(), names, output)

    def _interval(self, row=None) -> str:
        low, high = (
            (self.ci_low, self.ci_high)
            if row is None
            else (
                self.ci_low[row],
                self.ci_high[row],
            )
        )
        return f"[{_number(low)}, {_number(high)}]"

    def __str__(self) -> str:
        level = f"{100 * self.confidence:g}%"
        if not self.batched:
            df = "" if self.df is None else f" (df = {_number(self.df)})"
            effect = f"{self.effect_size_name} = {_number(self.effect_size)}"
            if self.hedges_g is not None:
                effect += f", Hedges' g = {_number(self.hedges_g)}"
            lines = [
                f"{self.name}, {self.alternative}: {self.statistic_name} = "
                f"{_number(self.statistic)}{df}, p = {_number(self.p_value)}"
            ]
            if self.mean_difference is not None:  # an omnibus test compares no two groups
                lines.append(
                    f"  difference (B − A) = {_number(self.mean_difference)}, "
                    f"{level} CI {self._interval()}"
                )
            lines.append(
                f"  effect size {effect}; n = {self.n}"
                if self.effect_size is not None
                else f"  n = {self.n}"
            )
            if self.method:
                lines.append(f"  method: {self.method}")
            return "\n".join(lines)
        count = len(self.p_value)
        header = f"{self.name}, {self.alternative}: {count} comparisons, n = {self.n}" + (
            f"; {self.method}" if self.method else ""
        )
        rows = [
            f"{'row':>6} {self.statistic_name:>10} {'p':>10} {'B − A':>10} "
            f"{level + ' CI':>22} {self.effect_size_name:>8}"
        ]
        shown = min(count, 10)
        for row in range(shown):
            rows.append(
                f"{row:>6} {_number(np.asarray(self.statistic)[row]):>10} "
                f"{_number(self.p_value[row]):>10} "
                f"{_number(np.asarray(self.mean_difference)[row]):>10} "
                f"{self._interval(row):>22} {_number(np.asarray(self.effect_size)[row]):>8}"
            )
        if count > shown:
            rows.append(f"  ... {count - shown} more rows")
        return "\n".join([header, *rows])


def t_difference_result(
    name: str,
    alternative: str,
    confidence: float,
    difference: Any,
    se: Any,
    dof: Any,
    effect_size: Any,
    hedges_g: Any,
    n: int,
    **fields: Any,
) -> TestResult:
    """The result of a test of the difference B − A whose interval is a t interval: the
    difference ± the t quantile of ``dof`` degrees of freedom × ``se`` (one-sided for a
    one-sided ``alternative``), with its effect sizes; the paired tests and the two-sample
    t-tests share it.  ``fields`` give the test's own statistic, p-value, etc."""
    low, high = t_interval(difference, se, dof, confidence, alternative)
    return TestResult(
        name=name,
        alternative=alternative,
        mean_difference=scalar_or_array(difference),
        ci_low=low,
        ci_high=high,
        confidence=confidence,
        effect_size=scalar_or_array(effect_size),
        hedges_g=scalar_or_array(hedges_g),
        n=n,
        **fields,
    )
