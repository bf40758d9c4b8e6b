"""Recommender measures on MovieLens 100K (split u1), and two light peers side by side.

    python bench/recsys.py [--k 10] [--repeat 3]

1. Builds, from u1.base, three top-N recommenders for the 459 test users of u1.test —
   most popular, item-kNN (cosine on the binary rating matrix, 50 neighbours per item,
   Deshpande & Karypis 2004) and uniform random (seed 0) — each listing 10 unseen items, and
   two rating predictors for every test pair: the global mean and a damped user/item bias
   model.  The lists are also written to bench/data/recsys/ (TSV) for the CLI.
2. Evaluates every recommender measure (relevant: rating >= 4; popularity and the catalog
   from u1.base; genres from u.item) and prints the figures and the time taken.
3. Where installed (pip install rs-metrics ir-measures), computes the measures they share
   with rankscope on the same lists: rs_metrics (precision, recall, ndcg, mapr, mrr,
   hitrate, coverage, surprisal) and ir_measures (P, R, nDCG, AP, RR, Success at 10, on
   the thresholded test ratings as qrels).

Prints; asserts nothing.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from rankscope import RankscopeWarning, evaluate_recsys_systems

ROOT = Path(__file__).resolve().parent.parent
ML = ROOT.parent / "shared" / "data" / "movielens-100k"
OUT = ROOT / "bench" / "data" / "recsys"
MEASURES = [
    "P", "Recall", "F1", "HitRate", "MRR", "MAP", "nDCG", "UserCoverage", "CatalogCoverage",
    "ILD", "Novelty", "Serendipity", "Gini", "Entropy", "LongTail",
]  # fmt: skip
RATING = ["MAE", "RMSE", "MSE", "SE", "PredictionCoverage"]


def load(name: str) -> np.ndarray:
    return np.loadtxt(ML / name, dtype=np.int64)


def recommenders(base: np.ndarray, test: np.ndarray, k: int) -> dict[str, dict]:
    n_users = int(max(base[:, 0].max(), test[:, 0].max())) + 1
    n_items = int(max(base[:, 1].max(), test[:, 1].max())) + 1
    seen = np.zeros((n_users, n_items), dtype=bool)
    seen[base[:, 0], base[:, 1]] = True
    seen[:, 0] = True  # ids start at 1
    popularity = seen[1:].sum(axis=0)
    matrix = seen.astype(np.float64)
    matrix[:, 0] = 0
    norms = np.sqrt(matrix.sum(axis=0))
    norms[norms == 0] = 1
    similarity = (matrix.T @ matrix) / norms[:, None] / norms[None, :]
    np.fill_diagonal(similarity, 0)
    weakest = np.argsort(-similarity, axis=0)[50:]  # keep each item's 50 nearest
    np.put_along_axis(similarity, weakest, 0.0, axis=0)
    rng = np.random.default_rng(0)
    ids = np.arange(n_items).astype(str)
    by_popularity = np.lexsort((ids, -popularity))
    out: dict[str, dict] = {"popularity": {}, "item-kNN": {}, "random": {}}
    for u in np.unique(test[:, 0]).tolist():
        unseen = ~seen[u]
        out["popularity"][str(u)] = ids[by_popularity[unseen[by_popularity]][:k]].tolist()
        scores = matrix[u] @ similarity
        candidates = np.flatnonzero(unseen)
        best = candidates[np.lexsort((candidates, -scores[candidates]))][:k]
        out["item-kNN"][str(u)] = ids[best].tolist()
        out["random"][str(u)] = ids[rng.choice(candidates, k, replace=False)].tolist()
    return out


def predictors(base: np.ndarray, test: np.ndarray) -> dict[str, dict]:
    ratings = base[:, 2].astype(np.float64)
    mu = ratings.mean()
    n_items = int(max(base[:, 1].max(), test[:, 1].max())) + 1
    n_users = int(max(base[:, 0].max(), test[:, 0].max())) + 1
    item_bias = np.bincount(base[:, 1], ratings - mu, n_items) / (
        np.bincount(base[:, 1], minlength=n_items) + 25
    )
    residual = ratings - mu - item_bias[base[:, 1]]
    user_bias = np.bincount(base[:, 0], residual, n_users) / (
        np.bincount(base[:, 0], minlength=n_users) + 10
    )
    out: dict[str, dict] = {"global mean": {}, "biases": {}}
    for u, i in test[:, :2].tolist():
        out["global mean"].setdefault(str(u), {})[str(i)] = float(mu)
        predicted = float(np.clip(mu + user_bias[u] + item_bias[i], 1, 5))
        out["biases"].setdefault(str(u), {})[str(i)] = predicted
    return out


def write_lists(systems: dict[str, dict]) -> list[Path]:
    OUT.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, lists in systems.items():
        path = OUT / f"{name}.tsv"
        path.write_text(
            "".join(
                f"{u}\t{i}\t{len(items) - r}\n"
                for u, items in lists.items()
                for r, i in enumerate(items)
            )  # fmt: skip
        )
        paths.append(path)
    return paths


def timed(fn, repeat: int):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return result, float(np.median(times))


def print_table(results, labels, title: str) -> None:
    print(title)
    width = max(len(label) for label in labels) + 2
    print(f"{'measure':<{width}}" + "".join(f"{r.name:>14}" for r in results))
    for label in labels:
        print(f"{label:<{width}}" + "".join(f"{r.summary[label]:>14.4f}" for r in results))
    print()


def rs_metrics_figures(test, systems, base, k) -> dict[str, dict[str, float]] | None:
    try:
        import pandas as pd
        import rs_metrics
    except ImportError:
        return None
    relevant: dict[str, list[str]] = {}
    for u, i, r, _ in test.tolist():
        if r >= 4:
            relevant.setdefault(str(u), []).append(str(i))
    log = pd.DataFrame({"user_id": base[:, 0].astype(str), "item_id": base[:, 1].astype(str)})
    catalog = np.unique(np.concatenate([base[:, 1], test[:, 1]])).astype(str)
    out = {}
    for name, lists in systems.items():
        t = time.perf_counter()
        row = {
            "P@10": rs_metrics.precision(relevant, lists, k),
            "Recall@10": rs_metrics.recall(relevant, lists, k),
            "nDCG@10": rs_metrics.ndcg(relevant, lists, k),
            "MAP@10": rs_metrics.mapr(relevant, lists, k),
            "MRR@10": rs_metrics.mrr(relevant, lists, k),
            "HitRate@10": rs_metrics.hitrate(relevant, lists, k),
            "CatalogCoverage@10": rs_metrics.coverage(catalog, lists, k),
            "Novelty@10": rs_metrics.surprisal(log, lists, k),
        }
        row["time"] = time.perf_counter() - t
        out[name] = row
    return out


def ir_measures_figures(test, systems, k) -> dict[str, dict[str, float]] | None:
    try:
        import ir_measures
        from ir_measures import AP, RR, P, R, Success, nDCG
    except ImportError:
        return None
    qrels = [ir_measures.Qrel(str(u), str(i), int(r >= 4)) for u, i, r, _ in test.tolist()]
    wanted = {P @ k: "P@10", R @ k: "Recall@10", nDCG @ k: "nDCG@10", AP @ k: "MAP@10",
              RR @ k: "MRR@10", Success @ k: "HitRate@10"}  # fmt: skip
    has_relevant = {str(u) for u, _, r, _ in test.tolist() if r >= 4}
    out = {}
    for name, lists in systems.items():
        t = time.perf_counter()
        run = [
            ir_measures.ScoredDoc(u, i, float(len(items) - r))
            for u, items in lists.items() for r, i in enumerate(items)
        ]  # fmt: skip
        sums: dict[str, float] = {}
        for metric in ir_measures.iter_calc(list(wanted), qrels, run):
            if metric.query_id in has_relevant:
                label = wanted[metric.measure]
                sums[label] = sums.get(label, 0.0) + metric.value
        row = {label: v / len(has_relevant) for label, v in sums.items()}
        row["time"] = time.perf_counter() - t
        out[name] = row
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not (ML / "u1.base").exists():
        print(f"{ML} not found: skipped")
        return
    warnings.simplefilter("ignore", RankscopeWarning)
    base, test = load("u1.base"), load("u1.test")
    t = time.perf_counter()
    systems = recommenders(base, test, args.k)
    predictions = predictors(base, test)
    print(f"recommenders built in {time.perf_counter() - t:.2f} s "
          f"({len(systems['random'])} test users, {len(test)} test ratings)\n")  # fmt: skip
    paths = write_lists(systems)
    inputs = dict(train=str(ML / "u1.base"), features=str(ML / "u.item"), k=args.k, threshold=4)

    results, seconds = timed(
        lambda: evaluate_recsys_systems(str(ML / "u1.test"), systems, MEASURES, **inputs),
        args.repeat,
    )
    labels = results[0].labels
    print_table(results, labels, f"top-N lists, k = {args.k} (relevant: rating >= 4)")
    excluded = len(results[0].user_ids) - results[0].counts[f"P@{args.k}"]
    print(f"{excluded} of {len(results[0].user_ids)} test users have no relevant test item "
          "(left out of the accuracy means)")  # fmt: skip
    print(f"time, all {len(MEASURES)} measures for the three systems (read test, train, "
          f"u.item; lists from memory): {seconds:.3f} s (median of {args.repeat})")  # fmt: skip
    for name, lists in systems.items():
        _, one = timed(
            lambda lists=lists: evaluate_recsys_systems(
                str(ML / "u1.test"), lists, MEASURES, **inputs
            ),
            args.repeat,
        )
        print(f"  {name}: {one:.3f} s")
    _, from_files = timed(
        lambda: evaluate_recsys_systems(
            str(ML / "u1.test"), [str(p) for p in paths], MEASURES, **inputs
        ),  # fmt: skip
        args.repeat,
    )
    print(f"  the same from the TSV files: {from_files:.3f} s")
    cli = [sys.executable, "-m", "rankscope.cli", "recsys", str(ML / "u1.test"),
           *map(str, paths), "--train", str(ML / "u1.base"), "--features",
           str(ML / "u.item")]  # fmt: skip
    t = time.perf_counter()
    subprocess.run(cli, check=True, capture_output=True)
    print(f"  `rankscope recsys` process, end to end: {time.perf_counter() - t:.3f} s\n")

    rating, seconds = timed(
        lambda: evaluate_recsys_systems(str(ML / "u1.test"), predictions, RATING, threshold=4),
        args.repeat,
    )
    print_table(rating, rating[0].labels, "rating prediction (all 20,000 test ratings)")
    print(f"time: {seconds:.3f} s\n")

    peers = {
        "rs_metrics": rs_metrics_figures(test, systems, base, args.k),
        "ir_measures": ir_measures_figures(test, systems, args.k),
    }
    for peer, figures in peers.items():
        if figures is None:
            print(f"{peer}: not installed")
            continue
        print(f"{peer} side by side (rankscope / {peer}):")
        for name, row in figures.items():
            ours = next(r for r in results if r.name == name).summary
            cells = []
            for label, v in row.items():
                if label == "time":
                    continue
                mark = "" if abs(ours[label] - v) < 1e-9 else "  DIFFERS"
                cells.append(f"{label} {ours[label]:.4f}/{v:.4f}{mark}")
            print(f"  {name:<11} " + ", ".join(cells) + f"; {peer} {row['time']:.3f} s")
        print()


if __name__ == "__main__":
    main()
