"""One registry for preference methods: `rankscope.preference.METHODS` declares each method
once, the measure registry's preference measures are built from it, and every method is
named with the registry's grammar in ``rankscope eval``, ``prefer``, ``meta`` and the API.

Offline interleaving (OI) is checked by name on every path against values worked out by hand
from the team-draft procedure (and against `rankscope.interleaving.offline` called
directly).  OI simulates whole rankings, so the examples stay tiny.
"""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

import rankscope
from rankscope.errors import UsageError
from rankscope.interleaving import offline as il
from rankscope.judge import relevance_table
from rankscope.measures import PREFERENCE_MEASURES, REGISTRY, parse_measures, parse_method
from rankscope.preference import METHODS, Method
from rankscope.read.trec import read_diversity_qrels
from rankscope.table.study import measure_data, study
from tests.conftest import run_cli, write_qrels, write_ranked_run

# -- the registry is the table ------------------------------------------------------------


def test_registry_preference_measures_are_exactly_the_methods():
    registered = [m for m in REGISTRY.measures if m.family == "preference"]
    assert [m.name for m in registered] == list(METHODS)
    assert registered == PREFERENCE_MEASURES
    for measure in registered:
        method = METHODS[measure.name]
        assert measure.method is method
        assert [p.name for p in measure.params] == [o.name for o in method.options]
        for param, option in zip(measure.params, method.options, strict=True):
            assert (param.type, param.default, param.doc, param.choices) == (
                option.type, option.default, option.doc, option.choices,
            )  # fmt: skip
        assert measure.doc.startswith(method.doc)
        assert measure.reference == method.reference
        assert REGISTRY.spellings(measure) == [method.name]


def test_methods_declare_their_documentation():
    for method in METHODS.values():
        assert isinstance(method, Method)
        assert "User model:" in method.doc, method.name
        assert method.reference, method.name
        for option in method.options:
            assert option.doc, (method.name, option.name)


def test_the_reference_documents_offline_interleaving():
    from rankscope.report.reference import measure_reference

    text = measure_reference()
    assert "\n## OI\n" in text and "| `interleaving` |" in text and "| `browsing` |" in text


# -- names ---------------------------------------------------------------------------------


def _variants(method: Method) -> list[tuple[str, dict]]:
    """The method's name, and its name with each value of each option."""
    out = [(method.name, {})]
    for option in method.options:
        values = option.choices or (2,)
        out += [(f"{method.name}({option.name}={v})", {option.name: v}) for v in values]
    return out


@pytest.mark.parametrize("name", list(METHODS))
def test_every_method_parses_in_every_spelling(name):
    method = METHODS[name]
    for spec, given in _variants(method):
        (request,) = parse_measures([spec])
        assert request.measure.method is method
        assert parse_method(spec) == request
        expected = {o.name: o.default for o in method.options} | given
        assert request.kwargs == expected, spec
        arguments = method.arguments(request.kwargs)
        assert set(method.fixed.items()) <= set(arguments.items())


def test_spellings_accepted():
    labels = {
        "RPP": "RPP",
        "RPP(rel=2)": "RPP(rel=2)",
        "RPP(p=dcg)": "RPP(p=dcg)",
        "gRPP(p=dcg)": "gRPP(p=dcg)",
        "gRPP(p=inverse)": "gRPP(p=inverse)",
        "lexirecall(rel=2)": "lexirecall(rel=2)",
        "OI": "OI",
        "OI(interleaving=balanced,browsing=dcg)": "OI(browsing=dcg,interleaving=balanced)",
        "OI(rel=2)": "OI(rel=2)",
        " dcgRPP ": "dcgRPP",
    }
    for spec, label in labels.items():
        assert parse_method(spec).label == label
    oi = parse_method("OI(interleaving=balanced,browsing=dcg)").kwargs
    assert oi == {"interleaving": "balanced", "browsing": "dcg", "rel": None}
    assert parse_method("RPP(rel=2)").kwargs == {"p": "uniform", "rel": 2}


