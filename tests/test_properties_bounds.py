"""Bounds of the measures that tests/test_properties.py (ad hoc qrels, default parameters)
does not reach, each stated from the measure's definition: the diversity measures on
subtopic judgments, the preference methods evaluated as measures over several runs (win
rates), trec_eval's preference measures (``-R prefs``, ``-R qrels_prefs``), the measures
over judgment groups (``-R qrels_jg``), and user-model and search-length measures with
parameters other than their defaults.  Together with tests/test_properties.py every measure
of `rankscope.MEASURES` is bounded (`test_every_family_is_bounded_somewhere`); the recommender
measures are bounded in tests/test_properties_recsys.py and the preference methods' own
outputs in tests/test_properties_preferences.py.
"""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import rankscope
from tests.test_properties import OTHER_JUDGMENTS, collections, evaluate_one

SETTINGS = settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
TOL = 1e-12
#: The families bounded here; tests/test_properties.py bounds every other one.
FAMILIES = ("diversity", "preference", "trec_prefs", "judgment_groups")

DOC = st.sampled_from([f"d{i}" for i in range(8)])


def names_of(family: str) -> set[str]:
    return {m.name for m in rankscope.MEASURES if m.family == family}


def evaluate_file(text: str, runs: dict, measures, **options) -> list[rankscope.RunEvaluation]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "judgments")
        path.write_text(text)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rankscope.RankscopeWarning)
            return rankscope.evaluate_many(path, runs, measures, **options)


def ranked(draw, queries) -> dict[str, dict[str, float]]:
    """A run: per query distinct documents with scores, ties frequent."""
    run = {}
    for q in queries:
        docs = draw(st.lists(DOC, max_size=8, unique=True))
        if docs:
            run[q] = {d: float(draw(st.integers(0, 3))) for d in docs}
    return run


@st.composite
def runs_over(draw, queries):
    return ranked(draw, queries)


# -- diversity -------------------------------------------------------------------------------


@st.composite
def diversity_worlds(draw):
    """(qid subtopic docno grade lines, run)."""
    lines = []
    queries = ["q1", "q2", "q3"][: draw(st.integers(1, 3))]
    for q in queries:
        for d in draw(st.lists(DOC, min_size=1, unique=True)):
            for s in draw(st.lists(st.sampled_from("1234"), min_size=1, max_size=3, unique=True)):
                lines.append(f"{q} {s} {d} {draw(st.sampled_from([-1, 0, 1, 1, 2]))}\n")
    run = ranked(draw, queries)
    assume(run)
    return "".join(lines), run


