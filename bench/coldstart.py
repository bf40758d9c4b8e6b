"""The cold start of ``rankscope eval QRELS RUN`` (issue 24) on 250 queries x 1,000 documents,
side by side with the code before the issue's cold-start work, in one run.

    python bench/coldstart.py                         # data generated when missing
    python bench/coldstart.py --repeat 20 --baseline fb3a494 --trec-eval /path/to/trec_eval

Rows, each a fresh process timed by `run.py`'s harness (wall time around the process, CPU
seconds, peak RSS from ``wait4``), the files in the page cache and the bytecode compiled:

* ``python -c pass``: the interpreter alone, the floor of any Python tool;
* ``python -c "import numpy"``: the floor of every rankscope command (numpy is imported by
  any evaluation);
* ``rankscope eval`` from ``--baseline`` (a commit of this repository, default the one this
  work started from, extracted with ``git archive``; this tree's compiled reader copied
  beside it) and from this tree (``src``), official measures;
* ``trec_eval QRELS RUN`` when a binary is on ``PATH`` or given with ``--trec-eval``.

The rows take turns, one run of each per round, ``--repeat`` rounds, so that a busy machine
slows them alike; the median and the fastest of the rounds are printed, with the ratio of
each row's median to this tree's, and how many of rankscope's modules each tree's ``eval``
imports (``-X importtime``).  The two trees' outputs are compared byte for byte.

The rankscope rows are also run once a round as a script that prints its main thread's
CPU time at exit (`MAIN_THREAD`): the work the command waits on, the run being read ahead
in another thread meanwhile (`rankscope.read.ahead`).

``--instructions`` also counts the instructions each row executes, once, under valgrind's
callgrind (about a minute a row), in all and in the main thread: figures other processes on
a shared machine do not disturb, where wall and CPU times vary with the load.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from run import Sample, baseline_tree, ensure_data, run_once

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
#: main before issue 24's cold-start work
BASELINE = "fb3a494"


def modules_loaded(command: list[str], env: dict[str, str]) -> int:
    """How many of rankscope's modules ``command`` (a ``python -m rankscope`` line) imports."""
    traced = [command[0], "-X", "importtime", *command[1:]]
    err = subprocess.run(traced, env=env, capture_output=True, text=True, check=True).stderr
    names = {line.rsplit("|", 1)[-1].strip() for line in err.splitlines() if "|" in line}
    return sum(1 for name in names if name.split(".")[0] == "rankscope")


#: ``python -m rankscope ...`` as a script that also prints, at exit, its main thread's CPU
#: seconds (``time.thread_time``): the work the command waits on, whatever its other threads
#: (the run read ahead) do meanwhile; on an idle machine with a core to spare, the wall time
#: follows it, and a busy machine changes it less than the wall time.
MAIN_THREAD = (
    "import atexit, runpy, sys, time\n"
    "atexit.register(lambda: print('main thread', time.thread_time(), file=sys.stderr))\n"
    "sys.argv[0] = 'rankscope'\n"
    "runpy.run_module('rankscope', run_name='__main__', alter_sys=True)\n"
)


def main_thread_cpu(command: list[str], env: dict[str, str]) -> float:
    """The main thread's CPU seconds of ``command`` (a ``python -m rankscope`` line)."""
    traced = [command[0], "-c", MAIN_THREAD, *command[3:]]
    err = subprocess.run(traced, env=env, capture_output=True, text=True, check=True).stderr
    return float(err.strip().splitlines()[-1].split()[-1])


#: valgrind, for ``--instructions``
VALGRIND = shutil.which("valgrind") or "valgrind"


