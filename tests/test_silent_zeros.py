"""Two ways an evaluation used to print zeros with exit 0: an empty depth (-M 0), and a run
none of whose documents is judged (document ids spelled otherwise)."""

from __future__ import annotations

import pytest

import rankscope
from rankscope.errors import RankscopeWarning, UsageError
from tests.conftest import run_cli, write_qrels, write_ranked_run

QRELS = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1}}


@pytest.mark.parametrize("depth", ["0", "-1"])
def test_depth_must_be_positive(tmp_path, capsys, depth):
    qrels = write_qrels(tmp_path / "qrels", QRELS)
    run = write_ranked_run(tmp_path / "run", "r", {"q1": ["d1", "d2"], "q2": ["d3"]})
    other = write_ranked_run(tmp_path / "other", "o", {"q1": ["d2", "d1"], "q2": ["d3"]})
    for command in ("eval", "compare"):
        args = [command, "-M", depth, qrels, run] + ([other] if command != "eval" else [])
        code, out, err = run_cli(args, capsys)
        assert code == 2 and out == "", command
        assert err.strip() == f"rankscope: error: -M must be at least 1 (got {depth})", command
    with pytest.raises(UsageError, match="max_docs must be at least 1"):
        rankscope.evaluate(QRELS, {"r": {"q1": {"d1": 1.0}}}, ["AP"], max_docs=0)


def test_a_run_with_no_judged_document_is_reported(tmp_path, capsys):
    qrels = write_qrels(tmp_path / "qrels", QRELS)
    shouting = write_ranked_run(tmp_path / "run", "r", {"q1": ["D1", "D2"], "q2": ["D3"]})
    code, out, err = run_cli(["eval", "-m", "map", qrels, shouting], capsys)
    assert code == 0 and out == "map                   \tall\t0.0000\n"
    assert "none of its 3 retrieved documents on the judged queries is in the judgments" in err
    assert "'D" in err and "'d" in err  # both spellings shown
    with pytest.warns(RankscopeWarning, match="none of its 1 retrieved"):
        rankscope.evaluate(QRELS, {"r": {"q1": {"X": 1.0}}}, ["AP"])


def test_a_run_with_some_judged_documents_is_not_reported(recwarn):
    rankscope.evaluate(QRELS, {"r": {"q1": {"d1": 1.0, "X": 0.5}, "q2": {"Y": 1.0}}}, ["AP"])
    assert not [w for w in recwarn if "none of its" in str(w.message)]
