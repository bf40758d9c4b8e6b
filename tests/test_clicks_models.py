"""Click models (rankscope.clicks): closed forms by hand, EM recovering the parameters a
log was simulated from, EM never lowering the likelihood, perplexity by its definition,
probabilities that sum to one, and simulation from judgments."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

import rankscope.clicks as clicks
from rankscope import simulate_clicks
from rankscope.clicks import CM, DBN, PBM, SDBN, UBM, PairParameters
from rankscope.errors import RankscopeWarning, UsageError
from rankscope.read.impressions import read_impressions

from .conftest import ROOT, run_cli

EXAMPLES = ROOT / "src" / "rankscope" / "examples"


def log_of(sessions: list[tuple[str, list[tuple[str, int]]]]):
    """A click log from ``[(query, [(doc, clicked), ...]), ...]``, one session each."""
    s, q, p, d, c = [], [], [], [], []
    for i, (query, shown) in enumerate(sessions):
        for r, (doc, clicked) in enumerate(shown, start=1):
            s.append(f"s{i}")
            q.append(query)
            p.append(r)
            d.append(doc)
            c.append(clicked)
    return read_impressions({"session": s, "query": q, "position": p, "doc": d, "click": c})


#: Four sessions of one query, by hand (first clicks at 2, 1, none, 1; last at 2, 2, none, 1).
TINY = [
    ("q", [("a", 0), ("b", 1), ("c", 0)]),
    ("q", [("b", 1), ("a", 1), ("c", 0)]),
    ("q", [("c", 0), ("a", 0), ("b", 0)]),
    ("q", [("a", 1), ("c", 0), ("b", 0)]),
]


def pairs(values: dict[str, float], default: float = 0.0, query: str = "q") -> PairParameters:
    docs = list(values)
    return PairParameters(
        [query] * len(docs), docs, np.asarray([values[d] for d in docs]),
        np.ones(len(docs), dtype=np.int64), default,
    )  # fmt: skip


def test_cm_closed_form_by_hand():
    model = clicks.fit(log_of(TINY), "cm")
    # examined = at or above the first click (all without one); clicks after the first ignored
    # a: examined in sessions 1, 3, 4, clicked first in 4; b: examined in 1, 2, 3, clicked
    # first in 1 and 2; c: examined in session 3 only (below the first click elsewhere)
    assert model.attractiveness.get("q", "a") == pytest.approx(1 / 3)
    assert model.attractiveness.get("q", "b") == pytest.approx(2 / 3)
    assert model.attractiveness.get("q", "c") == pytest.approx(0.0)
    assert model.attractiveness.default == pytest.approx(3 / 7)  # 3 first clicks, 7 views
    assert model.attractiveness.get("q", "unseen") == pytest.approx(3 / 7)
    # P(C_r = 1) = α_r Π_{j<r} (1 - α_j)
    probs = model.click_probabilities("q", ["b", "a", "c"])
    np.testing.assert_allclose(probs, [2 / 3, (1 / 3) * (1 / 3), 0.0])


def test_sdbn_closed_form_by_hand():
    model = clicks.fit(log_of(TINY), "sdbn")
    # examined = down to the last click (all without one): a in 1, 2, 3, 4 (clicked in 2, 4),
    # b in 1, 2, 3 (clicked in 1, 2), c in 3 (not clicked)
    assert model.attractiveness.get("q", "a") == pytest.approx(2 / 4)
    assert model.attractiveness.get("q", "b") == pytest.approx(2 / 3)
    assert model.attractiveness.get("q", "c") == pytest.approx(0.0)
    # σ = last clicks / clicks: a's two clicks were both last, b's one of two
    assert model.satisfaction.get("q", "a") == pytest.approx(1.0)
    assert model.satisfaction.get("q", "b") == pytest.approx(0.5)
    assert model.continuation == 1.0


def _simulated_pbm(alpha, gamma, sessions, seed, queries=2):
    """A PBM log: each session shows the documents of a query in a random order."""
    rng = np.random.default_rng(seed)
    rows = []
    k = len(gamma)
    for i in range(sessions):
        q = i % queries
        order = rng.permutation(len(alpha))[:k]
        clicked = rng.random(k) < np.asarray(alpha)[order] * np.asarray(gamma)
        rows.append((f"q{q}", [(f"d{j}", int(c)) for j, c in zip(order, clicked, strict=True)]))
    return log_of(rows)


def test_pbm_em_recovers_the_parameters_it_was_simulated_from():
    alpha = [0.9, 0.6, 0.4, 0.2, 0.1]
    gamma = [1.0, 0.7, 0.5, 0.35, 0.25]
    log = _simulated_pbm(alpha, gamma, 20_000, seed=7)
    model = clicks.fit(log, "pbm", tol=1e-9, max_iter=1000)
    # identified: γ_r / γ_1 and α·γ_1 (α·c and γ/c explain the log equally well)
    np.testing.assert_allclose(model.propensities, np.asarray(gamma) / gamma[0], atol=0.03)
    for q in ("q0", "q1"):
        fitted = [model.attractiveness.get(q, f"d{j}") * model.examination[0] for j in range(5)]
        np.testing.assert_allclose(fitted, np.asarray(alpha) * gamma[0], atol=0.03)


@pytest.mark.parametrize("name", ["pbm", "ubm", "dbn"])
def test_em_never_lowers_the_likelihood(name):
    log = _simulated_pbm([0.8, 0.5, 0.3, 0.1], [1.0, 0.6, 0.4, 0.3], 600, seed=3)
    model = clicks.fit(log, name, max_iter=60, tol=1e-12)
    trace = np.asarray(model.trace)
    assert len(trace) > 5
    assert (np.diff(trace) >= -1e-9).all(), np.diff(trace).min()
    assert trace[-1] > trace[0]
    # the trace is the log-likelihood of the parameters an iteration starts from: the final
    # parameters (one step further) are at least as likely
    assert model.log_likelihood(log) >= trace[-1] - 1e-9


def test_perplexity_and_log_likelihood_by_hand_on_two_sessions():
    model = PBM(pairs({"a": 0.5, "b": 0.25}), examination=np.asarray([1.0, 0.5]))
    log = log_of([("q", [("a", 1), ("b", 0)]), ("q", [("b", 0), ("a", 0)])])
    held = model.evaluate(log)
    # P(C = 1): session 1: 0.5, 0.125; session 2: 0.25, 0.25
    at1 = 2 ** (-(math.log2(0.5) + math.log2(0.75)) / 2)
    at2 = 2 ** (-(math.log2(0.875) + math.log2(0.75)) / 2)
    np.testing.assert_allclose(held.perplexity_at, [at1, at2])
    assert held.perplexity == pytest.approx((at1 + at2) / 2)
    ll = (math.log(0.5) + math.log(0.875) + math.log(0.75) + math.log(0.75)) / 2
    assert held.log_likelihood == pytest.approx(ll)
    assert model.log_likelihood(log) == pytest.approx(ll)


HAND_MODELS = {
    "pbm": PBM(pairs({"a": 0.7, "b": 0.4, "c": 0.2}), examination=np.asarray([0.9, 0.6, 0.3])),
    "cm": CM(pairs({"a": 0.7, "b": 0.4, "c": 0.2})),
    "ubm": UBM(
        pairs({"a": 0.7, "b": 0.4, "c": 0.2}),
        examination=np.asarray([[0.9, 0, 0], [0.5, 0.8, 0], [0.3, 0.4, 0.7]]),
    ),
    "dbn": DBN(
        pairs({"a": 0.7, "b": 0.4, "c": 0.2}),
        satisfaction=pairs({"a": 0.6, "b": 0.3, "c": 0.9}),
        continuation=0.8,
    ),  # fmt: skip
    "sdbn": SDBN(
        pairs({"a": 0.7, "b": 0.4, "c": 0.2}),
        satisfaction=pairs({"a": 0.6, "b": 0.3, "c": 0.9}),
        continuation=1.0,
    ),  # fmt: skip
}


@pytest.mark.parametrize("name", list(HAND_MODELS))
def test_click_patterns_sum_to_one_and_agree_with_the_click_probabilities(name):
    model = HAND_MODELS[name]
    ranking = ["a", "b", "c"]
    total = 0.0
    marginal = np.zeros(3)
    for pattern in itertools.product([0, 1], repeat=3):
        log = log_of([("q", list(zip(ranking, pattern, strict=True)))])
        p = math.exp(model.log_likelihood(log))
        if name == "cm" and sum(pattern) > 1:  # impossible under CM: clipped to 1e-10
            assert p < 1e-9
            continue
        total += p
        marginal += p * np.asarray(pattern)
    assert total == pytest.approx(1.0, abs=1e-9)
    np.testing.assert_allclose(model.click_probabilities("q", ranking), marginal, atol=1e-12)


def test_dbn_click_probability_by_hand():
    model = HAND_MODELS["dbn"]
    # ε_2 = γ (1 - α_a σ_a) = 0.8 · (1 - 0.42); ε_3 = ε_2 · 0.8 · (1 - 0.4 · 0.3)
    e2 = 0.8 * (1 - 0.7 * 0.6)
    e3 = e2 * 0.8 * (1 - 0.4 * 0.3)
    np.testing.assert_allclose(model.click_probabilities("q", ["a", "b", "c"]),
                               [0.7, 0.4 * e2, 0.2 * e3])  # fmt: skip


@pytest.mark.parametrize("name", list(HAND_MODELS))
def test_sampled_click_rates_match_the_click_probabilities(name):
    model = HAND_MODELS[name]
    n = 40_000
    sampled = model.sample("q", ["a", "b", "c"], n, np.random.default_rng(5)).mean(axis=0)
    expected = model.click_probabilities("q", ["a", "b", "c"])
    # within four standard errors of a proportion
    assert (np.abs(sampled - expected) <= 4 * np.sqrt(expected * (1 - expected) / n) + 1e-12).all()


def test_dbn_em_recovers_its_continuation_and_the_best_document():
    model = HAND_MODELS["dbn"]
    rng = np.random.default_rng(11)
    rows = []
    for _ in range(6000):
        order = [["a", "b", "c"], ["c", "b", "a"], ["b", "a", "c"]][int(rng.integers(3))]
        c = model.sample("q", order, 1, rng)[0]
        rows.append(("q", list(zip(order, c.astype(int).tolist(), strict=True))))
    fitted = clicks.fit(log_of(rows), "dbn", max_iter=400, tol=1e-8)
    assert fitted.continuation == pytest.approx(0.8, abs=0.05)
    for doc, a in (("a", 0.7), ("b", 0.4), ("c", 0.2)):
        assert fitted.attractiveness.get("q", doc) == pytest.approx(a, abs=0.06)


@pytest.mark.parametrize("name", list(HAND_MODELS))
def test_parameters_round_trip_through_json(name):
    model = HAND_MODELS[name]
    again = clicks.from_dict(json.loads(json.dumps(model.to_dict())))
    assert type(again) is type(model)
    np.testing.assert_allclose(
        again.click_probabilities("q", ["c", "a", "b"]),
        model.click_probabilities("q", ["c", "a", "b"]),
    )


def test_unknown_model_and_too_long_rankings_are_usage_errors():
    with pytest.raises(UsageError, match="unknown click model 'xyz'"):
        clicks.fit(log_of(TINY), "xyz")
    with pytest.raises(UsageError, match="3 positions, and the ranking has 4"):
        HAND_MODELS["pbm"].click_probabilities("q", ["a", "b", "c", "d"])


# -- simulation from judgments ----------------------------------------------------------------


def test_simulation_is_seeded_and_covers_the_queries_in_turn():
    a = simulate_clicks("pbm", EXAMPLES / "run.medium.txt", EXAMPLES / "qrels.txt",
                        sessions=300, seed=4)  # fmt: skip
    b = simulate_clicks("pbm", EXAMPLES / "run.medium.txt", EXAMPLES / "qrels.txt",
                        sessions=300, seed=4)  # fmt: skip
    c = simulate_clicks("pbm", EXAMPLES / "run.medium.txt", EXAMPLES / "qrels.txt",
                        sessions=300, seed=5)  # fmt: skip
    assert a.columns() == b.columns()
    assert a.columns()["clicked"] != c.columns()["clicked"]
    assert a.num_sessions == 300 and len(a) == 300 * 10
    per_query = np.bincount(a.query[a.starts[:-1]])
    assert per_query.max() - per_query.min() <= 1  # 25 queries, 12 sessions each


def test_simulated_pbm_click_rates_follow_the_grade_mapping():
    from rankscope.read import read_qrels

    qrels = read_qrels(EXAMPLES / "qrels.txt")
    top = int(qrels.grade.max())
    grade = dict(zip(zip(qrels.queries.strings_of(qrels.query), qrels.docs.strings_of(qrels.doc),
                         strict=True), qrels.grade.tolist(), strict=True))  # fmt: skip
    log = simulate_clicks("pbm", EXAMPLES / "run.strong.txt", qrels, sessions=50_000, seed=2)
    cols = log.columns()
    # click rate of each (position, grade) against (2^g - 1)/2^gmax · 1/r
    shown: dict[tuple[int, int], list[int]] = {}
    for q, d, r, c in zip(cols["query"], cols["doc"], cols["position"], cols["clicked"],
                          strict=True):  # fmt: skip
        shown.setdefault((r, max(grade.get((q, d), 0), 0)), []).append(c)
    checked = 0
    for (r, g), cs in shown.items():
        if len(cs) < 500:
            continue
        p = (2**g - 1) / 2**top / r
        se = math.sqrt(max(p * (1 - p), 1e-12) / len(cs))
        assert abs(np.mean(cs) - p) <= 4 * se + 1e-12, (r, g, np.mean(cs), p)
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize("name", ["pbm", "cm", "ubm", "dbn", "sdbn"])
def test_a_log_without_clicks_is_fitted_with_a_warning(name):
    log = read_impressions(
        {"session": [1, 1, 2, 2], "query": ["q"] * 4, "position": [1, 2, 1, 2],
         "doc": ["a", "b", "b", "a"], "click": [0, 0, 0, 0]},
        require=clicks.CLICK_ROLES, binary=True,
    )  # fmt: skip
    with pytest.warns(RankscopeWarning, match=f"has no clicks: a {name} model fitted to it"):
        model = clicks.fit(log, name)
    # nothing clicked: the closed forms' attractiveness is 0/2 shows
    if name in ("cm", "sdbn"):
        assert model.to_dict()["attractiveness"]["pairs"][0]["value"] == 0.0


def test_simulating_from_judgments_of_grade_0_warns_of_no_clicks(tmp_path, capsys):
    qrels = {"q1": {"d1": 0, "d2": 0}}
    run = {"q1": {"d1": 2.0, "d2": 1.0}}
    # every grade 0: the grade mapping gives attractiveness 0 to both, no session clicks
    with pytest.warns(RankscopeWarning, match=r"none of the 5 simulated sessions has a click "
                      r"\(pbm\): every grade of the judgments is 0 or below"):
        log = simulate_clicks("pbm", run, qrels, sessions=5)
    assert log.click.sum() == 0 and len(log) == 10
    (tmp_path / "q").write_text("q1 0 d1 0\nq1 0 d2 0\n")
    (tmp_path / "r").write_text("q1 Q0 d1 1 2 r\nq1 Q0 d2 2 1 r\n")
    code, _, err = run_cli(["clicks", "simulate", str(tmp_path / "q"), str(tmp_path / "r"),
                            "--sessions", "5", "-o", str(tmp_path / "log.tsv")], capsys)
    assert code == 0
    assert "rankscope: warning: none of the 5 simulated sessions has a click" in err


def test_simulate_needs_judgments_for_a_named_model_and_checks_mappings():
    with pytest.raises(UsageError, match="needs judgments"):
        simulate_clicks("pbm", EXAMPLES / "run.medium.txt")
    with pytest.raises(UsageError, match="no probability for grade"):
        simulate_clicks("pbm", EXAMPLES / "run.medium.txt", EXAMPLES / "qrels.txt",
                        attractiveness={0: 0.1})  # fmt: skip
    with pytest.raises(UsageError, match="sessions must be 1 or more"):
        simulate_clicks("pbm", EXAMPLES / "run.medium.txt", EXAMPLES / "qrels.txt", sessions=0)


def test_a_fitted_model_simulates_without_judgments():
    log = simulate_clicks("dbn", EXAMPLES / "run.medium.txt", EXAMPLES / "qrels.txt",
                          sessions=2000, seed=1)  # fmt: skip
    model = clicks.fit(log, "sdbn")
    again = simulate_clicks(model, EXAMPLES / "run.medium.txt", sessions=2000, seed=1)
    assert again.num_sessions == 2000
    # the same rankings: the fitted model reproduces the log's click rate per position
    rate = lambda lg: lg.matrix().clicked.mean(axis=0)  # noqa: E731
    np.testing.assert_allclose(rate(again), rate(log), atol=0.04)


# -- the command line -------------------------------------------------------------------------


def test_cli_simulate_then_fit(tmp_path, capsys):
    out = tmp_path / "clicks.tsv"
    code, _, err = run_cli(
        ["clicks", "simulate", "--model", "cm", "--sessions", "400", "--seed", "3",
         str(EXAMPLES / "qrels.txt"), str(EXAMPLES / "run.medium.txt"), "-o", str(out)],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    log = read_impressions(out, require=clicks.CLICK_ROLES, binary=True)
    assert log.num_sessions == 400
    # under CM at most one click per session
    assert log.matrix().clicked.sum(axis=1).max() <= 1
    params = tmp_path / "cm.json"
    code, text, err = run_cli(
        ["clicks", "fit", str(out), "--model", "cm", "-o", str(params), "--test-fraction", "0.25"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    assert "CM" in text and "perplexity" in text
    model = clicks.from_dict(json.loads(params.read_text()))
    train, _ = log.split(0.25, seed=0)
    direct = clicks.fit(train, "cm")
    assert model.attractiveness.values.tolist() == direct.attractiveness.values.tolist()
    code, _, err = run_cli(
        ["clicks", "simulate", "--params", str(params), "--sessions", "50",
         str(EXAMPLES / "qrels.txt"), str(EXAMPLES / "run.weak.txt"), "-o",
         str(tmp_path / "again.parquet")],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    pytest.importorskip("pyarrow")
    assert read_impressions(tmp_path / "again.parquet").num_sessions == 50


def test_cli_user_errors_exit_2(tmp_path, capsys):
    log = tmp_path / "clicks.tsv"
    log.write_text("s1\tq\t1\ta\t1\ns1\tq\t1\tb\t0\n")
    code, _, err = run_cli(["clicks", "fit", str(log)], capsys)
    assert code == 2 and f"{log}:1 and {log}:2: position 1 is listed twice" in err
    args = ["clicks", "fit", str(log), "--model", "pbm", "--model", "cm", "-o", "x"]
    code, _, err = run_cli(args, capsys)
    assert code == 2 and "one --model" in err
    code, _, err = run_cli(["clicks"], capsys)
    assert code == 2 and "needs a subcommand" in err


def test_cli_fit_takes_columns_and_gives_its_held_out_fit_as_json(tmp_path, capsys):
    # a log whose header names its columns otherwise: one query, two positions, four
    # sessions; the cascade model in closed form: alpha(d1) = 1/4 (4 examinations, 1 click),
    # alpha(d2) = 2/3 (examined in the 3 sessions without a click at 1, clicked in 2)
    log = tmp_path / "h.tsv"
    log.write_text(
        "sess\tq\tpos\tdoc\tklik\n" + "".join(
            f"{s}\tq\t{r}\td{r}\t{c}\n"
            for s, clicks_at in (("s1", (1, 0)), ("s2", (0, 1)), ("s3", (0, 0)), ("s4", (0, 1)))
            for r, c in enumerate(clicks_at, start=1)
        )
    )  # fmt: skip
    code, _, err = run_cli(["clicks", "fit", str(log), "--model", "cm"], capsys)
    assert code == 2 and "--columns session=NAME" in err and "columns={" not in err
    columns = "click=klik,session=sess,query=q,position=pos"
    code, out, err = run_cli(
        ["clicks", "fit", str(log), "--model", "cm", "--columns", columns, "--test-log",
         str(log), "--format", "json"], capsys,
    )  # fmt: skip
    assert code == 0, err
    result = json.loads(out)
    assert result["training"] == {"sessions": 4, "results": 8, "clicks": 3}
    (cm,) = result["models"]
    # per session: s1 log 1/4 (nothing examined after the click); s2, s4 log 3/4 + log 2/3;
    # s3 log 3/4 + log 1/3
    ll = (math.log(1 / 4) + 3 * math.log(3 / 4) + 2 * math.log(2 / 3) + math.log(1 / 3)) / 4
    assert cm["model"] == "cm" and cm["log_likelihood"] == pytest.approx(ll, abs=1e-9)
    held = cm["held_out"]
    assert held["log_likelihood"] == pytest.approx(ll, abs=1e-9)
    # perplexity at r: 2 ** -(mean log2 P(C_r = c_r)), P(C_1 = 1) = 1/4 and P(C_2 = 1) =
    # 3/4 * 2/3 = 1/2
    first = 2 ** -((math.log2(1 / 4) + 3 * math.log2(3 / 4)) / 4)
    assert held["perplexity_at"] == pytest.approx([first, 2.0], abs=1e-9)
    assert held["perplexity"] == pytest.approx((first + 2.0) / 2, abs=1e-9)
    code, out, err = run_cli(["clicks", "fit", str(log), "--columns", columns, "-o", "-"], capsys)
    assert code == 0 and json.loads(out)["model"] == "pbm"  # the parameters, not the summary


def test_cli_model_names_match_the_api():
    from rankscope.cli.clicks import shared as cli_clicks

    assert cli_clicks.MODELS == tuple(clicks.MODELS)