@SETTINGS
@given(
    world=diversity_worlds(),
    alpha=st.sampled_from([0.0, 0.25, 0.5, 1.0]),
    beta=st.sampled_from([0.0, 0.5, 0.9]),
    k=st.sampled_from([1, 3, 10]),
    level=st.sampled_from([1, 2]),
)
def test_diversity_measures_within_their_bounds(world, alpha, beta, k, level):
    """With g(r) = Σ_s rel_s(r) (1−α)^{c_s(r)}, the j-th document relevant to s (from 0) sits
    at rank >= j + 1 and earns at most (1−α)^j there: a ranking scores at most the
    'ideal ideal' (every document relevant to all N subtopics), so α-DCG, ERR-IA and NRBP lie
    in [0, 1] for α in [0, 1].  The greedy ideal is a ranking too, so its normalised score is
    at most 1 and α-nDCG >= α-DCG, nERR-IA >= ERR-IA, nNRBP >= NRBP (it need not be optimal:
    the n-measures may exceed 1).  P-IA@k · k · N and strec@k · N are whole numbers, MAP-IA a
    mean of APs."""
    text, run = world
    a = f"alpha={alpha}"
    measures = [
        f"alpha_DCG({a})@{k}", f"alpha_nDCG({a})@{k}", f"ERR_IA({a})@{k}", f"nERR_IA({a})@{k}",
        f"NRBP({a},beta={beta})", f"nNRBP({a},beta={beta})", "MAP_IA", f"P_IA@{k}",
        f"strec@{k}",
    ]  # fmt: skip
    (result,) = evaluate_file(text, {"s": run}, measures, diversity=True, relevance_level=level)
    values = {r.measure.name: c for r, c in zip(result.requests, result.values, strict=True)}
    assert set(values) == names_of("diversity")
    subtopics = {}  # N per query: subtopics with a relevant document
    for line in text.splitlines():
        q, s, _, g = line.split()
        if int(g) >= level:
            subtopics.setdefault(q, set()).add(s)
    for name, column in values.items():
        assert np.all(np.isfinite(column)) and np.all(column >= 0), name
        if not name.startswith("n"):
            assert np.all(column <= 1 + TOL), (name, column)
    for normalised, plain in [("alpha_nDCG", "alpha_DCG"), ("nERR_IA", "ERR_IA"),
                              ("nNRBP", "NRBP")]:  # fmt: skip
        assert np.all(values[normalised] >= values[plain] * (1 - TOL)), normalised
    for i, q in enumerate(result.query_ids):
        n = len(subtopics.get(q, ()))
        for name, scale in [("P_IA", k * n), ("strec", n)]:
            x = values[name][i] * scale
            assert abs(x - round(x)) < 1e-9, (name, x)
        if n == 0:
            assert all(values[name][i] == 0 for name in values), q


# -- preference methods as measures (win rates) ----------------------------------------------


@SETTINGS
@given(data=st.data(), runs=st.integers(2, 4))
def test_preference_win_rates_within_their_bounds(data, runs):
    """Over n runs a run's value on a query is its preference over the reference run (the
    first), P(a, r0), each P in [−1, 1] and P(a, a) = 0: |value| <= 1, the reference's own
    value is 0, and P is antisymmetric (r0's value over r1 is minus r1's over r0); the
    value of two runs does not depend on the others given; lexiprecision and lexirecall
    values are whole numbers."""
    text, _ = data.draw(diversity_worlds())
    queries = sorted({line.split()[0] for line in text.splitlines()})
    systems = {f"r{i}": data.draw(runs_over(queries)) for i in range(runs)}
    assume(all(systems.values()))
    measures = [
        "RPP", "dcgRPP", "invRPP", "gRPP", "stRPP", "lexiprecision", "rrlexiprecision",
        "lexirecall", "OI", "OI(interleaving=balanced)",
    ]  # fmt: skip
    # every judged query for every run (-c), so that a query's values are all there
    results = evaluate_file(text, systems, measures, complete=True)
    over_r1 = evaluate_file(text, systems, measures, complete=True, baseline="r1")
    pair = evaluate_file(text, {k: systems[k] for k in ("r0", "r1")}, measures, complete=True)
    names = set()
    for label_index, request in enumerate(results[0].requests):
        if not request.measure.per_query:
            continue
        name = request.measure.name
        names.add(name)
        assert request.label.endswith(" vs r0")
        assert all(r.query_ids == results[0].query_ids for r in results)
        table = np.array([r.values[label_index] for r in results])  # runs × queries
        assert np.all(np.abs(table) <= 1 + TOL), (request.label, table)
        np.testing.assert_array_equal(table[0], 0.0)
        np.testing.assert_allclose(over_r1[0].values[label_index], -table[1], atol=1e-9)
        np.testing.assert_array_equal(pair[1].values[label_index], table[1])
        if name in ("lexiprecision", "lexirecall"):
            np.testing.assert_array_equal(table, np.round(table))
    assert names == names_of("preference")


# -- trec_eval's preference measures -------------------------------------------------------


