"""Seeded procedures: the same seed gives the same result — twice in one process, and in two
fresh processes with different ``PYTHONHASHSEED`` — a different seed a different one, and no
procedure reads or advances the global random state of ``numpy.random`` or ``random``.

Every random procedure of rankscope is listed in `PROCEDURES` (found by searching the source
for ``seed``, ``default_rng``, ``random`` and ``Generator``):

* `rankscope.stats.paired`: the randomization test's Monte Carlo flips, the bootstrap test;
* `rankscope.stats.tests`: ``permutation_test`` (Monte Carlo), ``paired_bootstrap``;
* `rankscope.stats.multiple`: ``randomized_tukey_hsd`` (also with several worker threads),
  ``preference_tukey_pvalues``;
* `rankscope.stats.procedures`: ``pairwise_tests(test="randomization")``,
  ``compare(method="randomized-tukey")``;
* `rankscope.stats.meta`: ``discriminative_power``,
  ``robustness_curve``; `rankscope.report.latex.latex_table` with a random test;
* `rankscope.preference`: ``bradley_terry`` bootstrap intervals, ``team_draft`` with an
  integer seed, the Monte Carlo estimate of ``offline_interleaving_preference``;
* `rankscope.table.study`: ``study`` (random query subsets and judgment subsets) and
  ``drop_judgments``;
* `rankscope.compare` with each of its random tests (permutation, bootstrap, randomized
  Tukey).

`rankscope.recsys` has no random procedure (no sampling, no splits).

Results are compared through ``repr`` of their floats, which round-trips exactly.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent


def _data(n: int = 25, systems: int = 4) -> np.ndarray:
    """A fixed systems × queries score matrix with differences of moderate significance
    (p-values neither 0 nor 1), built without any random generator."""
    q = np.arange(n)
    base = 0.5 + 0.3 * np.sin(q * 1.7)
    rows = [base + 0.02 * s + 0.15 * np.cos(q * (s + 2.3)) for s in range(systems)]
    return np.array(rows)


def _prefs(n: int = 12, systems: int = 4) -> np.ndarray:
    """A fixed antisymmetric preference tensor (queries × systems × systems)."""
    s = np.arange(systems)
    out = np.zeros((n, systems, systems))
    for q in range(n):
        upper = np.tanh(np.sin(q * 0.9 + s[:, None] * 1.3 - s[None, :] * 0.7) + 0.1 * s[:, None])
        upper = np.triu(upper, 1)
        out[q] = upper - upper.T
    return out


def _plain(value):
    """Nested builtins (floats, lists, dicts) of a result, for an exact repr."""
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if hasattr(value, "_asdict"):
        return _plain(value._asdict())
    if hasattr(value, "to_dict"):
        return _plain(value.to_dict())
    return value


def _randomization(seed):
    from rankscope.stats import paired

    d = _data()[1] - _data()[0]
    return paired.randomization_test(d, exact=False, permutations=2000, seed=seed)


def _bootstrap(seed):
    from rankscope.stats import paired

    d = _data()[1] - _data()[0]
    return paired.bootstrap_test(d, samples=2000, seed=seed)


def _permutation_test(seed):
    from rankscope.stats.tests import permutation_test

    x, y = _data()[:2]
    return permutation_test(x, y, exact=False, permutations=2000, seed=seed)


def _paired_bootstrap(seed):
    from rankscope.stats.tests import paired_bootstrap

    x, y = _data()[:2]
    return paired_bootstrap(x, y, samples=2000, seed=seed)


def _tukey(workers: int):
    def run(seed):
        from rankscope.stats.multiple import randomized_tukey_hsd

        result = randomized_tukey_hsd(_data(), permutations=3000, seed=seed, workers=workers)
        return [result.p_value, result.statistic]

    return run


def _pairwise_randomization(seed):
    from rankscope.stats.procedures import pairwise_tests

    result = pairwise_tests(_data(), test="randomization", permutations=2000, seed=seed)
    return [result.p_unadjusted, result.p_value]


def _compare_tukey(seed):
    from rankscope.stats.procedures import compare

    return compare(_data(), "randomized-tukey", permutations=2000, seed=seed).p_value


def _preference_tukey(seed):
    from rankscope.stats.multiple import preference_tukey_pvalues

    return preference_tukey_pvalues(_prefs(), permutations=1000, seed=seed)


def _discriminative_power(seed):
    from rankscope.stats.meta import discriminative_power

    # levels close to the pairs' p-values (about 0.27, 0.62, 0.63, 0.94, 0.94, 0.95), so
    # that the fraction below them depends on the draws
    return [
        discriminative_power(_data(), test="randomized-tukey", permutations=500, seed=seed,
                             alpha=alpha)
        for alpha in (0.625, 0.941, 0.945)
    ]  # fmt: skip


def _robustness_curve(seed):
    from rankscope.stats.meta import robustness_curve

    data = _data(systems=5)
    return robustness_curve(
        lambda idx: data[:, idx].mean(axis=1), data.mean(axis=1), [3, 6, 12], samples=4,
        seed=seed, total=data.shape[1],
    )  # fmt: skip


def _latex(seed):
    from rankscope.report.latex import latex_table

    data = _data(n=30)
    # alpha between the Holm-adjusted p-values of pair (a, c) for seeds 7 (0.204), 8 (0.192)
    # and 1234 (0.180), so that the significance marks depend on the draws
    return latex_table(["a", "b", "c", "d"], {"AP": data}, test="randomization", alpha=0.195,
                       correction="holm", permutations=500, seed=seed)  # fmt: skip


def _bradley_terry(seed):
    from rankscope.preference import bradley_terry

    return bradley_terry(_prefs(), ["a", "b", "c", "d"], samples=40, seed=seed)


def _team_draft(seed):
    from rankscope.interleaving import team_draft

    a, b = list("abcdefghijklmnop"), list("ponmlkjihgfedcba")
    return list(team_draft(a, b, seed).docs)


def _oi_monte_carlo(seed):
    from rankscope.interleaving import offline_interleaving_preference

    a, b = list("abcdefghijkl"), list("dcbaxyzhgfel")
    relevant = {"b", "d", "h", "x", "l"}
    return offline_interleaving_preference(a, b, relevant, exact=False, samples=50, seed=seed)


def _synthetic():
    """Judgments and four runs of close quality on 24 queries (more than the 20 up to which
    the randomization test enumerates every sign flip), built from a fixed generator
    of their own (not the global state), read as rankscope's Qrels and Runs."""
    import rankscope
    from rankscope.read.sources import resolve_runs

    make = np.random.default_rng(2024)
    docs = [f"d{i}" for i in range(30)]
    qrels = {f"q{q}": {d: int(g) for d, g in zip(docs, make.integers(0, 3, 30), strict=True)}
             for q in range(24)}  # fmt: skip
    runs = {}
    for name, noise in (("a", 1.0), ("b", 1.1), ("c", 1.2), ("d", 1.3)):
        runs[name] = {
            q: {d: float(g + noise * make.normal()) for d, g in grades.items()}
            for q, grades in qrels.items()
        }
    judged = rankscope.read_qrels(qrels)
    return judged, resolve_runs(runs, judged)


