"""Seeded generator of a synthetic TREC collection at MS MARCO scale, for the benchmarks.

    python bench/generate.py                  # 7,000 queries x 1,000 = 7M run lines, bench/data/
    python bench/generate.py --preset cold    # 250 queries x 1,000, bench/data/cold/
    python bench/generate.py --preset track   # 40 shared-pool runs x 250 x 1,000, bench/data/track/
    python bench/generate.py --preset disjoint  # 40 runs x 250 x 1,000, bench/data/disjoint/
    python bench/generate.py --preset large   # 100,000 x 1,000 (100M lines), bench/data/large/
    python bench/generate.py --queries 500 --depth 100 --runs 3 --out /tmp/small

Writes ``qrels.txt`` (``qid 0 docno grade``) and ``run.1.txt`` ... ``run.N.txt``
(``qid Q0 docno rank score tag``).  The shape follows MS MARCO passage ranking with TREC DL
style judgments: numeric query ids, numeric passage ids drawn from a corpus of 8.8 million,
about ``--judged`` judgments per query with grades 0-3 skewed towards 0 and 1, and runs of
``--depth`` documents whose scores descend (6 decimals) with occasional ties.  Some judged
documents are retrieved - more often and higher the more relevant they are - and the rest
are not, as with judgments pooled from other systems.  Each run is drawn independently, so
the runs of ``--runs N`` share almost no documents.

A track (``--pool P``, preset ``track``) is what a TREC track's submissions look like: each
query has a shared pool of ``P`` documents, each with a latent grade (mostly 0) and a
retrievability shared by every system; each run ranks ``--depth`` of them by a key mixing the
retrievability, the grade (each run weighs both differently) and noise, so the runs overlap
heavily; and the qrels are the union of every run's top ``--pool-depth`` documents with their
grades, as with depth-k pooling (``--judged`` is not used).  With ``--runs-folder`` (both
40-run presets) the runs go into ``runs/`` as ``run.01.txt`` ...

Everything is numpy-vectorised, including the text formatting, so 7M lines take seconds.
The same seed and options give byte-identical files.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

SEED = 20261121
CORPUS = 8_841_823  # passages in the MS MARCO v1 passage collection
QUERY_ID_RANGE = 1_102_400  # MS MARCO query ids are below this
GRADE_PROBABILITIES = (0.45, 0.30, 0.17, 0.08)  # grades 0, 1, 2, 3
RETRIEVED_PROBABILITIES = np.array([0.45, 0.60, 0.75, 0.85])  # a judged doc is in the run
TIE_PROBABILITY = 0.003  # a score equal to the one above it (rounding adds a few more)
ROWS_PER_CHUNK = 1_000_000  # lines formatted at once (bounds memory)
POOL_GRADE_PROBABILITIES = (0.90, 0.05, 0.03, 0.02)  # latent grades 0-3 of a pool's documents
STRENGTH_WEIGHTS = (0.5, 1.5)  # range of a run's weight on the shared retrievability
GRADE_WEIGHTS = (0.3, 2.0)  # range of a run's weight on the latent grade


@dataclasses.dataclass(frozen=True)
class Collection:
    queries: int
    depth: int
    judged: int
    out: Path
    runs: int = 1
    pool: int = 0  # documents per query in the shared pool; 0: independent runs
    pool_depth: int = 20  # with a pool, the qrels judge every run's top pool_depth
    runs_folder: bool = False  # runs in out/runs/ as run.01.txt ...


DATA = Path(__file__).resolve().parent / "data"
PRESETS = {
    "msmarco": Collection(queries=7000, depth=1000, judged=30, out=DATA),
    "cold": Collection(queries=250, depth=1000, judged=30, out=DATA / "cold"),
    "large": Collection(queries=100_000, depth=1000, judged=30, out=DATA / "large"),
    "track": Collection(
        queries=250,
        depth=1000,
        judged=0,
        out=DATA / "track",
        runs=40,
        pool=2000,
        runs_folder=True,
    ),
    "disjoint": Collection(
        queries=250, depth=1000, judged=30, out=DATA / "disjoint", runs=40, runs_folder=True
    ),
}


def ascii_digits(values: np.ndarray, width: int, keep_leading_zeros: bool = False) -> np.ndarray:
    """Decimal digits of non-negative integers as an (n, width) uint8 matrix, right-aligned.

    Leading zeros become NUL bytes, which `format_lines` removes, unless kept (fractions).
    """
    powers = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    digits = (values[:, None] // powers % 10 + ord("0")).astype(np.uint8)
    if not keep_leading_zeros:
        digits[(values[:, None] < powers) & (powers > 1)] = 0
    return digits


def format_lines(fields: Sequence[np.ndarray | bytes]) -> bytes:
    """Join per-row digit matrices and constant byte strings into text, one row per line."""
    n = next(f.shape[0] for f in fields if isinstance(f, np.ndarray))
    columns = [
        f if isinstance(f, np.ndarray) else np.broadcast_to(np.frombuffer(f, np.uint8), (n, len(f)))
        for f in fields
    ]
    text = np.concatenate(columns, axis=1).ravel()
    return text[text != 0].tobytes()


def width_of(values: np.ndarray) -> int:
    return len(str(int(values.max()))) if values.size else 1


def redraw_duplicates(
    rng: np.random.Generator, query: np.ndarray, docs: np.ndarray, fixed: np.ndarray
) -> None:
    """Redraw, in place, documents repeated within a query; ``fixed`` ones are never redrawn."""
    while True:
        key = query.astype(np.int64) * CORPUS + docs
        order = np.lexsort((~fixed, key))  # among equal keys, fixed documents come first
        repeated = order[1:][key[order[1:]] == key[order[:-1]]]
        if repeated.size == 0:
            return
        docs[repeated] = rng.integers(0, CORPUS, repeated.size)


def make_qrels(
    rng: np.random.Generator, n_queries: int, judged: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Judgments as (query index, docno, grade) arrays, sorted by query then docno."""
    per_query = np.maximum(rng.poisson(judged, n_queries), 1)
    query = np.repeat(np.arange(n_queries), per_query)
    docs = rng.integers(0, CORPUS, query.size)
    redraw_duplicates(rng, query, docs, np.zeros(query.size, dtype=bool))
    grades = rng.choice(len(GRADE_PROBABILITIES), size=query.size, p=GRADE_PROBABILITIES)
    order = np.lexsort((docs, query))
    return query[order], docs[order], grades[order]


