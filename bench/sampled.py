"""`rankscope sampled` at the size of issue 22 — 2 systems × 1.6M score lines — timed against
the code before the issue's speed-up, side by side in one run.

    python bench/sampled.py                     # data generated in bench/data/sampled when missing
    python bench/sampled.py --repeat 3 --baseline 1f4be52 --json bench/results/sampled.json

The data (seeded, byte-identical for the same options) is MovieLens-100K-like: 943 users ×
1,682 items, Zipf-like item popularity, 20 + log-normal interactions per user with ratings 1–5,
a fifth of them held out as the test set (``u1.base``, ``u1.test``: user, item, rating,
timestamp, tab-separated), and two systems (``knn.scores``, ``svd.scores``) scoring every
(user, item) pair: 1,586,126 ``user item score`` lines each, log-popularity plus Gaussian noise
(σ 1 and 0.5) plus 1 on the user's test items.

Rows, each a fresh process (`run.py`'s harness: wall time around the process, peak RSS from
``wait4``, median of ``--repeat``, files in the page cache):

* ``cli``: ``rankscope sampled u1.test knn.scores svd.scores --train u1.base`` (the default
  measures and estimators), from this tree (``src``) and from ``--baseline`` (a commit of this
  repository, default the one before the speed-up, extracted with ``git archive`` into a
  temporary folder; the compiled reader of this tree is copied beside it);
* ``api``: the same through ``rankscope.recsys.sampled_evaluate`` in a Python process that
  imported numpy first, as a notebook does (so environment variables set by rankscope come
  too late for numpy's BLAS); for the baseline only with ``--api-baseline`` (it took 8× the
  command's time).

It prints wall seconds, CPU seconds (user + system: steadier than wall time on a busy
machine), peak MB, the baseline's over this tree's, and whether the two print
the same values (the minimal-bias column may differ where the bounded fit has many equally
good minimisers, see `rankscope.recsys.corrected_metric`: its largest difference is shown).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from run import Sample, baseline_tree, run_once

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
#: main before issue 22's `sampled` speed-up
BASELINE = "1f4be52"
USERS, ITEMS, SEED = 943, 1682, 20261126
API = """\
import sys
import numpy  # first, as in a notebook: numpy's BLAS starts before rankscope is imported
from rankscope import recsys
from rankscope.report.sampled import format_sampled
test, train, *scores = sys.argv[1:]
names = [s.rsplit('/', 1)[-1] for s in scores]
systems = {{n: recsys.read_recommendations(s, name=n) for n, s in zip(names, scores)}}
table = recsys.sampled_evaluate(test, systems, train=train, output="dict")
sys.stdout.write(format_sampled(table, {estimators!r}, "csv"))
"""
ESTIMATORS = ["full", "sampled", "minimal-bias", "bv"]


def generate(folder: Path) -> None:
    """Write the seeded MovieLens-100K-like data set to ``folder`` (see the module)."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(SEED)
    popularity = np.minimum(rng.zipf(1.3, ITEMS).astype(np.float64), 500.0)
    popularity /= popularity.sum()
    activity = np.minimum(20 + rng.lognormal(3.5, 1.0, USERS).astype(np.int64), ITEMS // 2)
    user = np.repeat(np.arange(USERS), activity)
    item = np.concatenate(
        [rng.choice(ITEMS, size=a, replace=False, p=popularity) for a in activity]
    )
    rating = rng.integers(1, 6, size=len(user))
    held_out = rng.random(len(user)) < 0.2
    for name, keep in (("u1.base", ~held_out), ("u1.test", held_out)):
        lines = [
            f"{u + 1}\t{i + 1}\t{r}\t880000000\n"
            for u, i, r in zip(user[keep].tolist(), item[keep].tolist(), rating[keep].tolist(),
                               strict=True)
        ]  # fmt: skip
        (folder / name).write_text("".join(lines))
    user_ids = np.repeat(np.arange(1, USERS + 1), ITEMS).astype(str)
    item_ids = np.tile(np.arange(1, ITEMS + 1), USERS).astype(str)
    for name, noise in (("knn", 1.0), ("svd", 0.5)):
        scores = np.log(popularity)[None, :] + noise * rng.standard_normal((USERS, ITEMS))
        scores[user[held_out], item[held_out]] += 1.0
        text = np.char.add(np.char.add(np.char.add(user_ids, "\t"), np.char.add(item_ids, "\t")),
                           np.char.mod("%.6f", scores.reshape(-1)))  # fmt: skip
        (folder / f"{name}.scores").write_text("\n".join(text.tolist()) + "\n")


def commands(data: Path, api: bool) -> list[str]:
    files = [str(data / "u1.test"), str(data / "knn.scores"), str(data / "svd.scores")]
    if api:
        script = API.format(estimators=ESTIMATORS)
        return [sys.executable, "-c", script, files[0], str(data / "u1.base"), *files[1:]]
    return [sys.executable, "-m", "rankscope", "sampled", *files, "--train",
            str(data / "u1.base"), "--format", "csv"]  # fmt: skip


def timed(command: list[str], src: Path, repeat: int) -> tuple[Sample, list[Sample]]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}  # defaults
    env["PYTHONPATH"] = str(src)
    samples = [run_once(command, env) for _ in range(repeat)]
    middle = sorted(samples, key=lambda s: s.wall_s)[len(samples) // 2]
    return middle, samples


def values(output: str) -> dict[tuple[str, str, str], float]:
    """{(run, measure, estimator): value} of ``--format csv`` output."""
    lines = [line.split(",") for line in output.strip().splitlines()]
    header, rows = lines[0], lines[1:]
    return {
        (row[0].rsplit("/", 1)[-1], row[1], estimator): float(row[header.index(estimator)])
        for row in rows for estimator in ESTIMATORS
    }  # fmt: skip


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=BENCH / "data" / "sampled")
    parser.add_argument("--repeat", type=int, default=1, help="timed runs per row (median)")
    parser.add_argument("--baseline", default=BASELINE, help=f"commit (default {BASELINE})")
    parser.add_argument("--api-baseline", action="store_true", help="time the baseline's API")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    if not (args.data / "svd.scores").exists():
        print(f"generating {args.data} ...", flush=True)
        generate(args.data)
    for path in sorted(args.data.iterdir()):  # into the page cache
        path.read_bytes()
    head = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
                          capture_output=True, text=True).stdout.strip()  # fmt: skip
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; this tree {head}, "
          f"baseline {args.baseline}; {args.data}")  # fmt: skip
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as folder:
        old = baseline_tree(args.baseline, Path(folder))
        rows = [("cli", "this tree", ROOT / "src"), ("cli", "baseline", old),
                ("api", "this tree", ROOT / "src")]  # fmt: skip
        if args.api_baseline:
            rows.append(("api", "baseline", old))
        for kind, tree, src in rows:
            sample, samples = timed(commands(args.data, kind == "api"), src, args.repeat)
            results[f"{kind} {tree}"] = {
                "wall_s": sample.wall_s, "cpu_s": sample.cpu_s, "peak_mb": sample.peak_mb,
                "runs": [s.wall_s for s in samples], "values": values(sample.output),
            }  # fmt: skip
            print(f"  {kind:3} {tree:9}  {sample.wall_s:8.2f} s  {sample.cpu_s:8.2f} s CPU  "
                  f"{sample.peak_mb:7.0f} MB", flush=True)  # fmt: skip
    print()
    print("| row | wall s | CPU s | peak MB | baseline / this tree: wall | CPU | memory |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for kind in ("cli", "api"):
        new, base = results.get(f"{kind} this tree"), results.get(f"{kind} baseline")
        for tree, row in (("baseline", base), ("this tree", new)):
            if row is None:
                continue
            ratios = ["", "", ""]
            if base is not None and row is new:
                ratios = [f"{base[key] / new[key]:.1f}×" for key in ("wall_s", "cpu_s", "peak_mb")]
            print(f"| {kind} {tree} | {row['wall_s']:.2f} | {row['cpu_s']:.2f} | "
                  f"{row['peak_mb']:.0f} | {' | '.join(ratios)} |")  # fmt: skip
    new, base = results["cli this tree"]["values"], results["cli baseline"]["values"]
    same = [key for key in base if key[2] != "minimal-bias" and base[key] != new[key]]
    bias = max(abs(base[key] - new[key]) for key in base if key[2] == "minimal-bias")
    print(f"\nfull, sampled, bv: {'the same values' if not same else f'{len(same)} differ'}; "
          f"minimal-bias: largest difference {bias:.4f}")  # fmt: skip
    api, cli = results["api this tree"]["wall_s"], results["cli this tree"]["wall_s"]
    print(f"api / cli (this tree): {api / cli:.2f}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        for row in results.values():
            row["values"] = {"/".join(key): value for key, value in row["values"].items()}
        args.json.write_text(json.dumps({"baseline": args.baseline, "head": head, **results},
                                        indent=1))  # fmt: skip


if __name__ == "__main__":
    main()
