"""Scale benchmarks (issue 12): whole tracks, every core, the 7M-line run, the cold start.

    python bench/scale.py                             # every row; data generated when missing
    python bench/scale.py --rows track,cold --repeat 3

Rows, each timed as whole processes on the same files (`run.py`'s harness: a fresh process
per timing, wall time around it, peak RSS from ``wait4``, median of ``--repeat``; a row's
commands in rounds, each once a round, so that ratios are also taken round by round):

1. ``track``: 40 runs x 250 queries x 1,000 documents drawn from a shared pool per query,
   one qrels (``generate.py --preset track``): ``rankscope eval QRELS runs/`` against a
   pytrec_eval loop over the same files (one process: qrels read once, one evaluator, each
   run read and evaluated in turn; `peers.py`).
2. ``disjoint``: 40 independent runs x 250 x 1,000 (``generate.py --preset disjoint``, the
   files of ``--runs 40 --queries 250``), the same two commands.
3. ``single``: the 7M-line run (``generate.py``): ``rankscope eval QRELS RUN`` against
   pytrec_eval, and against trec_eval itself when a binary is on ``PATH`` or given with
   ``--trec-eval`` (issue 24's targets: >= 6x trec_eval with ``--jobs 1`` on one core, a
   row of its own under ``taskset`` when it is on ``PATH``, >= 10x with ``--jobs 2``).
4. ``cold``: ``rankscope eval QRELS RUN`` on 250 x 1,000 (``generate.py --preset cold``),
   median of ``--cold-repeat`` fresh processes.
5. ``large``: a run larger than memory is wise to hold, 100,000 x 1,000 = 100M lines
   (``generate.py --preset large``, 3.9 GB): rankscope evaluating it block by block with
   ``--jobs 1`` and ``--jobs 2``, against rankscope reading it whole (``--block-mb`` beyond
   its length).  No peer: pytrec_eval would hold 100M entries in Python dicts.  Not in the
   default rows (generating it takes two minutes; give ``--rows large``).

When ``rankscope eval --help`` lists ``--jobs``, rankscope runs with ``--jobs 1`` and
``--jobs 2`` (rows 1-3); otherwise once, as it is.  Measures: trec_eval's official set (what
``rankscope eval`` prints without ``-m``) unless ``--measures`` says otherwise.  Ratios are
to the fastest rankscope row of the case; the issue's targets are printed next to the
figures with met / NOT met (against trec_eval, also the median of the rounds' ratios: the
machine's speed drifts by ±10% within minutes, and two runs of one tree a minute apart
differed by as much as the changes measured).  The values of both tools are compared too.
``--baseline COMMIT`` times that commit's tree (its compiled reader built from its own
source) beside each rankscope row of rows 1-3, in the same rounds, and prints the ratios
and whether the output is the same bytes (issue 24's one-run part: ``--rows single --measures small
--baseline 0f8db29 --trec-eval PATH``).  Prints; asserts nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from run import (
    BENCH,
    PEERS,
    TREC_EVAL_FLAGS,
    Sample,
    ToolFailed,
    baseline_tree,
    bytecode,
    count_lines,
    git_revision,
    rankscope_executable,
    run_once,
)

ROWS = ("track", "disjoint", "single", "cold", "large")
DEFAULT_ROWS = ROWS[:4]
MEASURE_FLAGS = {"official": [], **TREC_EVAL_FLAGS}
# The targets.
TRACK_SPEEDUP_TARGET = 7.0  # x the pytrec_eval loop
TRACK_PEAK_TARGET_MB = 400.0
SINGLE_WALL_TARGET_S = 1.0
SINGLE_SPEEDUP_TARGET = 10.0
# issue 24: the single run against trec_eval 10.0, per rankscope row
ONE_CORE = "rankscope --jobs 1, one core"  # (under ``taskset``: one core, truly)
TREC_EVAL_TARGETS = {"rankscope --jobs 1": 6.0, ONE_CORE: 6.0, "rankscope --jobs 2": 10.0}
TREC_EVAL_TOOL = "trec_eval"
# rankscope's peak on the 7M-line run before issue 12 (measured here, official measures, at
# 6a441f5; bench/README.md "Scale"): the target is "memory no worse than today's".
SINGLE_BASELINE_PEAK_MB = 540.0
BASELINE_TOOL = "baseline"  # the name of --baseline's rows
COLD_TARGET_S = 0.15


@dataclasses.dataclass
class Case:
    row: str
    title: str
    preset: str
    folder: Path
    runs: Path  # a folder of runs or one run file

    @property
    def qrels(self) -> Path:
        return self.folder / "qrels.txt"


@dataclasses.dataclass
class Timing:
    row: str
    tool: str
    wall_s: float | None = None
    peak_mb: float | None = None
    cpu_s: float | None = None  # user + system: steadier than wall time on a busy machine
    note: str = ""
    values: dict[tuple[str, str], float] = dataclasses.field(default_factory=dict)
    output: str = ""
    walls: list[float] = dataclasses.field(default_factory=list)  # one per round, in order


def cases(data: Path) -> dict[str, Case]:
    return {
        "track": Case(
            "track",
            "40 runs x 250 x 1,000, shared pool",
            "track",
            data / "track",
            data / "track" / "runs",
        ),
        "disjoint": Case(
            "disjoint",
            "40 runs x 250 x 1,000, disjoint documents",
            "disjoint",
            data / "disjoint",
            data / "disjoint" / "runs",
        ),
        "single": Case("single", "one run, 7,000 x 1,000", "msmarco", data, data / "run.1.txt"),
        "cold": Case(
            "cold", "cold start, 250 x 1,000", "cold", data / "cold", data / "cold" / "run.1.txt"
        ),
        "large": Case(
            "large", "one run of 100M lines, 100,000 x 1,000", "large", data / "large",
            data / "large" / "run.1.txt",
        ),  # fmt: skip
    }


def ensure(case: Case) -> None:
    present = case.qrels.exists() and (
        any(case.runs.iterdir()) if case.runs.is_dir() else case.runs.exists()
    )
    if not present:
        print(f"generating {case.folder} (preset {case.preset}) ...", flush=True)
        generator = [sys.executable, str(BENCH / "generate.py"), "--preset", case.preset]
        subprocess.run([*generator, "--out", str(case.folder)], check=True)


def run_files(case: Case) -> list[Path]:
    return (
        sorted(p for p in case.runs.iterdir() if p.is_file()) if case.runs.is_dir() else [case.runs]
    )


def describe(case: Case) -> None:
    """Print the files' sizes, reading each once so that every tool finds them cached."""
    files = run_files(case)
    lines = sum(count_lines(path) for path in files)
    size = sum(path.stat().st_size for path in files) / 1e6
    print(
        f"\n{case.row}: {case.title} — qrels {count_lines(case.qrels):,} lines;"
        f" {len(files)} run file(s), {lines:,} lines, {size:.0f} MB"
    )