@st.composite
def prefs_worlds(draw, subgroups: bool = True):
    """(``qid jg jsg docno rel_level`` lines, or ``qid jg docno rel_level`` without
    ``subgroups``; run)."""
    lines = []
    queries = ["q1", "q2", "q3"][: draw(st.integers(1, 3))]
    for q in queries:
        for group in draw(st.lists(st.sampled_from(["u1", "u2"]), min_size=1, unique=True)):
            # a document has one level in a group (0 in one sub-group and not in another is
            # an error), and may appear in several of its sub-groups
            levels = {
                d: draw(st.integers(0, 3))
                for d in draw(st.lists(DOC, min_size=1, max_size=6, unique=True))
            }
            for sub in ["a", "b"][: draw(st.integers(1, 2)) if subgroups else 1]:
                for d in draw(st.lists(st.sampled_from(sorted(levels)), min_size=1, unique=True)):
                    middle = f"{group} {sub}" if subgroups else group
                    lines.append(f"{q} {middle} {d} {levels[d]}\n")
    run = ranked(draw, queries)
    assume(run)
    return "".join(lines), run


COUNTS = {"prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret"}


@SETTINGS
@given(world=prefs_worlds(), subgroups=st.booleans(), data=st.data())
def test_trec_preference_measures_within_their_bounds(world, subgroups, data):
    """Counts of preferences are whole numbers >= 0 with fulfilled <= possible and fulfilled
    with both retrieved <= fulfilled; every other measure is a ratio of fulfilled to possible
    preferences (or a mean of such ratios), in [0, 1]."""
    text, run = world if subgroups else data.draw(prefs_worlds(subgroups=False))
    fmt = "prefs" if subgroups else "qrels_prefs"
    (result,) = evaluate_file(text, {"s": run}, ["all_prefs"], rel_format=fmt)
    values = {
        r.measure.name: c
        for r, c in zip(result.requests, result.values, strict=True)
        if r.measure.per_query
    }
    assert set(values) == names_of("trec_prefs")
    for name, column in values.items():
        assert np.all(np.isfinite(column)) and np.all(column >= 0), name
        if name in COUNTS:
            np.testing.assert_array_equal(column, np.round(column))
        else:
            assert np.all(column <= 1 + TOL), (name, column)
    assert np.all(values["prefs_num_prefs_ful"] <= values["prefs_num_prefs_poss"])
    assert np.all(values["prefs_num_prefs_ful_ret"] <= values["prefs_num_prefs_ful"])


# -- judgment groups ---------------------------------------------------------------------------


@st.composite
def group_worlds(draw):
    lines = []
    queries = ["q1", "q2"][: draw(st.integers(1, 2))]
    for q in queries:
        for group in draw(st.lists(st.sampled_from(["u1", "u2", "u3"]), min_size=1, unique=True)):
            for d in draw(st.lists(DOC, min_size=1, max_size=5, unique=True)):
                lines.append(f"{q} {group} {d} {draw(st.integers(0, 2))}\n")
    run = ranked(draw, queries)
    assume(run)
    return "".join(lines), run


@SETTINGS
@given(world=group_worlds(), level=st.sampled_from([1, 2]))
def test_judgment_group_measures_within_their_bounds(world, level):
    """AP, P@k and P@(m·R) of each group lie in [0, 1], and so does their mean over groups;
    P@k · k · (number of groups) is a whole number."""
    text, run = world
    measures = ["map_avgjg", "P_avgjg.1,2,5", "Rprec_mult_avgjg.0.5,1.0,2.0"]
    (result,) = evaluate_file(text, {"s": run}, measures, rel_format="qrels_jg",
                              relevance_level=level)  # fmt: skip
    groups: dict[str, set[str]] = {}
    for line in text.splitlines():
        q, g, _, _ = line.split()
        groups.setdefault(q, set()).add(g)
    names = set()
    for request, column in zip(result.requests, result.values, strict=True):
        names.add(request.measure.name)
        assert np.all((column >= 0) & (column <= 1 + TOL)), (request.label, column)
        if request.measure.name == "P_avgjg":
            k = request.kwargs["cutoff"]
            for i, q in enumerate(result.query_ids):
                x = column[i] * k * len(groups[q])
                assert abs(x - round(x)) < 1e-9, (request.label, x)
    assert names == names_of("judgment_groups")


