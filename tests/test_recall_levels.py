"""The recall-level view (`rankscope.recall_levels`, ``rankscope explain``):
Δμ_i computed by hand on small rankings, the levels adding up to the difference that
`rankscope.evaluate` and `rankscope.compare` report on real runs, RPP's sign and share
against `rankscope.preferences`, the mean over queries, and the command line."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

import rankscope
from rankscope import recall_levels
from rankscope.errors import RankscopeWarning, UsageError

from .conftest import DATA, need, run_cli, write_qrels, write_ranked_run

EHEALTH = DATA / "clef_ehealth2016"
L2 = math.log2


def ranked(docs: list[str]) -> dict[str, float]:
    """A ranking as scores: the first document scores highest."""
    return {d: float(len(docs) - i) for i, d in enumerate(docs)}


# --- by hand -------------------------------------------------------------------------------

BINARY_QRELS = {"q": {"r1": 1, "r2": 1, "r3": 1, "n1": 0}}
# A: relevant at ranks 1, 3, 6;  B: relevant at ranks 2, 4, the third not retrieved
BINARY_A = {"q": ranked(["r1", "n1", "r2", "x1", "x2", "r3"])}
BINARY_B = {"q": ranked(["x1", "r2", "n1", "r1", "x2"])}


def test_binary_levels_by_hand():
    view = recall_levels(BINARY_QRELS, BINARY_A, BINARY_B, "q", ["AP", "nDCG", "RBP(p=0.5)", "RR"])
    assert [(x.rank_a, x.rank_b) for x in view.levels] == [(1, 2), (3, 4), (6, None)]
    idcg = 1 + 1 / L2(3) + 1 / L2(4)
    expected = {
        "AP": [(1 / 1 - 1 / 2) / 3, (2 / 3 - 2 / 4) / 3, (3 / 6 - 0) / 3],
        "nDCG": [(1 - 1 / L2(3)) / idcg, (1 / L2(4) - 1 / L2(5)) / idcg, 1 / L2(7) / idcg],
        "RBP(p=0.5)": [0.5 * (1 - 0.5), 0.5 * (0.5**2 - 0.5**3), 0.5 * 0.5**5],
        "RR": [1 - 1 / 2, 0.0, 0.0],
    }
    for label, terms in expected.items():
        assert [x.delta[label] for x in view.levels] == pytest.approx(terms, abs=1e-15)
        assert view.difference[label] == pytest.approx(sum(terms), abs=1e-15)
    assert view.values_a["AP"] == pytest.approx((1 + 2 / 3 + 3 / 6) / 3)
    assert view.values_b["AP"] == pytest.approx((1 / 2 + 2 / 4) / 3)
    assert [x.sign for x in view.levels] == [1, 1, 1]  # A first at every level
    assert [x.rpp for x in view.levels] == pytest.approx([1 / 3] * 3)
    assert view.rpp == pytest.approx(1.0) and view.queries == 1


def test_graded_levels_by_hand():
    """nDCG and RBP take the grade of each run's own i-th relevant document as its gain;
    RBP divides the grades by the highest (3); a tie at a level is RPP's 0 there."""
    qrels = {"q": {"r1": 2, "r2": 1, "r3": 3, "n1": 0, "n2": -1}}
    a = {"q": ranked(["r1", "r2", "n1", "x", "r3"])}  # r1 (2) @1, r2 (1) @2, r3 (3) @5
    b = {"q": ranked(["r3", "n2", "r2", "x"])}  # r3 (3) @1, r2 (1) @3, r1 missing
    view = recall_levels(qrels, a, b, "q")
    idcg = 3 + 2 / L2(3) + 1 / L2(4)
    expected = {
        "AP": [(1 - 1) / 3, (2 / 2 - 2 / 3) / 3, (3 / 5) / 3],
        "nDCG": [(2 - 3) / idcg, (1 / L2(3) - 1 / L2(4)) / idcg, 3 / L2(6) / idcg],
        "RBP": [0.1 * (2 / 3 - 1), 0.1 * (1 / 3) * (0.9 - 0.81), 0.1 * 0.9**4],
        "RR": [0.0, 0.0, 0.0],
    }
    for label, terms in expected.items():
        assert [x.delta[label] for x in view.levels] == pytest.approx(terms, abs=1e-15), label
    assert [x.sign for x in view.levels] == [0, 1, 1]
    assert [(x.a_first, x.b_first, x.tied) for x in view.levels] == [(0, 0, 1), (1, 0, 0),
                                                                       (1, 0, 0)]  # fmt: skip
    assert view.rpp == pytest.approx(2 / 3)


