"""Real recommender runs on MovieLens 100K over the five folds u1-u5, the RPP paper's
recommender rows in miniature, and sampled against full evaluation.

    python bench/movielens.py [--folds 1,2,3,4,5] [--negatives 100] [--k 10] [--seed 0]

Needs the ``bench`` extra (scikit-learn for PureSVD; implicit for ALS, skipped with a line
when it does not import).  Per fold (u{i}.base to train, u{i}.test to test; relevant:
rating >= 4; the 1,682 items of u.item are the catalog):

1. Five recommenders score every item for every test user: ``random`` (uniform scores,
   seeded), ``popularity`` (training users per item), ``item-kNN`` (cosine between the
   items' binary user vectors, each item's 50 nearest kept; Deshpande & Karypis 2004),
   ``PureSVD`` (scikit-learn's TruncatedSVD, 50 factors, of the rating matrix; score =
   r_u Q Qᵀ, Cremonesi, Koren & Turrin 2010) and ``ALS`` (implicit's
   AlternatingLeastSquares, 64 factors, 15 iterations, on the binary matrix; Hu, Koren &
   Volinsky 2008).  Top-k lists without training items (ties by item id) are written to
   bench/data/movielens/u{i}/NAME.tsv.
2. The lists are evaluated with rankscope: P@k, R@k, nDCG@k and AP@k (trec_eval's
   ``map_cut``) per user with a relevant test item, and RPP (Diaz & Ferraro 2022); Kendall's
   τ between the ordering of the systems by each metric and by RPP, and discriminative power
   (share of system pairs significantly different at α = 0.05 over the users: paired t-test
   with Bonferroni correction, and randomized Tukey HSD), as `rankscope meta` computes them.
3. Sampled evaluation (`rankscope.recsys.sampled_evaluate_systems`): each relevant test item
   among 100 negatives drawn uniformly and by popularity (seed = fold); HR@k and nDCG@k by
   the full ranking, the sampled ranking, and Krichene & Rendle's corrected estimators
   (minimal bias, BV γ = 0.1); τ between each ordering and the full-ranking ordering.

Prints tables, then the same over the five folds (mean ± standard deviation of the values;
mean τ and power).  Asserts nothing; seeded throughout.  Runtime on 2 cores: about 3 minutes
for the five folds (see bench/README.md).
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

import rankscope
from rankscope import RankscopeWarning
from rankscope.read.sources import resolve_runs
from rankscope.recsys import ScoreMatrix, sampled_evaluate_systems
from rankscope.stats.meta import discriminative_power, kendall_tau
from rankscope.table.study import measure_data

ROOT = Path(__file__).resolve().parent.parent
ML = ROOT.parent / "shared" / "data" / "movielens-100k"
OUT = ROOT / "bench" / "data" / "movielens"
ITEMS = 1682


def load(name: str) -> np.ndarray:
    return np.loadtxt(ML / name, dtype=np.int64)


def score_matrices(base: np.ndarray, users: np.ndarray, seed: int) -> dict[str, np.ndarray]:
    """Scores (test users × items 1..1682) of every recommender trained on ``base``."""
    n_users = int(max(base[:, 0].max(), users.max())) + 1
    binary = np.zeros((n_users, ITEMS + 1))
    binary[base[:, 0], base[:, 1]] = 1.0
    ratings = np.zeros_like(binary)
    ratings[base[:, 0], base[:, 1]] = base[:, 2]
    binary, ratings = binary[:, 1:], ratings[:, 1:]  # item i in column i - 1
    out: dict[str, np.ndarray] = {}
    out["random"] = np.random.default_rng(seed).random((len(users), ITEMS))
    out["popularity"] = np.broadcast_to(binary.sum(axis=0), (len(users), ITEMS)).copy()
    norms = np.sqrt(binary.sum(axis=0))
    norms[norms == 0] = 1.0
    similarity = (binary.T @ binary) / norms[:, None] / norms[None, :]
    np.fill_diagonal(similarity, 0.0)
    weakest = np.argsort(-similarity, axis=0, kind="stable")[50:]
    np.put_along_axis(similarity, weakest, 0.0, axis=0)
    out["item-kNN"] = binary[users] @ similarity
    from sklearn.decomposition import TruncatedSVD

    svd = TruncatedSVD(n_components=50, random_state=seed).fit(ratings)
    out["PureSVD"] = ratings[users] @ svd.components_.T @ svd.components_
    try:
        from implicit.als import AlternatingLeastSquares
        from scipy.sparse import csr_matrix
    except ImportError as error:
        print(f"  ALS skipped: implicit does not import ({error})")
        return out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # implicit's note about OpenBLAS threads
        model = AlternatingLeastSquares(
            factors=64, iterations=15, regularization=0.05, random_state=seed, num_threads=2
        )
        model.fit(csr_matrix(binary), show_progress=False)
    out["ALS"] = np.asarray(model.user_factors)[users] @ np.asarray(model.item_factors).T
    return out


def top_lists(scores: np.ndarray, users: np.ndarray, base: np.ndarray, k: int) -> dict:
    """{user: {item: score}}: the k best items outside the user's training items."""
    seen = np.zeros((int(users.max()) + 1, ITEMS), dtype=bool)
    rows = base[:, 0] <= users.max()
    seen[base[rows, 0], base[rows, 1] - 1] = True
    lists = {}
    item_ids = np.arange(1, ITEMS + 1)
    for row, user in enumerate(users.tolist()):
        candidates = np.flatnonzero(~seen[user])
        order = candidates[np.lexsort((candidates, -scores[row, candidates]))][:k]
        lists[str(user)] = {str(item_ids[j]): float(scores[row, j]) for j in order}
    return lists