def parse_values(output: str) -> dict[tuple[str, str], float]:
    """Summary values keyed by (run, measure): trec_eval's ``name all value`` lines (run
    ``""``), rankscope's table rows and the pytrec_eval loop's ``run all name value`` lines."""
    values = {}
    for line in output.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] == "all":
            key, text = ("", fields[0]), fields[2]
        elif len(fields) == 4 and fields[1] == "all":
            key, text = (fields[0], fields[2]), fields[3]
        else:
            continue
        try:
            values[key] = float(text)
        except ValueError:
            pass  # runid
    return values


def timed(
    row: str, tool: str, command: list[str], repeat: int, env: dict[str, str] | None = None
) -> Timing:
    return rounds(row, [(tool, command, env)], repeat)[0]


def rounds(
    row: str, commands: Sequence[tuple[str, list[str], dict[str, str] | None]], repeat: int
) -> list[Timing]:
    """Each of ``commands`` (tool, command, environment) timed ``repeat`` times, in rounds:
    every command once a round, in turn (the first of each round the next command): the
    machine's speed drifts by ±10% over minutes, so each round's ratios between the tools
    (`per_round`) are steadier than ratios of medians taken minutes apart."""
    samples: dict[str, list[Sample]] = {tool: [] for tool, _, _ in commands}
    failed: dict[str, str] = {}
    for turn in range(repeat):
        print(f"  round {turn + 1}/{repeat}:", end="", flush=True)
        for k in range(len(commands)):
            tool, command, env = commands[(k + turn) % len(commands)]
            if tool in failed:
                continue
            try:
                samples[tool].append(run_once(command, env))
            except ToolFailed as failure:
                failed[tool] = f"failed ({failure})"
                continue
            print(f" {tool} {samples[tool][-1].wall_s:.2f} s;", end="", flush=True)
        print()
    out = []
    for tool, _, _ in commands:
        taken = samples[tool]
        if tool in failed:
            out.append(Timing(row, tool, note=failed[tool]))
            continue
        out.append(Timing(
            row, tool,
            statistics.median(s.wall_s for s in taken),
            statistics.median(s.peak_mb for s in taken),
            statistics.median(s.cpu_s for s in taken),
            values=parse_values(taken[-1].output),
            output=taken[-1].output,
            walls=[s.wall_s for s in taken],
        ))  # fmt: skip
        r = out[-1]
        print(f"  {tool:22} {r.wall_s:.2f} s, {r.peak_mb:.0f} MB, CPU {r.cpu_s:.2f} s")
    return out


