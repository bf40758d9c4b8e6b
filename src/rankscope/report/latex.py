r"""A LaTeX table of system means with significance superscripts (as ranx's Report prints),
written through the one renderer (`rankscope.report.tables.latex_tabular`).

One row per system, labelled ``a``, ``b``, ... in the ``\#`` column; one column per
measure with the system's mean score; the best mean of each measure in bold; after a mean,
a superscript listing the labels of the systems this system is significantly better than on
that measure (significant pair and higher mean).  The caption says which test, which
correction and which level.  Each measure is tested separately: its ``k(k-1)/2`` pairs form
one family.  The table uses booktabs rules (``\usepackage{booktabs}``).

>>> import numpy as np
>>> print(latex_table(["bm25", "dense"], {"AP": np.array([[0.1, 0.2, 0.3], [0.5, 0.6, 0.8]])},
...                   label="tab:runs"))
\begin{table}[t]
\centering
\caption{Mean over 3 queries. A superscript lists the systems (\#) that this system is
significantly better than (paired t-test, Holm correction; $p \le 0.05$). Bold: the best
system per measure.}
\label{tab:runs}
\begin{tabular}{cll}
\toprule
\# & System & AP \\
\midrule
a & bm25 & 0.2000 \\
b & dense & \textbf{0.6333}$^{a}$ \\
\bottomrule
\end{tabular}
\end{table}
<BLANKLINE>
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike

from ..errors import UsageError
from ..stats.letters import letter_labels
from ..stats.procedures import compare, named
from .tables import latex_escape, latex_tabular

__all__ = ["latex_table"]

_CORRECTIONS = {
    "bonferroni": "Bonferroni correction",
    "holm": "Holm correction",
    "bh": "Benjamini--Hochberg correction",
    "benjamini-hochberg": "Benjamini--Hochberg correction",
    "fdr_bh": "Benjamini--Hochberg correction",
}


def _describe(test: str, correction: str | None, permutations: int, exact: set[bool]) -> str:
    """The test as the caption names it: its label (`rankscope.stats.procedures`), how many
    resamples a random one drew (the randomization test: every sign flip up to 20 queries),
    and the correction over the pairs."""
    procedure = named(test)
    words = procedure.label
    if exact == {True}:  # the randomization test up to 20 queries: every sign flip
        words += ", all sign flips"
    elif True in exact:
        words += f", all sign flips up to 20 queries, else {permutations} {procedure.resamples}"
    elif procedure.random:
        words += f", {permutations} {procedure.resamples}"
    if not procedure.family_wise and correction not in (None, "none"):
        words += ", " + _CORRECTIONS[correction.lower()]
    return words


def latex_table(
    names: Sequence[str],
    measures: Mapping[str, ArrayLike],
    *,
    test: str = "t",
    correction: str | None = "holm",
    alpha: float = 0.05,
    best_bold: bool = True,
    digits: int = 4,
    permutations: int = 10_000,
    seed: int | None = 0,
    caption: str | None = None,
    label: str | None = None,
) -> str:
    r"""A LaTeX ``table`` comparing ``names`` (k systems) on ``measures``.

    ``measures`` maps a measure's name to its systems × queries score matrix (rows in the
    order of ``names``; measures may have different queries).  ``test`` is any test of
    `rankscope.stats.procedures.TESTS` (`rankscope.stats.procedures.compare`): a paired test
    (``"t"``, ``"wilcoxon"``, ``"sign"``, ``"randomization"``, ``"bootstrap"``, with
    ``correction`` over the pairs) or a Tukey procedure (``"tukey"``, ``"tukey-one-way"``,
    ``"randomized-tukey"``: family-wise by construction, ``correction`` ignored);
    ``permutations`` and ``seed`` drive the random ones.  The caption names the test by
    its label.  A pair is significant
    when its p-value is ``<= alpha``.

    Means are printed with ``digits`` decimals; with ``best_bold`` the highest mean of each
    measure (all of them, when tied) is bold.  ``caption`` comes before the legend that
    explains the superscripts; ``label`` adds ``\label{...}``.  Names are escaped.
    Systems are labelled ``a``-``z``, ``A``-``Z``, then ``aa``, ``ab``, ...; superscripts
    are comma-separated when some label has more than one character.
    """
    names = [str(name) for name in names]
    k = len(names)
    if not named(test).family_wise and correction not in (None, "none"):
        if correction.lower() not in _CORRECTIONS:
            raise UsageError(f"unknown correction {correction!r}: choose bonferroni, holm, bh")
    if not measures:
        raise UsageError("no measures to tabulate")
    labels = letter_labels(k)
    separator = "," if any(len(mark) > 1 for mark in labels) else ""

    cells: list[list[str]] = [[] for _ in range(k)]
    query_counts = set()
    exact = set()  # randomization: enumerated (up to 20 queries) or Monte Carlo, per measure
    for measure, scores in measures.items():
        matrix = np.asarray(scores, dtype=np.float64)
        if matrix.ndim != 2 or matrix.shape[0] != k:
            raise UsageError(
                f"measure {measure!r}: expected a {k} x queries matrix, got shape {matrix.shape}"
            )
        query_counts.add(matrix.shape[1])
        result = compare(
            matrix,
            test,
            correction=correction,
            alpha=alpha,
            names=names,
            permutations=permutations,
            seed=seed,
        )
        exact.add(bool(result.info.get("exact", False)))
        best = result.means.max()
        for i in range(k):
            text = f"{result.means[i]:.{digits}f}"
            if best_bold and result.means[i] == best:
                text = rf"\textbf{{{text}}}"
            beaten = result.better_than(i)
            if beaten:
                text += "$^{" + separator.join(labels[j] for j in beaten) + "}$"
            cells[i].append(text)

    if len(query_counts) == 1:
        over = f"Mean over {query_counts.pop()} queries."
    else:
        over = "Mean over the queries of each measure."
    legend = (
        f"{over} A superscript lists the systems (\\#) that this system is significantly "
        f"better than ({_describe(test, correction, permutations, exact)}; $p \\le {alpha:g}$)."
    )
    if best_bold:
        legend += " Bold: the best system per measure."
    text = legend if caption is None else f"{caption} {legend}"
    text = textwrap.fill(text, width=88, break_long_words=False, break_on_hyphens=False)
    lines = [r"\begin{table}[t]", r"\centering", rf"\caption{{{text}}}"]
    if label is not None:
        lines.append(rf"\label{{{label}}}")
    rows = [[r"\#", "System", *(latex_escape(m) for m in measures)]]
    rows += [[labels[i], latex_escape(name), *cells[i]] for i, name in enumerate(names)]
    tabular = latex_tabular(rows, "cl" + "l" * len(measures))
    return "\n".join(lines) + "\n" + tabular + r"\end{table}" + "\n"
