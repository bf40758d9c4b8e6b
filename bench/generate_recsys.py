"""Seeded generator of a recommender log at scale, written as Parquet partitioned by user.

    python bench/generate_recsys.py                    # 10,000 users, 1M interactions (quick)
    python bench/generate_recsys.py --users 1000000 --items 100000 --interactions 100000000 \\
        --out bench/data/recsys-100m                   # the issue's 100M-interaction log

Writes, under ``--out`` (default ``bench/data/recsys-log``):

* ``interactions/part-00000.parquet`` ...: the test log, columns ``user`` (int64), ``item``
  (int64), ``rating`` (int8, 1-5) and ``timestamp`` (int64, Unix seconds); each (user,
  item) pair once;
* ``recommendations/part-00000.parquet`` ...: ``--k`` items per user, columns ``user``,
  ``item``, ``rank`` (int16, 1 first) and ``score`` (float64, descending with the rank);
* ``dataset.json``: the options, and for each partition its first and last user and its
  row counts.

Partition ``n`` of both datasets holds the same contiguous block of users (a partition is
never split across files), sorted by user then item (recommendations: by user then rank),
in row groups of at most ``--row-group`` rows: a Dask worker can read and evaluate one
partition of each on its own.  Only one partition is in memory at a time, so memory stays
bounded whatever the size.

The shape: a user's number of interactions is 1 plus a log-normal share (sigma 1) of the
rest, at most half the catalogue, and the total is exact; items are drawn by a Zipf-like popularity
(weight ``1 / (rank + 10) ** 0.9`` over a seeded permutation of the item ids) and redrawn
while a user repeats one; ratings follow MovieLens proportions (1-5: .06 .11 .27 .34 .22).
Each recommended item is, with probability ``--hit-rate``, one of the user's own test items,
else a popular item, so the top-N measures are neither 0 nor 1.  Everything is numpy-
vectorised; the same options and seed give the same values (partition ``n`` uses its own
generator seeded by ``(seed, n)``) and, with the same pyarrow, byte-identical files.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

SEED = 20261201
RATING_PROBABILITIES = (0.06, 0.11, 0.27, 0.34, 0.22)  # ratings 1-5, MovieLens 100K-like
POPULARITY_EXPONENT = 0.9
POPULARITY_OFFSET = 10
ACTIVITY_SIGMA = 1.0  # log-normal spread of interactions per user
TIME_RANGE = (1_420_070_400, 1_735_689_600)  # 2015-01-01 .. 2025-01-01, Unix seconds
POPULAR_ROUNDS = 8  # redraws by popularity before falling back to uniform draws
DATA = Path(__file__).resolve().parent / "data"


class Popularity:
    """Draws of item ids with Zipf-like weights over a seeded permutation of the ids."""

    def __init__(self, rng: np.random.Generator, items: int) -> None:
        weights = 1.0 / (np.arange(items) + POPULARITY_OFFSET) ** POPULARITY_EXPONENT
        self.cumulative = np.cumsum(weights)
        self.item_of_rank = rng.permutation(items)
        self.items = items

    def draw(self, rng: np.random.Generator, n: int, uniform: bool = False) -> np.ndarray:
        if uniform:
            return rng.integers(0, self.items, n)
        ranks = np.searchsorted(self.cumulative, rng.random(n) * self.cumulative[-1], "right")
        return self.item_of_rank[np.minimum(ranks, self.items - 1)]


def interactions_per_user(
    rng: np.random.Generator, users: int, items: int, total: int
) -> np.ndarray:
    """Log-normal activity summing to ``total`` exactly: at least 1 and at most half the
    catalogue each."""
    cap = max(items // 2, 1)
    if not users <= total <= cap * users:
        raise SystemExit(f"--interactions must be between {users:,} and {cap * users:,}")
    weights = rng.lognormal(0.0, ACTIVITY_SIGMA, users)
    counts = np.ones(users, dtype=np.int64)  # every user has a test interaction
    while (missing := total - int(counts.sum())) > 0:
        room = counts < cap
        share = np.where(room, weights, 0.0)
        counts += rng.multinomial(missing, share / share.sum())
        np.minimum(counts, cap, out=counts)
    return counts


def contains(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Whether each of ``keys`` is in ``sorted_keys``."""
    if sorted_keys.size == 0:
        return np.zeros(keys.size, dtype=bool)
    position = np.minimum(np.searchsorted(sorted_keys, keys), sorted_keys.size - 1)
    return sorted_keys[position] == keys


def distinct_items(
    rng: np.random.Generator, popularity: Popularity, user: np.ndarray, item: np.ndarray
) -> np.ndarray:
    """Keys ``user * items + item``, sorted, with every pair that repeats within a user redrawn
    (by popularity, then uniformly) until none does; ``user`` must be sorted."""
    n_items = popularity.items
    key = np.sort(user * n_items + item)
    repeated = np.zeros(key.size, dtype=bool)
    repeated[1:] = key[1:] == key[:-1]
    kept, owners = key[~repeated], key[repeated] // n_items
    accepted: list[np.ndarray] = []
    rounds = 0
    while owners.size:
        fresh = owners * n_items + popularity.draw(rng, owners.size, rounds >= POPULAR_ROUNDS)
        taken = contains(kept, fresh)
        if accepted:
            taken |= np.isin(fresh, np.concatenate(accepted))
        _, first = np.unique(fresh, return_index=True)
        unique_here = np.zeros(fresh.size, dtype=bool)
        unique_here[first] = True
        good = ~taken & unique_here
        accepted.append(fresh[good])
        owners = owners[~good]
        rounds += 1
    return np.sort(np.concatenate([kept, *accepted]))


