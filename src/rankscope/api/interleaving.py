"""The front doors of online interleaving: the runs an experiment interleaves, or whose
rankings credit its clicks, given as TREC run files, Parquet files or DataFrames, are read
here (`rankscope.read.sources.read_run`) and handed to the kernels of
`rankscope.interleaving.online` as `Run` values; a `Run` or a ``{query: [doc, ...]}``
mapping passes through as given."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict, Unpack

import numpy as np

from ..interleaving import online
from ..interleaving.outcomes import InterleavingOutcomes
from ..model import Run
from ..read.sources import read_run


class ListsOptions(TypedDict, total=False):
    """The options of `interleaved_lists` (`rankscope.interleaving.online.interleaved_lists`)."""

    method: str
    impressions: int
    depth: int
    seed: int | np.random.Generator | None
    tau: float
    ties: str
    output: str


class OutcomesOptions(TypedDict, total=False):
    """The options of `interleaving_outcomes` besides the rankings."""

    method: str
    marginalise: bool
    tau: float
    ties: str


def _rankings(run: Any) -> Any:
    """A run as the kernels take it: None, a `Run` or a mapping as given, anything else read
    by `read_run`."""
    if run is None or isinstance(run, Run | Mapping):
        return run
    return read_run(run)


def interleaved_lists(run_a: Any, run_b: Any, **options: Unpack[ListsOptions]) -> Any:
    """Interleaved lists for every query two runs share (`Run` values, ``{query: [doc,
    ...]}`` mappings, TREC run files, Parquet files or DataFrames): see
    `rankscope.interleaving.online.interleaved_lists` for the options and the table."""
    return online.interleaved_lists(_rankings(run_a), _rankings(run_b), **options)


def interleaving_outcomes(
    log: Any, *, a: Any = None, b: Any = None, **options: Unpack[OutcomesOptions]
) -> InterleavingOutcomes:
    """Score an online interleaving experiment from a click log of interleaved lists, the
    rankings ``a`` and ``b`` (for balanced and marginalised probabilistic credit) given as
    for `interleaved_lists`: see `rankscope.interleaving.online.interleaving_outcomes`."""
    return online.interleaving_outcomes(log, a=_rankings(a), b=_rankings(b), **options)
