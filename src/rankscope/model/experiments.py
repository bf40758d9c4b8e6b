"""An online experiment's units: one row per unit of randomisation (a user, a session, an
impression), the variant (arm) it was assigned to, and its metrics.

One container, `Experiment`, holds every input of ``rankscope ab``: a per-unit table as read,
an event log aggregated to its units (each metric the sum of the unit's events), and summary
counts (variant, successes, trials) expanded to one 0/1 unit per trial, unnamed.  Read by
`rankscope.read.experiments`, which checks every row; analysed by `rankscope.experiment`.

Words: a *unit* is what was randomised; a *variant* (arm) what a unit was shown, the
*control* the one the others are compared with; a *metric* a number per unit (clicks,
revenue, a 0/1 conversion); its *covariate* the same metric measured on the unit before the
experiment (CUPED's ``pre_<metric>``); a *stratum* a label known before assignment
(post-stratification); the *timestamp* when the unit entered the experiment (sequential
analysis), in seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .frames import to_frame
from .vocabulary import Vocabulary

#: How an experiment was given: one row per unit, an event log summed per unit, or summary
#: counts (one 0/1 unit per trial).
SHAPES = ("units", "events", "counts")


@dataclass(frozen=True, eq=False)
class Experiment:
    """One row per unit, in order of first appearance in the input.

    The rules every experiment keeps (the reader checks them): each unit appears once (one
    variant); ``variant`` holds codes into ``variants`` and every variant has a unit;
    every metric and covariate is finite, one value per unit; a covariate's metric is a key
    of ``metrics``; ``stratum`` codes into ``strata``.  Optional columns are None when the
    input has none.  ``units`` is None for summary counts (their units have no ids);
    ``line`` holds each unit's input line (text) or row (frames, counted from 0), of its first
    row for an event log, for messages (`where`).
    """

    variants: Vocabulary
    variant: np.ndarray  # int32 codes into `variants`, one per unit
    metrics: dict[str, np.ndarray]  # metric name -> float64 per unit, in input order
    units: Vocabulary | None = None  # unit ids (code i is row i); None for summary counts
    covariates: dict[str, np.ndarray] = field(default_factory=dict)  # metric -> pre-period
    strata: Vocabulary | None = None
    stratum: np.ndarray | None = None  # int32 codes into `strata`
    timestamp: np.ndarray | None = None  # float64 seconds, when each unit entered
    shape: str = "units"  # one of SHAPES
    source: str = "<experiment>"
    line: np.ndarray | None = None  # int64 input line (text) or row (frames) per unit
    from_text: bool = False

    def __len__(self) -> int:
        return len(self.variant)

    @property
    def variant_names(self) -> list[str]:
        """The variants' names, in code order."""
        return self.variants.strings_of(np.arange(len(self.variants)))

    def counts(self) -> np.ndarray:
        """int64 (V,): the number of units of each variant, in code order."""
        return np.bincount(self.variant, minlength=len(self.variants)).astype(np.int64)

    def arm(self, variant: int) -> np.ndarray:
        """The row indices of a variant's units (by code)."""
        return np.flatnonzero(self.variant == variant)

    def where(self, row: int) -> str:
        """Where unit ``row`` came from: ``source:line`` (text) or ``source: row r``."""
        if self.line is None:
            return f"{self.source}: row {row}"
        at = int(self.line[row])
        return f"{self.source}:{at}" if self.from_text else f"{self.source}: row {at}"

    def columns(self) -> dict[str, Any]:
        """The units as columns: ``unit`` (when named), ``variant``, each metric, each
        covariate as ``pre_<metric>``, ``stratum``, ``timestamp`` (when present)."""
        out: dict[str, Any] = {}
        if self.units is not None:
            out["unit"] = self.units.strings_of(np.arange(len(self)))
        out["variant"] = self.variants.strings_of(self.variant)
        out.update(self.metrics)
        out.update({f"pre_{name}": values for name, values in self.covariates.items()})
        if self.stratum is not None and self.strata is not None:
            out["stratum"] = self.strata.strings_of(self.stratum)
        if self.timestamp is not None:
            out["timestamp"] = self.timestamp
        return out

    def to_frame(self, output: str = "pandas") -> Any:
        """The units as a DataFrame (pandas, polars) or a dict of columns (`columns`)."""
        return to_frame(self.columns(), output)


__all__ = ["SHAPES", "Experiment"]
