"""Reproducibility measures (`rankscope.stats.reproducibility`, `rankscope.reproduce`,
``rankscope reproduce``): hand computations, and repro_eval (Breuer et al.'s own
implementation) as the oracle on real CLEF eHealth 2016 runs."""

from __future__ import annotations

import gzip
import json
import math
import shutil

import numpy as np
import pytest
from scipy import stats as scipy_stats

import rankscope
from rankscope.errors import RankscopeWarning, UsageError
from rankscope.stats.rbo import rbo
from rankscope.stats.reproducibility import (
    delta_relative_improvement,
    effect_ratio,
    ktu,
    reproduction_p_value,
    rmse,
)

from .conftest import DATA, need, run_cli, write_qrels, write_ranked_run

EHEALTH = DATA / "clef_ehealth2016"
ORIGINAL = ("GUIR_EN_Run1", "GUIR_EN_Run2")
REPRODUCED = ("ecnu_EN_Run1", "ecnu_EN_Run3")


# -- hand computations ---------------------------------------------------------------------


def test_effect_ratio_and_delta_ri_by_hand():
    base, adv = [0.2, 0.4], [0.3, 0.7]  # improvements 0.1, 0.3: mean 0.2; RI = 0.2/0.3
    base2, adv2 = [0.2, 0.2], [0.3, 0.3]  # improvement 0.1; RI = 0.1/0.2
    assert effect_ratio(base, adv, base2, adv2) == pytest.approx(0.5)
    assert delta_relative_improvement(base, adv, base2, adv2) == pytest.approx(2 / 3 - 1 / 2)


def test_rmse_by_hand():
    assert rmse([0.1, 0.5, 0.9], [0.1, 0.2, 0.5]) == pytest.approx(math.sqrt((0.09 + 0.16) / 3))
    with pytest.raises(UsageError, match="same topics"):
        rmse([0.1, 0.2], [0.1])


def test_ktu_by_hand():
    """Union ordered by id: a < b < c < d.  Original a b c -> positions 0 1 2; reproduced
    b a d -> 1 0 3.  Pairs (0,1) (1,0) (2,3): of the three pairs of ranks one is
    discordant (ranks 1, 2), two concordant: τ = (2 − 1)/3."""
    assert ktu(["a", "b", "c"], ["b", "a", "d"]) == pytest.approx(1 / 3)
    assert ktu(["a", "b", "c"], ["a", "b", "c"]) == 1.0
    assert math.isnan(ktu(["a"], ["a", "b"]))


def test_t_tests_match_scipy():
    x, y = [0.1, 0.5, 0.3, 0.8], [0.2, 0.4, 0.6, 0.9]
    assert reproduction_p_value(x, y, paired=True) == pytest.approx(
        scipy_stats.ttest_rel(x, y).pvalue, abs=1e-12
    )
    assert reproduction_p_value(x, y[:3], paired=False) == pytest.approx(
        scipy_stats.ttest_ind(x, y[:3]).pvalue, abs=1e-12
    )
    assert reproduction_p_value(x, x, paired=True) == 1.0


def test_reproducing_itself(tmp_path):
    """An experiment reproduced by its own runs: ER = 1, ΔRI = 0, RMSE = 0, p = 1,
    KTU = RBO_ext = 1 on every topic."""
    qrels = write_qrels(tmp_path / "qrels", {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}})
    base = write_ranked_run(tmp_path / "base", "b", {"q1": ["b", "a", "x"], "q2": ["y", "c"]})
    adv = write_ranked_run(tmp_path / "adv", "a", {"q1": ["a", "b", "x"], "q2": ["c", "y"]})
    result = rankscope.reproduce(qrels, (base, adv), (base, adv), ["AP", "RR"])
    for m in result.measures:
        assert (m.effect_ratio, m.delta_ri, m.rmse_baseline, m.rmse_advanced) == (1, 0, 0, 0)
        assert m.p_baseline == m.p_advanced == 1.0
    for similarity in result.rankings.values():
        assert np.all(similarity.ktu == 1.0)
        assert np.allclose(similarity.rbo_ext(), 1.0, atol=1e-12)


def test_identical_original_runs_make_er_undefined_with_a_warning(tmp_path, capsys):
    qrels = write_qrels(tmp_path / "qrels", {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}})
    base = write_ranked_run(tmp_path / "base", "b", {"q1": ["b", "a", "x"], "q2": ["y", "c"]})
    twin = write_ranked_run(tmp_path / "twin", "t", {"q1": ["b", "a", "x"], "q2": ["y", "c"]})
    adv = write_ranked_run(tmp_path / "adv", "a", {"q1": ["a", "b", "x"], "q2": ["c", "y"]})
    # original improvement 0 (AP 0.5 both, RR 0.5 both): ER = 0/0 reproduced by the same
    # pair, and (0.5 · (1 − 0.5) + ...) / 0 = +inf reproduced by (base, adv)
    with pytest.warns(RankscopeWarning, match=r"the effect ratio of AP, RR is undefined: the "
                      r"original advanced run 'twin' improves on the baseline 'base' by 0"):
        same = rankscope.reproduce(qrels, (base, twin), (base, twin), ["AP", "RR"])
    assert all(math.isnan(m.effect_ratio) for m in same.measures)
    with pytest.warns(RankscopeWarning, match="nan when the reproduced improvement is 0 too"):
        better = rankscope.reproduce(qrels, (base, twin), (base, adv), ["AP"])
    assert better.measures[0].effect_ratio == math.inf
    code, _, err = run_cli(
        ["reproduce", qrels, "--original", base, twin, "--reproduced", base, twin, "-m", "AP"],
        capsys,
    )
    assert code == 0
    assert err.startswith("rankscope: warning: the effect ratio of AP is undefined")


