"""The recall-level view of two runs (`rankscope.preference.RecallLevels`) as ``rankscope
explain`` writes it: a table (the metrics' values and differences, where the differences
come from, then a row per recall level), CSV (a row per level, full precision) or JSON."""

from __future__ import annotations

from ..errors import UsageError
from ..preference import RecallLevels
from .tables import cell, clean, csv_text, json_text, number, text_table

#: The formats of `format_recall_levels` (``rankscope explain --format``).
FORMATS = ("table", "csv", "json")
#: The levels the table's summary calls "top" (the first page of results, roughly).
TOP_LEVELS = 10


def format_recall_levels(view: RecallLevels, fmt: str = "table") -> str:
    """The text ``rankscope explain`` prints for ``view`` in format ``fmt``."""
    if fmt == "json":
        return json_text(view.to_dict())
    if fmt == "csv":
        records = view.records()
        header = ["level", "queries", "rank_a", "rank_b", "a_first", "b_first", "tied",
                  "sign", "rpp", *view.labels]  # fmt: skip
        rows = [header] + [[cell(r[h]) for h in header] for r in records]
        return csv_text(rows)
    if fmt == "table":
        return _table(view)
    raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


def _small(x: float) -> str:
    """A contribution: four decimals, or three significant digits when smaller than that."""
    return f"{x:+.4f}" if x == 0 or abs(x) >= 5e-5 else f"{x:+.2e}"


def _table(view: RecallLevels) -> str:
    where = (
        f"query {clean(view.query)}" if view.query is not None
        else f"mean over {view.queries} judged queries"
    )  # fmt: skip
    lines = [f"{_tagged(view.run_a, 'A')} against {_tagged(view.run_b, 'B')}, {where}: "
             f"{len(view.levels)} recall levels", ""]  # fmt: skip
    top = min(TOP_LEVELS, len(view.levels))
    deep = f"levels {top + 1}-{len(view.levels)}" if len(view.levels) > top else "deeper"
    head = ["measure", "A", "B", "A − B", f"levels 1-{top}", deep]
    rows = [head]
    for label in view.labels:
        shares = [lv.delta[label] for lv in view.levels]
        rows.append([label, number(view.values_a[label]), number(view.values_b[label]),
                     _signed(view.difference[label]), _signed(sum(shares[:top])),
                     _signed(sum(shares[top:]))])  # fmt: skip
    shares = [lv.rpp for lv in view.levels]
    rows.append(["RPP (A over B)", "", "", _signed(view.rpp), _signed(sum(shares[:top])),
                 _signed(sum(shares[top:]))])  # fmt: skip
    lines.append(text_table(rows))
    disagree = [m for m, d in view.disagreements.items() if d]
    if disagree:
        lines.append(
            f"RPP prefers {view.run_a if view.rpp > 0 else view.run_b}; "
            f"{', '.join(disagree)} {'prefers' if len(disagree) == 1 else 'prefer'} "
            f"{view.run_b if view.rpp > 0 else view.run_a}.\n"
        )
    one = view.query is not None
    columns = (["level", "rank A", "rank B", "sign"] if one
               else ["level", "queries", "A first", "B first", "tied", "sign"])  # fmt: skip
    body = [columns + ["RPP"] + [f"Δ{label}" for label in view.labels]]
    for lv in view.levels:
        if one:
            sign = f"{lv.sign:+.0f}" if lv.sign else "0"
            row = [str(lv.level), _rank(lv.rank_a), _rank(lv.rank_b), sign]
        else:
            row = [str(lv.level), str(lv.queries), str(lv.a_first), str(lv.b_first),
                   str(lv.tied), f"{lv.sign:+.3f}"]  # fmt: skip
        body.append(row + [_small(lv.rpp)] + [_small(lv.delta[label]) for label in view.labels])
    lines.append(text_table(body) if view.levels else "(no relevant document: no level)\n")
    lines.append(
        "sign: +1 where A reaches the level's relevant document first (RPP's preference at "
        "the level" + ("" if one else ", mean over the queries with that many relevant "
        "documents") + "); RPP: the level's share of RPP(A, B); Δμ: its share of the "
        "metric's difference A − B" + ("" if one else " (mean over all judged queries)")
        + ".\n"
    )  # fmt: skip
    return "\n".join(lines)


def _signed(x: float) -> str:
    return f"{x:+.4f}"


def _rank(rank: int | None) -> str:
    return "-" if rank is None else str(rank)


def _tagged(name: str, side: str) -> str:
    """``name (A)``; a name already ending so (one run given twice) is left as it is."""
    name = clean(name)  # ids and names from the user's files: shown escaped
    return name if name.endswith(f" ({side})") else f"{name} ({side})"
