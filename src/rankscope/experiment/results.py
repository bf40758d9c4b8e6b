"""What an online experiment's analysis returns: frozen values with the results' protocol
(``records(table)``, ``to_frame(table=...)``, ``to_dict()``), one table per kind of row:

* ``effects`` — one `Effect` per metric and variant against the control: both arms' values,
  the absolute difference and the relative lift, each with its interval, the test's p-value
  (and corrected over the variants), the decision;
* ``arms`` — one `Arm` per metric and variant: units, value, standard deviation;
* ``omnibus`` — one `Omnibus` per metric with three arms or more (the r×c χ² of a 0/1
  metric, Welch's one-way ANOVA of a mean or a ratio's linearisation);
* ``sequential`` — one `Look` per metric, variant and look: the cumulative estimate, the
  always-valid p-value and confidence sequence, the group-sequential boundary;

and the sample-ratio check (`SampleRatio`), which runs first on every analysis.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from ..model.frames import NamedTables

#: The words of an effect's ``decision``.
BETTER, WORSE, NO_DIFFERENCE, WITHHELD = (
    "significant increase", "significant decrease", "no significant difference",
    "withheld: sample-ratio mismatch",
)  # fmt: skip


@dataclass(frozen=True)
class SampleRatio:
    """The sample-ratio check: a χ² goodness-of-fit test of the units observed per variant
    against the planned split (``expected`` shares, summing to 1).  ``mismatch``: p below
    ``threshold`` — the assignment is broken and no effect can be trusted."""

    variants: tuple[str, ...]
    observed: tuple[int, ...]
    expected: tuple[float, ...]
    statistic: float
    df: int
    p_value: float
    threshold: float
    mismatch: bool

    def records(self) -> list[dict[str, Any]]:
        """One row per variant: observed units, expected units and share."""
        total = sum(self.observed)
        return [
            {"variant": v, "units": o, "expected_units": e * total, "observed_share": o / total,
             "planned_share": e}
            for v, o, e in zip(self.variants, self.observed, self.expected, strict=True)
        ]  # fmt: skip


@dataclass(frozen=True)
class Arm:
    """A metric's value in one variant: ``value`` the mean (a rate for a 0/1 metric, Σx/Σy
    for a ratio), ``sd`` the standard deviation of a unit's value (of its delta-method
    linearisation for a ratio), ``units`` the units it rests on."""

    metric: str
    variant: str
    units: int
    value: float
    sd: float
    total: float  # Σ of the metric (successes of a 0/1 metric; Σx of a ratio)


@dataclass(frozen=True)
class Effect:
    """A variant against the control on one metric.

    ``kind``: ``mean``, ``proportion`` (0/1 per unit) or ``ratio`` (Σx/Σy, delta method).
    ``difference`` = variant − control with its interval ``[low, high]`` at the analysis'
    confidence; ``lift`` = variant/control − 1 with ``[lift_low, lift_high]`` (``lift_method``:
    ``fieller`` or ``delta``); ``p_value`` the test's (``test``, a name of
    `rankscope.stats.TESTS`, or ``delta-z`` for a ratio, ``stratified-z`` for
    post-stratified means; ``statistic_name`` = ``statistic``), ``adjusted_p`` corrected
    over the variants (``correction``: holm, dunnett, ...; equal to ``p_value`` with two
    arms but under dunnett).  ``adjustment``: ``cuped``, ``stratified``,
    ``cuped+stratified`` or None, and ``variance_reduction`` the share of the estimate's
    variance it removed (None without one).
    """

    metric: str
    kind: str
    control: str
    variant: str
    test: str
    control_value: float
    variant_value: float
    difference: float
    low: float
    high: float
    lift: float
    lift_low: float
    lift_high: float
    lift_method: str
    statistic: float
    statistic_name: str
    p_value: float
    adjusted_p: float
    correction: str | None
    decision: str
    control_units: int
    variant_units: int
    adjustment: str | None = None
    variance_reduction: float | None = None


@dataclass(frozen=True)
class Omnibus:
    """One test of all arms at once on a metric: are they all equal? (the r×c χ² of a 0/1
    metric, Welch's one-way ANOVA otherwise).  ``df`` is the χ²'s degrees of freedom or the
    F's numerator's; ``df_denominator`` the F's denominator's (None for χ²)."""

    metric: str
    test: str
    statistic: float
    df: float
    p_value: float
    df_denominator: float | None = None


@dataclass(frozen=True)
class Look:
    """A sequential look at a variant against the control: after ``units`` units (the first
    ones by timestamp, up to ``time``), the cumulative ``difference``, its always-valid
    p-value and confidence sequence ``[low, high]`` (mixture SPRT), the z statistic and
    the group-sequential ``boundary`` at this look (None when no looks were planned);
    ``stop``: the always-valid p-value or the boundary says stop here."""

    metric: str
    variant: str
    look: int
    units: int
    time: float | None
    difference: float
    low: float
    high: float
    p_value: float
    z: float
    boundary: float | None
    stop: bool


@dataclass(frozen=True)
class ExperimentResult(NamedTables):
    """The analysis of one experiment: settings, the sample-ratio check, and the tables."""

    source: str
    shape: str  # how the experiment was given (`rankscope.model.experiments.SHAPES`)
    control: str
    variants: tuple[str, ...]  # every variant, the control first
    alpha: float
    confidence: float
    correction: str | None
    srm: SampleRatio
    mismatch_allowed: bool  # a verdict given despite a sample-ratio mismatch (allowed)
    arms: tuple[Arm, ...]
    effects: tuple[Effect, ...]
    omnibus: tuple[Omnibus, ...] = ()
    sequential: tuple[Look, ...] = ()
    notes: tuple[str, ...] = ()  # what the reader should know (units are impressions, ...)
    settings: dict[str, Any] = field(default_factory=dict)  # seed, looks, spending, ...
    #: {metric: {variant: (bin edges, units per bin)}}: each arm's histogram of the units'
    #: values on shared edges, for the HTML report's distributions (empty: not recorded)
    distributions: dict[str, dict[str, tuple[tuple[float, ...], tuple[int, ...]]]] = field(
        default_factory=dict
    )

    TABLES = {
        "effects": tuple(f.name for f in fields(Effect)),
        "arms": tuple(f.name for f in fields(Arm)),
        "omnibus": tuple(f.name for f in fields(Omnibus)),
        "sequential": tuple(f.name for f in fields(Look)),
        "srm": ("variant", "units", "expected_units", "observed_share", "planned_share"),
    }

    @property
    def withheld(self) -> bool:
        """No verdict is given: the sample ratio is off and the mismatch was not allowed."""
        return self.srm.mismatch and not self.mismatch_allowed

    def records(self, table: str = "effects") -> list[dict[str, Any]]:
        """The rows of ``table`` as dicts at full precision (see ``TABLES``)."""
        if self.check_table(table) == "srm":
            return self.srm.records()
        rows: tuple[Any, ...] = {
            "effects": self.effects, "arms": self.arms, "omnibus": self.omnibus,
            "sequential": self.sequential,
        }[table]  # fmt: skip
        return [asdict(row) for row in rows]

    def to_dict(self) -> dict[str, Any]:
        """The settings, the sample-ratio check and every table (JSON-ready)."""
        return {
            "source": self.source, "shape": self.shape, "control": self.control,
            "variants": list(self.variants), "alpha": self.alpha,
            "confidence": self.confidence, "correction": self.correction,
            "srm": asdict(self.srm), "mismatch_allowed": self.mismatch_allowed,
            "withheld": self.withheld,
            "notes": list(self.notes), "settings": dict(self.settings),
            "distributions": {
                metric: {variant: {"edges": list(edges), "counts": list(counts)}
                         for variant, (edges, counts) in arms.items()}
                for metric, arms in self.distributions.items()
            },
            **{table: self.records(table) for table in self.TABLES if table != "srm"},
        }  # fmt: skip


__all__ = [
    "BETTER", "NO_DIFFERENCE", "WITHHELD", "WORSE", "Arm", "Effect", "ExperimentResult",
    "Look", "Omnibus", "SampleRatio",
]  # fmt: skip