def test_rankings_rbo_and_ties(tmp_path):
    """Per-topic RBO over runs: the rankings as rankscope orders them (score, then document
    id descending); with rbo_ties, equal scores form tie groups."""
    qrels = write_qrels(tmp_path / "qrels", {"q1": {"a": 1}, "q2": {"a": 1}})
    (tmp_path / "orig").write_text("q1 Q0 a 1 3 o\nq1 Q0 b 2 2 o\nq1 Q0 c 3 2 o\nq2 Q0 a 1 1 o\n")
    (tmp_path / "rep").write_text("q1 Q0 c 1 3 r\nq1 Q0 a 2 2 r\nq2 Q0 a 1 1 r\n")
    orig, rep = str(tmp_path / "orig"), str(tmp_path / "rep")
    result = rankscope.reproduce(qrels, (orig, orig), (rep, rep), ["AP"], p=0.8)
    expected = rbo(["a", "c", "b"], ["c", "a"], 0.8)  # b, c tied: c first (id descending)
    assert result.rankings["baseline"].rbo[0] == expected
    tied = rankscope.reproduce(qrels, (orig, orig), (rep, rep), ["AP"], p=0.8, rbo_ties="a")
    assert tied.rankings["baseline"].rbo[0] == rbo(["a", {"b", "c"}], ["c", "a"], 0.8, ties="a")


def test_replication_pairs_no_topics(tmp_path):
    qrels = write_qrels(tmp_path / "qrels", {"q1": {"a": 1}, "q2": {"b": 1}})
    other = write_qrels(tmp_path / "other", {"t1": {"a": 1}, "t2": {"b": 1}, "t3": {"c": 1}})
    base = write_ranked_run(tmp_path / "base", "b", {"q1": ["x", "a"], "q2": ["b"]})
    adv = write_ranked_run(tmp_path / "adv", "a", {"q1": ["a"], "q2": ["b"]})
    base2 = write_ranked_run(tmp_path / "b2", "b", {"t1": ["x", "a"], "t2": ["x", "b"], "t3": []})
    adv2 = write_ranked_run(tmp_path / "a2", "a", {"t1": ["a"], "t2": ["b"], "t3": ["c"]})
    result = rankscope.reproduce(qrels, (base, adv), (base2, adv2), ["AP"],
                                 replication_qrels=other)  # fmt: skip
    m = result.measures[0]
    # original AP: base (0.5, 1), adv (1, 1); replicated AP: base (0.5, 0.5, 0), adv (1, 1, 1)
    assert m.effect_ratio == pytest.approx((2 / 3) / 0.25)
    assert m.delta_ri == pytest.approx(0.25 / 0.75 - 2)
    assert m.p_baseline == pytest.approx(
        scipy_stats.ttest_ind([0.5, 1], [0.5, 0.5, 0]).pvalue, abs=1e-12
    )
    assert m.rmse_baseline is None and result.rankings == {}


# -- repro_eval, the reference implementation, on real runs ---------------------------------


@pytest.fixture(scope="module")
def ehealth(tmp_path_factory):
    need(EHEALTH)
    folder = tmp_path_factory.mktemp("ehealth")
    paths = {}
    for name in ORIGINAL + REPRODUCED:
        paths[name] = str(folder / f"{name}.txt")
        with gzip.open(EHEALTH / "runs" / f"{name}.txt.gz") as f, open(paths[name], "wb") as g:
            shutil.copyfileobj(f, g)
    return str(EHEALTH / "task2.qrels"), paths


