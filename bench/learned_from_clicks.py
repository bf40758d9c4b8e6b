"""RPP's pseudo-population weights learned from preferences simulated from a click model
(issue 15 §4; seed 001 §7): online interleaving stands in for the users.

    python bench/learned_from_clicks.py                      # eHealth 2016, DBN and PBM users
    python bench/learned_from_clicks.py --impressions 50 --pairs 40 --seed 3

For each query of the 16 CLEF eHealth 2016 runs and each of ``--pairs`` pairs of runs
(drawn once, seeded), ``--impressions`` team-draft interleaved lists of the two runs' top 10
are shown to simulated users: clicks drawn from a click model whose parameters come from the
judgments' grades (`rankscope.clicks.model_from_judgments`: attractiveness (2^g − 1)/2^gmax;
PBM examination 1/r, DBN continuation 0.9).  The pair's label on the query is the sign of
the summed team-draft credit, A's clicks minus B's (0: a tie).  Those labels train RPP's
weights (`rankscope.preference.learned.assess`: five outer folds over queries, the penalty
chosen by inner cross-validation), and the held-out agreement of the learned RPP is printed
beside uniform RPP's, dcgRPP's and invRPP's, with each one's discriminative power.  Seeded;
prints, asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "clef_ehealth2016"


def labelled_pairs(qrels, runs, model, *, pairs: int, impressions: int, seed: int):
    """(query, run_a, run_b, label) from simulated team-draft interleaving."""
    from rankscope.interleaving import interleaved_list, team_draft_credit
    from rankscope.judge.join import order_run

    rng = np.random.default_rng(seed)
    judged = set(qrels.queries.strings_of(np.unique(qrels.query)))
    rankings: list[dict[str, list[str]]] = []
    for run in runs:
        order = order_run(run)
        query = run.queries.strings_of(run.query[order])
        doc = run.docs.strings_of(run.doc[order])
        by_query: dict[str, list[str]] = {}
        for q, d in zip(query, doc, strict=True):
            if q in judged and len(by_query.setdefault(q, [])) < 10:
                by_query[q].append(d)
        rankings.append(by_query)
    all_pairs = [(i, j) for i in range(len(runs)) for j in range(i + 1, len(runs))]
    chosen = [all_pairs[k] for k in rng.choice(len(all_pairs), size=pairs, replace=False)]
    out = []
    for q in sorted(judged):
        for i, j in chosen:
            a, b = rankings[i].get(q), rankings[j].get(q)
            if not a or not b:
                continue
            credit = 0
            for _ in range(impressions):
                shown = interleaved_list(a, b, seed=rng, length=10)
                clicks = model.sample(q, list(shown.docs), 1, rng)[0]
                h_a, h_b = team_draft_credit(shown.team, clicks)
                credit += h_a - h_b
            out.append((q, runs[i].name, runs[j].name, int(np.sign(credit))))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--pairs", type=int, default=30, help="pairs of runs (default 30)")
    parser.add_argument("--impressions", type=int, default=20, help="per query and pair")
    parser.add_argument("--models", default="dbn,pbm")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if not args.data.exists():
        print(f"no eHealth 2016 data at {args.data}", file=sys.stderr)
        return 1
    from rankscope.clicks import model_from_judgments
    from rankscope.judge import relevance_table
    from rankscope.preference.learned import assess
    from rankscope.read.sources import read_qrels, resolve_runs
    from rankscope.read.trec import run_files

    warnings.simplefilter("ignore")
    qrels = read_qrels(args.data / "task2.qrels")
    runs = resolve_runs(run_files([args.data / "runs"]), qrels, "first", names="file")
    table = relevance_table(qrels, runs)
    print(f"{len(runs)} runs, {args.pairs} pairs of runs, {args.impressions} impressions per "
          f"query and pair, seed {args.seed}")  # fmt: skip
    for name in args.models.split(","):
        started = time.perf_counter()
        model = model_from_judgments(name, qrels, depth=10)
        rows = labelled_pairs(qrels, runs, model, pairs=args.pairs,
                              impressions=args.impressions, seed=args.seed)  # fmt: skip
        simulated = time.perf_counter() - started
        ties = sum(1 for r in rows if r[3] == 0)
        result = assess(table, rows, folds=5, inner_folds=5, seed=args.seed)
        print(f"\n{name.upper()} users: {len(rows)} labelled pairs ({ties} ties) on "
              f"{result.queries} queries; simulated in {simulated:.1f} s, learned and assessed "
              f"in {time.perf_counter() - started - simulated:.1f} s")  # fmt: skip
        print(f"  {'method':14} {'held-out agreement':>19} {'discriminative power':>21}")
        for method, agreement in result.agreement.items():
            print(f"  {method:14} {agreement:19.3f} {result.power[method]:21.3f}")
        weights = result.full.recall_weights(8)
        print("  learned p(i), i = 1..8 of a query with 8 relevant: "
              + " ".join(f"{w:.3f}" for w in weights))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