def test_rpp_and_ap_disagree_by_hand():
    """A wins the first level by one rank, B the next two: AP prefers A, RPP prefers B."""
    qrels = {"q": {"r1": 1, "r2": 1, "r3": 1}}
    a = {"q": ranked(["r1", "x1", "x2", "x3", "r2", "r3"])}  # 1, 5, 6
    b = {"q": ranked(["x1", "x2", "r1", "r2", "r3"])}  # 3, 4, 5
    view = recall_levels(qrels, a, b, "q", ["AP"])
    assert [x.delta["AP"] for x in view.levels] == pytest.approx(
        [(1 - 1 / 3) / 3, (2 / 5 - 2 / 4) / 3, (3 / 6 - 3 / 5) / 3]
    )
    assert view.difference["AP"] == pytest.approx((2 / 3 - 1 / 10 - 1 / 10) / 3)  # > 0
    assert view.difference["AP"] > 0 > view.rpp == pytest.approx(-1 / 3)
    assert view.disagreements == {"AP": True}


def test_mean_over_queries_counts_every_judged_query():
    """Q = every judged query: one without relevant documents and one run B did not rank
    count (0 and B's 0); a level's ``queries`` counts the queries with that many relevant."""
    qrels = {
        "q1": {"r1": 1, "r2": 1},
        "q2": {"s1": 1},
        "q3": {"n": 0},  # no relevant document
    }
    a = {"q1": ranked(["r1", "x", "r2"]), "q2": ranked(["x", "s1"]), "q3": ranked(["n"])}
    b = {"q1": ranked(["x", "r2", "r1"]), "q3": ranked(["n"])}  # q2 not ranked
    with pytest.warns(RankscopeWarning, match=r"ranks nothing for 1 query .*\(q2\)"):
        view = recall_levels(qrels, a, b, measures=["AP", "RR"])
    assert view.queries == 3 and view.query is None
    q1 = [(1 - 1 / 2) / 2, (2 / 3 - 2 / 3) / 2]
    q2 = [1 / 2 - 0]
    assert [x.delta["AP"] for x in view.levels] == pytest.approx(
        [(q1[0] + q2[0]) / 3, q1[1] / 3]
    )
    assert [x.queries for x in view.levels] == [2, 1]
    assert [(x.a_first, x.b_first, x.tied) for x in view.levels] == [(2, 0, 0), (0, 0, 1)]
    assert [x.sign for x in view.levels] == [1.0, 0.0]
    assert [x.rpp for x in view.levels] == pytest.approx([(1 / 2 + 1) / 3, 0.0])
    assert all(x.rank_a is None and x.rank_b is None for x in view.levels)


def test_the_same_run_twice_is_zero_everywhere():
    view = recall_levels(BINARY_QRELS, BINARY_A, BINARY_A, "q")
    assert view.run_a != view.run_b  # told apart
    assert all(x.sign == 0 and x.rpp == 0 for x in view.levels)
    assert all(v == 0 for x in view.levels for v in x.delta.values())


def test_query_without_relevant_documents_has_no_level():
    with pytest.warns(RankscopeWarning, match="ranks nothing"):
        view = recall_levels({"q": {"a": 0}, "p": {"b": 1}}, {"q": ranked(["a"])},
                             {"q": ranked(["a"])}, "q")  # fmt: skip
    assert view.levels == () and view.difference == dict.fromkeys(view.labels, 0.0)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (dict(measures=["ap"]), "did you mean 'AP'"),
        (dict(measures=["P@10"]), "recall levels decompose AP, nDCG, RBP"),
        (dict(measures=["RBP(p=1.5)"]), "strictly between 0 and 1"),
        (dict(measures=["AP", "AP"]), "named twice"),
        (dict(measures=[]), "at least one measure"),
        (dict(query="nope"), "query 'nope' is not in the judgments"),
    ],
)
def test_errors(call, message):
    with pytest.raises(UsageError, match=message):
        recall_levels(BINARY_QRELS, BINARY_A, BINARY_B, **call)


