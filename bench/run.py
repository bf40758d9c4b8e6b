"""Time rankscope against its peers, as whole processes side by side on the same files.

    python bench/run.py                            # bench/data (generated when missing)
    python bench/run.py --repeat 5 --sets small --tools rankscope,pytrec_eval

Each tool runs in its own process and reads the files itself, so a timing is end to end:
interpreter start, imports, reading, evaluating and printing.  Wall time is measured around
the process, peak memory is the kernel's high-water mark of its resident set (``wait4``).
Every timing is the median of ``--repeat`` runs after the files are in the page cache.
ranx compiles its numba kernels on first use and caches them on disk: "ranx (cold)" starts
with an empty ``NUMBA_CACHE_DIR``, "ranx (warm)" reuses the cache the cold run filled.

Two measure sets: ``all_trec`` (``rankscope eval -m all_trec``; for each peer the closest
list it offers, see peers.py) and ``small`` (AP, nDCG, P@10, RR, nDCG@10).  Then the
cold-start check: ``rankscope eval`` with the official measures on 250 queries x 1,000.
The script prints; it asserts nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.metadata
import importlib.util
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

BENCH = Path(__file__).resolve().parent
PEERS = BENCH / "peers.py"
SETS = ("all_trec", "small")
TOOLS = ("rankscope", "trec_eval", "pytrec_eval", "ir_measures", "ranx")
DISTRIBUTIONS = {  # tool -> (module that must import, distribution whose version to show)
    "rankscope": ("rankscope", "rankscope"),
    "pytrec_eval": ("pytrec_eval", "pytrec-eval-terrier"),
    "ir_measures": ("ir_measures", "ir-measures"),
    "ranx": ("ranx", "ranx"),
}
TREC_EVAL_FLAGS = {  # rankscope eval takes trec_eval's options
    "all_trec": ["-m", "all_trec"],
    "small": ["-m", "map", "-m", "ndcg", "-m", "P.10", "-m", "recip_rank", "-m", "ndcg_cut.10"],
}
SMALL_SET_NAMES = {  # measure -> its name as trec_eval (and alikes), ir_measures, ranx print it
    "AP": ("map", "AP", "map"),
    "nDCG": ("ndcg", "nDCG", "ndcg"),
    "P@10": ("P_10", "P@10", "precision@10"),
    "RR": ("recip_rank", "RR", "mrr"),
    "nDCG@10": ("ndcg_cut_10", "nDCG@10", "ndcg@10"),
}
SPELLING = {"ir_measures": 1, "ranx (cold)": 2, "ranx (warm)": 2}  # else trec_eval's (0)
COLD_START_TARGET_S = 0.3
TARGETS = (  # (peer, how many times slower than rankscope it should be)
    ("pytrec_eval", 4.0),
    ("ranx (warm)", 10.0),
)
MEMORY_TARGET = ("pytrec_eval", 0.5)  # rankscope's peak at most this fraction of the peer's


@dataclasses.dataclass
class Sample:
    wall_s: float
    peak_mb: float
    output: str
    cpu_s: float = 0.0  # user + system seconds: steadier than wall time on a busy machine


@dataclasses.dataclass
class Result:
    tool: str
    measure_set: str
    wall_s: float | None = None
    peak_mb: float | None = None
    values: dict[str, float] = dataclasses.field(default_factory=dict)
    note: str = ""


class ToolFailed(Exception):
    pass


def run_once(command: Sequence[str], env: dict[str, str] | None = None) -> Sample:
    """Run ``command`` to completion; its wall time, peak RSS (MB) and standard output.

    Linux counts in a child's peak the memory it shared with this process when it was
    forked, so the figure cannot be below this process's own peak: keep it small.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            err.seek(0)
            lines = err.read().decode(errors="replace").strip().splitlines() or ["(no stderr)"]
            raise ToolFailed(f"exit {process.returncode}: {lines[-1]}")
        out.seek(0)
        # ru_maxrss is in KiB on Linux; report MB (10^6 bytes).
        return Sample(wall, usage.ru_maxrss * 1024 / 1e6, out.read().decode(errors="replace"),
                      usage.ru_utime + usage.ru_stime)  # fmt: skip