def per_round(numerator: Timing, denominator: Timing) -> str:
    """The median over the rounds of ``numerator``'s wall time over ``denominator``'s in
    the same round, with the lowest and highest (when both ran every round)."""
    if len(numerator.walls) != len(denominator.walls) or not numerator.walls:
        return ""
    ratios = sorted(a / b for a, b in zip(numerator.walls, denominator.walls, strict=True))
    if len(ratios) == 1:
        return f"{ratios[0]:.2f}x in its round"
    return (
        f"{statistics.median(ratios):.2f}x round by round ({ratios[0]:.2f}-{ratios[-1]:.2f},"
        f" {len(ratios)} rounds)"
    )


def has_jobs(rankscope: list[str]) -> bool:
    described = subprocess.run([*rankscope, "eval", "--help"], capture_output=True, text=True)
    return "--jobs" in described.stdout


def variants(jobs: bool, one_core: bool = False) -> list[tuple[str, list[str], list[str]]]:
    """The rankscope rows: each one's name, the command's prefix and its options; with
    ``one_core`` (a row of one run file, ``taskset`` on ``PATH``), ``--jobs 1`` on one
    core too (``--jobs 1`` alone uses two: a block parsed beside the judging of the one
    before)."""
    if not jobs:
        return [("rankscope", [], [])]
    rows = [
        ("rankscope --jobs 1", [], ["--jobs", "1"]),
        ("rankscope --jobs 2", [], ["--jobs", "2"]),
    ]
    taskset = shutil.which("taskset")
    if one_core and taskset and hasattr(os, "sched_getaffinity"):
        core = str(min(os.sched_getaffinity(0)))
        rows.append((ONE_CORE, [taskset, "-c", core], ["--jobs", "1"]))
    return rows


def measure_case(
    case: Case, rankscope: list[str], jobs: bool, measures: str, repeat: int,
    baseline: Path | None = None, trec_eval: str | None = None,
) -> list[Timing]:
    """The case's rankscope rows (each after the same command from ``baseline``, a
    `baseline_tree`'s ``src``, when given), its peer, and ``trec_eval`` (a binary) on a
    case of one run file."""
    flags = MEASURE_FLAGS[measures]
    files = [str(case.qrels), str(case.runs)]
    commands: list[tuple[str, list[str], dict[str, str] | None]] = []
    for tool, prefix, extra in variants(jobs, one_core=not case.runs.is_dir()):
        if baseline is not None:
            old = [*prefix, sys.executable, "-m", "rankscope", "eval", *extra, *flags, *files]
            env = {**os.environ, "PYTHONPATH": str(baseline)}
            commands.append((tool.replace("rankscope", BASELINE_TOOL), old, env))
        commands.append((tool, [*prefix, *rankscope, "eval", *extra, *flags, *files], None))
    loop = "pytrec_eval loop" if case.runs.is_dir() else "pytrec_eval"
    peer = [sys.executable, str(PEERS), "pytrec_eval", measures, *files]
    missing = []
    try:
        import pytrec_eval  # noqa: F401  (only whether it is installed)
    except ImportError:
        missing.append(Timing(case.row, loop, note="not installed"))
    else:
        commands.append((loop, peer, None))
    if trec_eval and not case.runs.is_dir():
        commands.append((TREC_EVAL_TOOL, [trec_eval, *flags, *files], None))
    return rounds(case.row, commands, repeat) + missing


