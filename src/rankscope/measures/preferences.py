"""Preference methods in the measure registry, so that ``rankscope eval``, ``prefer``, ``meta``
and the API name them with one grammar and ``rankscope eval`` can mix them with metrics.

The measures are built from `rankscope.preference.METHODS`, the one declaration of each
method (name, function, parameters, documentation, reference): there is no list of them
here.  Evaluated over several runs, a preference method gives each run its win rate on each
query (eq. 7 of Diaz & Ferraro 2022): the sum of its preferences over every other run
evaluated with it.  The computation lives in `rankscope.preference`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import UsageError
from ..judge import Ranked
from ..preference import METHODS, Method, Option, unknown_method
from .base import IrSpelling, Measure, Param, Request

_WIN = (
    " Evaluated over several runs, the value of a run on a query is its win rate: the sum of "
    "its preferences over the other runs (eq. 7 of Diaz & Ferraro 2022)."
)


def _needs_runs(r: Ranked, **params) -> np.ndarray:
    raise UsageError(
        "preference methods compare runs: evaluate them over several runs "
        "(rankscope eval QRELS RUN RUN ..., or rankscope.preferences)"
    )


@dataclass(eq=False)
class PreferenceMeasure(Measure[np.ndarray]):
    """A preference method as a registry measure; ``method`` is its declaration."""

    method: Method | None = None

    @property
    def reads_subtopics(self) -> bool:
        return self.method is not None and self.method.subtopics

    def validate(self, params: dict[str, Any]) -> dict[str, Any]:
        if self.method is not None:
            self.method.arguments(params)  # says which parameter the method does not take
        try:
            return super().validate(params)
        except ValueError as error:  # the registry's own checks (type, allowed values)
            raise UsageError(str(error)) from None


def _param(option: Option) -> Param:
    return Param(option.name, option.type, option.default, option.doc, option.choices)


def _measure(method: Method) -> PreferenceMeasure:
    return PreferenceMeasure(
        method.name,
        _needs_runs,
        doc=method.doc + _WIN,
        params=tuple(_param(o) for o in method.options),
        ir=(IrSpelling(method.name),),
        family="preference",
        reference=method.reference,
        method=method,
    )


#: One registry measure per method of `rankscope.preference.METHODS`, in its order.
PREFERENCE_MEASURES: list[Measure] = [_measure(m) for m in METHODS.values()]


def method_of(request: Request) -> Method:
    """The preference method a registry request names (a `UsageError` if it names another
    measure, or asks for the condensed list)."""
    measure = request.measure
    if not isinstance(measure, PreferenceMeasure) or measure.method is None:
        raise unknown_method(request.label)
    if request.judged_only:
        raise UsageError(
            f"'{request.label}': preference methods compare whole rankings; judged_only "
            "does not apply"
        )
    return measure.method
