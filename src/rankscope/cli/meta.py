"""``rankscope meta``: τ between measures' orderings, discriminative power, robustness."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import numpy as np

from ..read.sources import read_qrels, resolve_runs
from ..read.trec import run_files
from ..table.study import study


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "meta",
        help="meta-evaluation: tau between measures, discriminative power, robustness",
        description=(
            "Compare measures over the same runs: Kendall's tau between their orderings of "
            "the runs, their discriminative power, and their robustness to fewer queries or "
            "judgments (Diaz & Ferraro, SIGIR 2022, Tables 2-4, Figures 6-7)."
        ),
    )
    p.add_argument("qrels", help="TREC qrels file")
    p.add_argument("runs", nargs="+", help="TREC run files or directories")
    p.add_argument(
        "--measures",
        nargs="+",
        default=["AP", "nDCG", "RR", "RPP", "dcgRPP", "invRPP"],
        help="metrics and preference methods (default: AP nDCG RR RPP dcgRPP invRPP)",
    )
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--permutations", type=int, default=10_000)
    p.add_argument("--samples", type=int, default=10, help="random samples per point")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-robustness", action="store_true", help="skip the robustness curves")
    p.add_argument("--plot", metavar="FILE", help="also draw the robustness curves (PNG, SVG, PDF)")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    qrels = read_qrels(args.qrels)
    runs = resolve_runs(run_files(args.runs), qrels, "error")
    result = study(
        qrels,
        runs,
        args.measures,
        alpha=args.alpha,
        permutations=args.permutations,
        samples=args.samples,
        seed=args.seed,
        robustness=not args.no_robustness,
    )
    out = sys.stdout
    if getattr(args, "plot", None):
        plot_robustness(result, args.plot)
    if args.format == "json":
        json.dump(
            {
                "runs": result.run_names,
                "measures": result.measures,
                "kendall_tau": result.tau.tolist(),
                "discriminative_power": result.power,
                "robustness_queries": result.query_curves,
                "robustness_judgments": result.judgment_curves,
            },
            out,
            indent=1,
        )
        out.write("\n")
        return 0
    names = result.measures
    width = max(len(n) for n in names) + 2
    out.write(f"{len(result.run_names)} runs\n\nKendall's tau between orderings of runs\n")
    out.write(" " * width + "".join(f"{n:>{width}}" for n in names) + "\n")
    for name, row in zip(names, result.tau, strict=True):
        out.write(f"{name:<{width}}" + "".join(f"{x:>{width}.3f}" for x in row) + "\n")
    out.write(f"\nDiscriminative power (alpha = {args.alpha}, {args.permutations} permutations)\n")
    out.write(f"{'':<{width}}{'t-test+Bonferroni':>20}{'randomized Tukey':>20}\n")
    for name in names:
        p = result.power[name]
        out.write(f"{name:<{width}}{p['t-bonferroni']:>20.3f}{p['randomized-tukey']:>20.3f}\n")
    if result.query_curves:
        out.write("\nRobustness: tau against all queries, by number of queries (mean ± sd)\n")
        for name, curve in result.query_curves.items():
            points = "  ".join(f"{k}: {m:.3f}±{s:.3f}" for k, m, s in curve)
            out.write(f"{name:<{width}}{points}\n")
    for policy in ("uniform", "pool"):
        rows = {n: c[policy] for n, c in result.judgment_curves.items() if policy in c}
        if rows:
            out.write(f"\nRobustness: tau by fraction of judgments kept ({policy})\n")
            for name, curve in rows.items():
                points = "  ".join(f"{f:g}: {m:.3f}" for f, m, _ in curve)
                out.write(f"{name:<{width}}{points}\n")
    return 0


def plot_robustness(result: Any, path: str) -> None:
    """The robustness curves (Figures 6-7 of Diaz & Ferraro 2022) as an image (needs the
    ``plot`` extra: matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("plotting needs matplotlib: pip install 'rankscope[plot]'") from None
    panels = [("queries", "number of queries")] + [
        (policy, f"fraction of judgments kept ({policy})")
        for policy in ("uniform", "pool")
        if any(policy in c for c in result.judgment_curves.values())
    ]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.4), squeeze=False)
    for ax, (panel, label) in zip(axes[0], panels, strict=True):
        for name in result.measures:
            curve = (
                result.query_curves.get(name, [])
                if panel == "queries"
                else result.judgment_curves.get(name, {}).get(panel, [])
            )
            if curve:
                x, mean, sd = (np.array(v) for v in zip(*curve, strict=True))
                ax.errorbar(x, mean, yerr=sd, label=name, marker="o", ms=3, capsize=2)
        ax.set_xlabel(label)
        ax.set_ylabel("Kendall's tau with all data")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
