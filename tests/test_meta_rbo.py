"""rankscope meta: RBO between the measures' orderings of runs, and the per-topic Kendall's
tau between measures, against computations made here from the runs' evaluations."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

from rankscope import evaluate
from rankscope.read.sources import read_qrels, resolve_runs
from rankscope.stats.rbo import rbo
from rankscope.table.study import study

scipy_stats = pytest.importorskip("scipy.stats")


def track(tmp_path, runs=5, queries=8, seed=1):
    rng = random.Random(seed)
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(
        f"q{q} 0 d{d} {rng.choice([0, 0, 1, 2])}\n" for q in range(queries) for d in range(12)
    ))  # fmt: skip
    paths = []
    for r in range(runs):
        path = tmp_path / f"run{r}"
        docs = list(range(12))
        lines = []
        for q in range(queries):
            rng.shuffle(docs)
            lines += [f"q{q} Q0 d{d} {i} {20 - i} r{r}\n" for i, d in enumerate(docs[:10])]
        path.write_text("".join(lines))
        paths.append(str(path))
    return str(qrels), paths


def test_rbo_and_per_topic_tau_of_the_study(tmp_path):
    qrels_path, paths = track(tmp_path)
    qrels = read_qrels(qrels_path)
    runs = resolve_runs(paths, qrels)
    measures = ["AP", "P@5", "nDCG@10"]
    result = study(qrels, runs, measures, robustness=False, permutations=50, rbo_p=0.8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = evaluate(qrels_path, paths, measures, output="dict")
    values: dict[str, dict[str, dict[str, float]]] = {}  # measure -> run -> query -> value
    for run, query, measure, value in zip(*table.values(), strict=True):
        values.setdefault(measure, {}).setdefault(run, {})[query] = value
    names = [r.name for r in runs]
    queries = sorted(values["AP"][names[0]])
    mean = {m: np.array([np.mean([values[m][r][q] for q in queries]) for r in names])
            for m in measures}  # fmt: skip

    def ordering(scores):  # best first, equal scores one tied group
        return [[i for i in range(len(scores)) if scores[i] == v]
                for v in sorted(set(scores.tolist()), reverse=True)]  # fmt: skip

    for i, a in enumerate(measures):
        for j, b in enumerate(measures):
            expected = rbo(ordering(mean[a]), ordering(mean[b]), 0.8, ties="b").ext
            assert result.rbo[i, j] == pytest.approx(expected, abs=1e-12)
            taus = []
            for q in queries:
                x = [values[a][r][q] for r in names]
                y = [values[b][r][q] for r in names]
                tau = scipy_stats.kendalltau(x, y).statistic  # tau-b, as rankscope's
                if not np.isnan(tau):
                    taus.append(tau)
            assert result.topic_tau[i, j] == pytest.approx(np.mean(taus), abs=1e-12)
    assert np.allclose(np.diag(result.rbo), 1.0)


def test_the_command_prints_both_tables(tmp_path, capsys):
    from rankscope.cli import main

    qrels_path, paths = track(tmp_path)
    assert main(["meta", "--no-robustness", "--permutations", "20", "--rbo-p", "0.7", "-m", "AP",
                 "-m", "P@5", qrels_path, *paths]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "RBO (p = 0.7, extrapolated) between orderings of runs" in out
    assert "Per-topic Kendall's tau between measures (mean over topics)" in out
    assert main(["meta", "--rbo-p", "1.5", "-m", "AP", qrels_path, *paths]) == 2
    assert "--p must lie strictly between 0 and 1" in capsys.readouterr().err
