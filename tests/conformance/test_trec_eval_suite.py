"""trec_eval's own regression suite: identical text for every row of the suite table
(../shared/conformance/trec_eval/README.md), including the preference judgments (-R prefs,
-R qrels_prefs), the judgment groups (-R qrels_jg) and the z-scores (-Z)."""

from __future__ import annotations

import shlex

import pytest

from tests.conftest import CONFORMANCE, need, run_cli

SUITE = CONFORMANCE / "trec_eval" / "suite"

ROWS = [
    ("", "qrels.test", "results.test", "out.test"),
    ("", "qrels.test.with-comments", "results.test", "out.test"),
    ("", "qrels.comment.test", "results.comment.test", "out.comment.test"),
    ("-m all_trec", "qrels.test", "results.test", "out.test.a"),
    ("-m all_trec -q", "qrels.test", "results.test", "out.test.aq"),
    ("-m all_trec -q -c", "qrels.test", "results.trunc", "out.test.aqc"),
    ("-m all_trec -q -c -M100", "qrels.test", "results.trunc", "out.test.aqcM"),
    ("-m all_trec -m relstring.20 -q -l2", "qrels.rel_level", "results.test", "out.test.aql"),
    (
        "-q -m iprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
        "-m Rprec_mult.5.0,0.2,0.35 -m utility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
        "-m ndcg.1=3,2=9,4=4.5 -m ndcg_cut.10,20,23.4 -m success.2,5,20",
        "qrels.test",
        "results.test",
        "out.test.meas_params",
    ),
    ("-m all_prefs -q -R prefs", "prefs.test", "prefs.results.test", "out.test.prefs"),
    ("-m all_prefs -q -R prefs", "prefs.comment.test", "prefs.results.test", "out.test.prefs"),
    ("-m all_prefs -q -R qrels_prefs", "qrels.test", "results.test", "out.test.qrels_prefs"),
    ("-m qrels_jg -q -R qrels_jg", "qrels.123", "results.test", "out.test.qrels_jg"),
    ("-m qrels_jg -q -R qrels_jg", "qrels.comments.123", "results.test", "out.test.qrels_jg"),
    ("-q -m all_trec -Z zscores_file", "qrels.test", "results.test", "out.test.aqZ"),
]


@pytest.mark.parametrize(
    "options,qrels,results,expected", ROWS, ids=[r[3] + ":" + r[1] for r in ROWS]
)
def test_suite_row(options, qrels, results, expected, capsys, reader):
    need(SUITE)
    options = options.replace("-Z zscores_file", f"-Z {shlex.quote(str(SUITE / 'zscores_file'))}")
    args = ["eval", *shlex.split(options), str(SUITE / qrels), str(SUITE / results)]
    code, out, err = run_cli(args, capsys)
    assert code == 0, err
    assert out == (SUITE / expected).read_text()