def large_run(case: Case, rankscope: list[str], repeat: int) -> list[Timing]:
    """Block by block on 1 and 2 cores, and read whole."""
    files = [str(case.qrels), str(case.runs)]
    out = []
    for tool, extra in [
        ("rankscope --jobs 1", ["--jobs", "1"]),
        ("rankscope --jobs 2", ["--jobs", "2"]),
        ("rankscope, read whole", ["--jobs", "1", "--block-mb", str(1 << 20)]),
    ]:
        out.append(timed(case.row, tool, [*rankscope, "eval", *extra, *files], repeat))
    return out


def cold_start(case: Case, rankscope: list[str], repeat: int) -> list[Timing]:
    command = [*rankscope, "eval", str(case.qrels), str(case.runs)]
    run_once(command)  # page cache and bytecode cache
    result = timed(case.row, "rankscope", command, repeat)
    python = run_once([sys.executable, "-c", "pass"])
    result.note = f"median of {repeat}; `python -c pass` {python.wall_s:.3f} s"
    return [result]


def fastest_rankscope(rows: list[Timing]) -> Timing | None:
    ours = [r for r in rows if r.tool.startswith("rankscope") and r.wall_s]
    return min(ours, key=lambda r: r.wall_s or 0.0) if ours else None


def ratio(numerator: float | None, denominator: float | None) -> str:
    return f"{numerator / denominator:.2f}" if numerator and denominator else "-"


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def targets(row: str, rows: list[Timing]) -> list[str]:
    """The issue's targets for one case, with each rankscope row's figures."""
    peer = next((r for r in rows if r.tool.startswith("pytrec_eval") and r.wall_s), None)
    lines = []
    for ours in (r for r in rows if r.tool.startswith("rankscope") and r.wall_s and r.peak_mb):
        wall, peak = ours.wall_s or 0.0, ours.peak_mb or 0.0
        speedup = peer.wall_s / wall if peer and peer.wall_s else None
        shown = f"{speedup:.2f}x {peer.tool}" if peer and speedup else "no peer"
        track_fast = speedup is not None and speedup >= TRACK_SPEEDUP_TARGET
        single_fast = speedup is not None and speedup >= SINGLE_SPEEDUP_TARGET
        if row == "track":
            lines.append(
                f"{ours.tool}: {shown} (target >= {TRACK_SPEEDUP_TARGET:g}x):"
                f" {verdict(track_fast)};"
                f" peak {peak:.0f} MB (target <= {TRACK_PEAK_TARGET_MB:g} MB):"
                f" {verdict(peak <= TRACK_PEAK_TARGET_MB)}"
            )
        elif row == "disjoint":
            lines.append(
                f"{ours.tool}: {shown}, peak {peak:.0f} MB (no target of its own; the"
                f" issue's figures for it: 10-12 s and 1.2 GB against 15 s)"
            )
        elif row == "single":
            lines.append(
                f"{ours.tool}: {wall:.2f} s (target <= {SINGLE_WALL_TARGET_S:g} s):"
                f" {verdict(wall <= SINGLE_WALL_TARGET_S)}; {shown} (target >="
                f" {SINGLE_SPEEDUP_TARGET:g}x): {verdict(single_fast)};"
                f" peak {peak:.0f} MB (target <= today's {SINGLE_BASELINE_PEAK_MB:g} MB):"
                f" {verdict(peak <= SINGLE_BASELINE_PEAK_MB)}"
            )
            reference = next((r for r in rows if r.tool == TREC_EVAL_TOOL and r.wall_s), None)
            target = TREC_EVAL_TARGETS.get(ours.tool)
            if reference and reference.wall_s and target:
                times = reference.wall_s / wall
                steady = per_round(reference, ours)
                lines.append(
                    f"{ours.tool}: {times:.2f}x trec_eval (issue 24: >= {target:g}x):"
                    f" {verdict(times >= target)}" + (f"; {steady}" if steady else "")
                )
        elif row == "cold":
            lines.append(
                f"{ours.tool}: {wall:.3f} s (target <= {COLD_TARGET_S:g} s, trec_eval's time):"
                f" {verdict(wall <= COLD_TARGET_S)}"
            )
    if row == "large":
        whole = next((r for r in rows if r.tool.endswith("read whole") and r.peak_mb), None)
        for ours in (r for r in rows if r.tool.startswith("rankscope --jobs") and r.peak_mb):
            if whole and whole.peak_mb and ours.peak_mb:
                lines.append(
                    f"{ours.tool}: peak {ours.peak_mb:.0f} MB, {whole.peak_mb / ours.peak_mb:.1f}x"
                    f" less than reading it whole ({whole.peak_mb:.0f} MB)"
                )
    return lines


