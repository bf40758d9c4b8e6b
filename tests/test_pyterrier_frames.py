"""`rankscope.compare` on PyTerrier's results frames and with pt.Experiment's options
(issue 14 §2): the same comparison as from the clean twin, dicts of ``{qid: {docno:
score}}``."""

from __future__ import annotations

import pytest

import rankscope
from rankscope.errors import InputError, UsageError
from rankscope.read.results_frames import from_results_frames, qrels_from_results

pd = pytest.importorskip("pandas")

QRELS = {"q1": {"a": 1, "b": 1}, "q2": {"a": 1}, "q3": {"b": 2}}
RUNS = {
    "bm25": {"q1": {"a": 2.0, "c": 1.0}, "q2": {"c": 2.0, "a": 1.0}, "q3": {"c": 1.0}},
    "dense": {"q1": {"a": 2.0, "b": 1.0}, "q2": {"a": 2.0}, "q3": {"b": 2.0, "c": 1.0}},
}


def _results(run: dict, **extra) -> pd.DataFrame:
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    frame = pd.DataFrame(rows, columns=["qid", "docno", "score"])
    return frame.assign(**extra)


def _pt_qrels() -> pd.DataFrame:
    rows = [(q, d, g) for q, docs in QRELS.items() for d, g in docs.items()]
    return pd.DataFrame(rows, columns=["qid", "docno", "label"])


def _rows(result) -> list[tuple]:
    return [(r.run, r.measure, r.mean, r.p_value, r.wins, r.losses) for r in result.rows]


def test_results_frame_of_several_systems_compares_as_its_twin():
    twin = rankscope.compare(QRELS, RUNS, ["AP", "P@1"], correction="none")
    one_frame = pd.concat([_results(run, name=name) for name, run in RUNS.items()])
    for runs in (one_frame, {k: _results(v) for k, v in RUNS.items()}):
        result = rankscope.compare(_pt_qrels(), runs, ["AP", "P@1"], correction=None)
        assert _rows(result) == _rows(twin)


def test_pyterrier_options():
    twin = rankscope.compare(QRELS, RUNS, ["AP"], baseline="dense", correction="bh")
    runs = {k: _results(v) for k, v in RUNS.items()}
    by_position = rankscope.compare(QRELS, runs, ["AP"], baseline=1, correction="fdr_bh")
    assert _rows(by_position) == _rows(twin)
    assert by_position.rows[0].run == "dense"  # the baseline first
    with pytest.raises(UsageError, match="baseline=2"):
        rankscope.compare(QRELS, runs, ["AP"], baseline=2)
    with pytest.raises(UsageError, match="unknown correction 'hs'"):
        rankscope.compare(QRELS, runs, ["AP"], correction="hs")


def test_polars_results_frame():
    pl = pytest.importorskip("polars")
    frame = pl.from_pandas(
        pd.concat([_results(RUNS["bm25"], system="bm25"), _results(RUNS["dense"], system="dense")])
    )
    runs = from_results_frames(frame)
    assert list(runs) == ["bm25", "dense"]
    assert runs["dense"].columns == ["query_id", "doc_id", "score", "system"]
    assert runs["dense"].height == 5


def test_frames_named_otherwise_are_left_alone_or_named_in_the_error():
    frame = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "score": [1.0]})
    assert from_results_frames(frame) is frame
    assert qrels_from_results(frame) is frame
    wrong = pd.DataFrame({"qid": ["q"], "docno": ["d"], "value": [1.0], "name": ["x"]})
    with pytest.raises(InputError, match="this one has 'qid', 'docno', 'value', 'name'"):
        from_results_frames(wrong)
