"""ndeval 4.5 conformance: identical CSV for every file in ../shared/conformance/ndeval/
(8 real TREC Web 2012 baseline runs x default, -traditional and -c -traditional), and the
same values through `rankscope eval` / the API."""

from __future__ import annotations

import csv
import io

import pytest

from tests.conftest import CONFORMANCE, DATA, need, run_cli

NDEVAL = CONFORMANCE / "ndeval"
WEB = DATA / "web2009-2014" / "2012"
QRELS = WEB / "qrels-for-ndeval.txt"
RUNS = [
    f"{m}-results-{c}{f}" for m in ("ql", "rm") for c in ("cata", "catb") for f in ("", "-filtered")
]
MODES = {"default": [], "traditional": ["-traditional"], "c-traditional": ["-c", "-traditional"]}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("run", RUNS)
def test_ndeval_output_identical(run, mode, capsys):
    need(QRELS)
    expected = need(NDEVAL / f"{run}.{mode}.csv").read_text()
    args = ["ndeval", *MODES[mode], str(QRELS), str(WEB / "baseline_runs" / f"{run}.txt.gz")]
    code, out, err = run_cli(args, capsys)
    assert code == 0, err
    assert out == expected


def test_eval_reaches_the_same_values_by_name():
    """The registry measures (rankscope eval / the API) give ndeval's per-topic values."""
    import rankscope

    need(QRELS)
    text = need(NDEVAL / f"{RUNS[0]}.default.csv").read_text()
    expected = list(csv.DictReader(io.StringIO(text)))
    names = ["alpha-nDCG@20", "ERR-IA@10", "nERR-IA@5", "NRBP", "nNRBP", "MAP-IA", "P-IA@20",
             "strec@10", "alpha-DCG@5"]  # fmt: skip
    table = rankscope.evaluate(
        str(QRELS), {"run": str(WEB / "baseline_runs" / f"{RUNS[0]}.txt.gz")}, names,
        order="rank", output="dict",
    )  # fmt: skip
    got = {
        (q, m): v for q, m, v in zip(table["query"], table["measure"], table["value"], strict=True)
    }
    assert len(got) == 50 * len(names)
    for row in expected:
        if row["topic"] == "amean":
            continue
        for name in names:
            assert f"{got[(row['topic'], name)]:.6f}" == row[name], (row["topic"], name)


def test_eval_cli_diversity_flag(capsys):
    need(QRELS)
    run = str(WEB / "baseline_runs" / f"{RUNS[1]}.txt.gz")
    args = ["eval", "-m", "alpha_nDCG.20", "-m", "P_IA.5", str(QRELS), run]
    code, out, err = run_cli(args, capsys)
    assert code == 0, err
    lines = {}
    for line in out.strip().split("\n"):
        label, _, value = line.split("\t")
        lines[label.strip()] = value
    amean = next(
        r for r in csv.DictReader(io.StringIO((NDEVAL / f"{RUNS[1]}.traditional.csv").read_text()))
        if r["topic"] == "amean"
    )  # fmt: skip
    assert lines["alpha_nDCG_20"] == f"{float(amean['alpha-nDCG@20']):.4f}"
    assert lines["P_IA_5"] == f"{float(amean['P-IA@5']):.4f}"
