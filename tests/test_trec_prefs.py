"""trec_eval's preference measures (``-R prefs``, ``-R qrels_prefs``), computed by hand on tiny
judgments; the readers' errors.  Conformance with trec_eval's own test files is in
tests/conformance/test_trec_eval_suite.py.

Notation: a preference A > B is "ret" when the run retrieves both (fulfilled when A ranks
above B), "imp" when it retrieves one (fulfilled when that is A), "notoccur" when neither.
Documents are numbered as trec_eval numbers them: retrieved judged documents by rank from 0,
then unretrieved judged documents by id.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import rankscope
from rankscope import InputError, RankscopeWarning
from rankscope.read.prefs import read_prefs, read_qrels_prefs

NAMES = [
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
    "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
    "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
    "prefs_avgjg_imp",
]  # fmt: skip

# q1: one group, one sub-group: classes {A: 2} > {B: 1} > {C, D: 0}.
# q2: two groups that disagree on A and B.
# q3: one group, 1 relevant and 3 non-relevant documents (prefs_avgjg_Rnonrel recounts).
# q4: two sub-groups: A > B and B > C > D, closed to 6 preferences (A > C, A > D added).
# q5: two sub-groups, R = 2 relevant, N = 3 non-relevant (recount of the order).
# q6: no preferences: two non-relevant documents.
# q7: no preferences: two equally relevant documents.
# q8: the run retrieves none of the judged documents (an empty ranking for the judgments).
PREFS = """\
# qid jg jsg docno rel_level
q1 u1 s A 2
q1 u1 s B 1
q1 u1 s C 0
q1 u1 s D 0
q2 u1 s A 1
q2 u1 s B 0
q2 u1 s C 0
q2 u1 s D 0
q2 u2 s B 1
q2 u2 s A 0
q3 u1 s A 1
q3 u1 s B 0
q3 u1 s C 0
q3 u1 s D 0
q4 u1 s1 A 2
q4 u1 s1 B 1
q4 u1 s2 B 3
q4 u1 s2 C 1
q4 u1 s2 D 0
q5 u1 s1 A 2
q5 u1 s1 E 1
q5 u1 s1 B 0
q5 u1 s1 C 0
q5 u1 s2 A 1
q5 u1 s2 D 0
q6 u1 s A 0
q6 u1 s B 0
q7 u1 s A 1
q7 u1 s B 1
q8 u1 s A 1
q8 u1 s B 0
"""

RUN = """\
q1 Q0 C 1 4 r
q1 Q0 A 2 3 r
q1 Q0 X 3 2 r
q1 Q0 B 4 1 r
q2 Q0 C 1 3 r
q2 Q0 A 2 2 r
q2 Q0 B 3 1 r
q3 Q0 A 1 3 r
q3 Q0 B 2 2 r
q3 Q0 C 3 1 r
q4 Q0 C 1 3 r
q4 Q0 A 2 2 r
q4 Q0 D 3 1 r
q5 Q0 C 1 4 r
q5 Q0 A 2 3 r
q5 Q0 B 3 2 r
q5 Q0 E 4 1 r
q6 Q0 A 1 1 r
q7 Q0 A 1 1 r
q8 Q0 X 1 1 r
"""

# Per query: every measure of NAMES, in order.
EXPECTED = {
    # docid ranks C=0 A=1 B=2 (retrieved), D=3.  A>B ret fulfilled, A>C ret failed,
    # A>D imp fulfilled, B>C ret failed, B>D imp fulfilled: ful_ret 1 of 3, ful_imp 2 of 2.
    # Rnonrel: R = 2 >= N = 2, nothing added.  Rnonrel_ret: R_ret = 2 (A, B), N_ret = 1 (C):
    # ful = 1 + 2 * 1, poss = 3 + R * 1 = 5.
    "q1": [5, 3, 1, 3 / 5, 3 / 5, 3 / 5, 3 / 5, 1 / 3, 1 / 3, 1 / 3, 3 / 5, 3 / 5, 3 / 5, 3 / 5],
    # docid ranks C=0 A=1 B=2, D=3.  u1: A>B ret ful, A>C ret failed, A>D imp ful
    # (ret 1 of 2, imp 1 of 1); u2: B>A ret failed (0 of 1).
    # pairs (low, high): (C, A) 0 of 1, (A, B) 1 of 2 groups, (A, D) 1 of 1 (imp).
    # Rnonrel u1: R = 1 < N = 3: kept non-relevant {C}; A x C failed, and (trec_eval's
    # recount) the non-relevant class {C, B, D} x {C}: 3 more failed -> 0 / 4; u2: R = N = 1:
    # 0 / 1.  Rnonrel_ret u1: R_ret = 1 < N_ret = 2: A x C failed, {C, B} x {C} failed -> 0/3.
    "q2": [
        4,
        2,
        1,
        2 / 4,
        (0 + 0.5 + 1) / 3,
        (2 / 3 + 0) / 2,
        0.0,
        1 / 3,
        (0 + 0.5) / 2,
        (1 / 2 + 0) / 2,
        0.0,
        2 / 4,
        (0 + 0.5 + 1) / 3,
        (2 / 3 + 0) / 2,
    ],  # fmt: skip
    # docid ranks A=0 B=1 C=2, D=3.  A>B, A>C ret fulfilled, A>D imp fulfilled.
    # Rnonrel: R = 1 < N = 3, kept {B}: A x B fulfilled, then {B, C, D} x {B}: 3 failed
    # (B x B included) -> 1 / 4 (1 / 1 without trec_eval's recount of the last class).
    # Rnonrel_ret: R_ret = 1 < N_ret = 2: A x B ful, {B, C} x {B} 2 failed -> 1 / 3.
    "q3": [3, 3, 2, 1, 1, 1, 1 / 4, 1, 1, 1, 1 / 3, 1, 1, 1],
    # docid ranks C=0 A=1 D=2, B=3.  A>B imp ful, A>C ret failed, A>D ret ful, B>C imp
    # failed, B>D imp failed, C>D ret ful: ret 2 of 3, imp 1 of 3.  Levels (the last met):
    # A 2, B 3, C 1, D 0: R = 3, R_ret = 2, N = N_ret = 1.
    # Rnonrel: ful 3 + R_ret * 2, poss 6 + R * 2; Rnonrel_ret: ful 2 + R_ret * 1, poss 3 + R.
    "q4": [
        6,
        3,
        2,
        3 / 6,
        3 / 6,
        3 / 6,
        7 / 12,
        2 / 3,
        2 / 3,
        2 / 3,
        4 / 6,
        3 / 6,
        3 / 6,
        3 / 6,
    ],  # fmt: skip
    # docid ranks C=0 A=1 B=2 E=3, D=4.  Closed order: A > E, B, C, D; E > B, C.
    # A>E, A>B ret ful, A>C ret failed, A>D imp ful, E>B, E>C ret failed: ret 2 of 5, imp 1.
    # Rnonrel: R = 2 < N = 3: the third non-relevant by docid rank (D) leaves: 2 of 5.
    # Rnonrel_ret: R_ret = 2 = N_ret: 2 of 5.
    "q5": [6, 3, 2, 0.5, 0.5, 0.5, 0.4, 0.4, 0.4, 0.4, 0.4, 0.5, 0.5, 0.5],
    # nothing to compare: 0 everywhere (Rnonrel: 0 / 0 in trec_eval, hence 0)
    "q6": [0] * 14,
    # no preferences, but Rnonrel adds R - N = 2 non-relevant documents below each relevant:
    # ful = R_ret * 2 = 2, poss = R * 2 = 4; Rnonrel_ret: R_ret = 1: ful 1 * 1, poss R * 1
    "q7": [0, 0, 0, 0, 0, 0, 2 / 4, 0, 0, 0, 1 / 2, 0, 0, 0],
    # A>B: neither retrieved (notoccur): possible, never fulfilled
    "q8": [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
}


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    prefs = tmp_path / "prefs.txt"
    prefs.write_text(PREFS)
    run = tmp_path / "run.txt"
    run.write_text(RUN)
    return prefs, run


def evaluate(prefs, run, measures="all_prefs", **options) -> rankscope.RunEvaluation:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankscopeWarning)
        (result,) = rankscope.evaluate_many(
            prefs, run, measures, rel_format=options.pop("rel_format", "prefs"), **options
        )
    return result


@pytest.mark.parametrize("query", sorted(EXPECTED))
def test_every_measure_by_hand(files, query):
    result = evaluate(*files)
    i = result.query_ids.index(query)
    got = {name: float(result.value(name)[i]) for name in NAMES}
    assert got == pytest.approx(dict(zip(NAMES, EXPECTED[query], strict=True)))


def test_summaries_are_sums_of_counts_and_means_of_ratios(files):
    result = evaluate(*files)
    assert result.query_ids == sorted(EXPECTED)
    assert result.summary_of("num_q") == len(EXPECTED)
    assert result.summary_of("runid") == "r"
    for k, name in enumerate(NAMES):
        per_query = [EXPECTED[q][k] for q in sorted(EXPECTED)]
        if k < 3:
            assert result.summary_of(name) == sum(per_query)
        else:
            assert result.summary_of(name) == pytest.approx(sum(per_query) / len(EXPECTED))


def test_trec_text(files):
    text = rankscope.format_trec(evaluate(*files), per_query=True)
    assert "prefs_num_prefs_poss  \tq1\t5\n" in text
    assert "prefs_avgjg_Rnonrel   \tq3\t0.2500\n" in text
    assert "prefs_avgjg_Rnonrel_ret\tq3\t0.3333\n" in text
    # (3/5 + 1/3 + 1 + 1/2 + 1/2 + 0 + 0 + 0) / 8
    assert text.endswith("prefs_avgjg_imp       \tall\t0.3667\n")


def test_missing_query_is_left_out_or_evaluated_on_an_empty_ranking(files, tmp_path):
    prefs, _ = files
    run = tmp_path / "short.run"
    run.write_text("q1 Q0 C 1 4 r\n")
    with pytest.warns(RankscopeWarning, match="7 judged queries not in the run"):
        (left_out,) = rankscope.evaluate_many(prefs, run, "all_prefs", rel_format="prefs")
    assert left_out.query_ids == ["q1"]
    complete = evaluate(prefs, run, complete=True)
    assert complete.query_ids == sorted(EXPECTED)
    i = complete.query_ids.index("q4")
    # like q8: every preference possible, none fulfilled
    assert [float(complete.value(n)[i]) for n in NAMES] == [6] + [0] * 13


def test_ties_are_broken_by_document_id_ascending(tmp_path):
    prefs = tmp_path / "prefs"
    prefs.write_text("q u s B 1\nq u s A 0\n")
    run = tmp_path / "run"
    run.write_text("q Q0 A 1 1.0 r\nq Q0 B 2 1.0 r\n")
    # trec_eval orders tied preference documents by id ascending: A, then B: B > A failed
    assert evaluate(prefs, run).value("prefs_simp_ret")[0] == 0
    assert evaluate(prefs, run, ties="docno-desc").value("prefs_simp_ret")[0] == 1


def test_max_docs(files):
    prefs, run = files
    # q1 cut to C, A: B becomes unretrieved (A>B, B>D: imp / notoccur)
    result = evaluate(prefs, run, max_docs=2)
    i = result.query_ids.index("q1")
    assert result.value("prefs_num_prefs_ful_ret")[i] == 0
    assert result.value("prefs_simp")[i] == pytest.approx(2 / 5)  # A>B, A>D imp fulfilled


def test_qrels_read_as_preferences(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("q 0 A 2\nq 0 B 1\nq 0 C 0\nq 0 D 0\n")
    run = tmp_path / "run"
    run.write_text("q Q0 C 1 4 r\nq Q0 A 2 3 r\nq Q0 B 3 1 r\n")
    # q1 of the preference judgments above, written as qrels
    result = evaluate(qrels, run, rel_format="qrels_prefs")
    assert [float(result.value(n)[0]) for n in NAMES] == pytest.approx(EXPECTED["q1"])


def test_agreement_between_groups_in_prefs_pair(tmp_path):
    prefs = tmp_path / "prefs"
    # three users order A and B: two prefer A; the run ranks A first
    prefs.write_text("q u1 s A 1\nq u1 s B 0\nq u2 s A 1\nq u2 s B 0\nq u3 s B 1\nq u3 s A 0\n")
    run = tmp_path / "run"
    run.write_text("q Q0 A 1 2 r\nq Q0 B 2 1 r\n")
    result = evaluate(prefs, run)
    assert result.value("prefs_pair")[0] == pytest.approx(2 / 3)  # one pair, 2 of 3 groups
    assert result.value("prefs_simp")[0] == pytest.approx(2 / 3)
    assert result.value("prefs_avgjg")[0] == pytest.approx((1 + 1 + 0) / 3)


# -- errors ------------------------------------------------------------------------------


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "text,line,message",
    [
        ("q u s A 1\nq u s B\n", 2, "expected 5 fields (qid jg jsg docno rel_level), found 4"),
        ("q u s A 1\nq u s B 0 x\n", 2, "expected 5 fields"),
        ("q u s A x\n", 1, "relevance level 'x' is not a number"),
        ("q u s A 1,5\n", 1, "relevance level '1,5' is not a number"),
        ("q u s A nan\n", 1, "relevance level 'nan' is not a number"),
        ("q u s A 1e999\n", 1, "relevance level '1e999' is not finite"),
    ],
)
def test_bad_prefs_lines(tmp_path, text, line, message):
    path = write(tmp_path / "bad.prefs", "# comment\n" + text)
    with pytest.raises(InputError) as info:
        read_prefs(path)
    assert str(info.value).startswith(f"{path}:{line + 1}: ")
    assert message in str(info.value)


def test_bad_qrels_prefs_line(tmp_path):
    path = write(tmp_path / "bad.qrels", "q 0 A 1\nq 0 s B 1\n")
    with pytest.raises(InputError, match=r":2: expected 4 fields \(qid jg docno rel\), found 5"):
        read_qrels_prefs(path)


def test_empty_prefs_file(tmp_path):
    with pytest.raises(InputError, match="no preference judgments"):
        read_prefs(write(tmp_path / "empty", "# nothing\n\n"))


def test_comments(tmp_path):
    # trec_eval's prefs.comment.test: comment lines, and a '#' inside a document id
    path = write(tmp_path / "p", "# a comment\nq u s A#37 1\n  # indented\nq u s B 0\n")
    prefs = read_prefs(path)
    assert prefs.docs.strings_of(prefs.doc) == ["A#37", "B"]
    assert prefs.line.tolist() == [2, 4]


@pytest.mark.parametrize(
    "text,message",
    [
        # one sub-group: a document in two classes
        ("q u s A 1\nq u s A 0\nq u s B 2\n", "document 'A' has two relevance levels"),
        # several sub-groups: a cycle
        (
            "q u s1 A 2\nq u s1 B 1\nq u s2 B 2\nq u s2 A 1\n",
            "documents 'A' and 'B' are each preferred to the other",
        ),
        # several sub-groups: non-relevant in one, relevant in the next
        ("q u s1 A 1\nq u s1 B 0.5\nq u s2 A 0\nq u s2 C 1\n", "both 0 and non-0"),
    ],
)
def test_inconsistent_judgment_groups(tmp_path, text, message):
    prefs = write(tmp_path / "p", text)
    run = write(tmp_path / "r", "q Q0 A 1 1 r\n")
    with pytest.raises(InputError) as info:
        evaluate(prefs, run)
    assert f"{prefs}: query 'q', judgment group 'u': " in str(info.value)
    assert message in str(info.value)


def test_measures_need_their_judgments(files, tmp_path):
    prefs, run = files
    with pytest.raises(ValueError, match=r"'map' needs qrels \(-R qrels\)"):
        evaluate(prefs, run, ["map"])
    qrels = write(tmp_path / "qrels", "q1 0 A 1\n")
    with pytest.raises(ValueError, match="'prefs_simp' needs other judgments: -R prefs"):
        evaluate(qrels, run, ["prefs_simp"], rel_format="qrels")
    with pytest.raises(ValueError, match="unknown judgments format"):
        evaluate(prefs, run, rel_format="pref")


def test_default_measures_are_trec_evals_prefs_nickname(files):
    result = evaluate(*files, measures=None)
    assert [r.label for r in result.requests] == ["runid", "num_q", *NAMES[:6]]


def test_command_line(files, capsys):
    from tests.conftest import run_cli

    prefs, run = files
    code, out, err = run_cli(
        ["eval", "-R", "prefs", "-m", "prefs_simp", str(prefs), str(run)], capsys
    )
    assert code == 0, err
    assert out == "prefs_simp            \tall\t0.3875\n"  # (3/5+1/2+1+1/2+1/2+0+0+0)/8
    code, out, err = run_cli(["eval", "-R", "prefs", "-m", "map", str(prefs), str(run)], capsys)
    assert code == 2
    assert "rankscope: error: measure 'map' needs qrels (-R qrels)" in err