def _study(seed):
    from rankscope.table.study import study

    qrels, runs = _synthetic()
    result = study(qrels, runs, ["P@10", "RPP"], permutations=200, samples=3,
                   query_sizes=[4, 8], fractions=(0.3,), seed=seed)  # fmt: skip
    return [result.power, result.query_curves, result.judgment_curves]


def _drop_judgments(seed):
    from rankscope.table.study import drop_judgments

    qrels, runs = _synthetic()
    kept = []
    for policy in ("uniform", "pool"):
        reduced = drop_judgments(qrels, runs, 0.3, policy=policy, rng=np.random.default_rng(seed))
        kept.append(sorted(reduced.to_dict().items()))
    return kept


def _api_compare(test: str):
    def run(seed):
        import rankscope

        qrels, runs = _synthetic()
        result = rankscope.compare(qrels, runs, ["AP", "RPP"], test=test, permutations=300,
                                   seed=seed, all_pairs=test == "randomized-tukey")  # fmt: skip
        return [(r.run, r.measure, r.p_unadjusted, r.p_value) for r in result.rows]

    return run


PROCEDURES: dict[str, Callable] = {
    "stats.paired.randomization_test": _randomization,
    "stats.paired.bootstrap_test": _bootstrap,
    "stats.tests.permutation_test": _permutation_test,
    "stats.tests.paired_bootstrap": _paired_bootstrap,
    "stats.multiple.randomized_tukey_hsd": _tukey(1),
    "stats.multiple.randomized_tukey_hsd(workers=2)": _tukey(2),
    "stats.procedures.pairwise_tests(randomization)": _pairwise_randomization,
    "stats.procedures.compare(randomized-tukey)": _compare_tukey,
    "stats.multiple.preference_tukey_pvalues": _preference_tukey,
    "stats.meta.discriminative_power": _discriminative_power,
    "stats.meta.robustness_curve": _robustness_curve,
    "report.latex.latex_table": _latex,
    "preference.bradley_terry": _bradley_terry,
    "interleaving.team_draft": _team_draft,
    "interleaving.offline_interleaving_preference(Monte Carlo)": _oi_monte_carlo,
    "table.study.study": _study,
    "table.study.drop_judgments": _drop_judgments,
    "api.compare(permutation)": _api_compare("permutation"),
    "api.compare(bootstrap)": _api_compare("bootstrap"),
    "api.compare(randomized-tukey)": _api_compare("randomized-tukey"),
}