def test_frame_and_records():
    view = recall_levels(BINARY_QRELS, BINARY_A, BINARY_B, "q", ["AP"])
    frame = view.to_frame("dict")
    assert frame["level"] == [1, 2, 3] and frame["rank_b"] == [2, 4, None]
    assert frame["AP"] == [x.delta["AP"] for x in view.levels]


# --- the sum property on real runs -----------------------------------------------------------

MEASURES = ["AP", "nDCG", "RBP", "RBP(p=0.5)", "RR"]
PAIRS = [("ecnu_EN_Run2", "GUIR_EN_Run1"), ("CUNI_EN_Run1", "KDEIR_EN_Run2"),
         ("WHUIRGroup_EN_Run3", "InfoLab_EN_Run3")]  # fmt: skip


@pytest.fixture(scope="module")
def ehealth():
    root = need(EHEALTH)
    qrels = rankscope.read_qrels(str(root / "task2.qrels"))
    names = sorted({n for pair in PAIRS for n in pair})
    runs = {n: rankscope.read_run(str(root / "runs" / f"{n}.txt.gz"), name=n,
                                  duplicates="first", queries=qrels.queries, docs=qrels.docs)
            for n in names}  # fmt: skip
    table = rankscope.evaluate(qrels, runs, MEASURES, output="dict")
    values = {
        (r, q, m): v
        for r, q, m, v in zip(table["run"], table["query"], table["measure"], table["value"],
                              strict=True)
    }  # fmt: skip
    return qrels, runs, values


@pytest.mark.parametrize("pair", PAIRS)
def test_levels_add_up_to_each_query_difference(ehealth, pair):
    """Σ_i Δμ_i = μ(A) − μ(B) on every query, μ as `rankscope.evaluate` computes it (its
    own kernels), and Σ_i sgn/m = RPP(A, B) as `rankscope.preferences` computes it."""
    qrels, runs, values = ehealth
    a, b = pair
    prefs = rankscope.preferences(qrels, {a: runs[a], b: runs[b]}, "RPP")
    for q, qid in enumerate(prefs.query_ids):
        view = recall_levels(qrels, runs[a], runs[b], qid, MEASURES)
        for m in MEASURES:
            total = math.fsum(x.delta[m] for x in view.levels)
            assert total == pytest.approx(
                values[(a, qid, m)] - values[(b, qid, m)], abs=1e-12
            ), (qid, m)
            assert view.values_a[m] == pytest.approx(values[(a, qid, m)], abs=1e-12)
        assert math.fsum(x.rpp for x in view.levels) == pytest.approx(
            prefs.prefs[q, 0, 1], abs=1e-12
        )
        ranks = [x.rank_a for x in view.levels if x.rank_a is not None]
        assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)


def test_mean_levels_add_up_to_the_compared_difference(ehealth):
    """Over all queries the levels add up to the mean difference `rankscope.compare`
    reports (every judged query, missing = 0) and to the mean RPP over the baseline."""
    qrels, runs, _ = ehealth
    a, b = PAIRS[0]
    view = recall_levels(qrels, runs[a], runs[b], measures=MEASURES)
    compared = rankscope.compare(qrels, {b: runs[b], a: runs[a]}, [*MEASURES, "RPP"])
    for m in MEASURES:
        assert math.fsum(x.delta[m] for x in view.levels) == pytest.approx(
            compared.row(a, m).difference, abs=1e-12
        )
    assert view.rpp == pytest.approx(compared.row(a, "RPP").mean, abs=1e-12)
    assert view.queries == len(qrels.query_ids)
    assert [x.queries for x in view.levels] == sorted(
        (x.queries for x in view.levels), reverse=True
    )
    for x in view.levels:
        assert x.a_first + x.b_first + x.tied == x.queries


