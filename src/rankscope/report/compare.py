"""A comparison of runs as people read it: an aligned table (a block per measure), Markdown
and LaTeX (a column group per measure), CSV and JSON (every field, full precision).

Every run name and measure label is the user's text: the Markdown escapes its table
characters, the LaTeX its special characters, and the terminal table drops control
characters.
"""

from __future__ import annotations

import textwrap

from ..table.compare import Comparison
from .marks import clean as _clean
from .marks import legend
from .marks import mark as _mark
from .marks import number as _number
from .marks import p_value as _p
from .marks import relative as _relative
from .marks import signed as _signed
from .tables import (
    cell,
    csv_text,
    json_text,
    latex_escape,
    latex_tabular,
    markdown_cell,
    markdown_table,
    text_table,
    without_nan,
)

FORMATS = ("table", "markdown", "csv", "json", "latex")


def format_text(c: Comparison) -> str:
    """Aligned tables, one block per measure: a row per run (a row per pair without a
    baseline), then the legend."""
    blocks = []
    for measure in c.measures:
        header = ["run", "mean ± CI", "Δ", "rel.", "p", "d", "W/T/L"]
        if c.baseline is None:
            header = ["run", "vs", *header[1:]]
        rows = [header]
        for r in (r for r in c.rows if r.measure == measure):
            if c.baseline is None and r.baseline is None:
                continue
            half = (r.ci_high - r.ci_low) / 2
            cells = [
                _clean(r.run),
                f"{_number(r.mean)} ± {_number(half)}",
                _signed(r.difference),
                _relative(r) if r.difference is not None else "–",
                _p(r.p_value) + _mark(r),
                _signed(r.effect_size, 2),
                "–" if r.wins is None else f"{r.wins}/{r.ties}/{r.losses}",
            ]
            if c.baseline is None:
                cells.insert(1, _clean(r.baseline or ""))
            rows.append(cells)
        if c.baseline is None:  # each run's own mean first
            own = [r for r in c.rows if r.measure == measure and r.baseline is None]
            if own:
                means = "  ".join(f"{_clean(r.run)} {_number(r.mean)}" for r in own)
                blocks.append(f"{_clean(measure)}  (means: {means})\n" + text_table(rows))
                continue
        blocks.append(f"{_clean(measure)}\n" + text_table(rows))
    notes = "".join(
        textwrap.fill(line, 96, subsequent_indent="  ", break_on_hyphens=False) + "\n"
        for line in legend(c).splitlines()
    )
    return "\n".join(blocks) + "\n" + notes


def format_markdown(c: Comparison) -> str:
    """One row per run, a column group per measure (mean ± CI, Δ, p, W/T/L)."""
    if c.baseline is None:
        return format_pairs_markdown(c)
    head = ["run"]
    for m in c.measures:
        label = markdown_cell(m)
        head += [f"{label} mean ± CI", f"{label} Δ (rel.)", f"{label} p", f"{label} d", "W/T/L"]
    rows = [head]
    for run in c.run_names:
        cells = [markdown_cell(run)]
        for m in c.measures:
            r = c.row(run, m)
            half = (r.ci_high - r.ci_low) / 2
            if r.difference is None:
                cells += [f"{_number(r.mean)} ± {_number(half)}", "(baseline)", "", "", ""]
                continue
            cells += [
                f"{_number(r.mean)} ± {_number(half)}",
                f"{_signed(r.difference)} ({_relative(r)})",
                _p(r.p_value) + _mark(r),
                _signed(r.effect_size, 2),
                f"{r.wins}/{r.ties}/{r.losses}",
            ]
        rows.append(cells)
    return markdown_table(rows) + "\n" + legend(c)


def format_pairs_markdown(c: Comparison) -> str:
    rows = [["measure", "run", "vs", "Δ", "p", "d", "W/T/L"]]
    for r in c.rows:
        if r.baseline is None:
            continue
        rows.append([
            markdown_cell(r.measure), markdown_cell(r.run), markdown_cell(r.baseline),
            _signed(r.difference), _p(r.p_value) + _mark(r), _signed(r.effect_size, 2),
            f"{r.wins}/{r.ties}/{r.losses}",
        ])  # fmt: skip
    return markdown_table(rows) + "\n" + legend(c)


def format_csv(c: Comparison) -> str:
    """Every field of every row (`Comparison.records`), full precision (``repr`` of
    floats)."""
    records = c.records()
    names = list(records[0])
    return csv_text([names, *[[cell(record[n]) for n in names] for record in records]])


def format_json(c: Comparison) -> str:
    """The rows (`Comparison.records`) as a JSON list (NaN as null)."""
    return json_text(without_nan(c.records()), False)


def format_latex(c: Comparison) -> str:
    """A booktabs table: a row per run, per measure its mean with a mark for a significant
    difference from the baseline (or, without one, the runs' means only)."""
    rows = [["Run", *[latex_escape(_clean(m)) for m in c.measures]]]
    for run in c.run_names:
        cells = [latex_escape(_clean(run))]
        for m in c.measures:
            r = c.row(run, m)
            mark = ""
            if r.significant and r.difference is not None:
                mark = r"$^{\blacktriangle}$" if r.difference > 0 else r"$^{\blacktriangledown}$"
            cells.append(f"{_number(r.mean)}{mark}")
        rows.append(cells)
    # the legend as comment lines (▲/▼ stand for the superscript triangles)
    comment = "".join(f"% {_clean(line)}\n" for line in legend(c).splitlines())
    return latex_tabular(rows, "l" + "r" * len(c.measures)) + comment


_WRITERS = {
    "table": format_text,
    "markdown": format_markdown,
    "csv": format_csv,
    "json": format_json,
    "latex": format_latex,
}


def format_comparison(c: Comparison, fmt: str = "table") -> str:
    """The comparison in one of `FORMATS`."""
    return _WRITERS[fmt](c)
