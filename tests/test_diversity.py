"""Diversity (intent-aware) measures: hand-computed values, policies, identities with the
ad hoc measures, bounds; and the rank-column reader ndeval's default order needs."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankscope
from rankscope.api import evaluate_many
from rankscope.errors import InputError
from rankscope.judge import judge
from rankscope.read.trec import read_diversity_qrels, read_run
from tests.conftest import run_cli

# q1: subtopics 1 and 2 have relevant documents, 3 does not (ignored: N = 2).
# d1 is relevant to 1 and 2, d2 to 1, d3 to 2 (grade 2 counts as relevant), d4 to none.
QRELS = """\
q1 1 d1 1
q1 2 d1 1
q1 1 d2 1
q1 2 d3 2
q1 1 d4 0
q1 3 d4 0
q2 1 d1 0
q2 2 d2 0
"""
# q1 ranks d2, d5 (not judged), d1, d3; q2 ranks d1.
RUN = """\
q1 Q0 d2 1 4.0 sys
q1 Q0 d5 2 3.0 sys
q1 Q0 d1 3 2.0 sys
q1 Q0 d3 4 1.0 sys
q2 Q0 d1 1 1.0 sys
"""


def log2(x):
    return math.log(x) / math.log(2)


# Novelty gains (alpha = 0.5) by rank: d2 -> 1 (subtopic 1, first); d5 -> 0;
# d1 -> 0.5 (subtopic 1, second) + 1 (subtopic 2, first) = 1.5; d3 -> 0.5 (subtopic 2, second).
GAINS = {1: 1.0, 3: 1.5, 4: 0.5}
# Greedy ideal: d1 (2), then d2 and d3 tie at 0.5 (the larger docno, d3, first), then d2.
IDEAL = {1: 2.0, 2: 0.5, 3: 0.5}
N = 2


def dcg(gains, k):
    return sum(g / log2(r + 1) for r, g in gains.items() if r <= k)


def ideal_ideal(k, weight):
    return sum(N * 0.5**i * weight(i + 1) for i in range(k))


def err(gains, k):
    return sum(g / r for r, g in gains.items() if r <= k)


def hand():
    out = {}
    for k in (1, 3, 5, 20):
        disc = ideal_ideal(k, lambda r: 1 / log2(r + 1))
        recip = ideal_ideal(k, lambda r: 1 / r)
        out[f"alpha-DCG@{k}"] = dcg(GAINS, k) / disc
        out[f"alpha-nDCG@{k}"] = dcg(GAINS, k) / dcg(IDEAL, k)
        out[f"ERR-IA@{k}"] = err(GAINS, k) / recip
        out[f"nERR-IA@{k}"] = err(GAINS, k) / err(IDEAL, k)
    scale = (1 - 0.5 * 0.5) / N
    out["NRBP"] = scale * sum(g * 0.5 ** (r - 1) for r, g in GAINS.items())
    out["nNRBP"] = out["NRBP"] / (scale * sum(g * 0.5 ** (r - 1) for r, g in IDEAL.items()))
    # subtopic 1: relevant d1, d2 at ranks 3, 1; subtopic 2: d1, d3 at ranks 3, 4
    out["MAP-IA"] = ((1 / 1 + 2 / 3) / 2 + (1 / 3 + 2 / 4) / 2) / 2
    out["P-IA@1"], out["P-IA@5"] = 1 / (1 * N), (1 + 2 + 1) / (5 * N)
    out["strec@1"], out["strec@3"] = 1 / 2, 2 / 2
    return out


@pytest.fixture
def files(tmp_path):
    q, r = tmp_path / "qrels", tmp_path / "run"
    q.write_text(QRELS)
    r.write_text(RUN)
    return q, r


def values(files, names, **kw):
    table = rankscope.evaluate(str(files[0]), {"sys": str(files[1])}, names, output="dict", **kw)
    return {
        (q, m): v for q, m, v in zip(table["query"], table["measure"], table["value"], strict=True)
    }


def test_hand_computed_values(files):
    expected = hand()
    got = values(files, list(expected))
    for name, value in expected.items():
        assert got[("q1", name)] == pytest.approx(value, rel=1e-12), name
        assert got[("q2", name)] == 0.0  # no relevant document: 0 everywhere


def test_spot_values_written_out(files):
    got = values(files, ["alpha-nDCG@5", "ERR-IA@5", "NRBP", "nNRBP", "MAP-IA"])
    assert got[("q1", "alpha-nDCG@5")] == pytest.approx(1.9653382790 / 2.5654648768, rel=1e-9)
    assert got[("q1", "ERR-IA@5")] == pytest.approx(1.625 / 2.7541666667, rel=1e-9)
    assert got[("q1", "NRBP")] == pytest.approx(0.5390625)
    assert got[("q1", "nNRBP")] == pytest.approx(1.4375 / 2.375)
    assert got[("q1", "MAP-IA")] == pytest.approx(0.625)


def test_alpha_and_beta_parameters(files):
    got = values(files, ["alpha-DCG(alpha=0)@5", "NRBP(alpha=0,beta=0.8)"])
    # alpha = 0: no novelty discount, a document's gain is its number of subtopics
    plain = {1: 1.0, 3: 2.0, 4: 1.0}
    assert got[("q1", "alpha-DCG(alpha=0)@5")] == pytest.approx(
        dcg(plain, 5) / sum(N / log2(i + 2) for i in range(5))
    )
    nrbp = (1 - 0.8) / N * sum(g * 0.8 ** (r - 1) for r, g in plain.items())
    assert got[("q1", "NRBP(alpha=0,beta=0.8)")] == pytest.approx(nrbp)


def test_missing_query_and_empty_ranking(files, tmp_path):
    run = tmp_path / "run2"
    run.write_text("q2 Q0 d9 1 1.0 sys\n")
    got = values((files[0], run), ["alpha-nDCG@20", "MAP-IA"], complete=True)
    assert got[("q1", "alpha-nDCG@20")] == 0.0 and got[("q1", "MAP-IA")] == 0.0


def test_trec_names_and_cutoff_defaults(files):
    res = evaluate_many(str(files[0]), str(files[1]), ["alpha_nDCG", "strec.2"])[0]
    assert [r.label for r in res.requests] == [
        "alpha_nDCG_5", "alpha_nDCG_10", "alpha_nDCG_20", "strec_2"
    ]  # fmt: skip


def test_adhoc_measures_use_the_collapsed_grades(files):
    # d1 has grade 1 on two subtopics, d3 grade 2 on one: ad hoc grades 1, 1, 2, 0
    got = values(files, ["P@4", "nDCG@4", "alpha-nDCG@4"], diversity=True)
    assert got[("q1", "P@4")] == 0.75
    ideal = 2 / log2(2) + 1 / log2(3) + 1 / log2(4)
    assert got[("q1", "nDCG@4")] == pytest.approx((1 / 1 + 1 / 2 + 2 / log2(5)) / ideal)


def test_adhoc_qrels_give_a_clear_error(tmp_path):
    q = tmp_path / "adhoc"
    q.write_text("q1 0 d1 1\n")
    qrels = rankscope.read_qrels(str(q))
    with pytest.raises(ValueError, match="diversity judgments"):
        rankscope.evaluate(qrels, {"q1": {"d1": 1.0}}, ["alpha-nDCG@20"])


def test_judged_only_keeps_aspects_aligned(files):
    # -J drops d5: d1 moves to rank 2 and d3 to rank 3
    got = values(files, ["P-IA@2", "strec@2"], judged_only=True)
    assert got[("q1", "P-IA@2")] == pytest.approx((1 + 2) / (2 * N))
    assert got[("q1", "strec@2")] == 1.0


# -- identities with ad hoc measures: one subtopic, alpha = 0 ------------------------------


@st.composite
def one_subtopic(draw):
    nq = draw(st.integers(1, 3))
    qrels, run = {}, {}
    for q in range(nq):
        docs = draw(st.lists(st.integers(0, 12), min_size=1, max_size=8, unique=True))
        qrels[f"q{q}"] = {f"d{d}": draw(st.integers(0, 2)) for d in docs}
        ranked = draw(st.lists(st.integers(0, 15), min_size=1, max_size=10, unique=True))
        run[f"q{q}"] = {f"d{d}": float(len(ranked) - i) for i, d in enumerate(ranked)}
    return qrels, run


def _as_diversity(qrels, path):
    path.write_text(
        "".join(f"{q} 1 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    )
    return read_diversity_qrels(path)


@settings(max_examples=60, deadline=None)
@given(data=one_subtopic())
def test_one_subtopic_reduces_to_adhoc_measures(data, tmp_path_factory):
    qrels, run = data
    div = _as_diversity(qrels, tmp_path_factory.mktemp("q") / "qrels")
    binary = {q: {d: min(g, 1) for d, g in docs.items()} for q, docs in qrels.items()}
    pairs = [
        ("alpha-nDCG(alpha=0)@5", "ndcg_cut.5"),
        ("P-IA@5", "P.5"),
        ("MAP-IA", "map"),
        ("strec@3", "success.3"),
        ("NRBP(alpha=0,beta=0.8)", "rbp.p=0.8"),
    ]
    a = rankscope.evaluate(div, {"s": run}, [p[0] for p in pairs], output="dict")
    b = rankscope.evaluate(binary, {"s": run}, [p[1] for p in pairs], output="dict")
    got = dict(zip(zip(a["query"], a["measure"], strict=True), a["value"], strict=True))
    ref = dict(zip(zip(b["query"], b["measure"], strict=True), b["value"], strict=True))
    labels = {"ndcg_cut.5": "ndcg_cut_5", "P.5": "P_5", "map": "map", "success.3": "success_3",
              "rbp.p=0.8": "rbp_p=0.8"}  # fmt: skip
    for q in binary:
        if (q, "map") not in ref:
            continue
        for mine, theirs in pairs:
            assert got[(q, mine)] == pytest.approx(ref[(q, labels[theirs])], abs=1e-12), mine


@st.composite
def diversity_collection(draw):
    lines, run = [], {}
    for q in range(draw(st.integers(1, 3))):
        for d in range(draw(st.integers(1, 8))):
            for s in draw(st.lists(st.integers(1, 4), max_size=4, unique=True)):
                lines.append(f"q{q} {s} d{d} {draw(st.integers(0, 2))}\n")
        ranked = draw(st.lists(st.integers(0, 10), min_size=1, max_size=12, unique=True))
        run[f"q{q}"] = {f"d{d}": float(-i) for i, d in enumerate(ranked)}
    return lines, run


UNIT = ["alpha-DCG@5", "ERR-IA@10", "NRBP", "MAP-IA", "P-IA@3", "strec@4", "alpha-DCG@1"]
POSITIVE = ["alpha-nDCG@5", "nERR-IA@10", "nNRBP"]


@settings(max_examples=80, deadline=None)
@given(data=diversity_collection(), alpha=st.sampled_from([0.0, 0.3, 0.5, 1.0]))
def test_bounds(data, alpha, tmp_path_factory):
    lines, run = data
    if not lines:
        return
    path = tmp_path_factory.mktemp("q") / "qrels"
    path.write_text("".join(lines))
    div = read_diversity_qrels(path)
    names = UNIT + POSITIVE
    table = rankscope.evaluate(div, {"s": run}, names, output="dict")
    for m, v in zip(table["measure"], table["value"], strict=True):
        assert v >= 0 and math.isfinite(v), m
        if m in UNIT:
            assert v <= 1 + 1e-12, (m, v)
    # POSITIVE: the greedy ideal is not always optimal, so a normalised value may exceed 1


# -- the rank-column order and ndeval's command ----------------------------------------------


def test_rank_order_reader(tmp_path):
    p = tmp_path / "run"
    p.write_text("1 Q0 a 2 0.9 t\n1 Q0 b 1 0.1 t\n")
    run = read_run(p, order="rank")
    assert run.score.tolist() == [-2.0, -1.0]  # b (rank 1) first, whatever the scores
    p.write_text("1 Q0 a 2 0.9 t\n1 Q0 b x 0.1 t\n")
    with pytest.raises(InputError, match=r"run:2: rank 'x' is not a non-negative integer"):
        read_run(p, order="rank")
    p.write_text("1 Q0 a 1 0.9 t\n2 Q0 a 1 0.9 t\n1 Q0 b 1 0.1 t\n")
    with pytest.raises(InputError, match=r"rank 1 appears twice for query '1' \(lines 1 and 3\)"):
        read_run(p, order="rank")


def test_ndeval_command_topics_and_denominators(tmp_path, capsys):
    q, r = tmp_path / "qrels", tmp_path / "run"
    q.write_text("1 1 a 1\n1 2 b 1\n2 1 c 1\n")
    # topic 3 is not judged: printed with zeros, not counted; topic 2 is not ranked
    r.write_text("1 Q0 a 1 0.5 first\n1 Q0 b 2 0.9 first\n3 Q0 a 1 1 last\n")
    code, out, _ = run_cli(["ndeval", str(q), str(r)], capsys)
    assert code == 0
    rows = [line.split(",") for line in out.strip().split("\n")]
    assert [row[1] for row in rows] == ["topic", "1", "3", "amean"]
    assert rows[1][0] == "first"  # ndeval names the run after its first line
    col = rows[0].index("strec@5")
    assert rows[1][col] == "1.000000" and rows[2][col] == "0.000000"
    assert rows[3][col] == "1.000000"  # mean over the 1 topic judged and ranked
    code, out, _ = run_cli(["ndeval", "-c", str(q), str(r)], capsys)
    assert out.strip().split("\n")[-1].split(",")[col] == "0.500000"  # over both judged
    # by rank (default) a is first; -traditional puts b (score 0.9) first
    p_col = rows[0].index("P-IA@5")
    assert rows[1][p_col] == f"{2 / 10:.6f}"
    code, out, _ = run_cli(["ndeval", "-traditional", "-M", "1", str(q), str(r)], capsys)
    first = out.strip().split("\n")[1].split(",")
    assert first[rows[0].index("strec@5")] == "0.500000"


def test_ndeval_rejects_bad_parameters(tmp_path, capsys):
    q, r = tmp_path / "qrels", tmp_path / "run"
    q.write_text("1 1 a 1\n")
    r.write_text("1 Q0 a 1 0.5 t\n")
    code, _, err = run_cli(["ndeval", "-alpha", "1.5", str(q), str(r)], capsys)
    assert code == 2 and "between 0 and 1" in err


def test_judge_without_subtopics_has_no_aspects():
    qrels = rankscope.read_qrels({"q": {"a": 1}})
    run = rankscope.read_run({"q": {"a": 1.0}}, queries=qrels.queries, docs=qrels.docs)
    assert judge(qrels, run).aspects is None


def test_ndeval_names_runs_of_one_tag_by_file(tmp_path, capsys):
    """A directory of one system's runs (every tag ``indri``): each block is named after its
    file, as every other command names runs; a single run keeps ndeval's tag."""
    q = tmp_path / "qrels"
    q.write_text("1 1 a 1\n")
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "bm25.txt").write_text("1 Q0 a 1 0.5 indri\n")
    (runs / "ql.txt").write_text("1 Q0 b 1 0.5 indri\n")
    code, out, err = run_cli(["ndeval", str(q), str(runs)], capsys)
    assert code == 0, err
    labels = {line.split(",")[0] for line in out.strip().split("\n") if ",topic," not in line}
    assert labels == {"bm25", "ql"}
    assert "runs tagged indri come from several files" in err
    code, out, err = run_cli(["ndeval", str(q), str(runs / "ql.txt")], capsys)
    assert out.strip().split("\n")[1].startswith("indri,") and err == ""