def write_lists(path: Path, lists: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as out:
        for user, items in lists.items():
            for item, score in items.items():
                out.write(f"{user}\t{item}\t{score:.6g}\n")


def fold(i: int, args: argparse.Namespace) -> dict:
    base, test = load(f"u{i}.base"), load(f"u{i}.test")
    users = np.unique(test[:, 0])
    started = time.perf_counter()
    scores = score_matrices(base, users, args.seed + i)
    names = list(scores)
    lists = {name: top_lists(scores[name], users, base, args.k) for name in names}
    for name in names:
        write_lists(OUT / f"u{i}" / f"{name}.tsv", lists[name])
    trained = time.perf_counter() - started
    # judgments: every test rating of the users with a relevant one (rating >= 4)
    relevant_users = {str(u) for u, _, r, _ in test.tolist() if r >= 4}
    qrels_dict: dict[str, dict[str, int]] = {}
    for u, item, rating, _ in test.tolist():
        if str(u) in relevant_users:
            qrels_dict.setdefault(str(u), {})[str(item)] = int(rating >= 4)
    qrels = rankscope.read_qrels(qrels_dict)
    runs = resolve_runs(lists, qrels, names="file", distinct_for="a comparison")
    metrics = [f"P@{args.k}", f"R@{args.k}", f"nDCG@{args.k}", f"AP@{args.k}"]
    with warnings.catch_warnings():  # the lists of the users without a relevant item
        warnings.simplefilter("ignore", RankscopeWarning)
        datas = measure_data(qrels, runs, [*metrics, "RPP"])
    by_rpp = datas[-1].scores()
    rows = {}
    for d in datas:
        rows[d.name] = {
            "values": d.data.mean(axis=1) if not d.preference else d.scores(),
            "tau": kendall_tau(d.scores(), by_rpp),
            "power": discriminative_power(d.data, test="t-bonferroni"),
            "tukey": discriminative_power(
                d.data, test="randomized-tukey", permutations=args.permutations, seed=args.seed
            ),
        }
    evaluated = time.perf_counter() - started - trained
    sampled = {}
    test_path, base_path = ML / f"u{i}.test", ML / f"u{i}.base"
    item_ids = [str(j) for j in range(1, ITEMS + 1)]
    matrices = {
        name: ScoreMatrix([str(u) for u in users], item_ids, scores[name]) for name in names
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankscopeWarning)
        for sampling in ("uniform", "popularity"):
            sampled[sampling] = sampled_evaluate_systems(
                test_path, matrices, train=base_path, negatives=args.negatives,
                sampling=sampling, seed=args.seed + i,
            )  # fmt: skip
    sampled_time = time.perf_counter() - started - trained - evaluated
    print(
        f"\n## fold u{i}: {len(users)} test users, {len(qrels_dict)} with a relevant item; "
        f"train {trained:.1f} s, evaluate {evaluated:.1f} s, sampled {sampled_time:.1f} s"
    )
    return {"names": names, "rows": rows, "sampled": sampled}


#: the measure of the top-k lists a sampled measure is compared with
LIST_MEASURE = {"HR": "R", "nDCG": "nDCG"}
ESTIMATES = [("full", "uniform"), ("sampled", "uniform"), ("minimal-bias", "uniform"),
             ("bv", "uniform"), ("sampled", "popularity")]  # fmt: skip


def sampled_table(result: dict, k: int) -> dict:
    """{(measure, estimator, sampling): per-system means}."""
    table = {}
    for measure in (f"HR@{k}", f"nDCG@{k}"):
        for estimator, sampling in ESTIMATES:
            table[measure, estimator, sampling] = np.array(
                [r.mean(measure, estimator) for r in result["sampled"][sampling]]
            )
    return table


def print_fold(result: dict, k: int) -> None:
    names = result["names"]
    print("| measure | " + " | ".join(names) + " | τ vs RPP | power (t, Bonf.) | power (Tukey) |")
    print("|---" * (len(names) + 4) + "|")
    for label, row in result["rows"].items():
        values = " | ".join(f"{v:.4f}" for v in row["values"])
        print(
            f"| {label} | {values} | {row['tau']:+.2f} | {row['power']:.2f} | {row['tukey']:.2f} |"
        )
    print("\n(RPP: the systems' MC4 positions, 5 = best.)  Sampled against full, per target:")
    table = sampled_table(result, k)
    print("| measure | estimator | " + " | ".join(names) + " | τ vs full | τ vs lists |")
    print("|---" * (len(names) + 4) + "|")
    for (measure, estimator, sampling), values in table.items():
        full = table[measure, "full", "uniform"]
        lists = result["rows"][LIST_MEASURE[measure.split("@")[0]] + "@" + str(k)]["values"]
        label = estimator if estimator == "full" else f"{estimator} ({sampling})"
        shown = " | ".join(f"{v:.4f}" for v in values)
        print(
            f"| {measure} | {label} | {shown} | {kendall_tau(values, full):+.2f} | "
            f"{kendall_tau(values, lists):+.2f} |"
        )


def print_summary(results: list[dict], k: int) -> None:
    names = results[0]["names"]
    print(f"\n## over {len(results)} folds: mean ± sd of the fold values; mean τ and power")
    print("| measure | " + " | ".join(names) + " | τ vs RPP | power (t, Bonf.) | power (Tukey) |")
    print("|---" * (len(names) + 4) + "|")
    for label in results[0]["rows"]:
        values = np.array([r["rows"][label]["values"] for r in results])
        shown = " | ".join(
            f"{m:.4f} ± {s:.4f}" for m, s in zip(values.mean(0), values.std(0), strict=True)
        )
        tau = np.mean([r["rows"][label]["tau"] for r in results])
        power = np.mean([r["rows"][label]["power"] for r in results])
        tukey = np.mean([r["rows"][label]["tukey"] for r in results])
        print(f"| {label} | {shown} | {tau:+.2f} | {power:.2f} | {tukey:.2f} |")
    tables = [sampled_table(r, k) for r in results]
    print("\nSampled against full (τ with the full-ranking ordering of the same measure, per fold,")
    print("and of the five-fold means):")
    header = " | τ vs full per fold | τ vs full of means | τ vs lists of means |"
    print("| measure | estimator | " + " | ".join(names) + header)
    print("|---" * (len(names) + 5) + "|")
    for key in tables[0]:
        measure, estimator, sampling = key
        values = np.array([t[key] for t in tables])
        full = np.array([t[measure, "full", "uniform"] for t in tables])
        label = LIST_MEASURE[measure.split("@")[0]] + "@" + str(k)
        lists = np.array([r["rows"][label]["values"] for r in results])
        taus = [kendall_tau(v, f) for v, f in zip(values, full, strict=True)]
        name = estimator if estimator == "full" else f"{estimator} ({sampling})"
        shown = " | ".join(f"{m:.4f}" for m in values.mean(0))
        per_fold = " ".join(f"{t:+.1f}" for t in taus)
        print(
            f"| {measure} | {name} | {shown} | {per_fold} | "
            f"{kendall_tau(values.mean(0), full.mean(0)):+.2f} | "
            f"{kendall_tau(values.mean(0), lists.mean(0)):+.2f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", default="1,2,3,4,5")
    parser.add_argument("--negatives", type=int, default=100)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--permutations", type=int, default=1000)
    args = parser.parse_args()
    started = time.perf_counter()
    results = []
    for i in [int(f) for f in args.folds.split(",")]:
        results.append(fold(i, args))
        print_fold(results[-1], args.k)
    if len(results) > 1:
        print_summary(results, args.k)
    print(f"\ntotal {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