def write_parquet(path: Path, columns: dict[str, np.ndarray], row_group: int) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table(columns)
    pq.write_table(table, path, row_group_size=row_group, compression="snappy")


def partition(
    seed: int,
    number: int,
    first_user: int,
    counts: np.ndarray,
    popularity: Popularity,
    k: int,
    hit_rate: float,
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The interactions and recommendations of users ``first_user`` .. + len(counts) - 1."""
    rng = np.random.default_rng([seed, number])
    n_items = popularity.items
    users = np.arange(first_user, first_user + counts.size, dtype=np.int64)
    user = np.repeat(users, counts)
    key = distinct_items(rng, popularity, user, popularity.draw(rng, user.size))
    user, item = key // n_items, key % n_items
    rating = (rng.choice(len(RATING_PROBABILITIES), user.size, p=RATING_PROBABILITIES) + 1).astype(
        np.int8
    )
    timestamp = rng.integers(*TIME_RANGE, user.size)
    interactions = {"user": user, "item": item, "rating": rating, "timestamp": timestamp}

    # Recommendations: each slot a test item of the user's (a hit) or a popular item.
    rec_user = np.repeat(users, k)
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    own = np.repeat(counts, k)
    hit = (rng.random(rec_user.size) < hit_rate) & (own > 0)
    pick = np.repeat(start, k) + (rng.random(rec_user.size) * np.maximum(own, 1)).astype(np.int64)
    rec_item = popularity.draw(rng, rec_user.size)
    rec_item[hit] = item[pick[hit]]
    rec_key = distinct_items(rng, popularity, rec_user, rec_item)
    # distinct_items sorts by item within a user: shuffle each list, then rank it.
    shuffle = np.lexsort((rng.random(rec_key.size), rec_key // n_items))
    rec_key = rec_key[shuffle]
    scores = -np.sort(-rng.random((counts.size, k)), axis=1)
    recommendations = {
        "user": rec_key // n_items,
        "item": rec_key % n_items,
        "rank": np.tile(np.arange(1, k + 1, dtype=np.int16), counts.size),
        "score": np.round(scores, 6).ravel(),
    }
    return interactions, recommendations


def generate(
    out: Path,
    users: int,
    items: int,
    interactions: int,
    partitions: int,
    k: int = 10,
    hit_rate: float = 0.15,
    row_group: int = 1_000_000,
    seed: int = SEED,
) -> dict:
    """Write the two datasets and ``dataset.json`` into ``out``; return the description."""
    if k > items // 2:
        raise SystemExit(f"--k {k} needs at least {2 * k} items")
    rng = np.random.default_rng(seed)
    counts = interactions_per_user(rng, users, items, interactions)
    popularity = Popularity(rng, items)
    for name in ("interactions", "recommendations"):
        (out / name).mkdir(parents=True, exist_ok=True)
        for stale in (out / name).glob("part-*.parquet"):
            stale.unlink()
    bounds = np.linspace(0, users, partitions + 1).astype(np.int64)
    described = []
    for number in range(partitions):
        low, high = int(bounds[number]), int(bounds[number + 1])
        logged, listed = partition(seed, number, low, counts[low:high], popularity, k, hit_rate)
        name = f"part-{number:05d}.parquet"
        write_parquet(out / "interactions" / name, logged, row_group)
        write_parquet(out / "recommendations" / name, listed, row_group)
        rows = int(logged["user"].size)
        described.append({"file": name, "users": [low, high - 1], "interactions": rows})
        del logged, listed
    description = {
        "users": users,
        "items": items,
        "interactions": interactions,
        "partitions": partitions,
        "k": k,
        "hit_rate": hit_rate,
        "row_group": row_group,
        "seed": seed,
        "parts": described,
    }
    (out / "dataset.json").write_text(json.dumps(description, indent=1) + "\n")
    return description


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=10_000, help="(default 10,000)")
    parser.add_argument("--items", type=int, default=5_000, help="(default 5,000)")
    parser.add_argument("--interactions", type=int, default=1_000_000, help="(default 1M)")
    parser.add_argument(
        "--partitions",
        type=int,
        help="user blocks, one file each (default: one per 2M interactions, at least 1)",
    )
    parser.add_argument("--k", type=int, default=10, help="recommendations per user (10)")
    parser.add_argument("--hit-rate", type=float, default=0.15, help="(default 0.15)")
    parser.add_argument("--row-group", type=int, default=1_000_000, help="rows per row group")
    parser.add_argument("--seed", type=int, default=SEED, help=f"(default {SEED})")
    parser.add_argument("--out", type=Path, default=DATA / "recsys-log")
    args = parser.parse_args(argv)
    partitions = args.partitions or max(1, round(args.interactions / 2_000_000))
    if not 1 <= partitions <= args.users:
        parser.error("--partitions must be between 1 and --users")
    started = time.perf_counter()
    generate(
        args.out,
        args.users,
        args.items,
        args.interactions,
        partitions,
        args.k,
        args.hit_rate,
        args.row_group,
        args.seed,
    )
    elapsed = time.perf_counter() - started
    for name in ("interactions", "recommendations"):
        size = sum(p.stat().st_size for p in (args.out / name).glob("*.parquet")) / 1e6
        print(f"{args.out / name}/  {partitions} partitions, {size:.1f} MB")
    print(f"generated in {elapsed:.1f} s")


if __name__ == "__main__":
    main()
