"""Rank fusion on the 16 CLEF eHealth 2016 runs: fuse the top three runs (by MAP) and compare
each fusion against the best single run with `rankscope.compare`.

    python bench/fusion.py [--data ../shared/data/clef_ehealth2016] [--top 3] [--teams]

The runs are ranked by their mean AP (trec_eval's MAP) over the 50 judged queries; the top
``--top`` (``--teams``: the best run of each of the top teams instead, so that the fused
runs come from different systems) are fused by reciprocal rank fusion (k = 60), CombSUM and
CombMNZ (min-max), Borda and Condorcet, and by a weighted sum whose weights are tuned on
nDCG@10 by two-fold cross-validation (each half of the queries tuned on the other half,
seeded).  Each fused run is then compared with the best single run: paired t-test, Holm's
correction over the fusions, every judged query counted.  Prints the tables and the time
each fusion took; asserts nothing.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import rankscope
from rankscope.model import Run

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "shared" / "data" / "clef_ehealth2016"
MEASURES = ["AP", "nDCG@10", "P@10", "RR", "R@100"]


def ranked_by_map(qrels: Path, runs: list[Path]) -> list[tuple[str, float, Path]]:
    table = rankscope.evaluate(qrels, runs, ["AP"], per_query=False, output="dict", names="file")
    by_name = {rankscope.read.runs.file_stem(str(p)): p for p in runs}
    rows = sorted(zip(table["run"], table["value"], strict=True), key=lambda r: -r[1])
    return [(name, value, by_name[name]) for name, value in rows]


def cross_validated(runs: list[Path], qrels: Path, seed: int) -> tuple[Run, list[dict]]:
    """A weighted sum, each half of the queries fused with weights tuned on the other."""
    first = rankscope.fuse(runs, "wsum", optimize="nDCG@10", qrels=qrels, seed=seed,
                           names="file", tag="wsum-cv")  # fmt: skip
    second = rankscope.fuse(runs, "wsum", optimize="nDCG@10", qrels=qrels, names="file",
                            train=first.tuning.test_queries, tag="wsum-cv")  # fmt: skip
    both = rankscope.read_run({**first.run.to_dict(), **second.run.to_dict()}, name="wsum-cv")
    return both, [
        {"weights": f.weights, "train": f.tuning.score, "equal": f.tuning.equal_weights_score}
        for f in (first, second)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--top", type=int, default=3)
    parser.add_argument("--teams", action="store_true", help="the best run of each top team")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    qrels = args.data / "task2.qrels"
    ranking = ranked_by_map(qrels, sorted((args.data / "runs").glob("*.txt.gz")))
    if args.teams:
        seen: set[str] = set()
        ranking = [r for r in ranking if not (r[0].split("_")[0] in seen
                                              or seen.add(r[0].split("_")[0]))]  # fmt: skip
    chosen = ranking[: args.top]
    print("fused:", ", ".join(f"{name} (MAP {value:.4f})" for name, value, _ in chosen))
    paths = [p for _, _, p in chosen]
    fused: list[Run] = []
    for method, norm in [("rrf", None), ("sum", "min-max"), ("mnz", "min-max"),
                         ("borda", None), ("condorcet", None)]:  # fmt: skip
        start = time.perf_counter()
        result = rankscope.fuse(paths, method, norm=norm, names="file", tag=method)
        print(f"  {method:<10} {time.perf_counter() - start:6.2f} s")
        fused.append(result.run)
    start = time.perf_counter()
    cv, folds = cross_validated(paths, qrels, args.seed)
    print(f"  {'wsum-cv':<10} {time.perf_counter() - start:6.2f} s (two tunings)")
    for i, fold in enumerate(folds, 1):
        weights = ", ".join(f"{n} {w:.2f}" for n, w in fold["weights"].items())
        print(f"    fold {i}: {weights}; training nDCG@10 {fold['train']:.4f} "
              f"(equal weights {fold['equal']:.4f})")  # fmt: skip
    fused.append(cv)
    result = rankscope.compare(qrels, [paths[0], *fused], MEASURES, names="file")
    print()
    print(result.to_text())


if __name__ == "__main__":
    main()
