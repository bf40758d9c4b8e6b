"""The cost of each measure family on the 7M-line collection (bench/generate.py).

    python bench/families.py                 # bench/data: 7,000 queries x 1,000
    python bench/families.py --data DIR --repeat 3

Reads the qrels and the run once, orders and joins them once (`judge`), then times each
family's measures on the same judged run (median of ``--repeat``), in one process:

* trec_eval: every measure of ``all_trec``;
* user models: CG, DCG/nDCG@k (both discounts), ERR, EU, pFound, TBG, grid RBP/DCG/nDCG;
* search lengths: SL, ESL, ISL, TSL, ASL, PFR;
* incomplete judgments: bpref, infAP, RBP residual, Judged@k, and nDCG/AP on condensed lists
  (which need a second join without the unjudged documents, included in the time);
* diversity: ERR-IA, α-nDCG, NRBP, MAP-IA, P-IA, strec at ndeval's cut-offs, on diversity
  judgments derived from the qrels (each relevant judgment relevant to 1-3 of 4 subtopics,
  seeded), including the join that attaches the subtopics;
* trec_eval's preference measures (``-R qrels_prefs -m all_prefs``) and judgment-group
  measures (``-R qrels_jg -m qrels_jg``) on the same qrels file read in those formats.

Preferences (bench/preferences.py), statistics (bench/stats.py) and recommender measures
(bench/recsys.py) have their own benchmarks: they compare runs or users, not rankings.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from rankscope.judge import JoinOptions, judge
from rankscope.measures import parse_measures
from rankscope.model import Qrels
from rankscope.read.trec import read_qrels, read_run
from rankscope.table.evaluation import evaluate_judged, evaluate_run
from rankscope.table.ndeval import ndeval_requests

BENCH = Path(__file__).resolve().parent

FAMILIES = {
    "trec_eval all_trec": ["all_trec"],
    "user models": [
        "CG@10", "DCGk@10", "nDCGk@10", "nDCGk(discount=jk)@10", "ERR@20", "EU", "pFound",
        "TBG", "gridRBP", "gridDCG@20", "gridnDCG@20",
    ],
    "search lengths": ["SL(k=1)", "ESL(k=1)", "ISL", "TSL", "ASL", "PFR"],
    "incomplete": ["bpref", "infAP", "rbp_resid", "Judged@10"],
}  # fmt: skip
CONDENSED = ["nDCG(judged_only=True)@10", "AP(judged_only=True)"]


def median_time(fn, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def diversity_qrels(qrels: Qrels, subtopics: int = 4, seed: int = 20261121) -> Qrels:
    """Per-subtopic judgments from ad hoc ones: a relevant document is relevant to a random
    non-empty subset of ``subtopics`` subtopics; a non-relevant one is judged 0 on
    subtopic 1."""
    rng = np.random.default_rng(seed)
    n = len(qrels)
    member = rng.random((n, subtopics)) < 0.4
    member[np.arange(n), rng.integers(0, subtopics, n)] = True
    relevant = qrels.grade > 0
    member[~relevant] = False
    member[~relevant, 0] = True
    rows, subs = np.nonzero(member)
    grade = np.where(relevant[rows], 1, 0)
    return Qrels(
        qrels.queries, qrels.docs, qrels.query[rows], qrels.doc[rows], grade,
        source="<diversity>", subtopic=(subs + 1).astype(np.int64),
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=BENCH / "data")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    qrels_path, run_path = args.data / "qrels.txt", args.data / "run.1.txt"
    if not run_path.exists():
        raise SystemExit(f"{run_path} missing: run `python bench/generate.py` first")

    start = time.perf_counter()
    qrels = read_qrels(qrels_path)
    run = read_run(run_path, qrels.queries, qrels.docs)
    read = time.perf_counter() - start
    join, judged = median_time(lambda: judge(qrels, run), args.repeat)
    lines = len(run)
    nq = judged.num_queries
    print(f"collection: {lines:,} run lines, {nq:,} queries, {len(qrels):,} judgments")
    print(f"read qrels + run: {read:.2f} s; order + join (judge): {join:.2f} s\n")

    rows = []
    for family, names in FAMILIES.items():
        requests = parse_measures(names)
        seconds, _ = median_time(lambda r=requests: evaluate_judged(judged, r), args.repeat)
        rows.append((family, len(requests), seconds))
    condensed = parse_measures(CONDENSED)
    seconds, _ = median_time(
        lambda: evaluate_run(qrels, run, condensed, JoinOptions(judged_only=False)), args.repeat
    )
    rows.append(("condensed lists (+ join)", len(condensed), seconds))

    div = diversity_qrels(qrels)
    requests = ndeval_requests()

    def diversity() -> object:
        return evaluate_judged(judge(div, run), requests)

    seconds, _ = median_time(diversity, args.repeat)
    rows.append((f"diversity, ndeval's 21 (+ join, {len(div):,} rows)", len(requests), seconds))

    # trec_eval's other judgment formats, from the same qrels file (-R qrels_prefs, qrels_jg)
    from rankscope.api import evaluate_many
    from rankscope.read.prefs import read_qrels_jg, read_qrels_prefs

    for label, reader, fmt, nick in (
        ("trec_eval -R qrels_prefs all_prefs", read_qrels_prefs, "qrels_prefs", "all_prefs"),
        ("trec_eval -R qrels_jg qrels_jg", read_qrels_jg, "qrels_jg", "qrels_jg"),
    ):
        judgments = reader(qrels_path, qrels.queries, qrels.docs)
        count = len(parse_measures([nick]))
        seconds, _ = median_time(
            lambda j=judgments, f=fmt, n=nick: evaluate_many(j, run, [n], rel_format=f),
            args.repeat,
        )
        rows.append((f"{label} (+ join)", count, seconds))

    width = max(len(r[0]) for r in rows)
    print(f"{'family':<{width}}  values  seconds  µs/query/value")
    for family, count, seconds in rows:
        per = seconds / (nq * count) * 1e6
        print(f"{family:<{width}}  {count:>6}  {seconds:>7.2f}  {per:>14.3f}")


if __name__ == "__main__":
    main()
