"""`rankscope meta` with diversity judgments: subtopic measures and stRPP side by side.

Expectations come from ndeval's own output (the conformance CSVs of the 8 TREC Web 2012
baseline runs) with scipy's Kendall's τ and paired t-test, and from the meaning of "fewer
judgments" (a judged document is dropped with all its subtopic judgments)."""

from __future__ import annotations

import csv
import gzip
import io
import itertools
import json

import numpy as np
import pytest
from scipy import stats

import rankscope
from rankscope.read.trec import read_diversity_qrels
from rankscope.table.study import drop_judgments
from tests.conftest import CONFORMANCE, DATA, need, run_cli

WEB = DATA / "web2009-2014" / "2012"
QRELS = WEB / "qrels-for-ndeval.txt"
NDEVAL = CONFORMANCE / "ndeval"
RUNS = [
    f"{m}-results-{c}{f}" for m in ("ql", "rm") for c in ("cata", "catb") for f in ("", "-filtered")
]
# judgments of two queries over three subtopics: each document judged for every subtopic,
# as the Web track's assessors judged them
DIVERSITY = "".join(
    f"{q} {t} {q}-d{d} {int((d + t) % 3 == 0)}\n" for q in ("q1", "q2") for d in range(10)
    for t in (1, 2, 3)
)  # fmt: skip


@pytest.mark.parametrize("policy", ["uniform", "pool"])
@pytest.mark.parametrize("keep", [0.1, 0.3, 0.5])
def test_fewer_judgments_drops_documents_with_all_their_subtopics(tmp_path, policy, keep):
    path = tmp_path / "qrels.diversity"
    path.write_text(DIVERSITY)
    qrels = read_diversity_qrels(path)
    reduced = drop_judgments(qrels, [], keep, policy=policy, rng=np.random.default_rng(3))
    qids = reduced.queries.strings_of(reduced.query)
    docs = reduced.docs.strings_of(reduced.doc)
    subtopics = reduced.subtopic.tolist()
    by_doc: dict[tuple[str, str], set[int]] = {}
    for q, d, t in zip(qids, docs, subtopics, strict=True):
        by_doc.setdefault((q, d), set()).add(t)
    # every kept document keeps its three subtopic judgments ...
    assert all(ts == {1, 2, 3} for ts in by_doc.values())
    # ... and each query keeps int(10 * keep) of its 10 judged documents (at least one)
    for q in ("q1", "q2"):
        assert sum(1 for key in by_doc if key[0] == q) == max(int(10 * keep), 1)


NDEVAL_MEASURES = ["alpha-nDCG@20", "ERR-IA@20", "MAP-IA", "strec@20"]


def _ndeval_topics(run: str) -> dict[str, dict[str, float]]:
    """ndeval's per-topic values (default mode: documents ranked by the rank column)."""
    text = need(NDEVAL / f"{run}.default.csv").read_text()
    return {row["topic"]: {m: float(row[m]) for m in NDEVAL_MEASURES}
            for row in csv.DictReader(io.StringIO(text))}  # fmt: skip


def test_meta_orders_runs_and_tests_pairs_as_ndeval_and_eq_6_say(capsys):
    """`rankscope meta --order rank` on the Web 2012 baseline runs: Kendall's τ between the
    intent-aware measures' orderings and their discriminative power under the t-test with
    Bonferroni correction are those of ndeval's own per-topic output (scipy's τ and paired t);
    stRPP's t-test power is that of the plain-Python eq. 6 (`tests.strpp_reference`)."""
    from tests import strpp_reference as ref

    need(QRELS)
    args = ["meta", "--order", "rank", "--no-robustness", "--format", "json",
            "--permutations", "200"]  # fmt: skip
    for m in [*NDEVAL_MEASURES, "stRPP"]:
        args += ["-m", m]
    code, out, err = run_cli([*args, str(QRELS), str(WEB / "baseline_runs")], capsys)
    assert code == 0, err
    got = json.loads(out)
    names = got["runs"]
    assert sorted(names) == sorted(RUNS)
    topics = {run: _ndeval_topics(run) for run in names}
    queries = [q for q in topics[names[0]] if q != "amean"]
    assert len(queries) == 50
    per_query = {m: np.array([[topics[r][q][m] for q in queries] for r in names])
                 for m in NDEVAL_MEASURES}  # fmt: skip
    means = {m: np.array([topics[r]["amean"][m] for r in names]) for m in NDEVAL_MEASURES}
    pairs = list(itertools.combinations(range(len(names)), 2))
    for i, a in enumerate(NDEVAL_MEASURES):
        for j, b in enumerate(NDEVAL_MEASURES):
            expected = stats.kendalltau(means[a], means[b]).statistic
            assert got["kendall_tau"][i][j] == pytest.approx(expected, abs=1e-12), (a, b)
        p = [stats.ttest_rel(per_query[a][x], per_query[a][y]).pvalue for x, y in pairs]
        power = np.mean(np.minimum(np.array(p) * len(pairs), 1.0) < 0.05)
        assert got["discriminative_power"][a]["t-bonferroni"] == pytest.approx(power), a
    # stRPP: per-query preferences of each pair from eq. 6, tested against 0
    judgments = ref.read_diversity(QRELS)
    rankings = {r: ref.read_ranked(WEB / "baseline_runs" / f"{r}.txt.gz", by="rank")
                for r in names}  # fmt: skip
    p = []
    for x, y in pairs:
        prefs = [ref.st_rpp(rankings[names[x]].get(q, []), rankings[names[y]].get(q, []),
                            judgments[q]) for q in queries]  # fmt: skip
        p.append(1.0 if not any(prefs) else stats.ttest_1samp(prefs, 0.0).pvalue)
    power = np.mean(np.minimum(np.array(p) * len(pairs), 1.0) < 0.05)
    assert got["discriminative_power"]["stRPP"]["t-bonferroni"] == pytest.approx(power)