def baseline_tree(commit: str, into: Path, own_reader: bool = False) -> Path:
    """The ``src`` folder of ``commit`` (``git archive``) under ``into``, with this tree's
    compiled reader beside its pure-Python one, or (``own_reader``, to time a change of
    the reader itself) the commit's own, compiled as setup.py compiles it; and this tree's
    other compiled kernels where the commit has their very source."""
    archive = subprocess.run(
        ["git", "-C", str(BENCH.parent), "archive", "--format=tar", commit, "src"],
        check=True, capture_output=True,
    ).stdout  # fmt: skip
    with tempfile.TemporaryFile() as tar:
        tar.write(archive)
        tar.seek(0)
        with tarfile.open(fileobj=tar) as opened:
            opened.extractall(into, filter="data")
    if own_reader:
        from setuptools import Distribution, Extension

        source = into / "src/rankscope/model/_trecio.c"
        extension = Extension("rankscope.model._trecio", [str(source)], extra_compile_args=["-O2"])
        build = Distribution({"ext_modules": [extension]}).get_command_obj("build_ext")
        build.build_lib, build.build_temp = str(into / "src"), str(into / "build")  # type: ignore[attr-defined]
        build.ensure_finalized()
        build.run()
    else:
        for compiled in (BENCH.parent / "src/rankscope/model").glob("_trecio*.so"):
            shutil.copy(compiled, into / "src/rankscope/model" / compiled.name)
    # the other compiled kernels too (with ``own_reader`` as without), where the commit has
    # the same source: else it would time their numpy fallbacks
    for compiled in (BENCH.parent / "src/rankscope").glob("*/_*.so"):
        name = compiled.name.split(".")[0]
        if name == "_trecio":
            continue
        source = compiled.parent / f"{name}.c"
        theirs = into / "src/rankscope" / compiled.parent.name / f"{name}.c"
        if theirs.exists() and source.exists() and theirs.read_bytes() == source.read_bytes():
            shutil.copy(compiled, theirs.parent / compiled.name)
    bytecode(into / "src")
    return into / "src"


def bytecode(src: Path) -> None:
    """The modules under ``src`` compiled to bytecode beside them, as an installed package
    has them: a tree timed without (a fresh archive, or ``PYTHONDONTWRITEBYTECODE`` set)
    would compile every module it imports on every run (~0.1 s of CPU for ``eval``)."""
    import compileall

    compileall.compile_dir(str(src), quiet=1)


def summary_values(output: str) -> dict[str, float]:
    """``name all value`` lines of trec_eval-style output, numeric values only."""
    values = {}
    for line in output.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] == "all":
            try:
                values[fields[0]] = float(fields[2])
            except ValueError:
                pass  # runid, relstring
    return values


def median_result(tool: str, measure_set: str, samples: list[Sample]) -> Result:
    return Result(
        tool,
        measure_set,
        statistics.median(s.wall_s for s in samples),
        statistics.median(s.peak_mb for s in samples),
        summary_values(samples[-1].output),
    )


def rankscope_executable() -> str | None:
    beside = Path(sys.executable).with_name("rankscope")
    return str(beside) if beside.exists() else shutil.which("rankscope")


def commands(
    trec_eval: str | None, measure_set: str, qrels: Path, run: Path
) -> dict[str, list[str] | None]:
    """The command line of each tool, or None when it is not installed."""
    files = [str(qrels), str(run)]
    found = {
        tool: importlib.util.find_spec(module) is not None
        for tool, (module, _) in DISTRIBUTIONS.items()
    }
    rankscope = rankscope_executable() if found["rankscope"] else None
    flags = TREC_EVAL_FLAGS[measure_set]
    table: dict[str, list[str] | None] = {
        "rankscope": [rankscope, "eval", *flags, *files] if rankscope else None,
        "trec_eval": [trec_eval, *flags, *files] if trec_eval else None,
    }
    for peer in ("pytrec_eval", "ir_measures", "ranx"):
        driver = [sys.executable, str(PEERS), peer, measure_set, *files]
        table[peer] = driver if found[peer] else None
    return table


def time_tool(
    tool: str, command: list[str], measure_set: str, repeat: int, cold_repeat: int
) -> list[Result]:
    """Median timings of one tool; ranx gives a cold and a warm result."""
    if tool != "ranx":
        return [median_result(tool, measure_set, [run_once(command) for _ in range(repeat)])]
    with tempfile.TemporaryDirectory(prefix="numba-cache-") as caches:
        cold = []
        for number in range(max(cold_repeat, 1)):  # each from an empty cache
            env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(caches) / str(number))}
            cold.append(run_once(command, env))
        warm = [run_once(command, env) for _ in range(repeat)]
    return [
        median_result("ranx (cold)", measure_set, cold),
        median_result("ranx (warm)", measure_set, warm),
    ]