def against_baseline(rows: list[Timing]) -> list[str]:
    """Each rankscope row against the baseline's row of the same ``--jobs``: wall time,
    peak memory, their ratios, and whether the output is the same bytes."""
    lines = []
    for old in (r for r in rows if r.tool.startswith(BASELINE_TOOL) and r.wall_s and r.peak_mb):
        tool = old.tool.replace(BASELINE_TOOL, "rankscope")
        new = next((r for r in rows if r.tool == tool and r.wall_s and r.peak_mb), None)
        if new is None or not (new.wall_s and new.peak_mb and old.wall_s and old.peak_mb):
            continue
        lines.append(
            f"{tool}: {old.wall_s:.2f} -> {new.wall_s:.2f} s ({old.wall_s / new.wall_s:.2f}x"
            f" faster), peak {old.peak_mb:.0f} -> {new.peak_mb:.0f} MB"
            f" ({new.peak_mb / old.peak_mb:.2f}x), CPU {old.cpu_s or 0.0:.2f} ->"
            f" {new.cpu_s or 0.0:.2f} s; output the same bytes:"
            f" {'yes' if old.output == new.output else 'NO'}"
            + (f"; faster {steady}" if (steady := per_round(old, new)) else "")
        )
    return lines


def agreement(rows: list[Timing], reference: str = "pytrec_eval") -> str | None:
    """rankscope's values against the ``reference`` tool's (pytrec_eval, trec_eval), over
    the (run, measure) pairs both print."""
    peer = next((r for r in rows if r.tool.startswith(reference) and r.values), None)
    ours = next((r for r in rows if r.tool.startswith("rankscope") and r.values), None)
    if peer is None or ours is None:
        return None
    common = sorted(set(ours.values) & set(peer.values))
    differ = sorted({m for (r, m) in common if abs(ours.values[r, m] - peer.values[r, m]) > 1.5e-4})
    runs = len({run for run, _ in ours.values})
    note = ""
    if differ and all(m.startswith("iprec_at_recall") for m in differ):
        note = " (trec_eval 10 against pytrec_eval's trec_eval 9: see 'Agreement' in README.md)"
    return (
        f"values: rankscope printed {runs} run(s); {len(common)} (run, measure) values in"
        f" common with {peer.tool}, measures differing beyond rounding:"
        f" {', '.join(differ) if differ else 'none'}{note}"
    )


