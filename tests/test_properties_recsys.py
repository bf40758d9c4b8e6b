"""Properties of the recommender measures (hypothesis): every measure within its bounds, and
values invariant to the order of the input lines and to a consistent relabelling of users
and items.

Inputs are files (test log, training log, recommendation lists of two systems, item
features) written from small random worlds: users with and without test items, relevant
and non-relevant ratings, lists shorter and longer than k, recommended items outside the
test data, items seen in training, items without features.

Why the generated inputs are what they are.  The default tie policy of recommendation lists
is ``input-order`` (equal scores keep the list's order), so with tied scores the order of
the lines *is* the ranking: lists are drawn without ties.  A (user, item) pair listed twice
keeps the last rating of a log (no timestamps here), again an order of lines: pairs are
unique.  The default Serendipity baseline (most popular items) breaks equal popularity by
item id, so items are renamed preserving their order; users, whose ids play no part, are
renamed arbitrarily.

Per-user values are compared exactly; summaries add users (or items) in the order they
were first read, which a shuffle or a renaming changes, so they are compared up to
rounding.
"""

from __future__ import annotations

import math
import random
import tempfile
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankscope
from rankscope import evaluate_recsys_systems
from rankscope.recsys import MEASURES

SETTINGS = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)

K = 3
#: Every measure, some with parameters other than their defaults.
SPECS = [
    "all",
    "MAP(denominator=min)",
    "ILD(distance=jaccard)",
    "Entropy(normalize=true)",
    "LongTail(head=interactions)",
    "MAE(average=users)",
    "RMSE(average=users)",
    "P@1",
    "nDCG@5",
]
ITEMS = [f"i{n}" for n in range(9)]
USERS = [f"u{n}" for n in range(5)]


@st.composite
def worlds(draw):
    """(test, train, systems, features): logs ``{user: {item: rating}}``, systems ``{name:
    {user: {item: score}}}`` with distinct scores per list, features ``{item: [0/1 x 3]}``."""

    def log(min_users: int):
        users = draw(st.lists(st.sampled_from(USERS), min_size=min_users, unique=True))
        return {
            u: {
                i: draw(st.integers(1, 5))
                for i in draw(st.lists(st.sampled_from(ITEMS), min_size=1, max_size=5, unique=True))
            }
            for u in users
        }

    test, train = log(1), log(2)
    systems = {}
    for name in ("alpha", "beta"):
        lists = {}
        # lists sharing no user with the test log are an error (nothing to evaluate): at
        # least one list, for a test user
        users = [draw(st.sampled_from(sorted(test)))]
        users += [u for u in draw(st.lists(st.sampled_from(USERS), unique=True)) if u not in users]
        for u in users:
            items = draw(st.lists(st.sampled_from(ITEMS), min_size=1, max_size=6, unique=True))
            lists[u] = {i: float(len(items) - r) + 0.5 for r, i in enumerate(items)}
        systems[name] = lists
    described = draw(st.lists(st.sampled_from(ITEMS), min_size=1, unique=True))
    features = {i: draw(st.lists(st.integers(0, 1), min_size=3, max_size=3)) for i in described}
    return test, train, systems, features


def log_lines(log) -> list[str]:
    return [f"{u}\t{i}\t{r}\n" for u, items in log.items() for i, r in items.items()]


def list_lines(lists) -> list[str]:
    return [f"{u}\t{i}\t{s!r}\n" for u, items in lists.items() for i, s in items.items()]


def feature_lines(features) -> list[str]:
    return [f"{i}\t" + "\t".join(map(str, v)) + "\n" for i, v in features.items()]


def evaluate_files(world, shuffle: random.Random | None = None, **options):
    """`evaluate_recsys_systems` on the world written to files, lines shuffled by ``shuffle``;
    ``{system: SystemEvaluation}``."""
    test, train, systems, features = world
    with tempfile.TemporaryDirectory() as tmp:

        def write(name, lines):
            if shuffle is not None:
                shuffle.shuffle(lines)
            path = Path(tmp, name)
            path.write_text("".join(lines))
            return path

        paths = {
            "test": write("test.tsv", log_lines(test)),
            "train": write("train.tsv", log_lines(train)),
            "features": write("items.tsv", feature_lines(features)),
        }
        recs = {name: write(f"{name}.tsv", list_lines(lists)) for name, lists in systems.items()}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rankscope.RankscopeWarning)
            results = evaluate_recsys_systems(
                paths["test"], recs, SPECS, k=K, train=paths["train"],
                features=paths["features"], **options,
            )  # fmt: skip
    return {r.name: r for r in results}


def per_user(results) -> dict[tuple[str, str, str], float]:
    out = {}
    for name, r in results.items():
        for label in r.labels:
            for user, value in r.per_user(label).items():
                out[(name, label, user)] = value
    return out


def summaries(results) -> dict[tuple[str, str], float]:
    return {(name, label): v for name, r in results.items() for label, v in r.summary.items()}


def assert_summaries_close(got, expected):
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        if math.isnan(value):
            assert math.isnan(got[key]), key
        else:
            assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-15), key


OPTIONS = st.sampled_from(
    [
        {},
        {"relevance": "graded"},
        {"no_relevant": "zero"},
        {"seen": "drop"},
        {"threshold": None},
        {"threshold": 3.0, "catalog": ITEMS},
    ]
)


