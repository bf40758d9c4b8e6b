"""`rankscope compare` and `rankscope report` on many runs, against the peers' ways of comparing.

    python bench/compare.py                      # 100 runs x 250 queries x 1,000 documents
    python bench/compare.py --runs 25,100 --before /work/main/src --repeat 2
    python bench/compare.py --runs 20,50,100 --prefer 10,25,50 --no-peers --before /work/main/src

The collection is bench/generate.py's ``disjoint`` preset widened to 100 runs (made into
bench/data/compare/ when missing, about 3 minutes).  Every row is a whole process on the same
files (interpreter start, imports, reading, evaluating, testing, printing), timed as
bench/run.py times its tools: wall time, CPU time (user + system, steadier on a busy
machine) and the kernel's peak resident set (``wait4``); the best of ``--repeat`` runs (the
machine is shared).  The measures are AP, nDCG@10 and P@10,
each run against the first with a paired t-test and Holm's correction:

* ``rankscope compare`` (this tree; with ``--before SRC`` also the tree at SRC, e.g. the
  commit before a change, side by side in the same run);
* ``rankscope report`` (the HTML page: the same comparison plus the precision-recall curves
  and the recall levels it shows);
* ``pandas + pytrec_eval + scipy``: the script people write (pytrec_eval's reader and
  evaluator run by run, a pandas frame of per-query values, every judged query counting with
  0 when missing, ``scipy.stats.ttest_rel`` against the baseline, Holm's correction);
* ``ranx compare()``: ``Qrels.from_file``, ``Run.from_file`` for each run, ``compare`` with
  the Student t-test (numba's cache in a fresh folder: the first of the runs compiles).

With ``--prefer N,...``: ``rankscope prefer`` (RPP, the default) on N of the runs, this tree
and, with ``--before``, the tree at SRC side by side, their outputs compared byte for byte.

The rows' means are checked against each other (4 decimals).  Prints; asserts nothing.
A driver of a peer runs as ``python bench/compare.py --driver NAME QRELS RUN...``.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from run import Sample, ToolFailed, run_once

BENCH = Path(__file__).resolve().parent
SRC = BENCH.parent / "src"
DATA = BENCH / "data" / "compare"
MEASURES = ("AP", "nDCG@10", "P@10")
TARGETS = (("pandas + pytrec_eval + scipy", 8.0), ("ranx compare()", 10.0))
MEMORY_TARGET_MB = 250.0
REPORT_TARGET = 1.5  # report at most this many times compare's time


def pytrec_eval_driver(qrels_path: str, run_paths: Sequence[str]) -> None:
    """The script people write: pytrec_eval per run, a pandas frame, scipy's paired t-test."""
    import numpy as np
    import pandas as pd
    import pytrec_eval
    from scipy import stats

    names = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@10": "P_10"}
    with open(qrels_path) as lines:
        qrels = pytrec_eval.parse_qrel(lines)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.10"})
    queries = sorted(qrels)
    frames = []
    for path in run_paths:
        with open(path) as lines:
            found = evaluator.evaluate(pytrec_eval.parse_run(lines))
        frame = pd.DataFrame.from_dict(found, orient="index").reindex(queries, fill_value=0.0)
        frames.append(frame.assign(run=run_name(path)))
    table = pd.concat(frames)
    runs = [run_name(p) for p in run_paths]
    out = []
    for label, column in names.items():
        wide = table.pivot_table(index="run", columns=table.index, values=column).loc[runs]
        base = wide.iloc[0].to_numpy()
        p = np.array([stats.ttest_rel(wide.loc[r].to_numpy(), base).pvalue for r in runs[1:]])
        order = np.argsort(p)  # Holm's step-down correction
        held = np.maximum.accumulate(p[order] * (len(p) - np.arange(len(p))))
        corrected = np.empty_like(p)
        corrected[order] = np.minimum(held, 1.0)
        out.append(f"{runs[0]}\t{label}\t{base.mean():.4f}\t\n")
        out += [
            f"{r}\t{label}\t{wide.loc[r].mean():.4f}\t{q:.4g}\n"
            for r, q in zip(runs[1:], corrected, strict=True)
        ]
    sys.stdout.write("".join(out))