@pytest.mark.parametrize(
    "spec,message",
    [
        ("nope", "unknown preference method 'nope'"),
        ("rpp", "unknown preference method 'rpp'; did you mean RPP"),
        ("map", "unknown preference method 'map'"),
        ("official", "unknown preference method 'official'"),
        ("RPP(browsing=dcg)", "RPP takes no parameter 'browsing'"),
        ("dcgRPP(p=inverse)", "dcgRPP takes no parameter 'p'"),
        ("gRPP(rel=2)", "gRPP takes no parameter 'rel'"),
        ("lexiprecision(p=dcg)", "lexiprecision takes no parameter 'p'"),
        ("RPP(p=bogus)", "must be one of"),
        ("RPP(rel=two)", "not a valid int"),
        ("OI(interleaving=zigzag)", "must be one of"),
        ("OI(browsing=rbp)", "must be one of"),
        ("RPP(rel)", "name=value"),
        ("RPP(p=dcg", "cannot parse"),
        ("RPP@10", "cutoff"),
        ("RPP.5", "takes no parameters"),
        ("RPP(judged_only=True)", "judged_only does not apply"),
    ],
)
def test_bad_names_are_usage_errors(spec, message):
    with pytest.raises(UsageError, match=message.replace("(", r"\(")):
        parse_method(spec)
    with pytest.raises(UsageError, match=message.replace("(", r"\(")):
        rankscope.preferences(QRELS, RUNS, spec)


def test_a_name_and_its_parametrised_spellings_are_separate_requests():
    specs = ["OI", "OI(interleaving=balanced,browsing=dcg)", "gRPP(p=dcg)", "RPP(rel=2)"]
    labels = [r.label for r in rankscope.parse_measures(specs)]
    # in the order asked
    assert labels == ["OI", "OI(browsing=dcg,interleaving=balanced)", "gRPP(p=dcg)", "RPP(rel=2)"]
    assert [r.label for r in parse_measures(["RPP", "RPP(rel=2)", "gRPP", "gRPP(p=dcg)"])] == [
        "RPP", "RPP(rel=2)", "gRPP", "gRPP(p=dcg)",
    ]  # fmt: skip
    # the same for every measure without trec_eval parameters: all_trec keeps map
    labels = [r.label for r in parse_measures(["all_trec", "AP(rel=2)"])]
    assert "map" in labels and "AP(rel=2)" in labels


def test_registry_errors_name_the_parameters():
    with pytest.raises(UsageError, match=r"OI takes no parameter 'p' \(parameters: interleaving"):
        parse_measures(["OI(p=dcg)"])


# -- offline interleaving by name, on every path ---------------------------------------

QRELS = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}}
RANKINGS = {
    "x": {"q1": ["a", "b"], "q2": ["d", "c"]},
    "y": {"q1": ["b", "a"], "q2": ["c"]},
    "z": {"q1": ["b"], "q2": ["e"]},
}
RUNS = {
    name: {q: {doc: float(len(docs) - i) for i, doc in enumerate(docs)} for q, docs in rq.items()}
    for name, rq in RANKINGS.items()
}

# Team draft, browsing depth k uniform on 1..|a ∪ b|; each coin outcome has probability 1/2,
# a ranking that runs out lets the other continue alone (credited to it).
#  q1 (a relevant):
#   x=[a,b] vs y=[b,a]: x first -> [a(x), b(y)]: x wins at k=1,2; y first -> [b(y), a(x)]:
#     tie at k=1, x wins at k=2.  (1 + 1/2) / 2 = 3/4
#   x=[a,b] vs z=[b]: the same two lists with z for y: 3/4
#   y=[b,a] vs z=[b]: y first -> [b(y), a(y)]; z first -> [b(z), a(y)]; both: tie at k=1,
#     y wins at k=2 -> 1/2
#  q2 (c relevant):
#   x=[d,c] vs y=[c]: x first -> [d(x), c(y)]: tie, then y: -1/2; y first -> [c(y), d(x)]:
#     y wins at k=1,2: -1.  (-1/2 - 1) / 2 = -3/4
#   x=[d,c] vs z=[e]: either way c comes third, credited to x; k uniform on 1..3: 1/3
#   y=[c] vs z=[e]: y first -> [c(y), e(z)]: 1; z first -> [e(z), c(y)]: 1/2.  3/4
BY_HAND = np.array(
    [
        [[0, 3 / 4, 3 / 4], [-3 / 4, 0, 1 / 2], [-3 / 4, -1 / 2, 0]],
        [[0, -3 / 4, 1 / 3], [3 / 4, 0, 3 / 4], [-1 / 3, -3 / 4, 0]],
    ]
)
OVER_FIRST = BY_HAND[:, :, 0]  # (queries, runs): each run's preference over the first run