def test_ties_and_depth_are_those_of_the_evaluation(ehealth):
    qrels, runs, _ = ehealth
    a, b = PAIRS[2]  # WHUIRGroup_EN_Run3 has many tied scores
    for ties, depth in (("docno-asc", None), ("input-order", 100)):
        view = recall_levels(qrels, runs[a], runs[b], measures=["AP", "nDCG"], ties=ties,
                             max_docs=depth)  # fmt: skip
        table = rankscope.evaluate(qrels, {a: runs[a], b: runs[b]}, ["AP", "nDCG"],
                                   ties=ties, max_docs=depth, per_query=False, output="dict",
                                   complete=True)  # fmt: skip
        got = dict(zip(zip(table["run"], table["measure"], strict=True), table["value"],
                       strict=True))  # fmt: skip
        for m in ("AP", "nDCG"):
            assert view.difference[m] == pytest.approx(got[(a, m)] - got[(b, m)], abs=1e-12)


# --- the command line ------------------------------------------------------------------------


@pytest.fixture
def files(tmp_path):
    qrels = write_qrels(tmp_path / "qrels.txt", {"q1": {"r1": 1, "r2": 1, "r3": 1},
                                                  "q2": {"s1": 2, "s2": 0}})  # fmt: skip
    a = write_ranked_run(tmp_path / "a.run", "tagA", {
        "q1": ["r1", "x1", "x2", "x3", "r2", "r3"], "q2": ["s1"],
    })  # fmt: skip
    b = write_ranked_run(tmp_path / "b.run", "tagB", {
        "q1": ["x1", "x2", "r1", "r2", "r3"], "q2": ["s2", "s1"],
    })  # fmt: skip
    return qrels, a, b


def test_cli_table_for_one_query(files, capsys):
    code, out, err = run_cli(["explain", "--query", "q1", *files], capsys)
    assert code == 0, err
    assert out.startswith("a (A) against b (B), query q1: 3 recall levels")
    assert "RPP prefers b; AP, nDCG, RBP, RR prefer a." in out
    levels = [line.split() for line in out.splitlines() if line[:1].isdigit()]
    assert [row[:4] for row in levels] == [["1", "1", "3", "+1"], ["2", "5", "4", "-1"],
                                           ["3", "6", "5", "-1"]]  # fmt: skip


def test_cli_csv_and_json_agree_with_the_api(files, capsys):
    qrels, a, b = files
    view = recall_levels(qrels, a, b, measures=["AP", "RR"])
    code, out, _ = run_cli(["explain", "--format", "csv", "-m", "AP", "-m", "RR", *files], capsys)
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [float(r["AP"]) for r in rows] == [x.delta["AP"] for x in view.levels]
    assert [r["rank_a"] for r in rows] == ["", "", ""]  # over queries: no single rank
    code, out, _ = run_cli(["explain", "--format", "json", *files], capsys)
    report = json.loads(out)
    assert report["query"] is None and report["queries"] == 2
    assert [m["measure"] for m in report["measures"]] == ["AP", "nDCG", "RBP", "RR"]
    ap = report["measures"][0]
    assert ap["difference"] == pytest.approx(ap["a"] - ap["b"])
    assert ap["difference"] == pytest.approx(math.fsum(r["AP"] for r in report["levels"]))
    assert report["rpp"] == pytest.approx(view.rpp)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--query", "q9"], "query 'q9' is not in the judgments"),
        (["-m", "MAP"], "recall levels decompose"),
        (["--dir"], "RUN_A must be one run file (got 2 runs: a directory?)"),
    ],
)
def test_cli_errors_exit_2(files, capsys, args, message):
    qrels, a, b = files
    if args == ["--dir"]:  # a directory of two runs as RUN_A
        args, a = [], str(Path(a).parent / "runs")
        Path(a).mkdir()
        for run in files[1:]:
            Path(a, Path(run).name).write_text(Path(run).read_text())
    code, _, err = run_cli(["explain", *args, qrels, a, b], capsys)
    assert code == 2 and message in err and "Traceback" not in err


def test_cli_one_run_twice(files, capsys):
    qrels, a, _ = files
    code, out, _ = run_cli(["explain", qrels, a, a], capsys)
    assert code == 0 and out.startswith("a (A) against a (B), mean over 2 judged queries")
    assert re.search(r"^RPP \(A over B\) +\+0\.0000 ", out, re.M)


