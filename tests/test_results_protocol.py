"""Every public result type answers one protocol: ``records()`` (the flat rows a renderer
writes, one dict each), ``to_frame(output=...)`` (those rows as a frame) and ``to_dict()``
(JSON-ready), and no other export spelling (``as_dict``, ``to_records``, ``rows()``,
``summary_frame``, ``gaps_frame``) is left."""

from __future__ import annotations

import dataclasses
import inspect
import json

import numpy as np
import pytest

from rankscope.clicks.estimators import Estimate
from rankscope.clicks.models import HeldOut
from rankscope.interleaving.outcomes import InterleavingOutcomes, UniformDepth
from rankscope.preference.learned import Assessment
from rankscope.preference.methods import PreferenceResult
from rankscope.preference.recall import RecallLevels
from rankscope.recsys.folds import FoldsEvaluation
from rankscope.recsys.sampled import SampledResult
from rankscope.recsys.systems import SystemEvaluation
from rankscope.stats.multiple import PairwiseResult
from rankscope.stats.result import TestResult
from rankscope.table.aggregate import Aggregation
from rankscope.table.agreement import AgreementResult
from rankscope.table.compare import Comparison
from rankscope.table.evaluation import RunEvaluation
from rankscope.table.reproduce import Reproduction
from rankscope.table.study import Study

#: The public result types.
RESULT_TYPES = (
    RunEvaluation, Comparison, PreferenceResult, Aggregation, AgreementResult, Reproduction,
    RecallLevels, Study, SystemEvaluation, FoldsEvaluation, SampledResult, TestResult,
    PairwiseResult, Estimate, HeldOut, Assessment, InterleavingOutcomes, UniformDepth,
)  # fmt: skip

#: Export spellings the protocol replaced.
RETIRED = ("as_dict", "to_records", "rows", "summary_frame", "gaps_frame")


@pytest.mark.parametrize("kind", RESULT_TYPES, ids=lambda k: k.__name__)
def test_result_types_answer_the_protocol(kind: type) -> None:
    for method in ("records", "to_frame", "to_dict"):
        assert callable(getattr(kind, method, None)), f"{kind.__name__} lacks {method}"
    assert "output" in inspect.signature(kind.to_frame).parameters
    assert not [name for name in RETIRED if callable(getattr(kind, name, None))]


def test_records_frame_and_dict_agree() -> None:
    """`to_frame(output="dict")` holds the columns of `records()`; `to_dict()` dumps."""
    result = PreferenceResult("RPP", ["a", "b"], ["q1", "q2"], np.array([
        [[0.0, 0.5], [-0.5, 0.0]], [[0.0, -0.25], [0.25, 0.0]],
    ]))  # fmt: skip
    records = result.records()
    assert records == [
        {"query": "q1", "run_i": "a", "run_j": "b", "RPP": 0.5},
        {"query": "q2", "run_i": "a", "run_j": "b", "RPP": -0.25},
    ]
    columns = result.to_frame(output="dict")
    assert columns == {key: [r[key] for r in records] for key in records[0]}
    assert json.loads(json.dumps(result.to_dict()))["prefs"][1][0][1] == -0.25


@pytest.mark.parametrize(
    "kind", (RunEvaluation, SystemEvaluation, PreferenceResult, Study), ids=lambda k: k.__name__
)
def test_results_are_frozen(kind: type) -> None:
    assert kind.__dataclass_params__.frozen  # type: ignore[attr-defined]


def test_one_comparison_type() -> None:
    """`rankscope.compare` answers a `table.Comparison` (writers given by the front door);
    a comparison built below the API has none and says where the writers are."""
    import rankscope
    import rankscope.report.compare as report_compare
    from rankscope.errors import UsageError

    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    runs = {"x": {"q1": {"a": 2, "b": 1}, "q2": {"a": 1}}, "y": {"q1": {"b": 1}, "q2": {"b": 1}}}
    result = rankscope.compare(qrels, runs, ["AP"])
    assert type(result) is Comparison
    assert not hasattr(report_compare, "ComparisonResult")
    assert result.to_text() == report_compare.format_comparison(result, "table") == str(result)
    bare = dataclasses.replace(result, writers=None)
    assert bare == result and bare.records() == result.records()
    with pytest.raises(UsageError, match="format_comparison"):
        bare.to_markdown()


def test_interleaving_outcomes_answer_the_protocol() -> None:
    """An experiment of three impressions scored by hand: a wins, b wins, a tie."""
    result = InterleavingOutcomes.of(
        "team-draft", ["i1", "i2", "i3"], ["q1", "q1", "q2"], [2, 0, 1], [1, 1, 1], [1, -1, 0],
        last_click=[3, 1, 2],
    )
    assert result.records()[1] == {
        "impression": "i2", "query": "q1", "credit_a": 0.0, "credit_b": 1.0, "last_click": 1,
        "outcome": -1.0,
    }
    assert result.to_frame(output="dict")["outcome"] == [1.0, -1.0, 0.0]
    dumped = json.loads(json.dumps(result.to_dict()))
    assert (dumped["wins"], dumped["ties"], dumped["losses"]) == (1, 1, 1)
    assert dumped["preference"] == 0.0 and dumped["impressions"][2]["query"] == "q2"