# -- user models and search lengths with parameters ----------------------------------------


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(collection=collections(), level=st.sampled_from([1, 2]))
def test_parameterised_user_models_within_their_bounds(collection, level):
    """tests/test_properties.py bounds these measures with their default parameters; here
    with others, each bound from the definition:

    * nDCGk with exponential gain or the Järvelin–Kekäläinen discount (non-increasing weights,
      so the ideal ranking is optimal), gridnDCG, gridRBP (a distribution over grid cells),
      ERR (a probability, 1 − Π(1 − R_i) at most), pFound (a probability): [0, 1];
    * EU = Σ y_r φ(y_r) γ^{r−1} Π(1 − φ): at most the largest grade retrieved (Σ φ Π(1 − φ)
      is a stopping probability), at least 0;
    * TBG = Σ g_k D(T(k)) with D <= 1: at most 0.64 × 0.77 per relevant document retrieved;
    * CG@k <= k × the largest gain retrieved;
    * search lengths: ISL = SL(k=1) <= ASL <= TSL (first, mean and last position of the
      relevant documents), PFR = R / TSL in [0, 1], ESL(k) >= 0 (non-relevant documents read),
      SL(k=3) >= SL(k=1).
    """
    qrels, run = collection
    measures = [
        "nDCGk(gain=exp)@5", "nDCGk(discount=jk,base=3)@10", "gridnDCG(width=2,gain=exp)@6",
        "gridRBP(width=3,p_row=0.5,p_col=1)", "ERR(max_grade=2)@5", "pFound(p_break=0.5)@10",
        "EU(gamma=0.5)", "TBG(length=100)", "CG@3", "num_rel_ret",
        "SL(k=1)", "SL(k=3)", "ESL(k=3)", "ISL", "ASL", "TSL", "PFR", "num_rel",
    ]  # fmt: skip
    result = evaluate_one(qrels, run, measures, relevance_level=level)
    v = {r.label: c for r, c in zip(result.requests, result.values, strict=True)}
    for label in ("nDCGk(gain=exp)@5", "nDCGk(base=3,discount=jk)@10",
                  "gridnDCG(gain=exp,width=2)@6", "gridRBP(p_col=1,p_row=0.5,width=3)",
                  "ERR(max_grade=2)@5", "pFound(p_break=0.5)@10", "PFR"):  # fmt: skip
        assert np.all((v[label] >= -TOL) & (v[label] <= 1 + TOL)), (label, v[label])
    for i, q in enumerate(result.query_ids):
        retrieved = [qrels.get(q, {}).get(d, 0) for d in run.get(q, {})]
        top = max([0, *retrieved])
        assert 0 <= v["EU(gamma=0.5)"][i] <= top + TOL
        assert 0 <= v["TBG(length=100)"][i] <= 0.64 * 0.77 * v["num_rel_ret"][i] + TOL
        assert 0 <= v["CG@3"][i] <= 3 * top
        if v["num_rel"][i] > 0:
            assert v["ISL"][i] == v["SL(k=1)"][i]
            assert v["ISL"][i] <= v["ASL"][i] * (1 + TOL) <= v["TSL"][i] * (1 + TOL) ** 2
            assert v["ESL(k=3)"][i] >= 0
            assert v["SL(k=3)"][i] >= v["SL(k=1)"][i]


def test_every_family_is_bounded_somewhere():
    """The families bounded here are exactly those that tests/test_properties.py leaves out
    (its bounds test asserts that it checks every measure of every other family), and each
    has measures."""
    assert set(FAMILIES) == set(OTHER_JUDGMENTS)
    assert all(names_of(family) for family in FAMILIES)