def test_cli_names_by_tag(files, capsys):
    code, out, _ = run_cli(["explain", "--names", "tag", *files], capsys)
    assert code == 0 and out.startswith("tagA (A) against tagB (B), mean over 2 judged queries")


def test_sign_column_matches_levels(files):
    qrels, a, b = files
    view = recall_levels(qrels, a, b, "q1")
    signs = [np.sign((x.rank_b or math.inf) - (x.rank_a or math.inf)) for x in view.levels]
    assert [x.sign for x in view.levels] == signs
    assert all(p.level + 1 == n.level for p, n in pairwise(view.levels))


def test_docs_example_is_the_commands_output(capsys):
    """docs/explain.md shows `rankscope explain -q 117` on two eHealth runs as it prints."""
    root = need(EHEALTH)
    docs = (Path(__file__).resolve().parent.parent / "docs" / "explain.md").read_text()
    shown = docs.split("--query 117 task2.qrels")[1].split("```\n")[1]
    runs = [str(root / "runs" / f"{n}.txt.gz") for n in ("ecnu_EN_Run2", "GUIR_EN_Run1")]
    code, out, _ = run_cli(["explain", "--duplicates", "first", "--query", "117",
                            str(root / "task2.qrels"), *runs], capsys)  # fmt: skip
    assert code == 0 and out == shown


def test_mean_view_adds_each_querys_terms_in_query_order():
    # the view over many queries (computed for all of them at once) is, bit for bit, each
    # query's terms by the formulas of the module added query after query, divided by Q
    from rankscope.judge import NOT_RETRIEVED, RelevanceTable
    from rankscope.preference.recall import level_measure, level_view

    rng = np.random.default_rng(11)
    grades, ranks = [], []
    for _ in range(40):
        m = int(rng.integers(1, 12))
        grades.append(rng.integers(1, 4, size=m).astype(np.int64))
        r = rng.integers(1, 60, size=(2, m)).astype(np.int64)  # ties across the runs
        r[rng.random((2, m)) < 0.3] = NOT_RETRIEVED
        ranks.append(r)
    ids = [f"q{i:02d}" for i in range(40)]
    table = RelevanceTable(["a", "b"], ids, grades, ranks)
    names = ["AP", "nDCG", "RBP(p=0.8)", "RR"]
    chosen = [*ids[::-1], "unjudged"]  # any order; a query without relevant documents adds 0
    view = level_view(table, 0, 1, chosen, [level_measure(n) for n in names])
    width = max(len(g) for g in grades)
    sums = {(run, n): [0.0] * width for run in (0, 1) for n in names}
    shares = [0.0] * width
    for qid in chosen[:-1]:
        q = ids.index(qid)
        g = grades[q]
        m = len(g)
        idcg = float(np.sum(np.sort(g.astype(np.float64))[::-1] / np.log2(np.arange(2, m + 2))))
        top = float(g.max())
        f = {}
        for run in (0, 1):
            order = np.argsort(ranks[q][run], kind="stable")
            f[run] = ranks[q][run][order]
            for i in range(m):
                rank, grade = int(f[run][i]), int(g[order][i])
                hit = rank < NOT_RETRIEVED
                terms = {
                    "AP": (i + 1) / rank / m if hit else 0.0,
                    "nDCG": grade / np.log2(rank + 1) / idcg if hit else 0.0,
                    "RBP(p=0.8)": (1 - 0.8) * ((grade / top if top > 1 else grade)
                                               * 0.8 ** (rank - 1)) if hit else 0.0,
                    "RR": 1.0 / rank if hit and i == 0 else 0.0,
                }  # fmt: skip
                for n in names:
                    sums[(run, n)][i] += terms[n]
        for i in range(m):
            shares[i] += int(np.sign(f[1][i] - f[0][i])) / m
    count = len(chosen)
    for n in names:
        assert [x.delta[n] for x in view.levels] == [
            (a - b) / count for a, b in zip(sums[(0, n)], sums[(1, n)], strict=True)
        ], n
        assert view.values_a[n] == math.fsum(sums[(0, n)]) / count
        assert view.values_b[n] == math.fsum(sums[(1, n)]) / count
    assert [x.rpp for x in view.levels] == [s / count for s in shares]
