"""Differential fuzzing of the two TREC readers with a longer budget than the tests'.

    python bench/fuzz.py --seconds 600          # fuzz for ten minutes
    python bench/fuzz.py --examples 20000       # or a number of inputs

Draws inputs with the strategies of ``tests/test_reader_fuzz.py`` (arbitrary bytes and
near-valid qrels and runs, read in pieces of drawn sizes, plain or gzipped), gives each to
every TREC entry point with the compiled and the pure-Python reader, and prints the figures:
inputs tried, bytes, what the compiled reader did per entry point (accepted/rejected), and
every disagreement found (none is raised: the run goes on and lists them at the end, the
smallest first, ready to add to ``REGRESSIONS``).  Hypothesis runs in batches of fresh random
seeds, without shrinking.  Exits 1 when any disagreement was found.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.test_reader_fuzz import compare_all, trec_files  # noqa: E402

from rankscope.model._native import native  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--seconds", type=float, help="fuzz for this long (default 60)")
    budget.add_argument("--examples", type=int, help="fuzz this many inputs")
    parser.add_argument("--batch", type=int, default=500, help="inputs per hypothesis run")
    parser.add_argument("--show", type=int, default=5, help="disagreements printed in full")
    args = parser.parse_args(argv)
    if native() is None:
        print("the compiled reader is not built: nothing to compare", file=sys.stderr)
        return 2
    seconds = args.seconds if args.examples is None else None
    seconds = 60.0 if seconds is None and args.examples is None else seconds

    tally: Counter[tuple[str, str]] = Counter()
    found: list[tuple[tuple, str]] = []
    stats = Counter[str]()
    start = time.perf_counter()

    def out_of_budget() -> bool:
        if args.examples is not None:
            return stats["inputs"] >= args.examples
        return time.perf_counter() - start >= seconds

    @settings(
        max_examples=args.batch,
        phases=[Phase.generate],
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(trec_files())
    def batch(case):
        if out_of_budget():
            return
        data, chunk, gz = case
        stats["inputs"] += 1
        stats["bytes"] += len(data)
        stats["gzipped"] += gz
        stats["default pieces" if chunk is None else "small pieces"] += 1
        disagreement = compare_all(data, chunk, gz, tally)
        if disagreement:
            found.append((case, disagreement))

    while not out_of_budget():
        batch()
    elapsed = time.perf_counter() - start

    inputs = stats["inputs"]
    print(f"inputs tried        {inputs:,} in {elapsed:,.0f} s ({inputs / elapsed:,.0f}/s)")
    print(f"bytes               {stats['bytes']:,} (mean {stats['bytes'] / max(inputs, 1):,.0f})")
    print(
        f"read as             {stats['small pieces']:,} in pieces of 1 to 4,096 bytes, "
        f"{stats['default pieces']:,} in 16 MB pieces; {stats['gzipped']:,} gzipped"
    )
    print(f"calls per reader    {sum(tally.values()):,}")
    names = sorted({name for name, _ in tally})
    width = max(map(len, names), default=0)
    print(f"\n{'entry point':<{width}}  {'accepted':>9}  {'rejected':>9}  {'crashed':>7}")
    for name in names:
        counts = [tally[name, kind] for kind in ("accepted", "rejected", "crashed")]
        print(f"{name:<{width}}  {counts[0]:>9,}  {counts[1]:>9,}  {counts[2]:>7,}")
    total = [sum(tally[n, kind] for n in names) for kind in ("accepted", "rejected", "crashed")]
    print(f"{'all':<{width}}  {total[0]:>9,}  {total[1]:>9,}  {total[2]:>7,}")
    print(f"\ndisagreements       {len(found):,}")
    for case, disagreement in sorted(found, key=lambda f: len(f[0][0]))[: args.show]:
        print(f"\n{case!r:.400}\n{disagreement}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