def benchmark(
    tools: Sequence[str],
    measure_set: str,
    qrels: Path,
    run: Path,
    repeat: int,
    cold_repeat: int,
    trec_eval: str | None,
) -> list[Result]:
    results = []
    for tool, command in commands(trec_eval, measure_set, qrels, run).items():
        if tool not in tools:
            continue
        if command is None:
            results.append(Result(tool, measure_set, note="not installed"))
            continue
        print(f"  {measure_set:8}  {tool} ...", end="", flush=True)
        try:
            timed = time_tool(tool, command, measure_set, repeat, cold_repeat)
        except ToolFailed as failure:
            timed = [Result(tool, measure_set, note=f"failed ({failure})")]
        print(" " + ", ".join(f"{r.wall_s:.1f} s" if r.wall_s else r.note for r in timed))
        results.extend(timed)
    return results


def ratio(numerator: float | None, denominator: float | None) -> str:
    return f"{numerator / denominator:.2f}" if numerator and denominator else "-"


def print_table(results: list[Result]) -> None:
    harness = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6
    print(f"\n(peak MB cannot go below this harness's own peak, {harness:.0f} MB)")
    print(
        f"{'tool':14} {'set':9} {'wall s':>8} {'peak MB':>8} {'wall / rankscope':>17}"
        f" {'peak / rankscope':>17} {'values':>6}"
    )
    for measure_set in SETS:
        rows = [r for r in results if r.measure_set == measure_set]
        base = next((r for r in rows if r.tool == "rankscope"), Result("", ""))
        for r in rows:
            if r.wall_s is None or r.peak_mb is None:
                print(f"{r.tool:14} {measure_set:9} {r.note}")
                continue
            print(
                f"{r.tool:14} {measure_set:9} {r.wall_s:8.2f} {r.peak_mb:8.0f}"
                f" {ratio(r.wall_s, base.wall_s):>17} {ratio(r.peak_mb, base.peak_mb):>17}"
                f" {len(r.values):6}"
            )


def print_targets(results: list[Result]) -> None:
    lines = []
    for measure_set in SETS:
        wall = {r.tool: r.wall_s for r in results if r.measure_set == measure_set and r.wall_s}
        peak = {r.tool: r.peak_mb for r in results if r.measure_set == measure_set and r.peak_mb}
        if "rankscope" not in wall or "rankscope" not in peak:
            continue
        for peer, times in TARGETS:
            if peer in wall:
                speedup = wall[peer] / wall["rankscope"]
                verdict = "met" if speedup >= times else "NOT met"
                lines.append(
                    f"  {measure_set:8}  {speedup:5.2f}x faster than {peer}"
                    f" (target >= {times:g}x): {verdict}"
                )
        peer, fraction = MEMORY_TARGET
        if peer in peak:
            share = peak["rankscope"] / peak[peer]
            verdict = "met" if share <= fraction else "NOT met"
            lines.append(
                f"  {measure_set:8}  peak memory {share:5.2f} of {peer}'s"
                f" (target <= {fraction:g}): {verdict}"
            )
    if lines:
        print("\nTargets (end to end, warm page cache):", *lines, sep="\n")


def print_agreement(results: list[Result]) -> None:
    """The small set's values side by side, and rankscope against trec_eval's C code."""
    small = [r for r in results if r.measure_set == "small" and r.values]
    if small:
        print("\nValues, small set:")
        print(f"  {'measure':9}" + "".join(f"{r.tool:>14}" for r in small) + "  max difference")
        for label, spellings in SMALL_SET_NAMES.items():
            row = [r.values.get(spellings[SPELLING.get(r.tool, 0)]) for r in small]
            shown = "".join(f"{v:14.4f}" if v is not None else f"{'-':>14}" for v in row)
            present = [v for v in row if v is not None]
            print(f"  {label:9}{shown}  {max(present) - min(present):.4f}")
    full = {r.tool: r.values for r in results if r.measure_set == "all_trec" and r.values}
    for reference in ("trec_eval", "pytrec_eval"):
        if "rankscope" in full and reference in full:
            ours, theirs = full["rankscope"], full[reference]
            common = sorted(set(ours) & set(theirs))
            differ = [n for n in common if abs(ours[n] - theirs[n]) > 1.5e-4]
            print(
                f"\nall_trec, rankscope vs {reference}: {len(common)} common values, "
                f"{len(differ)} differ by more than rounding{': ' if differ else ''}"
                + ", ".join(f"{n} {ours[n]:.4f} vs {theirs[n]:.4f}" for n in differ)
            )
            if differ and reference == "pytrec_eval":
                print(
                    "  (pytrec_eval embeds trec_eval 9; rankscope follows trec_eval 10, whose "
                    "iprec_at_recall and 11pt_avg differ: see bench/README.md)"
                )