def ranx_driver(qrels_path: str, run_paths: Sequence[str]) -> None:
    """ranx's own way: read everything, then ``compare`` with the Student t-test."""
    from ranx import Qrels, Run, compare

    names = {"AP": "map", "nDCG@10": "ndcg@10", "P@10": "precision@10"}
    qrels = Qrels.from_file(qrels_path, kind="trec")
    runs = [Run.from_file(p, kind="trec", name=run_name(p)) for p in run_paths]
    report = compare(qrels, runs, metrics=list(names.values()), stat_test="student", max_p=0.05)
    lines = []
    for label, metric in names.items():
        lines += [f"{r.name}\t{label}\t{report.results[r.name][metric]:.4f}\t\n" for r in runs]
    sys.stdout.write("".join(lines))


def run_name(path: str) -> str:
    """The name `rankscope compare` gives a run file (its name without the suffix)."""
    name = Path(path).name
    for suffix in (".txt", ".run", ".trec", ".tsv"):
        name = name.removesuffix(suffix)
    return name


def means(output: str, rankscope_csv: bool) -> dict[tuple[str, str], float]:
    """(run, measure) -> mean, from a driver's lines or rankscope's CSV."""
    if rankscope_csv:
        rows = csv.DictReader(io.StringIO(output))
        return {(r["run"], r["measure"]): round(float(r["mean"]), 4) for r in rows}
    found = {}
    for line in output.splitlines():
        run, measure, mean, _ = line.split("\t")
        found[(run, measure)] = float(mean)
    return found


def timed(command: list[str], repeat: int, env: dict[str, str] | None) -> list[Sample]:
    samples = []
    for _ in range(repeat):
        try:
            samples.append(run_once(command, env))
        except ToolFailed as failed:
            print(f"    failed: {failed}", flush=True)
            return []
    return samples


def rows_for(
    qrels: Path, runs: list[Path], before: Path | None, scratch: Path
) -> list[tuple[str, list[str], dict[str, str] | None]]:
    """(row name, command, environment) of every row."""
    py = sys.executable
    files = [str(p) for p in runs]
    measures = [a for m in MEASURES for a in ("-m", m)]
    compare = [py, "-m", "rankscope", "compare", *measures, "--format", "csv", str(qrels), *files]
    report = [py, "-m", "rankscope", "report", *measures, "-o", str(scratch / "report.html"),
              "--force", str(qrels), *files]  # fmt: skip
    here = {**os.environ, "PYTHONPATH": str(SRC)}
    then = None if before is None else {**os.environ, "PYTHONPATH": str(before)}
    Row = tuple[str, list[str], dict[str, str] | None]
    rows: list[Row] = [("rankscope compare", compare, here)]
    if then is not None:
        rows.append(("rankscope compare (before)", compare, then))
    rows.append(("rankscope report", report, here))
    if then is not None:
        rows.append(("rankscope report (before)", report, then))
    driver = [py, str(Path(__file__).resolve()), "--driver"]
    rows.append(("pandas + pytrec_eval + scipy", [*driver, "pytrec_eval", str(qrels), *files],
                 None))  # fmt: skip
    numba = {**os.environ, "NUMBA_CACHE_DIR": str(scratch / "numba")}
    rows.append(("ranx compare()", [*driver, "ranx", str(qrels), *files], numba))
    return rows


def installed(module: str) -> bool:
    found = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True)
    return found.returncode == 0