def results(seed: int, names=None) -> dict[str, str]:
    """``{procedure: repr of its result}`` for ``seed``."""
    import warnings

    import rankscope

    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankscope.RankscopeWarning)
        for name in names or PROCEDURES:
            out[name] = repr(_plain(PROCEDURES[name](seed)))
    return out


@pytest.fixture(scope="module")
def seven() -> dict[str, str]:
    return results(7)


@pytest.mark.parametrize("name", PROCEDURES)
def test_same_seed_same_result_in_one_process(name, seven):
    assert results(7, [name]) == {name: seven[name]}


@pytest.mark.parametrize("name", PROCEDURES)
def test_another_seed_another_result(name, seven):
    """A different seed gives a different result (one of a few, so that a coincidence of two
    discrete outcomes cannot hide that the seed is used)."""
    others = [results(seed, [name])[name] for seed in (8, 1234)]
    assert any(other != seven[name] for other in others), name


def test_workers_do_not_change_the_randomized_tukey_test(seven):
    """The chunks' seeds are spawned from the one seed: threads do not change the draws."""
    one = seven["stats.multiple.randomized_tukey_hsd"]
    assert seven["stats.multiple.randomized_tukey_hsd(workers=2)"] == one


@pytest.mark.parametrize("name", PROCEDURES)
def test_global_random_state_neither_read_nor_advanced(name, seven):
    """The legacy global generators are seeded on purpose: a procedure must ignore them."""
    saved_np, saved_py = np.random.get_state(), random.getstate()  # noqa: NPY002
    try:
        np.random.seed(12345)  # noqa: NPY002
        random.seed(12345)
        np_state, py_state = np.random.get_state(), random.getstate()  # noqa: NPY002
        got = results(7, [name])[name]
        assert got == seven[name]
        assert random.getstate() == py_state
        after = np.random.get_state()  # noqa: NPY002
        assert all(
            np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y
            for x, y in zip(after, np_state, strict=True)
        )
        np.random.seed(999)  # noqa: NPY002
        random.seed(999)
        assert results(7, [name])[name] == seven[name]
    finally:
        np.random.set_state(saved_np)  # noqa: NPY002
        random.setstate(saved_py)


SCRIPT = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("seeds", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
for name, value in module.results(int(sys.argv[2])).items():
    print(name, value)
"""


def test_same_seed_same_result_across_processes(seven):
    """Two fresh interpreters with different hash seeds print what this process computes."""
    children = []
    for hash_seed in ("0", "4242"):  # started together, to keep the test's wall time short
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]
        )
        children.append(
            subprocess.Popen(
                [sys.executable, "-c", SCRIPT, __file__, "7"],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )  # fmt: skip
        )
    outputs = []
    for child in children:
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0, err
        outputs.append(out)
    assert outputs[0] == outputs[1]
    assert outputs[0] == "".join(f"{name} {value}\n" for name, value in seven.items())
