"""Subtopic RPP on real TREC Web track data: Diaz & Ferraro's Tables 2b, 3b and 4b in miniature.

    python bench/web_subtopics.py [--permutations 10000] [--order rank|score]

For every year of ../shared/data/web2009-2014 that has runs (only 2012 does: the track's 8
Indri baselines, query likelihood and relevance model, categories A and B, each whole and
spam-filtered; the NIST-licensed participant runs the paper used are not available), with the
ndeval judgments (``qrels-for-ndeval.txt``), it prints:

* the runs: documents per query, the intent-aware measures' means and stRPP's MC4 position;
* Kendall's τ between the measures' orderings of the runs (Table 2b): stRPP, st-dcgRPP,
  st-invRPP (``stRPP(p=dcg)``, ``stRPP(p=inverse)``), subtopic recall, ERR-IA@20, α-nDCG@20,
  MAP-IA (metrics order runs by their mean, preferences by MC4 aggregation);
* discriminative power, the percentage of the 28 run pairs found different at p < 0.05, under
  the randomized Tukey HSD test (Table 3b) and the paired t-test with Bonferroni correction
  (Table 4b), next to the paper's Web 2012 row (all of that year's runs).

Documents are ranked by the rank column, as ndeval ranks them (``--order score``: by score,
equal scores by document id descending, as trec_eval).  Each year is evaluated on the whole
runs and on the runs cut at depth 20 (``--depths``), the documents ERR-IA@20 and α-nDCG@20
read: the whole runs differ in depth (the spam-filtered ones keep 160-440 documents per
query, the others 1,000) and RPP, a recall-level measure, sees that difference first.
The same tables from the command line (without ``-M 20`` for the whole runs):

    rankscope meta --order rank -M 20 --no-robustness -m stRPP -m 'stRPP(p=dcg)' \\
        -m 'stRPP(p=inverse)' -m strec@20 -m ERR-IA@20 -m alpha-nDCG@20 -m MAP-IA \\
        ../shared/data/web2009-2014/2012/qrels-for-ndeval.txt \\
        ../shared/data/web2009-2014/2012/baseline_runs/

Prints; asserts nothing.  Figures: docs/subtopic-rpp.md.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

import rankscope
from rankscope.read.sources import resolve_runs
from rankscope.table.study import study, top_documents

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "web2009-2014"
MEASURES = [
    "stRPP", "stRPP(p=dcg)", "stRPP(p=inverse)", "strec@20", "ERR-IA@20", "alpha-nDCG@20",
    "MAP-IA",
]  # fmt: skip
SHORT = {
    "stRPP": "ST-RPP", "stRPP(p=dcg)": "st-dcgRPP", "stRPP(p=inverse)": "st-invRPP",
    "strec@20": "ST-R", "ERR-IA@20": "ERR-IA", "alpha-nDCG@20": "a-nDCG", "MAP-IA": "MAP-IA",
}  # fmt: skip
INTENT_AWARE = ["ERR-IA@20", "alpha-nDCG@20", "MAP-IA"]
#: Diaz & Ferraro (SIGIR 2022), Web 2012 row of Tables 3b (randomized Tukey HSD) and 4b
#: (t-test, Bonferroni), in percent of run pairs: measured on every run of the year.
PAPER_2012 = {
    "randomized-tukey": {"stRPP": 44.15, "strec@20": 12.15, "ERR-IA@20": 16.58, "MAP-IA": 25.09},
    "t-bonferroni": {"stRPP": 43.71, "strec@20": 7.98, "ERR-IA@20": 12.06, "MAP-IA": 14.45},
}


def year(folder: Path, permutations: int, order: str, depth: int | None) -> None:
    qrels_path = folder / "qrels-for-ndeval.txt"
    run_paths = sorted((folder / "baseline_runs").glob("*.gz"))
    qrels = rankscope.read_qrels(qrels_path, diversity=True)
    runs = resolve_runs([str(p) for p in run_paths], qrels, order=order, names="file")
    if depth is not None:  # as study(max_docs=depth), which cuts them again, idly
        runs = [top_documents(r, depth) for r in runs]
    names = [r.name for r in runs]
    started = time.perf_counter()
    result = study(
        qrels, runs, MEASURES, permutations=permutations, robustness=False, max_docs=depth
    )
    took = time.perf_counter() - started
    queries = len(set(qrels.queries.strings_of(qrels.query)))
    deep = "whole runs" if depth is None else f"each run cut at depth {depth}"
    print(f"TREC Web {folder.name}: {len(runs)} runs x {queries} queries, {deep}, ranked by "
          f"{order}, {permutations:,} permutations: {took:.1f} s")  # fmt: skip
    table = rankscope.evaluate(qrels, {r.name: r for r in runs}, INTENT_AWARE, output="dict")
    mean: dict[tuple[str, str], list[float]] = {}
    for run, measure, value in zip(table["run"], table["measure"], table["value"], strict=True):
        mean.setdefault((run, measure), []).append(value)
    prefs = rankscope.preferences(qrels, runs, "stRPP")
    order_mc4, _ = prefs.ordering("mc4")
    print(f"\n  {'run':<26}{'docs/q':>7}{'ERR-IA':>8}{'a-nDCG':>8}{'MAP-IA':>8}{'ST-RPP':>8}"
          f"{'MC4':>5}")  # fmt: skip
    for r in runs:
        depth = len(r) / max(len(set(r.queries.strings_of(r.query))), 1)
        win = prefs.win_rate[:, names.index(r.name)].mean()
        values = [float(np.mean(mean[(r.name, m)])) for m in INTENT_AWARE]
        print(f"  {r.name:<26}{depth:>7.0f}" + "".join(f"{v:>8.4f}" for v in values)
              + f"{win:>+8.3f}{order_mc4.index(r.name) + 1:>5}")  # fmt: skip
    labels = [SHORT[m] for m in result.measures]
    print("\n  Kendall's tau between orderings of runs (cf. Table 2b)")
    print("  " + " " * 11 + "".join(f"{label:>11}" for label in labels))
    for label, row in zip(labels, result.tau, strict=True):
        print(f"  {label:<11}" + "".join(f"{x:>11.3f}" for x in row))
    print("\n  Discriminative power, % of run pairs at p < 0.05 (paper: Web 2012, all runs)")
    print(f"  {'':<11}{'rand. Tukey':>12}{'(paper 3b)':>11}{'t+Bonf.':>10}{'(paper 4b)':>11}")
    for m, label in zip(result.measures, labels, strict=True):
        cells = []
        for test in ("randomized-tukey", "t-bonferroni"):
            paper = PAPER_2012[test].get(m)
            cells.append(f"{100 * result.power[m][test]:>10.2f}")
            cells.append(f"{paper:>11.2f}" if paper is not None and folder.name == "2012" else
                         f"{'':>11}")  # fmt: skip
        print(f"  {label:<11}" + cells[0].rjust(12) + cells[1] + cells[2] + cells[3])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--permutations", type=int, default=10_000)
    parser.add_argument("--order", choices=("rank", "score"), default="rank")
    parser.add_argument(
        "--depths", default="all,20",
        help="comma-separated run depths to evaluate at ('all': whole runs; default all,20)",
    )  # fmt: skip
    args = parser.parse_args()
    if not SHARED.exists():
        print(f"{SHARED} not found: skipped")
        return
    for folder in sorted(p for p in SHARED.iterdir() if p.is_dir()):
        if not (folder / "baseline_runs").is_dir():
            print(f"TREC Web {folder.name}: judgments only, no runs: skipped")
            continue
        for depth in args.depths.split(","):
            year(folder, args.permutations, args.order, None if depth == "all" else int(depth))
            print()


if __name__ == "__main__":
    warnings.simplefilter("ignore", rankscope.RankscopeWarning)
    main()
