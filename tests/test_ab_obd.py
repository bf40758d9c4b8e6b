"""``rankscope ab`` on a real two-arm experiment: the Open Bandit Dataset's sample, where the
uniformly random policy and Bernoulli Thompson Sampling served traffic side by side
(`../shared/data/open_bandit_dataset`).  The sample has no user id: each impression is a
unit, and the output says so.  The numbers are checked against statsmodels and scipy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "open_bandit_dataset"
pytestmark = pytest.mark.skipif(
    not (DATA / "random" / "men" / "men.csv.gz").exists(),
    reason="the Open Bandit Dataset sample (../shared/data/open_bandit_dataset) is absent",
)


def sources(campaign: str) -> list[tuple[str, str]]:
    return [(policy, str(DATA / policy / campaign / f"{campaign}.csv.gz"))
            for policy in ("random", "bts")]  # fmt: skip


@pytest.mark.parametrize("campaign", ["men", "women"])
def test_bts_against_random_agrees_with_statsmodels(campaign):
    pd = pytest.importorskip("pandas")
    proportion = pytest.importorskip("statsmodels.stats.proportion")
    from rankscope.api.experiments import ROWS_ARE_UNITS, analyse_experiment

    result = analyse_experiment(sources(campaign), metrics=["click"])
    clicks = [pd.read_csv(path, usecols=["click"])["click"].to_numpy() for _, path in
              sources(campaign)]  # fmt: skip
    assert result.variants == ("random", "bts") and result.control == "random"
    assert ROWS_ARE_UNITS in result.notes
    (effect,) = result.effects
    assert effect.kind == "proportion" and effect.test == "z"
    assert (effect.control_units, effect.variant_units) == (len(clicks[0]), len(clicks[1]))
    count = np.array([clicks[1].sum(), clicks[0].sum()])
    nobs = np.array([len(clicks[1]), len(clicks[0])])
    z, p = proportion.proportions_ztest(count, nobs)
    assert effect.statistic == pytest.approx(z, rel=1e-9)
    assert effect.p_value == pytest.approx(p, rel=1e-9)
    assert effect.difference == pytest.approx(count[0] / nobs[0] - count[1] / nobs[1], abs=1e-15)
    low, high = proportion.confint_proportions_2indep(
        count[0], nobs[0], count[1], nobs[1], method="wald", compare="diff")
    assert (effect.low, effect.high) == pytest.approx((low, high), rel=1e-9)
    # the split observed is the one planned (10,000 impressions per policy): no mismatch
    assert not result.srm.mismatch and result.srm.p_value == pytest.approx(1.0)


def test_the_command_prints_the_analysis_and_the_unit_note(tmp_path):
    pytest.importorskip("pandas")
    html = tmp_path / "obd.html"
    done = subprocess.run(
        [sys.executable, "-m", "rankscope", "ab", "--metric", "click", "--html", str(html),
         *(f"{name}={path}" for name, path in sources("men"))],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "bts" in done.stdout and "random" in done.stdout and "each row" in done.stdout
    assert html.stat().st_size > 0