def read(qrels, runs):
    """Judgments and runs read into shared vocabularies (as `rankscope.evaluate` reads them)."""
    judgments = rankscope.read_qrels(qrels)
    return judgments, [
        rankscope.read_run(run, name=name, queries=judgments.queries, docs=judgments.docs)
        for name, run in runs.items()
    ]


def direct(**options) -> np.ndarray:
    """The OI tensor from `rankscope.interleaving.offline` itself."""
    return np.array(
        [
            il.interleaving_matrix([RANKINGS[r][q] for r in RANKINGS], QRELS[q], **options)
            for q in QRELS
        ]
    )


def test_hand_values_are_the_interleaving_module():
    np.testing.assert_allclose(direct(), BY_HAND, atol=1e-12)


def test_oi_through_the_api():
    result = rankscope.preferences(QRELS, RUNS, "OI")
    assert result.method == "OI" and result.run_names == list(RUNS)
    assert result.query_ids == list(QRELS)
    np.testing.assert_allclose(result.prefs, BY_HAND, atol=1e-12)
    balanced = rankscope.preferences(QRELS, RUNS, "OI(interleaving=balanced,browsing=dcg)")
    np.testing.assert_allclose(
        balanced.prefs, direct(method="balanced", browsing="dcg"), atol=1e-12
    )
    (request,) = parse_measures(["OI(browsing=dcg)"])  # a parsed request works as a name
    np.testing.assert_allclose(
        rankscope.preferences(QRELS, RUNS, request).prefs, direct(browsing="dcg"), atol=1e-12
    )


def test_oi_through_evaluate():
    table = rankscope.evaluate(QRELS, RUNS, ["OI", "AP"], output="dict")
    rows = zip(table["run"], table["query"], table["measure"], table["value"], strict=True)
    first = next(iter(RUNS))
    got = {(r, q): v for r, q, m, v in rows if m == f"OI vs {first}"}
    for k, q in enumerate(QRELS):
        for r, run in enumerate(RUNS):
            assert got[(run, q)] == pytest.approx(OVER_FIRST[k, r], abs=1e-12)
    both = rankscope.evaluate(
        QRELS, RUNS, ["OI", "OI(interleaving=balanced,browsing=dcg)"], per_query=False,
        output="dict",
    )  # fmt: skip
    balanced = direct(method="balanced", browsing="dcg")[:, :, 0].mean(axis=0)
    means = dict(zip(zip(both["run"], both["measure"], strict=True), both["value"], strict=True))
    for r, run in enumerate(RUNS):
        assert means[(run, f"OI vs {first}")] == pytest.approx(OVER_FIRST[:, r].mean(), abs=1e-12)
        label = f"OI(browsing=dcg,interleaving=balanced) vs {first}"
        assert means[(run, label)] == pytest.approx(balanced[r], abs=1e-12)


def test_oi_needs_whole_rankings():
    qrels, runs = read(QRELS, RUNS)
    with pytest.raises(UsageError, match="keep_rankings=True"):
        rankscope.preferences(None, None, "OI", table=relevance_table(qrels, runs))
    kept = relevance_table(qrels, runs, keep_rankings=True)
    np.testing.assert_allclose(
        rankscope.preferences(None, None, "OI", table=kept).prefs, BY_HAND, atol=1e-12
    )


@pytest.fixture
def files(tmp_path):
    qrels = write_qrels(tmp_path / "qrels", QRELS)
    paths = [write_ranked_run(tmp_path / name, name, runs) for name, runs in RANKINGS.items()]
    return qrels, paths


def test_oi_through_eval_cli(files, capsys):
    qrels, runs = files
    code, out, err = run_cli(["eval", "--format", "csv", "-q", "-m", "OI", qrels, *runs], capsys)
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    got = {(row["run"], row["query"]): float(row["value"]) for row in rows if row["query"] != "all"}
    for k, q in enumerate(QRELS):
        for r, run in enumerate(RUNS):
            assert got[(run, q)] == pytest.approx(OVER_FIRST[k, r], abs=1e-12)  # full precision


