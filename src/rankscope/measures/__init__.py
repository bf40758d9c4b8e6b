"""Every measure as a declarative object (`base.Measure`: names, parameters, formula, user
model, citation, kernel), one module per family, and the registry that parses every spelling
of their names (`catalog`)."""

from .base import Measure, Param, Request
from .catalog import (
    MEASURES,
    NICKNAMES,
    REGISTRY,
    compute_request,
    compute_requests,
    needs_rankings,
    parse_measures,
    parse_method,
    reads_subtopics,
)
from .preferences import PREFERENCE_MEASURES, PreferenceMeasure, method_of

__all__ = [
    "MEASURES",
    "NICKNAMES",
    "PREFERENCE_MEASURES",
    "REGISTRY",
    "Measure",
    "Param",
    "PreferenceMeasure",
    "Request",
    "compute_request",
    "compute_requests",
    "method_of",
    "needs_rankings",
    "parse_measures",
    "parse_method",
    "reads_subtopics",
]