def test_meta_order_rank_ranks_tied_documents_as_the_rank_column_does(tmp_path, capsys):
    """Two runs scoring every document alike: by score (trec_eval's order, docno descending)
    they are the same ranking; by the rank column (ndeval's order) x finds the relevant
    document first on both queries, so every measure ranks x above y."""
    (tmp_path / "qrels").write_text("q1 1 a 1\nq1 1 b 0\nq2 1 a 1\nq2 1 b 0\n")
    for name, first in (("x", "a"), ("y", "b")):
        other = "b" if first == "a" else "a"
        (tmp_path / name).write_text("".join(
            f"{q} Q0 {first} 1 1.0 {name}\n{q} Q0 {other} 2 1.0 {name}\n" for q in ("q1", "q2")
        ))  # fmt: skip
    for order, expected in (("score", 0.0), ("rank", 1.0)):
        files = [str(tmp_path / f) for f in ("qrels", "x", "y")]
        args = ["meta", "--order", order, "--no-robustness", "--format", "json"]
        args += ["-m", "MAP-IA", "-m", "stRPP", *files]
        code, out, err = run_cli(args, capsys)
        assert code == 0, err
        got = json.loads(out)
        # x over y on both queries (t-test: a constant non-zero difference is p = 0)
        assert got["discriminative_power"]["MAP-IA"]["t-bonferroni"] == expected, order
        assert got["discriminative_power"]["stRPP"]["t-bonferroni"] == expected, order


def test_meta_depth_is_the_runs_cut_at_that_depth(tmp_path, capsys):
    """``-M 20`` reads the top 20 documents of each ranking: the same study, robustness
    curves included, as the runs cut to their first 20 lines per query (the files list each
    query's documents in rank order)."""
    cut = tmp_path / "cut"
    cut.mkdir()
    runs = sorted(need(WEB / "baseline_runs").glob("*.gz"))[:4]
    for path in runs:
        seen: dict[str, int] = {}
        lines = []
        with gzip.open(path, "rt") as f:
            for line in f:
                q = line.split()[0]
                seen[q] = seen.get(q, 0) + 1
                if seen[q] <= 20:
                    lines.append(line)
        (cut / path.name.removesuffix(".gz")).write_text("".join(lines))
    common = ["meta", "--order", "rank", "--format", "json", "--samples", "1",
              "--permutations", "100", "-m", "stRPP", "-m", "MAP-IA"]  # fmt: skip
    code, deep, err = run_cli([*common, "-M", "20", str(QRELS), *map(str, runs)], capsys)
    assert code == 0, err
    code, shallow, err = run_cli([*common, str(QRELS), str(cut)], capsys)
    assert code == 0, err
    assert json.loads(deep) == json.loads(shallow)
    code, whole, err = run_cli([*common, str(QRELS), *map(str, runs)], capsys)
    assert json.loads(whole)["kendall_tau"] != json.loads(deep)["kendall_tau"]  # it matters


def test_top_documents_cuts_rankings_in_trec_eval_order():
    from rankscope.table.study import top_documents

    run = rankscope.read_run({"q1": {"a": 1.0, "b": 1.0, "c": 2.0}, "q2": {"a": 5.0}}, name="r")
    # q1 in trec_eval's order: c (2.0), then the tie b, a by document id descending
    assert top_documents(run, 2).to_dict() == {"q1": {"c": 2.0, "b": 1.0}, "q2": {"a": 5.0}}
    assert top_documents(run, 1).to_dict() == {"q1": {"c": 2.0}, "q2": {"a": 5.0}}