def instructions(command: list[str], env: dict[str, str]) -> tuple[int, int]:
    """How many instructions ``command`` executes, in all and in its main thread (valgrind's
    callgrind counts them, thread by thread: the main thread's file is the first)."""
    with tempfile.TemporaryDirectory() as folder:
        counted = [VALGRIND, "--tool=callgrind", "--separate-threads=yes",
                   f"--callgrind-out-file={folder}/out", *command]  # fmt: skip
        err = subprocess.run(counted, env=env, capture_output=True, text=True, check=True).stderr
        main = re.search(r"^summary: (\d+)", Path(f"{folder}/out-01").read_text(), re.MULTILINE)
    found = re.search(r"Collected : (\d+)", err)
    if found is None or main is None:
        raise RuntimeError(f"no instruction count from valgrind: {err[-300:]}")
    return int(found.group(1)), int(main.group(1))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=BENCH / "data" / "cold")
    parser.add_argument("--repeat", type=int, default=20, help="rounds (median, fastest)")
    parser.add_argument("--baseline", default=BASELINE, help=f"commit (default {BASELINE})")
    parser.add_argument("--trec-eval", help="a trec_eval binary (default: trec_eval on PATH)")
    parser.add_argument("--instructions", action="store_true",
                        help="also count each row's instructions once (valgrind)")  # fmt: skip
    args = parser.parse_args(argv)
    qrels, run = ensure_data(args.data, "cold")
    files = [str(qrels), str(run)]
    for path in files:  # into the page cache
        Path(path).read_bytes()
    # (bytecode written and read: a fresh process of an installed tool compiles nothing)
    unset = ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if k not in unset}
    head = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
                          capture_output=True, text=True).stdout.strip()  # fmt: skip
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; this tree {head}, "
          f"baseline {args.baseline}; {args.data}, {args.repeat} rounds")  # fmt: skip
    trec_eval = args.trec_eval or shutil.which("trec_eval")
    eval_line = [sys.executable, "-m", "rankscope", "eval", *files]
    with tempfile.TemporaryDirectory() as folder:
        old = baseline_tree(args.baseline, Path(folder))
        rows: dict[str, tuple[list[str], dict[str, str]]] = {
            "python -c pass": ([sys.executable, "-c", "pass"], env),
            "python -c 'import numpy'": ([sys.executable, "-c", "import numpy"], env),
            f"rankscope eval ({args.baseline})": (eval_line, {**env, "PYTHONPATH": str(old)}),
            "rankscope eval (this tree)": (eval_line, {**env, "PYTHONPATH": str(ROOT / "src")}),
        }
        if trec_eval:
            rows["trec_eval"] = ([trec_eval, *files], env)
        outputs = {name: run_once(*row).output for name, row in rows.items()}  # warm up
        ours = outputs["rankscope eval (this tree)"]
        theirs = outputs[f"rankscope eval ({args.baseline})"]
        counts = {name: modules_loaded(*rows[name]) for name in rows if "rankscope" in name}
        samples: dict[str, list[Sample]] = {name: [] for name in rows}
        main_cpu: dict[str, list[float]] = {name: [] for name in counts}
        for _ in range(args.repeat):
            for name, row in rows.items():
                samples[name].append(run_once(*row))
                if name in main_cpu:
                    main_cpu[name].append(main_thread_cpu(*row))
        counted = {name: instructions(*row) for name, row in rows.items() if args.instructions}
    ours_wall = statistics.median(s.wall_s for s in samples["rankscope eval (this tree)"])
    print("\n| row | median wall s | fastest s | median CPU s | main thread CPU s | peak MB "
          "| median / this tree | rankscope modules | instructions M | main thread M |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, taken in samples.items():
        wall = statistics.median(s.wall_s for s in taken)
        count = in_main = ""
        if name in counted:
            count, in_main = (f"{n / 1e6:,.0f}" for n in counted[name])
        main = f"{statistics.median(main_cpu[name]):.3f}" if name in main_cpu else ""
        print(f"| {name} | {wall:.3f} | {min(s.wall_s for s in taken):.3f} | "
              f"{statistics.median(s.cpu_s for s in taken):.3f} | {main} | "
              f"{max(s.peak_mb for s in taken):.0f} | {wall / ours_wall:.2f} | "
              f"{counts.get(name, '')} | {count} | {in_main} |")  # fmt: skip
    print(f"\noutputs of the two trees: {'identical' if ours == theirs else 'DIFFERENT'}")


if __name__ == "__main__":
    main()
