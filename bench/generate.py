"""Seeded generator of a synthetic TREC collection at MS MARCO scale, for the benchmarks.

    python bench/generate.py                  # 7,000 queries x 1,000 = 7M run lines, bench/data/
    python bench/generate.py --preset cold    # 250 queries x 1,000, bench/data/cold/
    python bench/generate.py --queries 500 --depth 100 --runs 3 --out /tmp/small

Writes ``qrels.txt`` (``qid 0 docno grade``) and ``run.1.txt`` ... ``run.N.txt``
(``qid Q0 docno rank score tag``).  The shape follows MS MARCO passage ranking with TREC DL
style judgments: numeric query ids, numeric passage ids drawn from a corpus of 8.8 million,
about ``--judged`` judgments per query with grades 0-3 skewed towards 0 and 1, and runs of
``--depth`` documents whose scores descend (6 decimals) with occasional ties.  Some judged
documents are retrieved - more often and higher the more relevant they are - and the rest
are not, as with judgments pooled from other systems.

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


@dataclasses.dataclass(frozen=True)
class Collection:
    queries: int
    depth: int
    judged: int
    out: Path


DATA = Path(__file__).resolve().parent / "data"
PRESETS = {
    "msmarco": Collection(queries=7000, depth=1000, judged=30, out=DATA),
    "cold": Collection(queries=250, depth=1000, judged=30, out=DATA / "cold"),
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

    # Scores: BM25-like, a top score per query and gaps shrinking down the ranking.
    top = rng.uniform(18.0, 30.0, n_queries)
    gaps = rng.exponential(1.0, (n_queries, depth - 1)) / np.arange(1, depth)
    gap_micro = np.rint(gaps * 1e6).astype(np.int64)
    gap_micro[rng.random(gap_micro.shape) < TIE_PROBABILITY] = 0
    drop = np.concatenate([np.zeros((n_queries, 1), np.int64), gap_micro.cumsum(axis=1)], axis=1)
    score_micro = np.maximum(np.rint(top * 1e6).astype(np.int64)[:, None] - drop, 0)
    return query[order], docs[order], score_micro.ravel()


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


def generate(
    out: Path, queries: int, depth: int, judged: int, runs: int = 1, seed: int = SEED
) -> list[Path]:
    """Write ``qrels.txt`` and ``run.1.txt`` .. ``run.{runs}.txt`` into ``out``; return paths."""
    rng = np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    qids = np.sort(rng.choice(np.arange(1, QUERY_ID_RANGE), size=queries, replace=False))
    qrels = make_qrels(rng, queries, judged)
    paths = [out / "qrels.txt"]
    write_qrels(paths[0], qids, qrels)
    for number in range(1, runs + 1):
        paths.append(out / f"run.{number}.txt")
        write_run(paths[-1], qids, depth, make_run(rng, queries, depth, qrels), f"synth{number}")
    return paths


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        default="msmarco",
        help="msmarco: 7000 x 1000 into bench/data; cold: 250 x 1000 into bench/data/cold",
    )
    parser.add_argument("--queries", type=int, help="number of queries (default 7000)")
    parser.add_argument("--depth", type=int, help="documents per query in a run (default 1000)")
    parser.add_argument("--judged", type=int, help="mean judgments per query (default 30)")
    parser.add_argument("--runs", type=int, default=1, help="number of runs (default 1)")
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
        args.runs,
        args.seed,
    )
    elapsed = time.perf_counter() - started
    for path in paths:
        print(f"{path}  {path.stat().st_size / 1e6:.1f} MB")
    print(f"generated in {elapsed:.1f} s")


if __name__ == "__main__":
    main()