def test_against_repro_eval_reproduction(ehealth):
    evaluator_module = pytest.importorskip("repro_eval.Evaluator")
    qrels, paths = ehealth
    ev = evaluator_module.RpdEvaluator(
        qrels_orig_path=qrels,
        run_b_orig_path=paths[ORIGINAL[0]], run_a_orig_path=paths[ORIGINAL[1]],
        run_b_rep_path=paths[REPRODUCED[0]], run_a_rep_path=paths[REPRODUCED[1]],
    )  # fmt: skip
    ev.trim()
    ev.evaluate()
    er, dri, errors, p = ev.er(), ev.dri(), ev.rmse(), ev.ttest()
    ktu_per_topic = ev.ktu(per_topic=True)
    result = rankscope.reproduce(
        qrels, [paths[n] for n in ORIGINAL], [paths[n] for n in REPRODUCED],
        ["AP", "nDCG@10", "P@10", "RR"], duplicates="first",
    )  # fmt: skip
    for m in result.measures:
        assert m.effect_ratio == pytest.approx(er[m.measure], rel=1e-9)
        assert m.delta_ri == pytest.approx(dri[m.measure], abs=1e-12)
        assert m.rmse_baseline == pytest.approx(errors["baseline"][m.measure], abs=1e-12)
        assert m.rmse_advanced == pytest.approx(errors["advanced"][m.measure], abs=1e-12)
        assert m.p_baseline == pytest.approx(p["baseline"][m.measure], abs=1e-12)
        assert m.p_advanced == pytest.approx(p["advanced"][m.measure], abs=1e-12)
    for role in ("baseline", "advanced"):
        mine = result.rankings[role]
        theirs = ktu_per_topic[role]
        assert sorted(theirs) == mine.query_ids
        assert np.allclose(mine.ktu, [theirs[q] for q in mine.query_ids], atol=1e-12)


def test_against_repro_eval_replication(ehealth):
    """A replication (repro_eval's RplEvaluator), here on the same judgments: the unpaired
    t-tests, ER and ΔRI."""
    evaluator_module = pytest.importorskip("repro_eval.Evaluator")
    qrels, paths = ehealth
    ev = evaluator_module.RplEvaluator(
        qrels_orig_path=qrels, qrels_rpl_path=qrels,
        run_b_orig_path=paths[ORIGINAL[0]], run_a_orig_path=paths[ORIGINAL[1]],
        run_b_rep_path=paths[REPRODUCED[0]], run_a_rep_path=paths[REPRODUCED[1]],
    )  # fmt: skip
    ev.trim()
    ev.evaluate()
    er, dri, p = ev.er(), ev.dri(), ev.ttest()
    result = rankscope.reproduce(
        qrels, [paths[n] for n in ORIGINAL], [paths[n] for n in REPRODUCED], ["AP", "P@10"],
        replication_qrels=qrels, duplicates="first",
    )  # fmt: skip
    for m in result.measures:
        assert m.effect_ratio == pytest.approx(er[m.measure], rel=1e-9)
        assert m.delta_ri == pytest.approx(dri[m.measure], abs=1e-12)
        assert m.p_baseline == pytest.approx(p["baseline"][m.measure], abs=1e-12)
        assert m.p_advanced == pytest.approx(p["advanced"][m.measure], abs=1e-12)


# -- the command -----------------------------------------------------------------------------


def _experiment(tmp_path):
    qrels = write_qrels(tmp_path / "qrels", {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}})
    base = write_ranked_run(tmp_path / "base", "b", {"q1": ["b", "a", "x"], "q2": ["y", "c"]})
    adv = write_ranked_run(tmp_path / "adv", "a", {"q1": ["a", "b", "x"], "q2": ["c", "y"]})
    return qrels, base, adv


def test_cli_formats(tmp_path, capsys):
    qrels, base, adv = _experiment(tmp_path)
    args = ["reproduce", "-m", "AP", "--original", base, adv, "--reproduced", adv, adv, qrels]
    code, out, _ = run_cli(args, capsys)
    assert code == 0 and "delta RI" in out and "KTU" in out
    code, out, _ = run_cli([*args, "--format", "json"], capsys)
    data = json.loads(out)
    assert data["kind"] == "reproduction"
    assert data["topics"]["advanced"]["rbo_ext"] == pytest.approx([1.0, 1.0], abs=1e-12)
    code, out, _ = run_cli([*args, "--format", "csv"], capsys)
    assert out.splitlines()[0] == "measure,quantity,baseline,advanced"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--p", "1.5"], "--p"),
        (["--depth", "0"], "--depth"),
        (["-m", "RPP"], "RPP"),
        (["-m", "nosuch"], "nosuch"),
    ],
)
def test_cli_bad_requests(tmp_path, capsys, extra, message):
    qrels, base, adv = _experiment(tmp_path)
    args = ["reproduce", *extra, "--original", base, adv, "--reproduced", adv, adv, qrels]
    with pytest.raises(SystemExit) if message in ("--p", "--depth") else _no_raise():
        code, _, err = run_cli(args, capsys)
        assert code == 2 and message in err and "Traceback" not in err
    if message in ("--p", "--depth"):
        assert message in capsys.readouterr().err


def test_cli_missing_runs_and_files(tmp_path, capsys):
    qrels, base, adv = _experiment(tmp_path)
    with pytest.raises(SystemExit):
        run_cli(["reproduce", "--original", base, adv, qrels], capsys)
    code, _, err = run_cli(
        ["reproduce", "--original", base, str(tmp_path / "nope"), "--reproduced", base, adv,
         qrels], capsys,
    )  # fmt: skip
    assert code == 2 and "nope" in err


class _no_raise:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
