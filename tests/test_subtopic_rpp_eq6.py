"""Subtopic RPP against eq. 6 of Diaz & Ferraro (SIGIR 2022): hand computations where the
background population t* decides, the reduction to binary RPP with one subtopic (exactly, on
random and on real judgments), and properties, checked against a plain-Python reading of
the equation (`tests.strpp_reference`) on random data and on the TREC Web 2012 judgments
with its 8 baseline runs."""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankscope
from tests import strpp_reference as ref
from tests.conftest import DATA, need

# a run that ranks nothing for a query is warned about: expected here
pytestmark = pytest.mark.filterwarnings("ignore:run '.' ranks nothing")

WEB = DATA / "web2009-2014" / "2012"
EHEALTH = DATA / "clef_ehealth2016"
SETTINGS = settings(
    max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


def _write(folder: Path, lines: list[tuple]) -> str:
    path = folder / "qrels.diversity"
    path.write_text("".join(" ".join(map(str, row)) + "\n" for row in lines))
    return str(path)


def _runs(rankings: dict[str, dict[str, list[str]]]) -> dict:
    """{run: {qid: [doc, ...]}} (best first) as score dicts without ties."""
    return {
        name: {q: {d: float(len(docs) - i) for i, d in enumerate(docs)} for q, docs in r.items()}
        for name, r in rankings.items()
    }


def _strpp(qrels_path: str, rankings: dict, spec: str = "stRPP", **kw) -> np.ndarray:
    return rankscope.preferences(qrels_path, _runs(rankings), spec, **kw).prefs


# --- hand computations: the background population t* of eq. 6 ----------------------------


def test_background_decides_when_the_subtopic_users_split(tmp_path):
    # subtopics 1: {a}, 2: {b}, 3: {c}; x = a b c, y = b z c (z not relevant)
    qrels = _write(tmp_path, [("q", t, d, int(t == k)) for t in (1, 2, 3)
                              for k, d in enumerate("abc", 1)])  # fmt: skip
    prefs = _strpp(qrels, {"x": {"q": list("abc")}, "y": {"q": list("bzc")}})
    # t=1 {a}: x f=1, y never -> +1;  t=2 {b}: x 2, y 1 -> -1;  t=3 {c}: 3 vs 3 -> 0
    # the subtopic users alone: (1·1 + 1·(−1) + 1·0) / 3 = 0, indifferent
    # t* {a, b, c}: x f = (1, 2, 3), y f = (1, 3, ∞) -> (0 + 1 + 1) / 3 = 2/3
    # p(t*) : p(1) : p(2) : p(3) = 3 : 1 : 1 : 1  ->  3/6 · 2/3 + 0 = 1/3
    assert prefs[0, 0, 1] == pytest.approx(1 / 3, abs=1e-15)
    assert prefs[0, 1, 0] == -prefs[0, 0, 1]


def test_background_reverses_the_subtopic_users(tmp_path):
    # subtopics 1: {d, e, f}, 2: {c, f}, 3: {f}; x = c b e d, y = d a b f (a, b not relevant)
    member = {1: "def", 2: "cf", 3: "f"}
    qrels = _write(tmp_path, [("q", t, d, int(d in member[t])) for t in member for d in "abcdef"])
    prefs = _strpp(qrels, {"x": {"q": list("cbed")}, "y": {"q": list("dabf")}})
    # t=1 (m=3): x f = (3, 4, ∞), y f = (1, 4, ∞) -> (−1 + 0 + 0)/3 = −1/3
    # t=2 (m=2): x f = (1, ∞),    y f = (4, ∞)    -> (+1 + 0)/2     = +1/2
    # t=3 (m=1): x f = (∞),       y f = (4)       -> −1
    # subtopic users alone: (3·(−1/3) + 2·(1/2) + 1·(−1)) / 6 = −1/6: they prefer y
    # t* {c, d, e, f} (m=4): x f = (1, 3, 4, ∞), y f = (1, 4, ∞, ∞) -> (0 + 1 + 1 + 0)/4 = 1/2
    # eq. 6: (4·(1/2) + 3·(−1/3) + 2·(1/2) + 1·(−1)) / (4 + 3 + 2 + 1) = 1/10: x is preferred
    assert prefs[0, 0, 1] == pytest.approx(1 / 10, abs=1e-15)
    assert ref.st_rpp(list("cbed"), list("dabf"), ref.read_diversity(Path(qrels))["q"]) == (
        pytest.approx(1 / 10, abs=1e-15)
    )


def test_a_document_relevant_to_several_subtopics_counts_once_for_the_background(tmp_path):
    # a is relevant to subtopics 1 and 2, b to 2: m = 2 for t*, m_1 = 1, m_2 = 2
    qrels = _write(tmp_path, [("q", 1, "a", 1), ("q", 2, "a", 2), ("q", 2, "b", 1),
                              ("q", 1, "b", 0)])  # fmt: skip
    prefs = _strpp(qrels, {"x": {"q": ["a", "z", "b"]}, "y": {"q": ["b", "a"]}})
    # t* {a, b}: x (1, 3), y (1, 2) -> (0 − 1)/2;  t=1 {a}: x 1, y 2 -> +1;
    # t=2 {a, b}: as t* -> −1/2;  p = 2 : 1 : 2  ->  (2·(−1/2) + 1 + 2·(−1/2)) / 5 = −1/5
    assert prefs[0, 0, 1] == pytest.approx(-1 / 5, abs=1e-15)


def test_subtopics_without_relevant_documents_have_no_users(tmp_path):
    base = [("q", 1, "a", 1), ("q", 2, "b", 1), ("q", 2, "a", 0), ("q", 1, "b", 0)]
    empty = [("q", 7, "a", 0), ("q", 7, "b", 0), ("q", 7, "c", -2)]  # judged, none relevant
    runs = {"x": {"q": ["a", "b"]}, "y": {"q": ["b", "c", "a"]}}
    with_empty = _strpp(_write(tmp_path, base + empty), runs)
    assert np.array_equal(_strpp(_write(tmp_path, base), runs), with_empty)


def test_a_single_facet_topic_judged_under_subtopic_0_is_binary_rpp(tmp_path):
    # Web 2013-14 files judge single-facet topics under subtopic 0 only
    rows = [("q", 0, d, g) for d, g in zip("abcde", (1, 0, 2, 1, 0), strict=True)]
    runs = {"x": {"q": list("abcde")}, "y": {"q": list("edcba")}, "w": {"q": list("cab")}}
    st_prefs = _strpp(_write(tmp_path, rows), runs)
    adhoc = {"q": {d: g for _, _, d, g in rows}}
    assert np.array_equal(st_prefs, rankscope.preferences(adhoc, _runs(runs), "RPP").prefs)


# --- random judgments: the reference, one subtopic, properties -----------------------------

DOCS = [f"d{i}" for i in range(7)]


@st.composite
def worlds(draw):
    """Two queries' diversity judgments (subtopics 0..3, grades −2..2, each document judged
    for some subtopics) and three runs ranking documents of the pool and outside it (at
    least one for q1; q2 possibly none)."""
    lines = []
    for q in ("q1", "q2"):
        for d in DOCS:
            for t in draw(st.sets(st.integers(0, 3), max_size=4)):
                lines.append((q, t, d, draw(st.integers(-2, 2))))
    if not any(g >= 1 for *_, g in lines):
        lines.append(("q1", 1, "d0", 1))
    pool = [*DOCS, "u1", "u2"]
    rankings = {
        name: {q: draw(st.permutations(pool))[: draw(st.integers(q == "q1", len(pool)))]
               for q in ("q1", "q2")}
        for name in ("x", "y", "z")
    }  # fmt: skip
    return lines, rankings


def _by_query(lines) -> dict[str, dict[str, dict[int, int]]]:
    out: dict[str, dict[str, dict[int, int]]] = {}
    for q, t, d, g in lines:
        out.setdefault(q, {}).setdefault(d, {})[t] = g
    return out


@SETTINGS
@given(worlds(), st.sampled_from(["uniform", "dcg", "inverse"]), st.sampled_from([1, 2]))
def test_matches_the_reading_of_eq_6(world, weights, level):
    lines, rankings = world
    judgments = _by_query(lines)
    if not any(g >= level for *_, g in lines):
        level = 1
    with tempfile.TemporaryDirectory() as folder:
        result = rankscope.preferences(
            _write(Path(folder), lines), _runs(rankings), f"stRPP(p={weights})",
            relevance_level=level,
        )  # fmt: skip
    names = result.run_names
    for qi, q in enumerate(result.query_ids):
        for a, b in itertools.permutations(range(len(names)), 2):
            expected = ref.st_rpp(
                rankings[names[a]][q], rankings[names[b]][q], judgments[q], level, weights
            )
            assert result.prefs[qi, a, b] == pytest.approx(expected, abs=1e-12)
    prefs = result.prefs
    assert np.array_equal(prefs, -prefs.transpose(0, 2, 1))  # exactly antisymmetric
    assert np.all(np.abs(prefs) <= 1.0)


@SETTINGS
@given(worlds(), st.sampled_from([("stRPP", "RPP"), ("stRPP(p=dcg)", "dcgRPP"),
                                  ("stRPP(p=inverse)", "invRPP")]))  # fmt: skip
def test_one_subtopic_is_binary_rpp_exactly(world, specs):
    lines, rankings = world
    # every judgment moved to subtopic 1, a document keeping its highest grade
    adhoc: dict[str, dict[str, int]] = {}
    for q, _, d, g in lines:
        docs = adhoc.setdefault(q, {})
        docs[d] = max(g, docs.get(d, g))
    one = [(q, 1, d, g) for q, docs in adhoc.items() for d, g in docs.items()]
    with tempfile.TemporaryDirectory() as folder:
        st_prefs = rankscope.preferences(_write(Path(folder), one), _runs(rankings), specs[0])
    binary = rankscope.preferences(adhoc, _runs(rankings), specs[1])
    assert st_prefs.query_ids == binary.query_ids
    assert np.array_equal(st_prefs.prefs, binary.prefs)


@SETTINGS
@given(worlds())
def test_disjoint_subtopics_give_the_background_half_the_users(world):
    # each relevant document relevant to exactly one subtopic: Σ_t m_t = m, so p(t*) = 1/2 and
    # ST-RPP = ½ RPP + ½ Σ_t (m_t / m) RPP_t, each RPP computed as binary RPP on its own
    lines, rankings = world
    first: dict[tuple[str, str], tuple[int, int]] = {}
    for q, t, d, g in lines:
        if g >= 1 and t != 0:
            first.setdefault((q, d), (t, g))
    if not first:
        first[("q1", "d0")] = (1, 1)
    one_each = [(q, t, d, g) for (q, d), (t, g) in first.items()]
    with tempfile.TemporaryDirectory() as folder:
        result = rankscope.preferences(_write(Path(folder), one_each), _runs(rankings), "stRPP")
    names = result.run_names
    for qi, q in enumerate(result.query_ids):
        docs = {d: t for (qq, d), (t, _) in first.items() if qq == q}
        expected = np.zeros((len(names), len(names)))
        for a, b in itertools.permutations(range(len(names)), 2):
            x, y = rankings[names[a]][q], rankings[names[b]][q]
            expected[a, b] = 0.5 * ref.binary_rpp(x, y, set(docs))
            for t in set(docs.values()):
                members = {d for d, tt in docs.items() if tt == t}
                expected[a, b] += 0.5 * len(members) / len(docs) * ref.binary_rpp(x, y, members)
        assert result.prefs[qi] == pytest.approx(expected, abs=1e-12)


@SETTINGS
@given(worlds(), st.permutations([1, 2, 3]))
def test_renaming_the_subtopics_changes_nothing(world, renamed):
    lines, rankings = world
    relabel = {0: 0, 1: renamed[0], 2: renamed[1], 3: renamed[2]}
    with tempfile.TemporaryDirectory() as folder:
        before = rankscope.preferences(_write(Path(folder), lines), _runs(rankings), "stRPP")
        moved = [(q, relabel[t], d, g) for q, t, d, g in lines]
        after = rankscope.preferences(_write(Path(folder), moved), _runs(rankings), "stRPP")
    assert after.prefs == pytest.approx(before.prefs, abs=1e-15)


# --- real judgments ----------------------------------------------------------------------


def _web_runs() -> dict[str, Path]:
    folder = need(WEB / "baseline_runs")
    return {p.name.removesuffix(".txt.gz"): p for p in sorted(folder.glob("*.txt.gz"))}


def test_real_queries_turned_into_one_subtopic_are_binary_rpp(tmp_path):
    """Web 2012 (8 baseline runs, 50 queries): every judgment moved to one subtopic, a
    document keeping its highest grade; stRPP is then RPP on the ad hoc judgments, exactly."""
    judgments = ref.read_diversity(need(WEB / "qrels-for-ndeval.txt"))
    one = [(q, 1, d, max(grades.values())) for q, docs in judgments.items()
           for d, grades in docs.items()]  # fmt: skip
    adhoc = tmp_path / "qrels.adhoc"
    adhoc.write_text("".join(f"{q} 0 {d} {g}\n" for q, _, d, g in one))
    runs = {n: str(p) for n, p in _web_runs().items()}
    st_prefs = rankscope.preferences(_write(tmp_path, one), runs, "stRPP")
    binary = rankscope.preferences(str(adhoc), runs, "RPP")
    assert len(st_prefs.query_ids) == 50 and st_prefs.query_ids == binary.query_ids
    assert np.array_equal(st_prefs.prefs, binary.prefs)
    assert np.count_nonzero(binary.prefs) > 1000  # the runs do differ


def test_ehealth_judgments_as_one_subtopic_are_binary_rpp(tmp_path):
    """CLEF eHealth 2016 judgments (grades 0-2) as one subtopic: stRPP is RPP exactly (RPP
    itself matches the authors' pref_eval on these runs)."""
    qrels = need(EHEALTH / "task2.qrels")
    rows = [line.split() for line in qrels.read_text().splitlines() if line.strip()]
    one = [(q, 1, d, g) for q, _, d, g in rows]
    runs = [str(p) for p in sorted((EHEALTH / "runs").glob("*.gz"))[:4]]
    st_prefs = rankscope.preferences(_write(tmp_path, one), runs, "stRPP", duplicates="first")
    binary = rankscope.preferences(str(qrels), runs, "RPP", duplicates="first")
    assert np.array_equal(st_prefs.prefs, binary.prefs)


def test_web_2012_matches_the_reading_of_eq_6():
    """Every query, every pair of the 8 Web 2012 baseline runs: the reference within 1e-12
    (rankscope sums recall levels as a matrix product, the reference level by level)."""
    judgments = ref.read_diversity(need(WEB / "qrels-for-ndeval.txt"))
    paths = _web_runs()
    rankings = {n: ref.read_ranked(p) for n, p in paths.items()}
    result = rankscope.preferences(
        str(WEB / "qrels-for-ndeval.txt"), {n: str(p) for n, p in paths.items()}, "stRPP"
    )
    names = result.run_names
    for qi, q in enumerate(result.query_ids):
        for a, b in itertools.combinations(range(len(names)), 2):
            x, y = rankings[names[a]].get(q, []), rankings[names[b]].get(q, [])
            assert result.prefs[qi, a, b] == pytest.approx(
                ref.st_rpp(x, y, judgments[q]), abs=1e-12
            ), (q, names[a], names[b])