def make_run(
    rng: np.random.Generator,
    n_queries: int,
    depth: int,
    qrels: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A run as (query index, docno, score in millionths) arrays in rank order per query."""
    judged_query, judged_docs, grades = qrels
    # Each judged document is retrieved with a probability and at a position both rising with
    # its grade; a sort key in [0, 1) stands for the position.
    retrieved = rng.random(grades.size) < RETRIEVED_PROBABILITIES[grades]
    judged_key = rng.random(grades.size) ** (3.0 + grades)
    hit_query, hit_docs, hit_key = (
        judged_query[retrieved],
        judged_docs[retrieved],
        judged_key[retrieved],
    )
    order = np.lexsort((hit_key, hit_query))  # keep at most `depth` per query
    hit_query, hit_docs, hit_key = hit_query[order], hit_docs[order], hit_key[order]
    first = np.searchsorted(hit_query, hit_query)
    keep = np.arange(hit_query.size) - first < depth
    hit_query, hit_docs, hit_key = hit_query[keep], hit_docs[keep], hit_key[keep]

    # Random documents fill the rest of each ranking; none may repeat a judged one.
    fillers = depth - np.bincount(hit_query, minlength=n_queries)
    filler_query = np.repeat(np.arange(n_queries), fillers)
    all_query = np.concatenate([judged_query, filler_query])
    all_docs = np.concatenate([judged_docs, rng.integers(0, CORPUS, filler_query.size)])
    fixed = np.arange(all_docs.size) < judged_docs.size
    redraw_duplicates(rng, all_query, all_docs, fixed)
    filler_docs = all_docs[~fixed]

    query = np.concatenate([hit_query, filler_query])
    docs = np.concatenate([hit_docs, filler_docs])
    key = np.concatenate([hit_key, rng.random(filler_query.size)])
    order = np.lexsort((key, query))
    return query[order], docs[order], make_scores(rng, n_queries, depth)


def make_scores(rng: np.random.Generator, n_queries: int, depth: int) -> np.ndarray:
    """Scores in millionths, in rank order per query: BM25-like, a top score per query and
    gaps shrinking down the ranking, with occasional ties."""
    top = rng.uniform(18.0, 30.0, n_queries)
    gaps = rng.exponential(1.0, (n_queries, depth - 1)) / np.arange(1, depth)
    gap_micro = np.rint(gaps * 1e6).astype(np.int64)
    gap_micro[rng.random(gap_micro.shape) < TIE_PROBABILITY] = 0
    drop = np.concatenate([np.zeros((n_queries, 1), np.int64), gap_micro.cumsum(axis=1)], axis=1)
    score_micro = np.maximum(np.rint(top * 1e6).astype(np.int64)[:, None] - drop, 0)
    return score_micro.ravel()


@dataclasses.dataclass
class Pool:
    """The shared pool of a track: per query, ``docs``, latent ``grades`` and a shared
    ``strength`` (retrievability), all (queries, pool); ``judged`` marks what pooling judged."""

    docs: np.ndarray
    grades: np.ndarray
    strength: np.ndarray
    judged: np.ndarray


def make_pool(rng: np.random.Generator, n_queries: int, size: int) -> Pool:
    query = np.repeat(np.arange(n_queries), size)
    docs = rng.integers(0, CORPUS, query.size)
    redraw_duplicates(rng, query, docs, np.zeros(query.size, dtype=bool))
    shape = (n_queries, size)
    grades = rng.choice(len(POOL_GRADE_PROBABILITIES), size=shape, p=POOL_GRADE_PROBABILITIES)
    strength = rng.normal(0.0, 1.0, shape)
    return Pool(docs.reshape(shape), grades, strength, np.zeros(shape, dtype=bool))


def make_pool_run(
    rng: np.random.Generator, pool: Pool, depth: int, pool_depth: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A run ranking ``depth`` documents of each query's pool (rank order), and its top
    ``pool_depth`` marked judged in ``pool.judged``.

    The ranking is by a Gumbel-perturbed key (sampling without replacement in proportion to
    exp(key)): the shared strength and the latent grade, each weighed by this run.
    """
    n_queries, size = pool.docs.shape
    strength_weight = rng.uniform(*STRENGTH_WEIGHTS)
    grade_weight = rng.uniform(*GRADE_WEIGHTS)
    key = strength_weight * pool.strength + grade_weight * pool.grades
    key += rng.gumbel(0.0, 1.0, key.shape)
    ranked = np.argsort(-key, axis=1, kind="stable")[:, :depth]
    rows = np.arange(n_queries)[:, None]
    pool.judged[rows, ranked[:, :pool_depth]] = True
    query = np.repeat(np.arange(n_queries), depth)
    return query, pool.docs[rows, ranked].ravel(), make_scores(rng, n_queries, depth)


def pool_qrels(pool: Pool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The judged documents of the pool as (query index, docno, grade), by query then docno."""
    query, column = np.nonzero(pool.judged)
    docs, grades = pool.docs[query, column], pool.grades[query, column]
    order = np.lexsort((docs, query))
    return query[order], docs[order], grades[order]


def write_qrels(path: Path, qids: np.ndarray, qrels: tuple[np.ndarray, ...]) -> None:
    query, docs, grades = qrels
    fields = [ascii_digits(qids[query], width_of(qids)), b" 0 "]
    fields += [ascii_digits(docs, width_of(docs)), b" ", ascii_digits(grades, 1), b"\n"]
    path.write_bytes(format_lines(fields))


def write_run(
    path: Path, qids: np.ndarray, depth: int, run: tuple[np.ndarray, ...], tag: str
) -> None:
    query, docs, score_micro = run
    rank = np.tile(np.arange(1, depth + 1), qids.size)
    qid_width, doc_width = width_of(qids), width_of(docs)
    rank_width, integer_width = width_of(rank), width_of(score_micro // 1_000_000)
    with path.open("wb") as out:
        for start in range(0, query.size, ROWS_PER_CHUNK):
            rows = slice(start, start + ROWS_PER_CHUNK)
            score = score_micro[rows]
            fields = [
                ascii_digits(qids[query[rows]], qid_width),
                b" Q0 ",
                ascii_digits(docs[rows], doc_width),
                b" ",
                ascii_digits(rank[rows], rank_width),
                b" ",
                ascii_digits(score // 1_000_000, integer_width),
                b".",
                ascii_digits(score % 1_000_000, 6, keep_leading_zeros=True),
                f" {tag}\n".encode(),
            ]
            out.write(format_lines(fields))


def run_paths(out: Path, runs: int, runs_folder: bool) -> list[Path]:
    """``out/run.1.txt`` ..., or ``out/runs/run.01.txt`` ... (numbers padded to sort)."""
    if not runs_folder:
        return [out / f"run.{number}.txt" for number in range(1, runs + 1)]
    width = len(str(runs))
    return [out / "runs" / f"run.{number:0{width}d}.txt" for number in range(1, runs + 1)]


def generate(
    out: Path,
    queries: int,
    depth: int,
    judged: int,
    runs: int = 1,
    seed: int = SEED,
    *,
    pool: int = 0,
    pool_depth: int = 20,
    runs_folder: bool = False,
) -> list[Path]:
    """Write ``qrels.txt`` and the runs (see `run_paths`) into ``out``; return the paths.

    ``pool`` > 0 draws the runs from a shared pool of that many documents per query and
    judges the union of their top ``pool_depth`` (``judged`` is then not used).
    """
    rng = np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    if runs_folder:
        (out / "runs").mkdir(exist_ok=True)
    qids = np.sort(rng.choice(np.arange(1, QUERY_ID_RANGE), size=queries, replace=False))
    paths = [out / "qrels.txt", *run_paths(out, runs, runs_folder)]
    if pool:
        if pool < depth:
            raise SystemExit(f"--pool ({pool}) must be at least --depth ({depth})")
        shared = make_pool(rng, queries, pool)
        for number, path in enumerate(paths[1:], start=1):
            run = make_pool_run(rng, shared, depth, pool_depth)
            write_run(path, qids, depth, run, f"pool{number}")
        write_qrels(paths[0], qids, pool_qrels(shared))
        return paths
    qrels = make_qrels(rng, queries, judged)
    write_qrels(paths[0], qids, qrels)
    for number, path in enumerate(paths[1:], start=1):
        write_run(path, qids, depth, make_run(rng, queries, depth, qrels), f"synth{number}")
    return paths


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        default="msmarco",
        help="msmarco: 7000 x 1000 into bench/data; cold: 250 x 1000 into bench/data/cold; "
        "track: 40 runs x 250 x 1000 from a shared pool of 2000 per query, judged to depth 20, "
        "into bench/data/track; disjoint: 40 independent runs x 250 x 1000 (as --runs 40 "
        "--queries 250) into bench/data/disjoint; the last two with --runs-folder; large: "
        "100000 x 1000 (100M lines, 3.9 GB) into bench/data/large",
    )
    parser.add_argument("--queries", type=int, help="number of queries (default 7000)")
    parser.add_argument("--depth", type=int, help="documents per query in a run (default 1000)")
    parser.add_argument("--judged", type=int, help="mean judgments per query (default 30)")
    parser.add_argument("--runs", type=int, help="number of runs (default 1)")
    parser.add_argument(
        "--pool", type=int, help="draw the runs from a shared pool of this many documents per query"
    )
    parser.add_argument(
        "--pool-depth", type=int, help="with --pool, judge every run's top N (default 20)"
    )
    parser.add_argument(
        "--runs-folder",
        action="store_true",
        default=None,
        help="write the runs into OUT/runs/ as run.01.txt ... (a folder `rankscope eval` takes)",
    )
    parser.add_argument("--seed", type=int, default=SEED, help=f"random seed (default {SEED})")
    parser.add_argument("--out", type=Path, help="output folder (default bench/data)")
    args = parser.parse_args(argv)
    chosen = {f.name: getattr(args, f.name) for f in dataclasses.fields(Collection)}
    collection = dataclasses.replace(
        PRESETS[args.preset], **{k: v for k, v in chosen.items() if v is not None}
    )
    started = time.perf_counter()
    paths = generate(
        collection.out,
        collection.queries,
        collection.depth,
        collection.judged,
        collection.runs,
        args.seed,
        pool=collection.pool,
        pool_depth=collection.pool_depth,
        runs_folder=collection.runs_folder,
    )
    elapsed = time.perf_counter() - started
    for path in paths:
        print(f"{path}  {path.stat().st_size / 1e6:.1f} MB")
    print(f"generated in {elapsed:.1f} s")


if __name__ == "__main__":
    main()
