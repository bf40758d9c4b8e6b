"""`rankscope recsys` on a recommender log in TSV against MS Recommenders'
``python_evaluation``: ranking measures at k = 10, side by side, in one run.

    python bench/recsys_text.py --interactions 1000000 --users 10000 \\
        --recommenders-python /tmp/recvenv/bin/python [--before /path/to/older/src]

MS Recommenders is not a dependency: install it in a separate virtual environment and name
its interpreter (``python3 -m venv /tmp/recvenv && /tmp/recvenv/bin/pip install --no-deps
recommenders && /tmp/recvenv/bin/pip install 'pandas>2,<3' scikit-learn``; its
``python_evaluation`` needs only those).

Data: `generate_recsys.py`'s log (``--users`` users, as many items, ``--interactions``; 10
recommendations per user), written as two tab-separated files with a header,
``user item rating timestamp`` and ``user item score``, under ``bench/data/`` (made once).

Each row is one fresh process, timed inside it from before its imports to the last value
(so reading the text, interning, evaluating): wall time and peak RSS (``ru_maxrss``).

* ``rankscope``: ``rankscope recsys test.tsv recs.tsv -m P@10 -m Recall@10 -m nDCG@10 -m
  MAP@10 --threshold none --format json`` (every test interaction relevant, as MS
  Recommenders has it), through the CLI's ``main``;
* ``rankscope --before``: the same with the source tree ``--before`` (e.g. the commit before
  the column-wise reader), when given;
* ``ms-recommenders``: ``pandas.read_csv`` of both files (``sep="\\t"``), then
  ``precision_at_k``, ``recall_at_k``, ``ndcg_at_k`` and ``map_at_k`` at k = 10
  (``relevancy_method="top_k"``), their defaults otherwise.

Each configuration runs ``--repeat`` times (default 2) and the best run is shown; the ratio
is MS Recommenders' time over rankscope's.  The values are printed next to each other
(P@10, Recall@10 and nDCG@10 are the same definitions; rankscope's MAP@10 divides by the
number of relevant items, MS Recommenders' ``map_at_k`` by min(k, relevant), rankscope's
``MAP(denominator=min)@10``).  Prints; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
MEASURES = ["P@10", "Recall@10", "nDCG@10", "MAP@10"]

RANKSCOPE = """
import json, resource, sys, time, io, contextlib
start = time.perf_counter()
from rankscope.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    main(["recsys", sys.argv[1], sys.argv[2], "--threshold", "none", "--format", "json",
          *[a for m in sys.argv[3].split(",") for a in ("-m", m)]])
wall = time.perf_counter() - start
print(json.dumps({"wall": wall, "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "out": out.getvalue()}))
"""

MS = """
import json, resource, sys, time
start = time.perf_counter()
import pandas as pd
from recommenders.evaluation import python_evaluation as pe
true = pd.read_csv(sys.argv[1], sep="\\t")
pred = pd.read_csv(sys.argv[2], sep="\\t")
kw = dict(col_user="user", col_item="item", col_rating="rating", col_prediction="score",
          relevancy_method="top_k", k=10)
values = {"P@10": pe.precision_at_k(true, pred, **kw),
          "Recall@10": pe.recall_at_k(true, pred, **kw),
          "nDCG@10": pe.ndcg_at_k(true, pred, **kw), "MAP@10": pe.map_at_k(true, pred, **kw)}
wall = time.perf_counter() - start
print(json.dumps({"wall": wall, "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "values": values}))
"""


def make_data(users: int, interactions: int) -> tuple[Path, Path]:
    """The two TSV files of the log (generated and converted once)."""
    import pyarrow.csv as pcsv
    import pyarrow.dataset as ds

    out = BENCH / "data" / f"recsys-text-{interactions}"
    test, recs = out / "test.tsv", out / "recs.tsv"
    if test.exists() and recs.exists():
        return test, recs
    log = out / "parquet"
    subprocess.run([sys.executable, str(BENCH / "generate_recsys.py"), "--users", str(users),
                    "--items", str(users), "--interactions", str(interactions),
                    "--out", str(log)], check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    options = pcsv.WriteOptions(delimiter="\t", include_header=False, quoting_style="none")
    for path, part, names in ((test, "interactions", ["user", "item", "rating", "timestamp"]),
                              (recs, "recommendations", ["user", "item", "score"])):  # fmt: skip
        table = ds.dataset(log / part).to_table(columns=names)
        with open(path, "wb") as f:
            f.write(("\t".join(names) + "\n").encode())
            pcsv.write_csv(table, f, options)
    return test, recs


def run(python: str, code: str, files: tuple[Path, Path], src: str | None) -> dict:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = src
    done = subprocess.run([python, "-c", code, *map(str, files), ",".join(MEASURES)], env=env,
                          check=True,
                          capture_output=True, text=True)  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--interactions", type=int, default=1_000_000)
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--recommenders-python", required=True, help="its venv's python")
    parser.add_argument("--before", help="an older rankscope source tree (its src/)")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    files = make_data(args.users, args.interactions)
    size = sum(f.stat().st_size for f in files) / 1e6
    print(f"{args.interactions:,} interactions, {args.users:,} users, {size:.0f} MB of TSV")
    configurations = [("rankscope", sys.executable, RANKSCOPE, str(ROOT / "src"))]
    if args.before:
        configurations.append(("rankscope --before", sys.executable, RANKSCOPE, args.before))
    configurations.append(("ms-recommenders", args.recommenders_python, MS, None))
    best: dict[str, dict] = {}
    for _ in range(args.repeat):
        for name, python, code, src in configurations:
            result = run(python, code, files, src)
            print(f"  ({name}: {result['wall']:.2f} s, {result['rss'] / 1024:.0f} MB)",
                  flush=True)  # fmt: skip
            if name not in best or result["wall"] < best[name]["wall"]:
                best[name] = result
    ms = best["ms-recommenders"]["wall"]
    print(f"{'tool':<20} {'wall':>8} {'peak RSS':>10} {'MS/this':>8}")
    for name, result in best.items():
        print(f"{name:<20} {result['wall']:7.2f}s {result['rss'] / 1024:7.0f} MB "
              f"{ms / result['wall']:7.2f}x")  # fmt: skip
    print("values:")
    print(f"  ms-recommenders: {best['ms-recommenders']['values']}")
    for name in best:
        if name.startswith("rankscope"):
            print(f"  {name}: {json.loads(best[name]['out'])[0]['summary']}")


if __name__ == "__main__":
    main()
