"""RPP weights learned from a metric's preferences on the 16 CLEF eHealth 2016 runs (issue 15
§4): held-out agreement and discriminative power against RPP, dcgRPP and invRPP.

    python bench/learned_weights.py [--data ../shared/data/clef_ehealth2016] [--folds 5]
                                    [--seed 0] [--measures ndcg nDCG@10 AP]

For each metric, every pair of runs on every judged query is labelled by the metric's
preference (+1, −1, or 0 for equal values), and `rankscope.preference.learned.assess` learns
RPP's weights over recall-level bins on four fifths of the queries (its L2 penalty chosen by
an inner 5-fold cross-validation), scores them on the held-out fifth, and repeats over the
five folds (queries shuffled with --seed).  Binary RPP (relevant: grade >= 1) and graded RPP
(grades 1 and 2) both.  Prints, per metric: the weights learned on every query (relative to
uniform), held-out agreement (share of labelled pairs whose label RPP's sign matches) and
discriminative power (paired t-test, Bonferroni, p < 0.05, over the 120 pairs of runs) of
the learned weights and of the fixed ones, the metric's own discriminative power, and the
time taken.  Asserts nothing.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

import rankscope
from rankscope.errors import RankscopeWarning
from rankscope.judge import relevance_table
from rankscope.preference.learned import assess, pairs_from_scores
from rankscope.read.sources import resolve_runs
from rankscope.read.trec import run_files
from rankscope.stats.meta import discriminative_power
from rankscope.table.study import measure_data

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "shared" / "data" / "clef_ehealth2016"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--measures", nargs="+", default=["ndcg", "nDCG@10", "AP"])
    args = parser.parse_args()
    warnings.simplefilter("ignore", RankscopeWarning)
    qrels = rankscope.read_qrels(args.data / "task2.qrels")
    runs = resolve_runs(run_files([str(args.data / "runs")]), qrels, "error", names="file")
    for measure in args.measures:
        (data,) = measure_data(qrels, runs, [measure])
        for graded in (False, True):
            start = time.perf_counter()
            table = relevance_table(qrels, runs)
            column = {q: j for j, q in enumerate(data.query_ids)}
            queries = [q for q in table.query_ids if q in column]
            scores = data.per_query()[:, [column[q] for q in queries]]
            pairs = pairs_from_scores(scores, table.run_names, queries)
            result = assess(table, pairs, folds=args.folds, inner_folds=5, seed=args.seed,
                            graded=graded)  # fmt: skip
            took = time.perf_counter() - start
            kind = "graded" if graded else "binary"
            print(f"\n## {data.name} preferences, {kind} RPP: {result.pairs} labelled pairs "
                  f"({(pairs.label == 0).mean():.1%} ties), {result.queries} queries, "
                  f"{result.folds}-fold; {took:.1f} s")  # fmt: skip
            w = result.full.weights
            rel = w / w.mean()
            grades = [f"rel>={g}" for g in result.full.grades]
            print("weights learned on every query (per level, relative to uniform; "
                  f"alpha {result.full.alpha:g}, beta {result.full.beta:.3g}):")  # fmt: skip
            print("  bins   " + "  ".join(f"{b:>6}" for b in result.full.bins))
            for g, name in enumerate(grades):
                print(f"  {name:6} " + "  ".join(f"{v:6.2f}" for v in rel[:, g]))
            print(f"  {'method':16} {'held-out agreement':>19} {'discriminative power':>21}")
            for name in result.agreement:
                print(f"  {name:16} {result.agreement[name]:19.4f} {result.power[name]:21.4f}")
            own = discriminative_power(scores)
            print(f"  {data.name + ' itself':16} {'':>19} {own:21.4f}")
            print("  penalties chosen per fold:", [m.alpha for m in result.models],
                  "| mean |w_fold - w_all|:",
                  f"{np.mean([np.abs(m.weights - w).mean() for m in result.models]):.4f}")


if __name__ == "__main__":
    main()
