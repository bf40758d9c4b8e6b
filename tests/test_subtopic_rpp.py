"""Diversity judgments and subtopic RPP (eq. 6 of Diaz & Ferraro 2022), by hand."""

from __future__ import annotations

import json

import pytest

import rankscope
from rankscope.errors import InputError
from rankscope.read.trec import read_diversity_qrels
from tests.conftest import DATA, need, run_cli

# subtopic 1: a, c relevant; subtopic 2: b, c relevant (general relevance: a, b, c)
DIVERSITY = "q 1 a 1\nq 2 b 1\nq 1 c 1\nq 2 c 1\nq 1 b 0\nq 2 a 0\n"
RUNS = {"x": {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}, "y": {"q": {"c": 3.0, "b": 2.0, "a": 1.0}}}


@pytest.fixture
def qrels(tmp_path):
    path = tmp_path / "qrels.diversity"
    path.write_text(DIVERSITY)
    return read_diversity_qrels(path)


def test_reading_and_collapsing(qrels):
    assert len(qrels) == 6 and sorted(set(qrels.subtopic.tolist())) == [1, 2]
    assert qrels.collapse().to_dict() == {"q": {"a": 1, "b": 1, "c": 1}}  # max over subtopics


def test_subtopic_rpp_by_hand(qrels):
    result = rankscope.preferences(qrels, RUNS, "stRPP")
    # background (a, b, c): x f = (1, 2, 3), y f = (1, 2, 3) -> 0
    # subtopic 1 (a, c): x f = (1, 3), y f = (1, 3) -> 0
    # subtopic 2 (b, c): x f = (2, 3), y f = (1, 2) -> 1/2 sgn(1 - 2) + 1/2 sgn(2 - 3) = -1
    # p(t*) : p(1) : p(2) = 3 : 2 : 2  ->  stRPP(x, y) = 2/7 * (-1)
    assert result.prefs[0, 0, 1] == pytest.approx(-2 / 7, abs=1e-15)
    assert result.prefs[0, 1, 0] == pytest.approx(2 / 7, abs=1e-15)
    # plain RPP sees no difference (both find the three relevant documents at 1, 2, 3)
    assert rankscope.preferences(qrels, RUNS, "RPP").prefs[0, 0, 1] == 0


def test_subtopic_rpp_needs_diversity_judgments():
    with pytest.raises(ValueError, match="diversity judgments"):
        rankscope.preferences({"q": {"a": 1}}, RUNS, "stRPP")


def test_repeated_subtopic_judgment_is_an_error(tmp_path):
    path = tmp_path / "bad"
    path.write_text("q 1 a 1\nq 1 a 0\n")
    with pytest.raises(InputError, match="judged twice for query 'q' subtopic 1 .lines 1 and 2"):
        read_diversity_qrels(path)
    path.write_text("q x a 1\n")
    with pytest.raises(InputError, match="subtopic 'x' is not an integer"):
        read_diversity_qrels(path)


def test_web_track_diversity_qrels():
    path = need(DATA / "web2009-2014" / "2011" / "qrels.diversity.txt")
    qrels = read_diversity_qrels(path)
    # one row per (query, subtopic, document), as in the file
    assert len(qrels) == sum(1 for line in path.read_text().splitlines() if line.strip())
    assert qrels.subtopic.min() >= 1


def test_stRPP_by_name_reads_a_qrels_file_as_diversity_judgments(tmp_path):
    # eval: no --diversity needed; y's preference over x (the first run) on q is
    # stRPP(y, x) = 2/7 (worked out above), x's own 0
    path = tmp_path / "qrels.diversity"
    path.write_text(DIVERSITY)
    table = rankscope.evaluate(str(path), RUNS, ["stRPP"], output="dict")
    assert dict(zip(table["run"], table["value"], strict=True)) == pytest.approx(
        {"x": 0, "y": 2 / 7}, abs=1e-15
    )
    assert set(table["measure"]) == {"stRPP vs x"}
    assert rankscope.preferences(str(path), RUNS, "stRPP").prefs[0, 0, 1] == pytest.approx(-2 / 7)


def test_prefer_command_reads_diversity_judgments_for_stRPP(tmp_path, capsys):
    qrels = tmp_path / "qrels.diversity"
    qrels.write_text(DIVERSITY)
    files = []
    for name, run in RUNS.items():
        path = tmp_path / name
        path.write_text(
            "".join(f"q Q0 {d} {i} {s} {name}\n" for i, (d, s) in enumerate(run["q"].items(), 1))
        )
        files.append(str(path))
    args = ["prefer", "-m", "stRPP", "--format", "json", str(qrels), *files]
    code, out, _ = run_cli(args, capsys)
    assert code == 0
    matrix = json.loads(out)[0]["mean_preference"]
    assert matrix["x"]["y"] == pytest.approx(-2 / 7) and matrix["y"]["x"] == pytest.approx(2 / 7)