def cold_start(rankscope: str, data: Path, repeat: int) -> Result:
    """``rankscope eval QRELS RUN`` (official measures) as a fresh process, median wall time."""
    command = [rankscope, "eval", str(data / "qrels.txt"), str(data / "run.1.txt")]
    run_once(command)  # page cache and bytecode cache
    samples = [run_once(command) for _ in range(repeat)]
    wall = statistics.median(s.wall_s for s in samples)
    peak = statistics.median(s.peak_mb for s in samples)
    python = run_once([sys.executable, "-c", "pass"])
    verdict = "pass" if wall <= COLD_START_TARGET_S else "FAIL"
    lines = count_lines(data / "run.1.txt")
    print(
        f"\nCold start, `rankscope eval` (official measures), {lines:,} run lines:"
        f" median {wall:.3f} s of {repeat}, peak {peak:.0f} MB"
        f" (target <= {COLD_START_TARGET_S} s): {verdict}\n  for scale, `python -c pass`:"
        f" {python.wall_s:.3f} s, {python.peak_mb:.0f} MB"
    )
    return Result("rankscope", "cold start", wall, peak, summary_values(samples[-1].output))


def ensure_data(folder: Path, preset: str) -> tuple[Path, Path]:
    qrels, run = folder / "qrels.txt", folder / "run.1.txt"
    if not (qrels.exists() and run.exists()):
        print(f"generating {folder} (preset {preset}) ...", flush=True)
        generator = [sys.executable, str(BENCH / "generate.py"), "--preset", preset]
        subprocess.run([*generator, "--out", str(folder)], check=True)
    return qrels, run


def count_lines(path: Path) -> int:
    """Lines of a file, read in chunks: this process must stay small (see `run_once`)."""
    with path.open("rb") as lines:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: lines.read(1 << 20), b""))


def git_revision(module: str) -> str:
    """The commit (and ``-dirty``) of a module imported from a git checkout, else ''."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return ""
    described = subprocess.run(
        ["git", "describe", "--always", "--dirty"],
        cwd=Path(spec.origin).parent,
        capture_output=True,
        text=True,
    )
    return f" (git {described.stdout.strip()})" if described.returncode == 0 else ""


def describe(qrels: Path, run: Path) -> None:
    """Print the setting and read both files once, so that every tool finds them cached."""
    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs")
    for tool, (module, distribution) in DISTRIBUTIONS.items():
        try:
            version = importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            print(f"  {tool:12} not installed")
        else:
            print(f"  {tool:12} {version}{git_revision(module)}")
    for path in (qrels, run):
        print(f"  {path}: {count_lines(path):,} lines, {path.stat().st_size / 1e6:.0f} MB")
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("  PYTHONDONTWRITEBYTECODE is set: modules without a .pyc are compiled at each start")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=BENCH / "data", help="qrels.txt, run.1.txt")
    parser.add_argument("--cold-data", type=Path, default=BENCH / "data" / "cold")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per tool (median)")
    parser.add_argument("--cold-repeat", type=int, default=1, help="ranx runs from empty caches")
    parser.add_argument("--startup-repeat", type=int, default=10, help="cold-start runs; 0 skips")
    parser.add_argument("--tools", default=",".join(TOOLS), help="comma-separated subset")
    parser.add_argument("--sets", default=",".join(SETS), help="all_trec, small or both")
    parser.add_argument("--trec-eval", default=shutil.which("trec_eval"), help="trec_eval binary")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    tools, sets = args.tools.split(","), args.sets.split(",")
    if not set(tools) <= set(TOOLS) or not set(sets) <= set(SETS):
        parser.error(f"--tools takes {','.join(TOOLS)}; --sets takes {','.join(SETS)}")

    qrels, run = ensure_data(args.data, "msmarco")
    describe(qrels, run)
    results = []
    for measure_set in sets:
        results += benchmark(
            tools, measure_set, qrels, run, args.repeat, args.cold_repeat, args.trec_eval
        )
    print_table(results)
    print_targets(results)
    print_agreement(results)
    rankscope = rankscope_executable()
    if args.startup_repeat and rankscope:
        ensure_data(args.cold_data, "cold")
        results.append(cold_start(rankscope, args.cold_data, args.startup_repeat))
    if args.json:
        rows = [{k: v for k, v in dataclasses.asdict(r).items() if k != "values"} for r in results]
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
