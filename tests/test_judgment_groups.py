"""Measures over judgment groups (``-R qrels_jg``): by hand, and the reader's errors."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import rankscope
from rankscope import InputError, RankscopeWarning
from rankscope.read.prefs import read_qrels_jg

# q1: two groups.  u1: A and C relevant; u2: only B.  q2: one group, A relevant.
QRELS_JG = """\
q1 u1 A 1
q1 u1 B 0
q1 u1 C 1
q1 u2 B 1
q2 u1 A 1
q2 u1 B 0
"""
# q1 ranks A, B, C, X; q2 ranks X, A; q3 is not judged
RUN = """\
q1 Q0 A 1 4 r
q1 Q0 B 2 3 r
q1 Q0 C 3 2 r
q1 Q0 X 4 1 r
q2 Q0 X 1 2 r
q2 Q0 A 2 1 r
q3 Q0 A 1 1 r
"""

# u1 on q1: AP = (1/1 + 2/3) / 2, P@1 = 1, P@2 = 1/2, R = 2 so Rprec_mult 1.0 cuts at 2: 1/2
# u2 on q1: AP = (1/2) / 1, P@1 = 0, P@2 = 1/2, R = 1: cut at 1: 0
# q2 (one group): AP = 1/2, P@1 = 0, P@2 = 1/2, R = 1: 0
EXPECTED = {
    "map_avgjg": [((1 + 2 / 3) / 2 + 1 / 2) / 2, 1 / 2],
    "P_avgjg_1": [(1 + 0) / 2, 0],
    "P_avgjg_2": [(1 / 2 + 1 / 2) / 2, 1 / 2],
    "P_avgjg_5": [(2 / 5 + 1 / 5) / 2, 1 / 5],
    "Rprec_mult_avgjg_1.00": [(1 / 2 + 0) / 2, 0],
    "Rprec_mult_avgjg_2.00": [(2 / 4 + 1 / 2) / 2, 1 / 2],  # cut at 4 and 2
}


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    qrels = tmp_path / "qrels.jg"
    qrels.write_text(QRELS_JG)
    run = tmp_path / "run"
    run.write_text(RUN)
    return qrels, run


MEASURES = ["qrels_jg", "P_avgjg.1,2,5", "Rprec_mult_avgjg.1.0,2.0"]


def evaluate(qrels, run, measures=MEASURES, **options) -> rankscope.RunEvaluation:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankscopeWarning)
        (result,) = rankscope.evaluate_many(qrels, run, measures, rel_format="qrels_jg", **options)
    return result


@pytest.mark.parametrize("label", sorted(EXPECTED))
def test_by_hand(files, label):
    result = evaluate(*files)
    assert result.query_ids == ["q1", "q2"]
    assert result.value(label).tolist() == pytest.approx(EXPECTED[label])
    assert result.summary_of(label) == pytest.approx(sum(EXPECTED[label]) / 2)


def test_one_group_is_the_plain_measure(files, tmp_path):
    qrels_jg, run = files
    # q2 has one group: its values are those of map, P, Rprec_mult on ordinary qrels
    qrels = tmp_path / "qrels"
    qrels.write_text("q2 0 A 1\nq2 0 B 0\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankscopeWarning)
        (plain,) = rankscope.evaluate_many(qrels, run, ["map", "P.1,2,5", "Rprec_mult.1.0,2.0"])
    grouped = evaluate(qrels_jg, run)
    for label, avg in [
        ("map", "map_avgjg"),
        ("P_1", "P_avgjg_1"),
        ("P_2", "P_avgjg_2"),
        ("P_5", "P_avgjg_5"),
        ("Rprec_mult_1.00", "Rprec_mult_avgjg_1.00"),
        ("Rprec_mult_2.00", "Rprec_mult_avgjg_2.00"),
    ]:
        assert grouped.value(avg)[1] == plain.value(label)[0], label


def test_queries_on_one_side(files, tmp_path):
    qrels, run = files
    short = tmp_path / "short"
    short.write_text("q1 Q0 A 1 1 r\nq3 Q0 A 1 1 r\n")
    with pytest.warns(RankscopeWarning) as record:
        (result,) = rankscope.evaluate_many(qrels, short, "qrels_jg", rel_format="qrels_jg")
    messages = " ".join(str(w.message) for w in record)
    assert "1 query without judgments ignored (q3)" in messages
    assert "1 judged query not in the run, left out of the averages (q2)" in messages
    assert result.query_ids == ["q1"]
    complete = evaluate(qrels, short, complete=True)
    assert complete.query_ids == ["q1", "q2"]
    assert complete.value("map_avgjg")[1] == 0
    assert complete.summary_of("num_q") == 2


def test_relevance_level_and_max_docs(files, tmp_path):
    qrels, run = files
    graded = tmp_path / "graded"
    graded.write_text("q u1 A 2\nq u1 B 1\nq u2 B 2\n")
    ranked = tmp_path / "ranked"
    ranked.write_text("q Q0 A 1 2 r\nq Q0 B 2 1 r\n")
    # level 2: u1 has A relevant (AP 1), u2 has B (AP 1/2)
    result = evaluate(graded, ranked, ["map_avgjg"], relevance_level=2)
    assert result.value("map_avgjg")[0] == pytest.approx((1 + 1 / 2) / 2)
    # top 1 only: u1 AP = 1/2 (A found, B missed; level 1), u2 AP = 0
    result = evaluate(graded, ranked, ["map_avgjg"], max_docs=1)
    assert result.value("map_avgjg")[0] == pytest.approx((1 / 2 + 0) / 2)


def test_other_measures_need_qrels(files):
    with pytest.raises(ValueError, match=r"'map' needs qrels \(-R qrels\).*-m qrels_jg"):
        evaluate(*files, ["map"])


@pytest.mark.parametrize(
    "text,line,message",
    [
        ("q u A 1\nq u B\n", 2, "expected 4 fields (qid jg docno grade), found 3"),
        ("q u A 1.5\n", 1, "relevance grade '1.5' is not an integer"),
        ("q u A x\n", 1, "relevance grade 'x' is not an integer"),
    ],
)
def test_bad_lines(tmp_path, text, line, message):
    path = tmp_path / "bad"
    path.write_text("# judgments\n" + text)
    with pytest.raises(InputError) as info:
        read_qrels_jg(path)
    assert str(info.value).startswith(f"{path}:{line + 1}: ")
    assert message in str(info.value)


def test_duplicates_within_a_group_only(tmp_path):
    path = tmp_path / "dup"
    path.write_text("q u1 A 1\nq u2 A 0\n# comment\nq u1 A 0\n")
    with pytest.raises(InputError, match=r"'A' is judged twice .* group 'u1' \(lines 1 and 4\)"):
        read_qrels_jg(path)
    path.write_text("q u1 A 1\nq u2 A 0\n")
    assert len(read_qrels_jg(path)) == 2
