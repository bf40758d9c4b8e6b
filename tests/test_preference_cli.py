"""Preferences through the measure registry (``rankscope eval``) and ``rankscope prefer``."""

from __future__ import annotations

import json

import pytest

import rankscope
from tests.conftest import run_cli

QRELS = {"q1": {"a": 1, "b": 1, "c": 0}, "q2": {"a": 2}}
# x finds both relevant documents of q1 first; y finds q2's first.
RUNS = {
    "x": {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"c": 2.0, "a": 1.0}},
    "y": {"q1": {"c": 3.0, "a": 2.0, "b": 1.0}, "q2": {"a": 2.0, "c": 1.0}},
    "z": {"q1": {"c": 3.0, "d": 2.0}, "q2": {"d": 1.0}},
}


def test_preference_over_the_first_run_in_evaluate():
    table = rankscope.evaluate(QRELS, RUNS, ["RPP"], output="dict")
    got = {(r, q): v for r, q, v in zip(table["run"], table["query"], table["value"], strict=True)}
    # q1, levels i = 1, 2 (p = 1/2 each): x: f = (1, 2); y: (2, 3); z: none retrieved.
    #   RPP(x, y) = 1/2 + 1/2 = 1; RPP(x, z) = 1; RPP(y, z) = 1.  Over x: x 0, y -1, z -1.
    # q2, one level: x: f = 2, y: f = 1, z: none.  RPP(y, x) = 1, RPP(x, z) = 1, RPP(y, z) = 1.
    #   Over x: x 0, y 1, z -1.
    assert set(table["measure"]) == {"RPP vs x"}  # the reference, in the label
    assert got[("x", "q1")] == 0 and got[("y", "q1")] == -1 and got[("z", "q1")] == -1
    assert got[("x", "q2")] == 0 and got[("y", "q2")] == 1 and got[("z", "q2")] == -1
    summary = rankscope.evaluate(QRELS, RUNS, ["RPP", "AP"], per_query=False, output="dict")
    keys = zip(summary["run"], summary["measure"], strict=True)
    means = dict(zip(keys, summary["value"], strict=True))
    assert means[("x", "RPP vs x")] == 0 and means[("y", "RPP vs x")] == 0
    assert means[("z", "RPP vs x")] == -1
    prefs = rankscope.preferences(QRELS, RUNS, "RPP").prefs
    assert [means[(run, "RPP vs x")] for run in RUNS] == prefs[:, :, 0].mean(axis=0).tolist()
    over_y = rankscope.evaluate(QRELS, RUNS, ["RPP"], per_query=False, baseline="y", output="dict")
    assert dict(zip(over_y["run"], over_y["value"], strict=True)) == {"x": 0, "y": 0, "z": -1}
    assert set(over_y["measure"]) == {"RPP vs y"}


def test_preference_needs_several_runs():
    with pytest.raises(ValueError, match="at least two runs"):
        rankscope.evaluate(QRELS, {"x": RUNS["x"]}, ["RPP"])


@pytest.fixture
def files(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items())
    )
    paths = []
    for name, run in RUNS.items():
        p = tmp_path / f"{name}.run"
        lines = []
        for q, docs in run.items():
            for rank, (d, s) in enumerate(sorted(docs.items(), key=lambda x: -x[1]), start=1):
                lines.append(f"{q} Q0 {d} {rank} {s} {name}\n")
        p.write_text("".join(lines))
        paths.append(str(p))
    return str(qrels), paths


def test_eval_cli_mixes_metrics_and_preferences(files, capsys):
    qrels, runs = files
    code, out, err = run_cli(["eval", "--wide", "-m", "map", "-m", "RPP", qrels, *runs], capsys)
    assert code == 0, err
    assert out.splitlines()[0].split() == ["run", "map", "RPP", "vs", "x"]
    rows = [line.split() for line in out.splitlines()[2:]]
    assert [r[0] for r in rows] == ["x", "y", "z"]
    assert [r[2] for r in rows] == ["0.0000", "0.0000", "-1.0000"]  # mean preference over x


def test_eval_wide_rpp_is_the_mean_preference_over_the_reference(files, capsys):
    """RPP in a per-run table is a value of the run and the reference only: B's is its mean
    preference over A, whether or not a third run is given; --baseline names another
    reference, printed in the header."""
    qrels, (x, y, z) = files
    code, out, err = run_cli(["eval", "--format", "csv", "--wide", "-m", "RPP", qrels, x, y],
                             capsys)  # fmt: skip
    assert code == 0, err
    two = dict(line.split(",") for line in out.splitlines())
    assert two["run"] == "RPP vs x"
    expected = rankscope.preferences(QRELS, {"x": RUNS["x"], "y": RUNS["y"]}, "RPP").prefs
    assert float(two["y"]) == float(expected[:, 1, 0].mean())
    code, out, err = run_cli(
        ["eval", "--format", "csv", "--wide", "-m", "RPP", qrels, x, y, z], capsys
    )
    assert code == 0, err
    three = dict(line.split(",") for line in out.splitlines())
    assert three["y"] == two["y"] and three["x"] == two["x"] == "0.0"
    code, out, err = run_cli(
        ["eval", "--format", "csv", "--wide", "--baseline", "z", "-m", "RPP", qrels, x, y, z],
        capsys,
    )
    assert code == 0, err
    over_z = dict(line.split(",") for line in out.splitlines())
    assert over_z["run"] == "RPP vs z" and over_z["z"] == "0.0" and over_z["x"] == "1.0"
    code, _, err = run_cli(["eval", "--baseline", "w", "-m", "RPP", qrels, x, y], capsys)
    assert code == 2 and "--baseline w: not one of the runs (x, y)" in err


def test_prefer_cli_orders_runs(files, capsys):
    qrels, runs = files
    code, out, err = run_cli(["prefer", "--format", "json", "-m", "RPP", qrels, *runs], capsys)
    assert code == 0, err
    (entry,) = json.loads(out)
    order = [item["run"] for item in entry["ordering"]]
    # x and y each win one query and beat z on both: z is last; x, y tie in the Markov chain
    # and the tie goes to the name later in the alphabet
    assert order[-1] == "z" and order == ["y", "x", "z"]
    assert entry["mean_preference"]["x"]["z"] == 1.0
    code, out, err = run_cli(["prefer", "-m", "nope", qrels, *runs], capsys)
    assert code == 2 and "unknown preference method" in err


def test_offline_interleaving_through_preferences():
    import math

    qrels = {"q": {"a": 1, "b": 0}}
    runs = {"x": {"q": {"a": 2.0, "b": 1.0}}, "y": {"q": {"b": 2.0, "a": 1.0}}}
    # team draft, depth k uniform on {1, 2}: x picks first -> [a, b]: x wins at k = 1, 2;
    # y picks first -> [b, a]: tie at k = 1, x wins at k = 2.  (1 + 1/2) / 2 = 3/4
    assert rankscope.preferences(qrels, runs, "OI").prefs[0, 0, 1] == pytest.approx(0.75)
    # balanced, p(k) ∝ 1/log2(k + 1): [a, b] -> x wins at every k; [b, a] -> x wins at k = 2
    p2 = (1 / math.log2(3)) / (1 + 1 / math.log2(3))
    got = rankscope.preferences(qrels, runs, "OI(interleaving=balanced,browsing=dcg)")
    assert got.prefs[0, 0, 1] == pytest.approx((1 + p2) / 2)
    assert got.prefs[0, 1, 0] == pytest.approx(-(1 + p2) / 2)
    with pytest.raises(ValueError, match="takes no parameter"):
        rankscope.preferences(qrels, runs, "RPP(browsing=dcg)")
