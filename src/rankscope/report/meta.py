"""A meta-evaluation study (`rankscope.table.study.Study`) as ``rankscope meta`` writes it:
Kendall's τ between the measures' orderings of the runs, their discriminative power and
their robustness curves, as text or JSON; the curves also as an image (`plot_robustness`)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..atomic import atomic_path
from ..errors import UsageError
from ..stats.meta import POWER_TESTS
from .tables import json_text

if TYPE_CHECKING:  # pragma: no cover
    from ..table.study import Study

#: The formats of `format_study` (``rankscope meta --format``).
FORMATS = ("table", "json")


def format_study(result: Study, fmt: str = "table", *, alpha: float, permutations: int) -> str:
    """The text ``rankscope meta`` prints for ``result``, a `Study` computed with
    significance level ``alpha`` and ``permutations`` permutations (printed in the text)."""
    if fmt == "json":
        return json_text(result.to_dict())
    if fmt != "table":
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    names = result.measures
    width = max(len(n) for n in names) + 2
    lines = [f"{len(result.run_names)} runs", "", "Kendall's tau between orderings of runs"]
    lines.append(" " * width + "".join(f"{n:>{width}}" for n in names))
    for name, row in zip(names, result.tau, strict=True):
        lines.append(f"{name:<{width}}" + "".join(f"{x:>{width}.3f}" for x in row))
    for title, matrix in (
        (f"RBO (p = {result.rbo_p:g}, extrapolated) between orderings of runs", result.rbo),
        ("Per-topic Kendall's tau between measures (mean over topics)", result.topic_tau),
    ):
        if matrix is None:
            continue
        lines += ["", title, " " * width + "".join(f"{n:>{width}}" for n in names)]
        for name, row in zip(names, matrix, strict=True):
            lines.append(f"{name:<{width}}" + "".join(f"{x:>{width}.3f}" for x in row))
    lines += ["", f"Discriminative power (alpha = {alpha}, {permutations} permutations)"]
    lines.append(f"{'':<{width}}{'t-test+Bonferroni':>20}{'randomized Tukey':>20}")
    for name in names:
        p = result.power[name]
        lines.append(f"{name:<{width}}" + "".join(f"{p[test]:>20.3f}" for test in POWER_TESTS))
    if result.query_curves:
        lines += ["", "Robustness: tau against all queries, by number of queries (mean ± sd)"]
        for name, by_size in result.query_curves.items():
            points = "  ".join(f"{k}: {m:.3f}±{s:.3f}" for k, m, s in by_size)
            lines.append(f"{name:<{width}}{points}")
    for policy in ("uniform", "pool"):
        rows = {n: c[policy] for n, c in result.judgment_curves.items() if policy in c}
        if rows:
            lines += ["", f"Robustness: tau by fraction of judgments kept ({policy})"]
            for name, by_fraction in rows.items():
                points = "  ".join(f"{f:g}: {m:.3f}" for f, m, _ in by_fraction)
                lines.append(f"{name:<{width}}{points}")
    return "\n".join(lines) + "\n"


def plot_robustness(result: Study, path: str) -> None:
    """The robustness curves (Figures 6-7 of Diaz & Ferraro 2022) as an image (needs the
    ``plot`` extra: matplotlib, imported here only)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UsageError("plotting needs matplotlib: pip install 'rankscope[plot]'") from None
    import numpy as np

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
    # the format is the target's suffix (or matplotlib's default), not the temporary file's
    kind = os.path.splitext(path)[1][1:] or plt.rcParams["savefig.format"]
    with atomic_path(path) as temporary:
        fig.savefig(temporary, dpi=120, format=kind)
    plt.close(fig)