def measure(
    count: int, runs: list[Path], before: Path | None, repeat: int, peers: bool = True
) -> None:
    qrels = DATA / "qrels.txt"
    chosen = runs[:count]
    print(f"\n{count} runs x 250 queries x 1,000 documents; {', '.join(MEASURES)}; best of "
          f"{repeat}")  # fmt: skip
    print(f"{'row':<30}{'wall s':>9}{'CPU s':>8}{'peak MB':>9}{'vs compare':>12}")
    best: dict[str, Sample] = {}
    values: dict[str, dict[tuple[str, str], float]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for name, command, env in rows_for(qrels, chosen, before, Path(scratch)):
            needs = {"pandas + pytrec_eval + scipy": "pytrec_eval", "ranx compare()": "ranx"}
            if name in needs and not peers:
                continue
            if name in needs and not installed(needs[name]):
                print(f"{name:<30}{'not installed':>30}")
                continue
            samples = timed(command, repeat, env)
            if not samples:
                continue
            best[name] = min(samples, key=lambda s: s.wall_s)
            if "report" not in name:
                values[name] = means(best[name].output, name.startswith("rankscope"))
            reference = best.get("rankscope compare")
            ratio = (f"{best[name].wall_s / reference.wall_s:.2f}x"
                     if reference is not None else "")  # fmt: skip
            print(f"{name:<30}{best[name].wall_s:>9.2f}{best[name].cpu_s:>8.1f}"
                  f"{best[name].peak_mb:>9.0f}{ratio:>12}", flush=True)  # fmt: skip
    ours = best.get("rankscope compare")
    if ours is None:
        return
    for peer, factor in TARGETS:
        if peer in best:
            got = best[peer].wall_s / ours.wall_s
            print(f"target: {factor:g}x faster than {peer}: {got:.1f}x "
                  f"{'met' if got >= factor else 'NOT met'}")  # fmt: skip
    print(f"target: peak <= {MEMORY_TARGET_MB:g} MB: {ours.peak_mb:.0f} MB "
          f"{'met' if ours.peak_mb <= MEMORY_TARGET_MB else 'NOT met'}")  # fmt: skip
    if "rankscope report" in best:
        got = best["rankscope report"].wall_s / ours.wall_s
        print(f"target: report within {REPORT_TARGET:g}x of compare: {got:.2f}x "
              f"{'met' if got <= REPORT_TARGET else 'NOT met'}")  # fmt: skip
    mine = values.get("rankscope compare", {})
    for name, found in values.items():
        differ = [k for k, v in found.items() if k in mine and abs(mine[k] - v) > 1e-4]
        shared = sum(k in mine for k in found)
        print(f"means of {name}: {shared - len(differ)} of {shared} agree with rankscope's")


def measure_prefer(count: int, runs: list[Path], before: Path | None, repeat: int) -> None:
    """``rankscope prefer`` on ``count`` runs: this tree, and the tree at ``before``."""
    files = [str(p) for p in runs[:count]]
    command = [sys.executable, "-m", "rankscope", "prefer", "--format", "csv",
               str(DATA / "qrels.txt"), *files]  # fmt: skip
    rows = ([] if before is None else [("rankscope prefer (before)", before)]) + [
        ("rankscope prefer", SRC)
    ]
    print(f"\nprefer: {count} runs x 250 queries x 1,000 documents; RPP; best of {repeat}")
    print(f"{'row':<30}{'wall s':>9}{'CPU s':>8}{'peak MB':>9}{'vs before':>12}")
    best: dict[str, Sample] = {}
    for name, src in rows:
        samples = timed(command, repeat, {**os.environ, "PYTHONPATH": str(src)})
        if not samples:
            continue
        best[name] = min(samples, key=lambda s: s.wall_s)
        print(f"{name:<30}{best[name].wall_s:>9.2f}{best[name].cpu_s:>8.1f}"
              f"{best[name].peak_mb:>9.0f}", end="", flush=True)  # fmt: skip
        then = best.get("rankscope prefer (before)")
        print(f"{best[name].wall_s / then.wall_s:>11.2f}x" if then else "")
    if len(best) == 2:
        here, then = best["rankscope prefer"], best["rankscope prefer (before)"]
        print(f"speed-up {then.wall_s / here.wall_s:.2f}x, peak {here.peak_mb:.0f} vs "
              f"{then.peak_mb:.0f} MB; outputs "
              f"{'identical' if here.output == then.output else 'DIFFER'}")  # fmt: skip


def main(argv: Sequence[str] | None = None) -> None:
    arguments = sys.argv[1:] if argv is None else list(argv)
    if arguments[:1] == ["--driver"]:
        driver = {"pytrec_eval": pytrec_eval_driver, "ranx": ranx_driver}[arguments[1]]
        driver(arguments[2], arguments[3:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", default="100", help="numbers of runs, comma-separated")
    parser.add_argument("--prefer", default="", help="numbers of runs for rankscope prefer "
                        "(comma-separated; default none)")  # fmt: skip
    parser.add_argument("--repeat", type=int, default=2, help="timed runs per row (best kept)")
    parser.add_argument("--before", type=Path, help="a src folder to time side by side")
    parser.add_argument("--no-peers", action="store_true",
                        help="rankscope's rows only (not pytrec_eval's and ranx's)")  # fmt: skip
    args = parser.parse_args(arguments)
    if not (DATA / "qrels.txt").exists():
        subprocess.run(
            [sys.executable, str(BENCH / "generate.py"), "--preset", "disjoint", "--runs", "100",
             "--out", str(DATA)], check=True,
        )  # fmt: skip
    runs = sorted((DATA / "runs").glob("run.*.txt"))
    for count in (int(n) for n in args.runs.split(",") if n):
        measure(count, runs, args.before, args.repeat, not args.no_peers)
    for count in (int(n) for n in args.prefer.split(",") if n):
        measure_prefer(count, runs, args.before, args.repeat)


if __name__ == "__main__":
    main()
