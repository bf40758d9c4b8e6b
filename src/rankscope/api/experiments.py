"""The front door of online experiments: `analyse_experiment` reads an experiment's units
(`rankscope.read.experiments`: a per-unit table, an event log, summary counts, or one
source per variant) and analyses it (`rankscope.experiment.analyse`): the sample-ratio
check first, then each metric of each variant against the baseline (the control)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import UsageError
from ..experiment import ExperimentResult, analyse
from ..read.experiments import read_experiment

#: The note of an experiment whose rows are its units because it names none.
ROWS_ARE_UNITS = (
    "no unit column: each row is taken as its own unit, randomised independently (per "
    "impression when the rows are impressions); if one user saw several rows, the unit of "
    "randomisation is the user and these tests are anti-conservative: give the user column "
    "and a ratio metric instead"
)


def analyse_experiment(
    source: Any,
    *,
    metrics: Sequence[str] | None = None,
    ratios: Mapping[str, tuple[str, str]] | None = None,
    baseline: str | None = None,
    split: Sequence[float] | None = None,
    test: str | Sequence[str] = (),
    alpha: float = 0.05,
    correction: str | None = "holm",
    allow_mismatch: bool = False,
    cuped: bool = True,
    stratify: bool = True,
    lift_interval: str = "fieller",
    looks: int | None = None,
    spending: str = "obrien-fleming",
    permutations: int = 10_000,
    seed: int = 0,
    columns: Mapping[str, str] | None = None,
) -> ExperimentResult:
    """An online experiment's analysis: is each variant better than the baseline (the
    control), by how much, and can the assignment be trusted?

    ``source``: a file (TSV, CSV, ``.gz``, Parquet), a DataFrame, a dict of columns, an
    `rankscope.model.Experiment`, or ``[(variant, source), ...]``, one source per variant
    (see `rankscope.read.experiments` for the three shapes: one row per unit, an event log,
    summary counts).  ``columns``: the columns by role where the header names them
    otherwise.  ``metrics``: the metrics to analyse (default: every metric column);
    ``ratios``: ratio metrics ``{"ctr": ("clicks", "impressions")}``, Σ numerator /
    Σ denominator per variant with the delta method's variance, for a metric whose unit of
    analysis (the impression) is not the unit of randomisation (the user).

    ``baseline``: the control variant (default: one called ``control``, else the first
    variant); ``split``: the planned shares of the variants, the baseline's first (default
    equal).  The sample-ratio check runs first: a χ² test of the units per variant against
    the split; below p = 0.001 no verdict is given unless ``allow_mismatch``.

    ``test``: the test of means (``welch``, default; ``student``, ``mann-whitney``,
    ``bootstrap``) and/or of 0/1 metrics (``z``, default; ``chi-square``,
    ``chi-square-yates``, ``fisher``), names of `rankscope.stats.TESTS`; ``correction``
    over the variants (``holm`` default, ``dunnett`` for means, any of
    `rankscope.stats.CORRECTIONS`); ``alpha`` the level of the decisions and ``1 − alpha``
    the intervals'.  ``cuped``: CUPED with each metric's ``pre_<metric>`` column;
    ``stratify``: post-stratification by the stratum column; ``lift_interval``: the relative
    lift's interval, ``fieller`` or ``delta``.  With a timestamp column: the cumulative
    always-valid p-values and confidence sequences, and with ``looks`` the group-sequential
    boundaries (``spending``: ``obrien-fleming`` or ``pocock``).  ``permutations`` and
    ``seed``: the bootstrap test's resamples and seed.
    """
    ratios = dict(ratios or {})
    for name, parts in ratios.items():
        if not (isinstance(parts, tuple | list) and len(parts) == 2):
            raise UsageError(
                f"ratio {name!r} needs (numerator, denominator) metric names",
                cli=f"--ratio {name} needs NAME=NUMERATOR/DENOMINATOR",
            )
    analysed = None if metrics is None else [m for m in metrics if m not in ratios]
    read_metrics = None  # (every column: the ratios' parts among them)
    if analysed is not None:
        read_metrics = list(dict.fromkeys([*analysed, *(p for r in ratios.values() for p in r)]))
    experiment = read_experiment(source, columns=columns, metrics=read_metrics)
    rows_are_units = experiment.units is None and experiment.shape == "units"
    return analyse(
        experiment, metrics=analysed, ratios=ratios, baseline=baseline, split=split,
        tests=test, alpha=alpha, correction=correction, allow_mismatch=allow_mismatch,
        cuped=cuped, stratify=stratify, lift_interval=lift_interval, looks=looks,
        spending=spending, permutations=permutations, seed=seed,
        notes=(ROWS_ARE_UNITS,) if rows_are_units else (),
    )  # fmt: skip


__all__ = ["ROWS_ARE_UNITS", "analyse_experiment"]
