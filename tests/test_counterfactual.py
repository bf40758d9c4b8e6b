"""Counterfactual estimators (rankscope.clicks.estimators): hand-computed cases, simulations
whose truth is known (interval coverage and bias), Open Bandit Pipeline as an oracle, the
Open Bandit Dataset, and the log reader's errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rankscope.clicks import EmpiricalRewardModel, estimate, ranking_policy, stochastic_policy
from rankscope.errors import InputError, RankscopeWarning, UsageError
from rankscope.read import read_run
from rankscope.read.impressions import read_impressions
from tests.conftest import DATA, need, run_cli
from tests.slate_simulation import TrueRewardModel, coverage, world

# ---------------------------------------------------------------------- a hand-computed log
# Three documents a, b, c; the logger shows a uniformly random ordered pair (6 slates):
# item-position propensity 1/3, prefix 1/3 then 1/6, slate 1/6.  The evaluation policy
# ranks a, b.  Session 1 shows (a, b) (both clicked): every weight applies; session 2 shows
# (a, c), clicked at 2: its first position matches; session 3 shows (c, b), clicked at 1:
# only b at 2 matches the policy's item-position.
HAND = {
    "session": ["s1", "s1", "s2", "s2", "s3", "s3"],
    "query": ["q"] * 6,
    "position": [1, 2, 1, 2, 1, 2],
    "doc": ["a", "b", "a", "c", "c", "b"],
    "click": [1, 1, 0, 1, 1, 0],
    "propensity": [1 / 3] * 6,
    "prefix_propensity": [1 / 3, 1 / 6] * 3,
    "slate_propensity": [1 / 6] * 6,
}


class Constant:
    """A reward model: q̂ = 0.4 for every document at every position."""

    def expected_clicks(self, query, doc, position):
        return np.full(len(query), 0.4)


@pytest.fixture
def hand():
    log = read_impressions(HAND)
    policy = ranking_policy(log, read_run({"q": {"a": 2.0, "b": 1.0, "c": 0.0}}, name="ab"))
    return log, policy


@pytest.mark.parametrize(
    ("estimator", "options", "expected"),
    [
        # item weights 1/(1/3) = 3 where the policy shows the logged document:
        # s1 3·1 + 3·1, s2 3·0, s3 3·0 -> 6 / 3 sessions
        ("iips", {}, 2.0),
        # prefix weights 3 then 6: s1 3·1 + 6·1 = 9, others 0 -> 9 / 3
        ("rips", {}, 3.0),
        # slate weight 6 on s1's two clicks -> 12 / 3
        ("ips", {}, 4.0),
        # Σ w R / Σ w = 12 / 6
        ("snips", {}, 2.0),
        # per position: (3·1 + 3·0) / (3 + 3) at 1 and (3·1 + 3·0) / (3 + 3) at 2
        ("iips", {"self_normalise": True}, 1.0),
        # weights clipped at 2: s1 2 + 2 -> 4 / 3
        ("iips", {"clip": 2.0}, 4 / 3),
        # clicks at the top only (α = 1, 0): s1 3·1 -> 3 / 3
        ("iips", {"position_weights": [1.0]}, 1.0),
        # q̂ = 0.4 at the policy's two positions in each session
        ("dm", {"reward_model": Constant()}, 0.8),
        # 0.8 + (3·0.6 + 3·0.6 + 3·(−0.4) + 3·(−0.4)) / 3
        ("dr", {"reward_model": Constant()}, 1.2),
        # per row w₁:ₖ (c − 0.4) + w₁:ₖ₋₁ 0.4: s1 (1.8 + 0.4) + (3.6 + 1.2),
        # s2 (−1.2 + 0.4) + (0 + 1.2), s3 (0 + 0.4) + (0 + 0) -> 7.8 / 3
        ("cascade-dr", {"reward_model": Constant()}, 2.6),
    ],
)
def test_hand_computed(hand, estimator, options, expected):
    log, policy = hand
    result = estimate(log, policy, estimator, samples=0, **options)
    assert result.value == pytest.approx(expected, abs=1e-12)
    assert result.sessions == 3 and math.isnan(result.low)


def test_pbm_estimator_hand_computed(hand):
    # θ = (1, 0.5); the logger puts each document at each position with probability 1/3, so
    # Σⱼ θⱼ π₀(d at j) = 0.5 for every d; the policy: a at 1 (θ 1), b at 2 (θ 0.5), c never.
    # Weights a 2, b 1, c 0: s1 2 + 1, s2 0 + 0 (c), s3 0 (c) + 0 -> 3 / 3
    log, policy = hand
    logging = stochastic_policy(
        log, {"query": ["q"] * 6, "position": [1, 1, 1, 2, 2, 2],
              "doc": ["a", "b", "c"] * 2, "probability": [1 / 3] * 6},
    )  # fmt: skip
    result = estimate(
        log, policy, "pbm", examination=[1.0, 0.5], logging_policy=logging, samples=0
    )
    assert result.value == pytest.approx(1.0, abs=1e-12)


def test_stochastic_policy_weights(hand):
    # π puts a or c at 1 with probability 0.5 each, b at 2 with 0.25 (a with 0.75): item
    # weights 1.5 (a or c at 1), 0.75 (b at 2), 0 (c at 2); clicked: s1 a at 1 and b at 2,
    # s2 c at 2, s3 c at 1 -> (1.5 + 0.75 + 0 + 1.5) / 3
    log, _ = hand
    policy = stochastic_policy(
        log, {"query": ["q"] * 4, "position": [1, 1, 2, 2], "doc": ["a", "c", "b", "a"],
              "probability": [0.5, 0.5, 0.25, 0.75]},
    )  # fmt: skip
    assert estimate(log, policy, "iips", samples=0).value == pytest.approx(1.25)


# Two sessions of query q showing (a, b) and (b, a), each position with propensity 1/2.
SWAPPED = {
    "session": [1, 1, 2, 2], "query": ["q"] * 4, "position": [1, 2, 1, 2],
    "doc": ["a", "b", "b", "a"], "click": [1, 0, 0, 1], "propensity": [0.5] * 4,
    "prefix_propensity": [0.5] * 4, "slate_propensity": [0.5] * 4,
}  # fmt: skip


def _ranked(log, *docs):
    scores = {d: float(len(docs) - i) for i, d in enumerate(docs)}
    return ranking_policy(log, read_run({"q": scores}, name="".join(docs)))


def test_support_share_by_hand():
    from rankscope.clicks.estimators import unsupported_share

    log = read_impressions(SWAPPED)
    # the ranking (a, c): a at 1 was logged (session 1), c at 2 never (2 rows per slot):
    # item (2·0 + 2·1) / (2 + 2) = 1/2; the prefix (a) was logged, (a, c) never: 1/2; the
    # document c was never shown at all: 1/2; the ranking (a, c) never: 1
    policy = _ranked(log, "a", "c")
    shares = {unit: unsupported_share(log, policy, unit)
              for unit in ("item", "pbm", "prefix", "slate")}  # fmt: skip
    assert shares == pytest.approx({"item": 0.5, "pbm": 0.5, "prefix": 0.5, "slate": 1.0})
    # (b, a) is session 2 exactly: nothing unsupported
    policy = _ranked(log, "b", "a")
    assert [unsupported_share(log, policy, u) for u in ("item", "pbm", "prefix", "slate")] == [
        0.0, 0.0, 0.0, 0.0
    ]  # fmt: skip
    # (a, a)-free stochastic policy: at 1 a or c (0.5 each), at 2 b: c at 1 never logged ->
    # item (2·0.5 + 2·0) / 4 = 1/4; as documents, c never shown: 1/4 as well
    policy = stochastic_policy(
        log, {"query": ["q"] * 3, "position": [1, 1, 2], "doc": ["a", "c", "b"],
              "probability": [0.5, 0.5, 1.0]},
    )  # fmt: skip
    assert unsupported_share(log, policy, "item") == pytest.approx(0.25)
    assert unsupported_share(log, policy, "pbm") == pytest.approx(0.25)
    assert unsupported_share(log, policy, "slate") is None  # (its slate probabilities unknown)


def test_support_check_warns_and_refuses():
    log = read_impressions(SWAPPED)
    with pytest.warns(RankscopeWarning, match=r"iips: 50\.0% of the probability of 'ac' is on "
                      r"documents at their positions that .* never shows .* biased low"):
        # iips by hand: session 1's click on a at 1, weight 1/0.5: 2 / 2 sessions
        assert estimate(log, _ranked(log, "a", "c"), "iips", samples=0).value == 1.0
    # the whole ranking (a, c) was never logged: ips would be 0 for want of support
    with pytest.raises(UsageError, match=r"ips: .* never shows any of the rankings 'ac' shows "
                       r"\(100% of its probability .* meaningless 0"):
        estimate(log, _ranked(log, "a", "c"), "ips", samples=0)
    # neither c nor d was ever shown: every item weight is 0
    policy = _ranked(log, "c", "d")
    with pytest.raises(UsageError, match=r"iips: .*\(100%"):
        estimate(log, policy, "iips", samples=0)
    # dr has its reward model to fall back on: a warning, not an error
    with pytest.warns(RankscopeWarning, match="dr: 100.0% .* rests on the reward model"):
        estimate(log, policy, "dr", reward_model="empirical", samples=0)
    # a supported policy: no warning
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        estimate(log, _ranked(log, "b", "a"), "ips", samples=0)


def _write_log(path, table) -> None:
    rows = zip(*(map(str, column) for column in table.values()), strict=True)
    path.write_text("\t".join(table) + "\n" + "".join("\t".join(r) + "\n" for r in rows))


def test_cli_policy_file_by_hand(tmp_path, capsys):
    log = tmp_path / "log.tsv"
    _write_log(log, SWAPPED)
    policy = tmp_path / "mixed.tsv"
    # π: a or c at 1 (0.5 each), b at 2.  iips by hand: session 1's click on a at 1 weighs
    # 0.5/0.5 = 1, session 2's on a at 2 weighs π(a at 2) / 0.5 = 0: (1 + 0) / 2 sessions
    policy.write_text("context\tslot\titem\tprobability\nq\t1\ta\t0.5\nq\t1\tc\t0.5\n"
                      "q\t2\tb\t1\n")  # fmt: skip
    code, out, err = run_cli(
        ["clicks", "estimate", str(log), "--policy", str(policy), "--samples", "0",
         "--format", "csv"], capsys,
    )  # fmt: skip
    assert code == 0, err
    (row,) = out.splitlines()[1:]
    assert row.split(",")[:3] == ["iips", "mixed", "0.5"]
    # c at 1 was never logged: 2 of the 4 rows' slots hold 0.5 of π's mass there -> 25%
    assert "rankscope: warning: iips: 25.0% of the probability of 'mixed'" in err
    # the same through the API's reader
    from rankscope.read.policy import read_policy

    table = read_policy(policy)
    assert table["query"] == ["q"] * 3 and table["doc"] == ["a", "c", "b"]
    assert table["position"].tolist() == [1, 1, 2]
    assert table["probability"].tolist() == [0.5, 0.5, 1.0]
    logged = read_impressions(SWAPPED)
    with pytest.warns(RankscopeWarning, match="25.0%"):
        value = estimate(logged, stochastic_policy(logged, table), "iips", samples=0).value
    assert value == 0.5
    # ips needs the probability of each whole ranking, which the file does not give
    code, _, err = run_cli(
        ["clicks", "estimate", str(log), "--policy", str(policy), "--estimator", "ips"], capsys
    )
    assert code == 2 and "use iips, pbm, dm or dr, or a run" in err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("position\tdoc\tprobability\n1\ta\t0.5\n1\tb\t0.4\n",
         r"p.tsv:2: the probabilities of query 'all' at position 1 sum to 0.9, not 1"),
        ("query,position,doc,probability\nq,1,a,1.5\n",
         r"p.tsv:2: probability 1.5 is not in \[0, 1\]"),
        ("query position doc probability\nq 1 a 0.5\nq 1 b 0.5\nq 1 a 0.5\n",
         r"p.tsv:4: document 'a' at position 1 of query 'q' is listed twice \(line 2 first\)"),
        ("query\tposition\tdoc\tprobability\nq\t0\ta\t1\n", r"p.tsv:2: position 0 is below 1"),
        ("query\tposition\tdoc\tprobability\nq\tx\ta\t1\n", r"p.tsv:2: position 'x'"),
        ("query\tposition\tdoc\tprobability\nq\t1\ta\tnan\n", r"p.tsv:2: probability 'nan'"),
        ("query\tdoc\tprobability\nq\ta\t1\n", r"p.tsv: no position column in the header"),
        ("query\tposition\tdoc\tprobability\nq\t1\ta\n",
         r"p.tsv:2: expected 4 fields, as the header has, found 3"),
    ],
)  # fmt: skip
def test_policy_file_errors_name_file_and_line(tmp_path, text, message):
    from rankscope.read.policy import is_policy_file, read_policy

    path = tmp_path / "p.tsv"
    path.write_text(text)
    assert is_policy_file(path)
    with pytest.raises(InputError, match=message):
        read_policy(path)


def test_empirical_reward_model_is_the_smoothed_click_rate(hand):
    log, _ = hand
    model = EmpiricalRewardModel.fit(log, prior=1.0)
    codes = {d: log.docs.code(d) for d in "abc"}
    q = log.queries.code("q")
    # a at 1: shown twice, clicked once; position 1's rate is 2/3: (1 + 2/3) / 3
    # c at 2: shown once, clicked; position 2's rate is 2/3: (1 + 2/3) / 2
    # b at 1: never shown there -> 2/3; a position never shown -> the overall rate 4/6
    got = model.expected_clicks(
        np.array([q, q, q, q]), np.array([codes["a"], codes["c"], codes["b"], codes["a"]]),
        np.array([1, 2, 1, 5]),
    )  # fmt: skip
    assert got == pytest.approx([(1 + 2 / 3) / 3, (1 + 2 / 3) / 2, 2 / 3, 4 / 6])


def test_bootstrap_is_seeded_and_brackets_the_estimate(hand):
    log, policy = hand
    one = estimate(log, policy, "iips", samples=200, seed=3)
    again = estimate(log, policy, "iips", samples=200, seed=3)
    other = estimate(log, policy, "iips", samples=200, seed=4)
    assert one == again
    assert one.standard_error != other.standard_error
    # session values 6, 0, 0: every resample's mean is 0, 2, 4 or 6; the 2.5 % and 97.5 %
    # quantiles of 200 resamples are 0 and 6 (each has probability 8/27 and 1/27)
    assert (one.low, one.high) == (0.0, 6.0)
    # a resample's mean is 6·(times s1 is drawn)/3: its standard deviation is
    # 2·√(3·(1/3)·(2/3)) = 1.63
    assert one.standard_error == pytest.approx(1.63, abs=0.25)


def test_a_query_the_run_lacks_shows_nothing(hand):
    log, _ = hand
    with pytest.warns(RankscopeWarning, match="no ranking"):
        policy = ranking_policy(log, read_run({"other": {"a": 1.0}}, name="r"))
    assert estimate(log, policy, "iips", samples=0).value == 0.0


@pytest.mark.parametrize(
    ("estimator", "options", "match"),
    [
        ("nope", {}, "unknown estimator"),
        ("dm", {}, "needs a reward model"),
        ("iips", {"reward_model": Constant()}, "uses no reward model"),
        ("pbm", {}, "needs examination"),
        ("dr", {"reward_model": Constant(), "self_normalise": True}, "self_normalise"),
        ("iips", {"clip": 0}, "clip"),
        ("iips", {"confidence": 1.5}, "confidence"),
    ],
)
def test_usage_errors(hand, estimator, options, match):
    log, policy = hand
    with pytest.raises(UsageError, match=match):
        estimate(log, policy, estimator, samples=0, **options)


def test_missing_propensities_and_stochastic_cascade_dr(hand):
    log = read_impressions({k: v for k, v in HAND.items() if k != "slate_propensity"})
    policy = ranking_policy(log, read_run({"q": {"a": 2.0, "b": 1.0}}, name="ab"))
    with pytest.raises(UsageError, match="slate_propensity column"):
        estimate(log, policy, "ips", samples=0)
    stochastic = stochastic_policy(
        log, {"query": ["q"], "position": [1], "doc": ["a"], "probability": [1.0]}
    )
    with pytest.raises(UsageError, match="deterministic ranking"):
        estimate(log, stochastic, "cascade-dr", reward_model=Constant(), samples=0)
    with pytest.raises(UsageError, match="prefix probabilities"):
        estimate(log, stochastic, "rips", samples=0)


# ---------------------------------------------------------------------- reader errors


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"position": [0, 2, 1, 2, 1, 2]}, "position 0 is not 1 or more"),
        ({"propensity": [1.5] + [1 / 3] * 5}, r"propensity 1.5 is not in \(0, 1\]"),
        ({"position": [1, 1, 1, 2, 1, 2]}, "position 1 is listed twice"),
        ({"query": ["q", "r", "q", "q", "q", "q"]}, "is listed under two query ids"),
        ({"prefix_propensity": [1 / 3, 1 / 2] + [1 / 3, 1 / 6] * 2}, "prefix propensity"),
        ({"slate_propensity": [1 / 6, 1 / 5] + [1 / 6] * 4}, "two slate propensities"),
        ({"click": ["1", "x", "0", "1", "1", "0"]}, "click 'x' is not a number"),
    ],
)
def test_reader_errors_name_the_row(change, match):
    with pytest.raises(InputError, match=match):
        read_impressions({**HAND, **change})


def test_reader_text_errors_name_file_and_line(tmp_path):
    path = tmp_path / "log.tsv"
    path.write_text(
        "session\tposition\tdoc\tclick\tpropensity\ns1\t1\ta\t1\t0.5\ns1\t2\tb\t0\t0\n"
    )
    with pytest.raises(InputError, match=r"log.tsv:3: propensity 0.0 is not in"):
        read_impressions(path)
    path.write_text("s1\t1\ta\t1\t0.5\n")
    with pytest.raises(InputError, match="no header"):
        read_impressions(path)


def test_reader_columns_map_the_rest():
    renamed = {("rank" if k == "position" else "item_name" if k == "doc" else k): v
               for k, v in HAND.items()}  # fmt: skip
    with pytest.raises(InputError, match="no doc column"):
        read_impressions(renamed)
    log = read_impressions(renamed, columns={"doc": "item_name"})
    assert log.propensity is not None and log.prefix_propensity is not None
    assert log.docs.strings_of(log.doc) == HAND["doc"]
    with pytest.raises(UsageError, match="unknown click-log column role"):
        read_impressions(HAND, columns={"clicks": "click"})


def test_reader_text_equals_dict(tmp_path):
    path = tmp_path / "log.csv"
    lines = [",".join(HAND)] + [
        ",".join(str(HAND[c][i]) for c in HAND) for i in range(len(HAND["doc"]))
    ]
    path.write_text("\n".join(lines) + "\n")
    text, frame = read_impressions(path), read_impressions(HAND)
    for column in ("session", "position", "click", "propensity", "prefix_propensity"):
        assert np.array_equal(getattr(text, column), getattr(frame, column)), column
    assert text.docs.strings_of(text.doc) == frame.docs.strings_of(frame.doc)


# ---------------------------------------------------------------------- simulations
# 10 queries, 5 documents, 3 positions; Plackett-Luce logging and evaluation policies with
# exact propensities; 200 bootstrap resamples per interval.  A 95 % interval covers the
# truth in 190 of 200 logs on average; fewer than 180 (0.90) has probability below 0.1 % for a
# correct interval (fewer than 106 of 120, 0.88, about as rare).


def _models():
    return {
        "dm": lambda w, sim: TrueRewardModel(w, sim.log),
        # a wrong model (half the true click rates): doubly robust stays unbiased
        "dr": lambda w, sim: TrueRewardModel(w, sim.log, bias=0.5),
        "cascade-dr": lambda w, sim: TrueRewardModel(w, sim.log, bias=0.5),
    }


def _check(results, low=0.90, high=0.99):
    wrong = [
        r for r in results.values()
        if not (low <= r.coverage <= high and abs(r.mean_error) < 3.5 * r.error_se)
    ]  # fmt: skip
    assert not wrong, wrong


@pytest.mark.slow  # simulations; the estimators' fast twins: the hand computations above
def test_coverage_and_bias_under_the_position_based_model():
    w = world(1, clicks="pbm", deterministic_target=False)
    estimators = ["ips", "snips", "iips", "rips", "pbm", "dm", "dr"]
    _check(coverage(w, estimators, sessions=500, reps=200, samples=200, models=_models()))


@pytest.mark.slow
def test_coverage_and_bias_under_the_cascade():
    w = world(2, clicks="cascade", deterministic_target=False)
    # (at 500 sessions the percentile intervals of ips and rips cover about 0.90: the
    # importance-weighted clicks are skewed; at 2,000 about 0.95, docs/clicks.md)
    results = coverage(w, ["ips", "rips", "iips"], sessions=2000, reps=120, samples=200)
    # a click at 2 depends on the document at 1: iips's assumption fails (Kiyohara et al.)
    iips = results.pop("iips")
    assert iips.mean_error > 5 * iips.error_se, iips
    _check(results, low=0.88)


def test_cascade_estimators_are_unbiased_for_a_ranking():
    # a deterministic evaluation policy: prefix weights up to 1/π₀(prefix), heavy-tailed;
    # unbiased, but the percentile interval covers less than its 95 % (docs/clicks.md)
    w = world(2, clicks="cascade", deterministic_target=True)
    results = coverage(
        w, ["rips", "cascade-dr"], sessions=2000, reps=100, samples=200, models=_models()
    )
    _check(results, low=0.75)


# ---------------------------------------------------------------------- Open Bandit Pipeline


def test_open_bandit_pipeline_slate_estimators_agree():
    obp_dataset = pytest.importorskip("obp.dataset", reason="obp (Open Bandit Pipeline) absent")
    obp_ope = pytest.importorskip("obp.ope")
    dataset = obp_dataset.SyntheticSlateBanditDataset(
        n_unique_action=6, len_list=3, dim_context=2, reward_type="binary",
        reward_structure="cascade_additive", random_state=7,
        behavior_policy_function=obp_dataset.linear_behavior_policy_logit,
    )  # fmt: skip
    feedback = dataset.obtain_batch_bandit_feedback(n_rounds=400)
    logit = np.random.default_rng(7).normal(size=(400, 6))
    pscore, item, cascade = dataset.obtain_pscore_given_evaluation_policy_logit(
        feedback["action"], logit
    )
    session = feedback["slate_id"].astype(str)
    log = read_impressions({
        "session": session, "query": session, "position": feedback["position"] + 1,
        "doc": feedback["action"].astype(str), "click": feedback["reward"],
        "propensity": feedback["pscore_item_position"],
        "prefix_propensity": feedback["pscore_cascade"], "slate_propensity": feedback["pscore"],
    })  # fmt: skip
    policy = stochastic_policy(
        log, {"query": session, "position": feedback["position"] + 1,
              "doc": feedback["action"].astype(str), "probability": item},
        prefix=cascade, slate=pscore,
    )  # fmt: skip
    common = {"slate_id": feedback["slate_id"], "reward": feedback["reward"],
              "position": feedback["position"]}  # fmt: skip
    oracle = {
        "ips": obp_ope.SlateStandardIPS(len_list=3).estimate_policy_value(
            pscore=feedback["pscore"], evaluation_policy_pscore=pscore, **common),
        "iips": obp_ope.SlateIndependentIPS(len_list=3).estimate_policy_value(
            pscore_item_position=feedback["pscore_item_position"],
            evaluation_policy_pscore_item_position=item, **common),
        "rips": obp_ope.SlateRewardInteractionIPS(len_list=3).estimate_policy_value(
            pscore_cascade=feedback["pscore_cascade"],
            evaluation_policy_pscore_cascade=cascade, **common),
    }  # fmt: skip
    for name, value in oracle.items():
        assert estimate(log, policy, name, samples=0).value == pytest.approx(value, rel=1e-12)


# ---------------------------------------------------------------------- Open Bandit Dataset


def test_open_bandit_dataset_bts_from_random():
    """Saito et al. (2021): the Bernoulli-TS policy's click rate estimated from the uniform
    random policy's log, against bts's own observed rate (men's campaign, 10,000 rows each).
    bts is taken as its empirical choice of item per position in its own log."""
    root = need(DATA / "open_bandit_dataset")
    random_log = read_impressions(root / "random" / "men" / "men.csv.gz")
    bts_log = read_impressions(root / "bts" / "men" / "men.csv.gz")
    pairs = np.c_[bts_log.position, bts_log.doc]
    unique, counts = np.unique(pairs, axis=0, return_counts=True)
    at = np.bincount(bts_log.position)[unique[:, 0]]
    policy = stochastic_policy(
        random_log, {"position": unique[:, 0],
                     "doc": bts_log.docs.strings_of(unique[:, 1].astype(np.int32)),
                     "probability": counts / at},
    )  # fmt: skip
    observed = bts_log.click.mean()
    result = estimate(random_log, policy, "iips", samples=500, seed=0)
    # both are noisy (about 50 clicks each): the interval holds bts's observed rate
    assert result.low <= observed <= result.high, (result, observed)
    assert 0 < result.value < 0.02


# ---------------------------------------------------------------------- the command line


def test_open_bandit_example_of_the_docs_runs_from_the_command_line(tmp_path, capsys):
    """docs/clicks.md's command line: bts's empirical choice of item per position (a policy
    file written from its own log) estimated from the random policy's log gives the men's
    row of the docs' table (iips 0.00566, interval [0.00314, 0.00859])."""
    import re
    import shlex
    from pathlib import Path

    root = need(DATA / "open_bandit_dataset")
    docs = (Path(__file__).resolve().parent.parent / "docs" / "clicks.md").read_text()
    (line,) = re.findall(r"^rankscope clicks estimate .*--policy bts-men\.tsv.*$", docs, re.M)
    bts = read_impressions(root / "bts" / "men" / "men.csv.gz")
    pairs = np.c_[bts.position, bts.doc]
    unique, counts = np.unique(pairs, axis=0, return_counts=True)
    at = np.bincount(bts.position)[unique[:, 0]]
    items = bts.docs.strings_of(unique[:, 1].astype(np.int32))
    lines = [f"{k}\t{d}\t{n / a!r}\n" for (k, _), d, n, a in
             zip(unique.tolist(), items, counts.tolist(), at.tolist(), strict=True)]  # fmt: skip
    (tmp_path / "bts-men.tsv").write_text("position\titem\tprobability\n" + "".join(lines))
    argv = shlex.split(line)[1:]
    argv[argv.index("random/men/men.csv.gz")] = str(root / "random" / "men" / "men.csv.gz")
    argv[argv.index("bts-men.tsv")] = str(tmp_path / "bts-men.tsv")
    code, out, err = run_cli([*argv, "--format", "csv"], capsys)
    assert code == 0, err
    header, row = out.splitlines()
    values = dict(zip(header.split(","), row.split(","), strict=True))
    assert float(values["value"]) == pytest.approx(0.00566, abs=5e-6)
    assert float(values["low"]) == pytest.approx(0.00314, abs=5e-6)
    assert float(values["high"]) == pytest.approx(0.00859, abs=5e-6)


def test_cli_estimate(tmp_path, capsys):
    log = tmp_path / "log.tsv"
    lines = ["\t".join(HAND)] + [
        "\t".join(str(HAND[c][i]) for c in HAND) for i in range(len(HAND["doc"]))
    ]
    log.write_text("\n".join(lines) + "\n")
    run = tmp_path / "ab.run"
    run.write_text("q Q0 a 1 2.0 ab\nq Q0 b 2 1.0 ab\nq Q0 c 3 0.0 ab\n")
    code, out, _ = run_cli(
        ["clicks", "estimate", str(log), "--policy", str(run), "--estimator", "ips,iips,rips",
         "--samples", "0", "--format", "csv"], capsys,
    )  # fmt: skip
    assert code == 0
    values = {r.split(",")[0]: float(r.split(",")[2]) for r in out.splitlines()[1:]}
    assert values == pytest.approx({"ips": 4.0, "iips": 2.0, "rips": 3.0})  # as by hand
    code, _, err = run_cli(
        ["clicks", "estimate", str(log), "--policy", str(run), "--estimator", "dm"], capsys
    )
    assert code == 2 and "--reward-model empirical" in err
    with pytest.raises(SystemExit) as stop:  # (argparse's own error: status 2)
        run_cli(["clicks", "estimate", str(log), "--policy", str(run), "--estimator", "x"], capsys)
    assert stop.value.code == 2 and "unknown estimator" in capsys.readouterr().err


def test_cli_lists_what_the_api_has():
    from rankscope.cli.clicks import estimate as clicks
    from rankscope.clicks import ESTIMATORS
    from rankscope.report.estimates import FORMATS

    assert clicks.ESTIMATORS == tuple(ESTIMATORS) and clicks.FORMATS == FORMATS


# -- a fitted click model as the reward model ---------------------------------------------------


def _pbm_dict():
    return {
        "model": "pbm",
        "examination": [1.0, 0.5],
        "attractiveness": {
            "default": 0.1,
            "pairs": [
                {"query": "q", "doc": "a", "value": 0.8, "evidence": 5},
                {"query": "q", "doc": "b", "value": 0.4, "evidence": 5},
            ],
        },
    }


def _two_sessions():
    from rankscope.read.impressions import read_impressions

    # two sessions of query q, each showing a then b, deterministically (propensities 1)
    return read_impressions({
        "session": [1, 1, 2, 2], "query": ["q"] * 4, "position": [1, 2, 1, 2],
        "doc": ["a", "b", "a", "b"], "click": [1, 0, 0, 1], "propensity": [1.0] * 4,
        "prefix_propensity": [1.0] * 4, "slate_propensity": [1.0] * 4,
    })  # fmt: skip


def test_a_pbm_as_reward_model_gives_alpha_times_gamma():
    from rankscope.clicks import ClickModelReward, from_dict

    log = _two_sessions()
    reward = ClickModelReward.of(from_dict(_pbm_dict()), log)
    q, a, b = log.queries.code("q"), log.docs.code("a"), log.docs.code("b")
    got = reward.expected_clicks(np.array([q, q, q, q]), np.array([a, b, a, len(log.docs)]),
                                 np.array([1, 1, 2, 2]))  # fmt: skip
    # α·γ: a at 1: 0.8·1; b at 1: 0.4·1; a at 2: 0.8·0.5; a document the log never
    # showed at 2: the default 0.1·0.5
    assert got.tolist() == pytest.approx([0.8, 0.4, 0.4, 0.05], abs=1e-12)
    with pytest.raises(UsageError, match="examines 2 positions"):
        reward.expected_clicks(np.array([q]), np.array([a]), np.array([3]))


def test_the_direct_method_with_a_pbm_matches_a_hand_computation():
    from rankscope.clicks import ClickModelReward, estimate, from_dict, ranking_policy
    from rankscope.model import Run

    log = _two_sessions()
    reward = ClickModelReward.of(from_dict(_pbm_dict()), log)
    # the evaluated ranking shows b first, then a: expected clicks 0.4·1 + 0.8·0.5 = 0.8
    run = Run("new", log.queries, log.docs,
              np.array([log.queries.code("q")] * 2, dtype=np.int32),
              np.array([log.docs.code("b"), log.docs.code("a")], dtype=np.int32),
              np.array([2.0, 1.0]))  # fmt: skip
    result = estimate(log, ranking_policy(log, run), "dm", reward_model=reward, samples=50)
    assert result.value == pytest.approx(0.8, abs=1e-12)


def test_a_cascade_model_is_refused_as_reward_model():
    from rankscope.clicks import ClickModelReward, from_dict

    data = _pbm_dict()
    data["model"] = "cm"
    del data["examination"]
    with pytest.raises(UsageError, match="position-based click model"):
        ClickModelReward.of(from_dict(data), _two_sessions())


def test_the_command_takes_a_fitted_pbm_as_reward_model(tmp_path, capsys):
    import json

    from rankscope.cli import main

    (tmp_path / "pbm.json").write_text(json.dumps(_pbm_dict()))
    (tmp_path / "log.tsv").write_text(
        "session\tquery\tposition\tdoc\tclick\tpropensity\tprefix_propensity\tslate_propensity\n"
        "1\tq\t1\ta\t1\t1\t1\t1\n1\tq\t2\tb\t0\t1\t1\t1\n"
        "2\tq\t1\ta\t0\t1\t1\t1\n2\tq\t2\tb\t1\t1\t1\t1\n"
    )
    (tmp_path / "new.run").write_text("q Q0 b 1 2 new\nq Q0 a 2 1 new\n")
    code = main(["clicks", "estimate", str(tmp_path / "log.tsv"), "--policy",
                 str(tmp_path / "new.run"), "--estimator", "dm", "--reward-model",
                 str(tmp_path / "pbm.json"), "--format", "json"])  # fmt: skip
    assert code == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["value"] == pytest.approx(0.8, abs=1e-12)