# -- (a) line order -------------------------------------------------------------------------


@SETTINGS
@given(world=worlds(), shuffle_seed=st.integers(0, 2**32 - 1), options=OPTIONS)
def test_shuffled_lines_give_identical_values(world, shuffle_seed, options):
    original = evaluate_files(world, **options)
    shuffled = evaluate_files(world, random.Random(shuffle_seed), **options)
    assert per_user(shuffled) == per_user(original)
    assert_summaries_close(summaries(shuffled), summaries(original))


# -- (b) ids relabelled consistently ---------------------------------------------------------


@SETTINGS
@given(world=worlds(), data=st.data(), options=OPTIONS)
def test_relabelled_ids_give_the_same_values(world, data, options):
    test, train, systems, features = world
    new_users = data.draw(st.permutations([f"user{n}" for n in range(len(USERS))]))
    u_map = dict(zip(USERS, new_users, strict=True))
    # order-preserving (the most-popular baseline breaks ties by item id)
    i_map = {i: f"item-{n:02d}" for n, i in enumerate(sorted(ITEMS))}

    def relabel(log):
        return {u_map[u]: {i_map[i]: v for i, v in items.items()} for u, items in log.items()}

    renamed = (
        relabel(test),
        relabel(train),
        {name: relabel(lists) for name, lists in systems.items()},
        {i_map[i]: v for i, v in features.items()},
    )
    renamed_options = dict(options)
    if "catalog" in options:
        renamed_options["catalog"] = [i_map[i] for i in options["catalog"]]
    before = evaluate_files(world, **options)
    after = evaluate_files(renamed, **renamed_options)
    expected = {(n, label, u_map[u]): v for (n, label, u), v in per_user(before).items()}
    assert per_user(after) == expected
    assert_summaries_close(summaries(after), summaries(before))


# -- (c) bounds ------------------------------------------------------------------------------

#: In [0, 1] by definition: shares, precision/recall-type ratios, normalised gains, Gini.
UNIT = {
    "PredictionCoverage", "P", "Recall", "F1", "HitRate", "MRR", "MAP", "nDCG", "UserCoverage",
    "CatalogCoverage", "Serendipity", "Gini", "LongTail",
    # ILD: the distance 1 − cosine of non-negative vectors, or 1 − Jaccard, lies in [0, 1]
    "ILD",
    # two item groups: std/mean = |a − b| / (a + b) and min/max lie in [0, 1]
    "PopRSP", "PopREO", "ExposureRatio",
    # probabilities against 0/1 outcomes (NaN here: the scores are not probabilities)
    "Brier", "ECE", "CoverageAccuracy",
}  # fmt: skip
#: Errors: non-negative.
ERRORS = {"MAE", "RMSE", "MSE", "SE", "LogLoss"}
TOL = 1e-12


@SETTINGS
@given(world=worlds(), options=OPTIONS)
def test_every_measure_within_its_bounds(world, options):
    test, train, systems, features = world
    results = evaluate_files(world, **options)
    checked = set()
    train_users = len(train)
    logged = {i for log in (test, train) for items in log.values() for i in items}
    catalog = len(set(options.get("catalog", [])) | logged)
    for r in results.values():
        for request, values in zip(r.requests, r.values, strict=True):
            name, label = request.measure.name, request.label
            found = [values.summary] if values.per_user is None else [values.summary]
            if values.per_user is not None:
                found += [v for v in values.per_user.tolist() if not math.isnan(v)]
            for v in found:
                if math.isnan(v):
                    continue  # no value (no user with one): nothing to bound
                if name in UNIT:
                    assert -TOL <= v <= 1 + TOL, (label, v)
                elif name in ERRORS:
                    assert v >= 0, (label, v)
                elif name == "ARP":  # popularity: users of the training log
                    assert 0 <= v <= train_users, (label, v)
                elif name == "ACLT":  # long-tail items in a list of at most K
                    assert 0 <= v <= K, (label, v)
                elif name == "Novelty":
                    # −log2 p(i), p(i) = users of i / users, at least 1 user: [0, log2 users]
                    assert -TOL <= v <= math.log2(train_users) + TOL, (label, v)
                elif name == "Entropy":
                    upper = 1.0 if request.kwargs.get("normalize") else math.log2(catalog)
                    assert -TOL <= v <= upper + TOL, (label, v)
                else:
                    raise AssertionError(f"no bound for {name}")
            checked.add(name)
        s = r.summary
        assert s["MAE"] <= s["RMSE"] * (1 + TOL) + TOL or math.isnan(s["MAE"])
        if not math.isnan(s["MSE"]):
            assert s["MSE"] == pytest.approx(s["RMSE"] ** 2, rel=1e-12, abs=1e-15)
        for user, hit in r.per_user(f"HitRate@{K}").items():
            assert hit in (0.0, 1.0)
            p = r.per_user(f"P@{K}")[user]
            assert abs(p * K - round(p * K)) < 1e-9  # relevant items in the top K, over K
            assert (p > 0) == (hit == 1.0)
            assert r.per_user(f"Serendipity@{K}").get(user, 0.0) <= p + TOL
        for v in r.per_user("UserCoverage").values():
            assert v in (0.0, 1.0)
    assert checked == {m.name for m in MEASURES}