def test_oi_through_prefer_cli(files, capsys):
    qrels, runs = files
    args = ["prefer", "--format", "json", "-q", "-m", "OI", "-m", "RPP", qrels, *runs]
    code, out, err = run_cli(args, capsys)
    assert code == 0, err
    oi, rpp = json.loads(out)
    assert oi["method"] == "OI" and rpp["method"] == "RPP"
    names = list(RUNS)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            assert oi["mean_preference"][a][b] == pytest.approx(BY_HAND[:, i, j].mean())
    assert oi["runs"] == names
    for k, q in enumerate(QRELS):
        np.testing.assert_allclose(oi["query_preferences"][q], BY_HAND[k], atol=1e-12)


def test_oi_through_meta(files, capsys):
    qrels, runs = read(QRELS, RUNS)
    ap, oi = measure_data(qrels, runs, ["AP", "OI"])
    assert (ap.name, ap.preference, oi.name, oi.preference) == ("AP", False, "OI", True)
    assert oi.query_ids == list(QRELS)
    np.testing.assert_allclose(oi.data, BY_HAND, atol=1e-12)
    result = study(qrels, runs, ["AP", "OI"], permutations=50, robustness=False)
    assert result.measures == ["AP", "OI"]
    qrels_file, run_files = files
    code, out, err = run_cli(
        ["meta", qrels_file, *run_files, "--measures", "AP", "OI", "--no-robustness",
         "--permutations", "50", "--format", "json"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    report = json.loads(out)
    assert report["measures"] == ["AP", "OI"]
    assert report["kendall_tau"] == result.tau.tolist()


def test_meta_keeps_the_order_the_measures_are_named_in():
    qrels, runs = read(QRELS, RUNS)
    names = ["gRPP(p=dcg)", "AP", "OI(browsing=dcg)", "RR", "RPP", "map"]
    got = [d.name for d in measure_data(qrels, runs, names)]
    assert got == ["gRPP(p=dcg)", "AP", "OI(browsing=dcg)", "RR", "RPP"]  # map is AP


# -- every method on every path ----------------------------------------------------------

# diversity judgments, so that stRPP has subtopics; grades 1 and 2 for gRPP and rel=2
DIVERSITY = "q1 1 a 2\nq1 2 b 1\nq1 1 c 1\nq1 2 c 1\nq2 1 d 1\nq2 2 e 2\nq2 1 f 0\n"
EVERY = {
    "x": {"q1": ["a", "b", "c", "g"], "q2": ["d", "f", "e"]},
    "y": {"q1": ["c", "g", "b", "a"], "q2": ["e", "d"]},
    "z": {"q1": ["g", "a"], "q2": ["f", "h", "d", "e"]},
}
EVERY_RUNS = {
    name: {q: {doc: float(len(docs) - i) for i, doc in enumerate(docs)} for q, docs in rq.items()}
    for name, rq in EVERY.items()
}
EVERY_NAME = [spec for method in METHODS.values() for spec, _ in _variants(method)]


@pytest.fixture(scope="module")
def diversity(tmp_path_factory):
    path = tmp_path_factory.mktemp("diversity") / "qrels"
    path.write_text(DIVERSITY)
    return path


@pytest.fixture(scope="module")
def reference(diversity):
    """Each spelling's preferences: OI from `rankscope.interleaving.offline` on the
    rankings themselves, the others from the method's function on a relevance table."""
    qrels = read_diversity_qrels(diversity)
    runs = [
        rankscope.read_run(run, name=name, queries=qrels.queries, docs=qrels.docs)
        for name, run in EVERY_RUNS.items()
    ]
    table = relevance_table(qrels, runs)
    grades = qrels.collapse().to_dict()
    out = {}
    for spec in EVERY_NAME:
        (request,) = parse_measures([spec])
        method = METHODS[request.measure.name]
        options = request.kwargs
        if method.rankings:
            out[spec] = np.array(
                [
                    il.interleaving_matrix(
                        [EVERY[r][q] for r in EVERY],
                        grades[q],
                        method=options["interleaving"],
                        browsing=options["browsing"],
                        level=options["rel"] or 1,
                    )  # fmt: skip
                    for q in ("q1", "q2")
                ]
            )
        else:
            out[spec] = method.function(table, **method.arguments(options))
    return out


@pytest.mark.parametrize("spec", EVERY_NAME)
def test_every_method_through_the_api(diversity, reference, spec):
    result = rankscope.preferences(read_diversity_qrels(diversity), EVERY_RUNS, spec)
    assert result.method == parse_method(spec).label
    np.testing.assert_allclose(result.prefs, reference[spec], atol=1e-12)


def test_subtopic_rpp_reads_a_qrels_file_as_diversity_judgments(diversity, reference):
    result = rankscope.preferences(str(diversity), EVERY_RUNS, "stRPP")
    np.testing.assert_allclose(result.prefs, reference["stRPP"], atol=1e-12)


@pytest.mark.parametrize("spec", EVERY_NAME)
def test_every_method_through_evaluate(diversity, reference, spec):
    qrels = read_diversity_qrels(diversity)
    table = rankscope.evaluate(qrels, EVERY_RUNS, [spec], output="dict")
    rows = zip(table["run"], table["query"], table["value"], strict=True)
    got = {(r, q): v for r, q, v in rows}
    wins = reference[spec][:, :, 0]  # each run's preference over the first
    for k, q in enumerate(["q1", "q2"]):
        for r, run in enumerate(EVERY_RUNS):
            assert got[(run, q)] == pytest.approx(wins[k, r], abs=1e-12)


def test_every_method_through_meta(diversity, reference):
    qrels = read_diversity_qrels(diversity)
    runs = [
        rankscope.read_run(run, name=name, queries=qrels.queries, docs=qrels.docs)
        for name, run in EVERY_RUNS.items()
    ]
    datas = measure_data(qrels, runs, EVERY_NAME)
    # a spelling naming the same computation as an earlier one (RPP(p=uniform)) is left out
    distinct = {parse_method(spec): spec for spec in reversed(EVERY_NAME)}
    specs = [spec for spec in EVERY_NAME if distinct[parse_method(spec)] == spec]
    assert "RPP" in specs and "RPP(p=uniform)" not in specs and "RPP(p=dcg)" in specs
    assert [d.name for d in datas] == [parse_method(spec).label for spec in specs]
    for spec, data in zip(specs, datas, strict=True):
        np.testing.assert_allclose(data.data, reference[spec], atol=1e-12, err_msg=spec)


@pytest.fixture(scope="module")
def every_files(tmp_path_factory, diversity):
    folder = tmp_path_factory.mktemp("every")
    # the diversity judgments collapsed to plain qrels
    collapsed = read_diversity_qrels(diversity).collapse().to_dict()
    qrels = write_qrels(folder / "qrels", collapsed)
    paths = [write_ranked_run(folder / name, name, runs) for name, runs in EVERY.items()]
    return qrels, paths


@pytest.mark.parametrize("spec", [s for s in EVERY_NAME if not s.startswith("stRPP")])
def test_every_method_through_prefer_cli(every_files, reference, spec, capsys):
    qrels, runs = every_files
    code, out, err = run_cli(["prefer", "--format", "json", "-q", "-m", spec, qrels, *runs], capsys)
    assert code == 0, err
    (entry,) = json.loads(out)
    assert entry["method"] == parse_method(spec).label
    for k, q in enumerate(["q1", "q2"]):
        np.testing.assert_allclose(entry["query_preferences"][q], reference[spec][k], atol=1e-12)


def test_prefer_cli_rejects_an_unknown_method_before_reading_further(every_files, capsys):
    qrels, runs = every_files
    code, _, err = run_cli(["prefer", "-m", "OI(browsing=rbp)", qrels, *runs], capsys)
    assert code == 2 and "must be one of" in err


def test_oi_with_runs_read_apart_from_the_qrels():
    runs = [rankscope.read_run(run, name=name) for name, run in RUNS.items()]
    np.testing.assert_allclose(rankscope.preferences(QRELS, runs, "OI").prefs, BY_HAND)