def print_report(results: list[Timing], selected: Sequence[str]) -> None:
    print(
        f"\n{'row':9} {'tool':22} {'wall s':>8} {'peak MB':>8} {'wall / rankscope':>17}"
        f" {'peak / rankscope':>17} {'CPU s':>7} {'CPU / rankscope':>16}"
    )
    for row in selected:
        rows = [r for r in results if r.row == row]
        base = fastest_rankscope(rows)
        for r in rows:
            if r.wall_s is None or r.peak_mb is None:
                print(f"{row:9} {r.tool:22} {r.note}")
                continue
            mark = " *" if r is base and len(rows) > 1 else ""
            print(
                f"{row:9} {r.tool:22} {r.wall_s:8.2f} {r.peak_mb:8.0f}"
                f" {ratio(r.wall_s, base and base.wall_s):>17}"
                f" {ratio(r.peak_mb, base and base.peak_mb):>17}"
                f" {r.cpu_s or 0.0:7.2f} {ratio(r.cpu_s, base and base.cpu_s):>16}{mark}"
                + (f"  ({r.note})" if r.note else "")
            )
    print("(* the fastest rankscope row, to which the ratios are)")
    print("\nTargets (issue 12; end to end, warm page cache):")
    for row in selected:
        rows = [r for r in results if r.row == row]
        for line in targets(row, rows):
            print(f"  {row:9} {line}")
        for line in against_baseline(rows):
            print(f"  {row:9} against the baseline: {line}")
        for reference in ("pytrec_eval", TREC_EVAL_TOOL):
            checked = agreement(rows, reference)
            if checked:
                print(f"  {row:9} {checked}")
        ours = [r for r in rows if r.tool.startswith("rankscope") and r.output]
        if len(ours) > 1:
            same = all(r.output == ours[0].output for r in ours[1:])
            print(
                f"  {row:9} output of every rankscope row (--jobs, blocks) byte-identical:"
                f" {'yes' if same else 'NO'}"
            )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=BENCH / "data", help="bench/data")
    parser.add_argument(
        "--rows", default=",".join(DEFAULT_ROWS), help=f"comma-separated, of {','.join(ROWS)}"
    )
    parser.add_argument("--repeat", type=int, default=1, help="timed runs per tool (median)")
    parser.add_argument("--cold-repeat", type=int, default=10, help="cold-start runs")
    parser.add_argument(
        "--measures", choices=sorted(MEASURE_FLAGS), default="official", help="(default official)"
    )
    parser.add_argument(
        "--rankscope",
        help="the rankscope command (default: the `rankscope` beside this Python, or on PATH)",
    )
    parser.add_argument(
        "--baseline",
        help="a commit whose own tree (its compiled reader built from its source) is timed"
        " before this one's on the track, disjoint and single rows",
    )
    parser.add_argument(
        "--trec-eval",
        default=shutil.which("trec_eval"),
        help="a trec_eval binary, timed on the single row (default: trec_eval on PATH)",
    )
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    selected = args.rows.split(",")
    if not set(selected) <= set(ROWS):
        parser.error(f"--rows takes {','.join(ROWS)}")
    found = args.rankscope or rankscope_executable()
    if not found:
        parser.error("no rankscope command: install it or give --rankscope")
    rankscope = shlex.split(found) if args.rankscope else [found]
    jobs = has_jobs(rankscope)

    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs")
    print(f"  rankscope: {' '.join(rankscope)}{git_revision('rankscope')}")
    print(f"  --jobs: {'listed, timing --jobs 1 and --jobs 2' if jobs else 'not listed'}")
    print(f"  measures: {args.measures}")
    print(f"  trec_eval: {args.trec_eval or 'none (give --trec-eval PATH)'}")
    table = cases(args.data)
    results: list[Timing] = []
    bytecode(BENCH.parent / "src")  # (this tree's, as the baseline's: `run.baseline_tree`)
    folder = tempfile.TemporaryDirectory(prefix="scale-baseline-")
    baseline = None
    if args.baseline:
        print(f"  baseline: {args.baseline} (rows '{BASELINE_TOOL} ...'), its reader compiled")
        baseline = baseline_tree(args.baseline, Path(folder.name), own_reader=True)
    for row in selected:
        case = table[row]
        ensure(case)
        describe(case)
        if row == "cold":
            results += cold_start(case, rankscope, args.cold_repeat)
        elif row == "large":
            results += large_run(case, rankscope, args.repeat)
        else:
            results += measure_case(
                case, rankscope, jobs, args.measures, args.repeat, baseline, args.trec_eval
            )
    folder.cleanup()
    print_report(results, selected)
    if args.json:
        rows = [
            {k: v for k, v in dataclasses.asdict(r).items() if k not in ("values", "output")}
            for r in results
        ]
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
