"""The click logs' front door: `simulate_clicks` reads the run whose rankings are shown and the
judgments the click model's parameters come from (files, frames, dicts, `Run`/`Qrels`) and
hands them to `rankscope.clicks.simulate.simulate`, which takes model objects."""

from __future__ import annotations

from typing import Any, Unpack

from ..clicks.models import ClickModel
from ..clicks.simulate import SimulateOptions, simulate
from ..model import ImpressionLog
from ..read.impressions import names_column, read_impressions
from ..read.sources import read_qrels, read_run

__all__ = ["simulate_clicks"]


def simulate_clicks(
    model: ClickModel | str, run: Any, qrels: Any = None, **options: Unpack[SimulateOptions]
) -> ImpressionLog:
    """A click log of ``sessions`` sessions on the rankings of ``run`` (anything
    `rankscope.read_run` reads), clicks drawn (seeded) from ``model``: a fitted
    `rankscope.clicks.ClickModel`, or a name (``pbm``, ``cm``, ``ubm``, ``dbn``, ``sdbn``)
    whose parameters come from the judgments ``qrels`` (anything `rankscope.read_qrels`
    reads).  The options are `rankscope.clicks.simulate.simulate`'s.

    ``run`` may also be the lists of an interleaving experiment: a file with a ``team``
    column, as ``rankscope clicks interleave --lists`` and
    `rankscope.interleaving.write_lists` write it, or an `ImpressionLog` of them; each
    session then shows one list in turn, and the log keeps the teams, ready for
    `rankscope.interleaving_outcomes`.

    >>> import rankscope
    >>> log = rankscope.simulate_clicks(                            # doctest: +SKIP
    ...     "dbn", "run.txt", "qrels.txt", sessions=10_000, seed=1)
    >>> train, test = log.split(0.2, seed=1)                        # doctest: +SKIP
    """
    judgments = None if qrels is None else read_qrels(qrels)
    if isinstance(run, ImpressionLog) or names_column(run, "team"):
        lists = read_impressions(run, require=("session", "query", "team"), clicks=False)
        return simulate(model, lists, judgments, **options)
    return simulate(model, read_run(run), judgments, **options)
