"""A comparison of runs as one self-contained HTML page (``rankscope report``,
``rankscope compare --html``, `Comparison.to_html`): the sortable comparison table
with its legend, the per-query differences against the baseline (the "query summary"),
each run's metric differences from the baseline by recall level beside RPP's sign
(`rankscope.recall_levels`), the interpolated precision–recall curves, the
distribution of per-query values per run, the preference matrices with their MC4 ordering
and, optionally, the robustness curves of ``rankscope meta``.

The page opens offline and makes no request of any kind: its styles, scripts and data are
in the file.  The plots are drawn by plotly.js, taken from the ``plotly`` Python package
(the ``report`` extra, with jinja2 for the page itself): interactive (hover, zoom, a legend
that hides and shows runs, a picture of any plot) and printable, with every plot type
needed in one library.  Its bundle is 4.8 MB, so it is inlined gzip-compressed (base64,
1.9 MB) and unpacked in the browser (``DecompressionStream``): a 24-run × 50-query report
with six measures is 2.1 MB.

Every run name, measure label, query id and topic title is the user's text: the page is
built by jinja2 with autoescaping on; the plot data travel as JSON packed like plotly.js
(gzip, base64: no text can close its ``<script>`` element, and a 100-run page's 3 MB of
numbers take 0.7 MB); and the labels plotly.js draws are HTML-escaped first (plotly.js reads
a few tags in labels and decodes entities after splitting off tags, so an escaped label is
shown as written and never parsed).

The page reads at a glance: each run keeps one colour in every plot (`run_colours`), the run
column of the comparison table stays in view while the table scrolls sideways, long axis
titles wrap (`_axis_title`).  And it stays small with many runs: an array several plots use
(a run's per-query values, the query ids, topic titles, which traces a menu button shows) is
stored once in the page's JSON, ``{"shared": {key: array}, "figures": [...]}``, and a trace
refers to it; the page's script puts the arrays in place before plotting (`_Shared` says
how).  A 100-run × 50-query report with six measures and 250-odd recall levels is 2.8 MB.

The page itself (``templates/page.html.j2``: styles, header, figure sections, footer, the
packed plots and the script that draws them) is shared by every HTML report through
`render_page`: the comparison's template (``report.html.j2``) and the online experiment's
(``experiment.html.j2``, `rankscope.report.experiments`) extend it with their own tables.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import math
import os
import re
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any

import numpy as np

from ..atomic import write_atomically
from ..errors import UsageError
from ..preference.methods import PreferenceResult
from ..read.topics import read_topics
from ..table.compare import RECALL_LEVELS, Comparison
from .marks import clean, legend, mark, number, p_value, relative, signed

if TYPE_CHECKING:  # pragma: no cover
    from ..table.study import Study

#: How to install what the report needs.
REPORT_EXTRA = "pip install 'rankscope[report]'"

#: 24 distinguishable colours (plotly's "Dark24"), so that 24 runs get 24 colours.
PALETTE = (
    "#2E91E5", "#E15F99", "#1CA71C", "#FB0D0D", "#DA16FF", "#222A2A", "#B68100", "#750D86",
    "#EB663B", "#511CFB", "#00A08B", "#FB00D1", "#FC0080", "#B2828D", "#6C7C32", "#778AAE",
    "#862A16", "#A777F1", "#620042", "#1616A7", "#DA60CA", "#6C4516", "#0D2A63", "#AF0038",
)  # fmt: skip

_TITLE_CHARACTERS = 120  # a topic title in a hover label is cut after this many characters
_CHARACTER_PX = 7.2  # the width of an average character of the plots' 12 px font


def run_colours(run_names: list[str]) -> dict[str, str]:
    """One colour per run for the whole page, in the order the runs are given (the palette
    repeats after 24 runs), so that a run keeps its colour in a plot that leaves a run out."""
    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(run_names)}


class _Shared:
    """The arrays several traces use, each stored once in the page's JSON under a key.
    A trace refers to them by objects the page's script replaces before plotting:
    ``{"$ref": key}`` the array itself; ``{"$rows": [key, ...], "at": [k, ...]}`` the rows
    ``[shared[key][k] for key in keys]`` for each k of ``at`` (every index without it);
    ``{"$is": n, "in": key}`` whether each element of the array is ``n`` (the traces a menu
    button shows); ``{"$sum": key}`` the running sums of the array (the recall levels'
    middle panel adds up the shares its top panel shows)."""

    def __init__(self) -> None:
        self.arrays: dict[str, list[Any]] = {}

    def ref(self, key: str, make: Any) -> dict[str, str]:
        """A reference to the array ``key``, made by calling ``make`` the first time."""
        if key not in self.arrays:
            self.arrays[key] = list(make())
        return {"$ref": key}

    def put(self, key: str, array: list[Any]) -> dict[str, str]:
        """A reference to ``array``, stored under the new ``key``."""
        self.arrays[key] = array
        return {"$ref": key}

    def values(self, c: Comparison, measure: str, i: int) -> str:
        """The key of run ``i``'s per-query values of ``measure``."""
        key = f"values/{c.measures.index(measure)}/{i}"
        self.ref(key, lambda: _values(c.values[measure][i]))
        return key

    def queries(self, c: Comparison, titles: list[str]) -> list[str]:
        """The keys of the query ids and of their topic titles."""
        self.ref("queries", lambda: [_label(q) for q in c.query_ids])
        self.ref("titles", lambda: titles)
        return ["queries", "titles"]

    def showing(self, key: str, owners: list[int], n: int) -> dict[str, Any]:
        """Which traces a menu button shows: those whose owner (in ``owners``) is ``n``."""
        self.ref(key, lambda: owners)
        return {"$is": n, "in": key}


def check_requirements() -> Any:
    """jinja2 (plotly is read in `_plotly_bundle`); a clear `UsageError` naming the
    ``report`` extra when either is missing."""
    try:
        import jinja2
        import plotly  # noqa: F401
    except ImportError as exc:
        raise UsageError(
            f"the HTML report needs plotly and jinja2 ({exc.name} is not installed): "
            f"{REPORT_EXTRA}"
        ) from None
    return jinja2


@lru_cache(maxsize=1)
def _plotly_bundle() -> tuple[str, str]:
    """(plotly.js version, its bundle gzip-compressed in base64)."""
    from plotly.offline import get_plotlyjs

    code = get_plotlyjs()
    found = re.search(r"plotly\.js v([0-9][0-9.]*)", code[:400])
    return (found.group(1) if found else "?"), _pack(code)


def _pack(text: str) -> str:
    """``text`` gzip-compressed in base64, as the page's script unpacks it."""
    packed = gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)
    return base64.b64encode(packed).decode("ascii")


def _version() -> str:
    """rankscope's version, from the installed distribution (this layer cannot import the
    package's root, which imports the API)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rankscope")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree
        return "(source tree)"


def _label(text: str) -> str:
    """User text for plotly.js: control characters spelled out, markup escaped."""
    return html.escape(clean(str(text)), quote=False)


def _value(x: float) -> float | None:
    """A number for the page's JSON: 6 significant digits, NaN as null."""
    x = float(x)
    return None if math.isnan(x) or math.isinf(x) else float(f"{x:.6g}")


def _values(xs: Any) -> list[float | None]:
    """`_value` of each number (read as Python floats at once: a numpy scalar each cost a
    third of a 100-run page's formatting)."""
    return [
        float(f"{x:.6g}") if math.isfinite(x) else None
        for x in np.asarray(xs, dtype=float).ravel().tolist()
    ]


def _short(xs: Any) -> list[float | int]:
    """Finite numbers for a plot's long series: 4 significant digits, whole ones as ints."""
    out: list[float | int] = []
    for x in np.asarray(xs, dtype=float).ravel().tolist():
        rounded = float(f"{x:.4g}")
        out.append(int(rounded) if rounded.is_integer() else rounded)
    return out


def packed_json(data: Any) -> str:
    """``data`` as compact JSON (no NaN: `_value` writes it as null), packed by `_pack`."""
    return _pack(json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False))


def _axis_title(text: str, length: float) -> dict[str, str]:
    """An axis title from the user's text (cleaned and escaped here), wrapped onto lines at
    spaces so that each fits in ``length`` pixels: a long run name or measure is never cut
    off at the plot's edge.  (Wrapped before escaping: no line break lands in an entity.)"""
    width = max(12, int(length / _CHARACTER_PX))
    lines: list[str] = []
    for word in clean(text).split(" "):
        while len(word) > width:  # a word longer than a line: cut it
            if lines and len(lines[-1]) < width - 1:
                room = width - len(lines[-1]) - 1
                lines[-1] += " " + word[:room]
                word = word[room:]
            else:
                lines.append(word[:width])
                word = word[width:]
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        elif word:
            lines.append(word)
    return {"text": "<br>".join(html.escape(line, quote=False) for line in lines)}


def _label_drop(names: list[str], angle: float) -> int:
    """How far (pixels) run names written as tick labels at ``angle`` degrees reach below
    their axis: a plot adds it to its height, so long names do not squeeze its data into a
    strip (plotly takes the labels' room out of the plot's height)."""
    longest = max((len(clean(name)) for name in names), default=0)
    return int(longest * _CHARACTER_PX * abs(math.sin(math.radians(angle))))


def _layout(**extra: Any) -> dict[str, Any]:
    layout: dict[str, Any] = {
        "height": 380,
        "margin": {"l": 64, "r": 16, "t": 40, "b": 56},
        "font": {"family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",
                 "size": 12},
        "colorway": list(PALETTE),
        "hovermode": "closest",
        "paper_bgcolor": "#ffffff",
        "plot_bgcolor": "#ffffff",
        "xaxis": {"gridcolor": "#e5e5e5", "zerolinecolor": "#999999", "automargin": True},
        "yaxis": {"gridcolor": "#e5e5e5", "zerolinecolor": "#999999", "automargin": True},
        "legend": {"font": {"size": 11}},
    }  # fmt: skip
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(layout.get(key), dict):
            layout[key] = {**layout[key], **value}
        else:
            layout[key] = value
    return layout


def _figure(figure_id: str, title: str, data: list[dict], layout: dict) -> dict[str, Any]:
    return {"id": figure_id, "title": title, "data": data, "layout": layout}


def _query_summary(
    c: Comparison, measure: str, index: int, titles: list[str], shared: _Shared
) -> dict[str, Any] | None:
    """The per-query differences of each run from the baseline on ``measure``, sorted
    (one trace per run, a menu to pick the run); a bar green above 0, red otherwise."""
    if c.baseline is None or measure not in c.values:
        return None
    matrix = c.values[measure]
    base = c.run_names.index(c.baseline)
    preference = c.kinds[c.measures.index(measure)] == "preference"
    has_titles = any(titles)
    others = [i for i in range(len(c.run_names)) if i != base]
    owners = f"owners/summary-{index}"
    traces, buttons = [], []
    for n, i in enumerate(others):
        difference = matrix[i] if preference else matrix[i] - matrix[base]
        order = np.argsort(-difference, kind="stable").tolist()
        keys = shared.queries(c, titles)
        if preference:
            template = (
                "query %{customdata[0]}" + ("<br>%{customdata[1]}" if has_titles else "")
                + "<br>preference of %{meta[0]} over %{meta[1]}: %{y:+.4f}<extra></extra>"
            )  # fmt: skip
        else:
            keys += [shared.values(c, measure, i), shared.values(c, measure, base)]
            template = (
                "query %{customdata[0]}" + ("<br>%{customdata[1]}" if has_titles else "")
                + "<br>%{meta[0]}: %{customdata[2]:.4f}<br>%{meta[1]}: %{customdata[3]:.4f}"
                "<br>Δ %{y:+.4f}<extra></extra>"
            )  # fmt: skip
        ys = difference[order]
        traces.append({
            "type": "bar", "x0": 1, "dx": 1, "y": _values(ys),
            "name": _label(c.run_names[i]), "meta": [_label(c.run_names[i]), _label(c.baseline)],
            "customdata": {"$rows": keys, "at": order}, "hovertemplate": template,
            "visible": n == 0,
            "marker": {"color": (ys > 0).astype(int).tolist(), "cmin": 0, "cmax": 1,
                       "colorscale": [[0, "#d73027"], [1, "#1a9850"]]},
        })  # fmt: skip
        buttons.append({"label": _label(c.run_names[i]), "method": "restyle",
                        "args": [{"visible": shared.showing(owners, list(range(len(others))),
                                                            n)}]})  # fmt: skip
    what = "preference over" if preference else "difference from"
    layout = _layout(
        showlegend=False, bargap=0.1, margin={"t": 56},
        xaxis={"title": _axis_title(f"queries, by {what} the baseline", 480),
               "zeroline": False},
        yaxis={"title": _axis_title(f"{measure}: {what} {c.baseline}", 270)},
        updatemenus=[{
            "buttons": buttons, "direction": "down", "showactive": True, "active": 0,
            "x": 0, "xanchor": "left", "y": 1.02, "yanchor": "bottom",
            "pad": {"r": 4, "t": 0}, "bgcolor": "#f7f7f7",
        }],
    )  # fmt: skip
    return _figure(f"summary-{index}", measure, traces, layout)


def _precision_recall(c: Comparison, colours: dict[str, str]) -> dict[str, Any] | None:
    if c.precision_recall is None:
        return None
    traces = [
        {
            "type": "scatter", "mode": "lines+markers", "x": list(RECALL_LEVELS),
            "y": _values(c.precision_recall[i]), "name": _label(name),
            "marker": {"size": 5, "color": colours[name]}, "line": {"color": colours[name]},
            "hovertemplate": "%{fullData.name}<br>recall %{x:.1f}: precision %{y:.4f}"
            "<extra></extra>",
        }
        for i, name in enumerate(c.run_names)
    ]  # fmt: skip
    layout = _layout(
        height=440,
        xaxis={"title": {"text": "recall"}, "range": [-0.02, 1.02], "dtick": 0.1},
        yaxis={"title": {"text": "interpolated precision (mean over queries)"},
               "range": [-0.02, 1.02]},
    )  # fmt: skip
    return _figure("precision-recall-plot", "every run", traces, layout)


def _distribution(
    c: Comparison, measure: str, index: int, titles: list[str], shared: _Shared,
    colours: dict[str, str],
) -> dict[str, Any] | None:
    """A box per run of its per-query values (for a preference method: its per-query
    preferences over the baseline), every query a point; each run in its own colour."""
    if measure not in c.values:
        return None
    preference = c.kinds[c.measures.index(measure)] == "preference"
    has_titles = any(titles)
    custom = {"$rows": shared.queries(c, titles)}
    template = (
        "%{fullData.name}<br>query %{customdata[0]}"
        + ("<br>%{customdata[1]}" if has_titles else "") + "<br>%{y:.4f}<extra></extra>"
    )  # fmt: skip
    traces = []
    for i, name in enumerate(c.run_names):
        if preference and name == c.baseline:
            continue  # its preference over itself: 0 everywhere
        traces.append({
            "type": "box", "y": {"$ref": shared.values(c, measure, i)}, "name": _label(name),
            "boxpoints": "all", "jitter": 0.5, "pointpos": 0, "boxmean": True,
            "marker": {"size": 3, "opacity": 0.6, "color": colours[name]},
            "line": {"width": 1.2, "color": colours[name]},
            "customdata": custom, "hovertemplate": template, "hoveron": "points",
        })  # fmt: skip
    label = (
        f"{measure}: preference over {c.baseline or ''}" if preference
        else f"{measure} per query"
    )  # fmt: skip
    names = [name for name in c.run_names if not (preference and name == c.baseline)]
    longest = max(len(clean(name)) for name in names) * _CHARACTER_PX
    angle = -30 if len(names) > 6 or longest > 500 / len(names) else 0
    layout = _layout(
        height=320 + _label_drop(names, angle), showlegend=False,
        yaxis={"title": _axis_title(label, 200)}, xaxis={"tickangle": angle},
    )  # fmt: skip
    return _figure(f"distribution-{index}", measure, traces, layout)


def _preference_matrix(
    c: Comparison, measure: str, index: int
) -> tuple[dict[str, Any], list[tuple[str, float]]] | None:
    """The mean preference of each run (row) over each other (column), runs in their MC4
    order, and that order with each run's share of the chain's mass (MC4's score: the
    mass its Markov chain, started with one unit on each run, holds on the run after its
    steps; the shares add up to 1)."""
    tensor = c.preferences.get(measure)
    if tensor is None:
        return None
    result = PreferenceResult(measure, list(c.run_names), list(c.query_ids), tensor)
    order, scores = result.ordering("mc4")
    at = [c.run_names.index(name) for name in order]
    mean = tensor.mean(axis=0)[np.ix_(at, at)]
    labels = [_label(name) for name in order]
    extent = float(np.abs(mean).max()) or 1.0
    trace = {
        "type": "heatmap", "z": [_values(row) for row in mean], "x": labels, "y": labels,
        "colorscale": "RdBu", "reversescale": True, "zmin": -extent, "zmax": extent, "zmid": 0,
        "colorbar": {"title": {"text": "mean pref."}, "thickness": 12},
        "hovertemplate": "%{y} over %{x}: %{z:+.4f}<extra></extra>", "xgap": 1, "ygap": 1,
    }  # fmt: skip
    if len(order) <= 16:
        trace["texttemplate"] = "%{z:.2f}"
        trace["textfont"] = {"size": 10}
    size = max(360, 60 + 26 * len(order))
    layout = _layout(
        height=size + 40 + _label_drop(order, 40),
        xaxis={"title": {"text": "over run (MC4 order)"}, "tickangle": -40, "side": "bottom",
               "type": "category"},
        yaxis={"title": {"text": "run (MC4 order)"}, "autorange": "reversed",
               "type": "category"},
    )  # fmt: skip
    total = float(np.sum(scores)) or 1.0
    ordering = [(name, float(score) / total) for name, score in zip(order, scores, strict=True)]
    return _figure(f"preferences-{index}", measure, [trace], layout), ordering


#: The colours of the metrics in the recall-level plot (RPP is drawn in black).
_LEVEL_COLOURS = ("#2E91E5", "#E15F99", "#1CA71C", "#B68100", "#750D86", "#00A08B")


def _level_ticks(deepest: int) -> list[int]:
    """The ticks of a log-scale recall-level axis: 1, 2, 5, 10, 20, 50, ... up to
    ``deepest`` (plotly's own log ticks add unlabelled-looking minor digits and a tick
    left of level 1)."""
    ticks: list[int] = []
    decade = 1
    while decade <= deepest:
        ticks += [t for t in (decade, 2 * decade, 5 * decade) if t <= deepest]
        decade *= 10
    return ticks


def _recall_levels(c: Comparison, shared: _Shared) -> dict[str, Any] | None:
    """Each run (A) against the baseline (B) by recall level i: the metrics' shares Δμ_i of
    their differences, those shares added up to level i (ending at the differences, and at
    RPP), and RPP's mean sign at level i; a menu picks the run (first: one on which RPP and
    AP disagree, if any)."""
    if c.baseline is None or not c.recall_levels:
        return None
    views = list(c.recall_levels.values())
    first = next((n for n, v in enumerate(views) if v.disagreements.get("AP")),
                 next((n for n, v in enumerate(views) if any(v.disagreements.values())), 0))
    traces: list[dict[str, Any]] = []
    owner: list[int] = []
    buttons = []
    for n, (run, view) in enumerate(c.recall_levels.items()):
        x = {"x0": 1, "dx": 1}  # level i is the i-th point
        shown = n == first
        for k, label in enumerate(view.labels):
            shares = shared.put(f"levels/{n}/{k}", _short([lv.delta[label] for lv in view.levels]))
            colour = _LEVEL_COLOURS[k % len(_LEVEL_COLOURS)]
            traces.append({
                "type": "scatter", "mode": "lines+markers", **x, "y": shares,
                "name": _label(label), "legendgroup": _label(label), "visible": shown,
                "line": {"color": colour, "width": 1.2}, "marker": {"size": 4},
                "hovertemplate": f"level %{{x}}: Δ{_label(label)} %{{y:+.3g}}<extra></extra>",
            })  # fmt: skip
            traces.append({
                "type": "scatter", "mode": "lines", **x, "y": {"$sum": shares["$ref"]},
                "yaxis": "y2", "name": _label(label), "legendgroup": _label(label),
                "showlegend": False, "visible": shown, "line": {"color": colour, "width": 1.6},
                "hovertemplate": f"levels 1–%{{x}}: Δ{_label(label)} %{{y:+.4f}}<extra></extra>",
            })  # fmt: skip
        rpp = shared.put(f"levels/{n}/RPP", _short([lv.rpp for lv in view.levels]))
        traces.append({
            "type": "scatter", "mode": "lines", **x, "y": {"$sum": rpp["$ref"]}, "yaxis": "y2",
            "name": "RPP", "legendgroup": "RPP", "visible": shown,
            "line": {"color": "#222222", "width": 2, "dash": "dash"},
            "hovertemplate": "levels 1–%{x}: RPP %{y:+.4f}<extra></extra>",
        })  # fmt: skip
        signs = [lv.sign for lv in view.levels]
        traces.append({
            "type": "scatter", "mode": "lines", **x, "y": _short(signs), "yaxis": "y3",
            "name": "RPP sign", "legendgroup": "RPP", "showlegend": False, "visible": shown,
            "line": {"shape": "hvh", "color": "#5b6b7f", "width": 1}, "fill": "tozeroy",
            "customdata": [[lv.a_first, lv.b_first, lv.tied, lv.queries] for lv in view.levels],
            "hovertemplate": "level %{x}: RPP's sign %{y:+.3f}<br>run first on "
            "%{customdata[0]}, baseline first on %{customdata[1]}, tied on %{customdata[2]} "
            "of %{customdata[3]} queries<extra></extra>",
        })  # fmt: skip
        owner += [n] * (2 * len(view.labels) + 2)
        disagree = [m for m, d in view.disagreements.items() if d]
        label = _label(run) + (f" (RPP ≠ {', '.join(disagree)})" if disagree else "")
        buttons.append({"label": label, "method": "restyle", "args": [n]})
    for n, button in enumerate(buttons):  # every trace known: the ones each button shows
        button["args"] = [{"visible": shared.showing("owners/recall-levels", owner, n)}]
    base = _label(c.baseline)
    deepest = max(len(v.levels) for v in views)
    title = "recall level i (the user who wants i relevant documents"
    level_axis: dict[str, Any] = (  # many levels: a log scale keeps the first ones apart
        {"title": {"text": f"{title}; log scale)"}, "type": "log",
         "range": [-0.05, math.log10(deepest) + 0.05], "tickmode": "array",
         "tickvals": _level_ticks(deepest)}
        if deepest > 20 else
        {"title": {"text": f"{title})"}, "dtick": 1, "range": [0.5, deepest + 0.5]}
    )  # fmt: skip
    level_axis["anchor"] = "y3"
    layout = _layout(
        height=700, margin={"t": 56}, bargap=0.15,
        legend={"orientation": "h", "x": 1, "xanchor": "right", "y": 1.02, "yanchor": "bottom"},
        xaxis=level_axis,
        yaxis={"domain": [0.64, 1.0], "title": _axis_title(f"Δμ_i: run − {c.baseline}", 200)},
        yaxis2={"domain": [0.3, 0.6], "anchor": "x", "gridcolor": "#e5e5e5",
                "zerolinecolor": "#999999", "title": {"text": "Σ Δμ_j, j ≤ i"}},
        yaxis3={"domain": [0.0, 0.24], "anchor": "x", "range": [-1.05, 1.05],
                "gridcolor": "#e5e5e5", "zerolinecolor": "#999999",
                "title": {"text": "RPP's sign"}},
        updatemenus=[{
            "buttons": buttons, "direction": "down", "showactive": True, "active": first,
            "x": 0, "xanchor": "left", "y": 1.02, "yanchor": "bottom",
            "pad": {"r": 4, "t": 0}, "bgcolor": "#f7f7f7",
        }],
    )  # fmt: skip
    labels = next(iter(c.recall_levels.values())).labels
    return _figure("recall-levels-plot", f"{', '.join(_label(m) for m in labels)} and RPP against "
                   f"{base}, by recall level", traces, layout)  # fmt: skip


def _within_tau(mean: np.ndarray, sd: np.ndarray) -> dict[str, Any]:
    """The error bar mean ± sd cut at Kendall's τ's range [−1, 1]: its length above and
    below the mean (a bar past τ = 1 would show agreement no ordering can have), as
    plotly's ``error_y``."""
    return {"type": "data", "visible": True, "symmetric": False,
            "array": _values(np.minimum(sd, np.maximum(1.0 - mean, 0.0))),
            "arrayminus": _values(np.minimum(sd, np.maximum(mean + 1.0, 0.0)))}  # fmt: skip


def _robustness(study: Study) -> list[dict[str, Any]]:
    panels = [("queries", "number of queries")] + [
        (policy, f"fraction of judgments kept ({policy})")
        for policy in ("uniform", "pool")
        if any(policy in curve for curve in study.judgment_curves.values())
    ]
    figures = []
    for panel, axis in panels:
        traces = []
        for name in study.measures:
            curve = (
                study.query_curves.get(name, [])
                if panel == "queries"
                else study.judgment_curves.get(name, {}).get(panel, [])
            )
            if not curve:
                continue
            x, mean, sd = (np.array(column, dtype=float) for column in zip(*curve, strict=True))
            traces.append({
                "type": "scatter", "mode": "lines+markers", "x": _values(x), "y": _values(mean),
                "error_y": _within_tau(mean, sd),
                "name": _label(name), "hovertemplate": "%{fullData.name}<br>" + axis
                + " %{x}: τ %{y:.3f}<extra></extra>",
            })  # fmt: skip
        if traces:
            layout = _layout(
                height=360, xaxis={"title": {"text": axis}},
                yaxis={"title": {"text": "Kendall's τ with all data"}},
            )  # fmt: skip
            figures.append(_figure(f"robustness-{panel}", axis, traces, layout))
    return figures


def _table(c: Comparison) -> dict[str, Any]:
    """The comparison table: one row per run, a column group per measure; each cell its
    text, a sort key and a class (the significance marks)."""
    columns = ["mean ± CI", "Δ (rel.)", "p", "d", "W/T/L"]
    rows = []
    for run in c.run_names:
        cells: list[dict[str, Any]] = [{"text": clean(run), "sort": run, "class": "run"}]
        for measure in c.measures:
            r = c.row(run, measure)
            half = (r.ci_high - r.ci_low) / 2
            own = r.baseline is None
            marked = mark(r)
            cells += [
                {"text": number(r.mean), "small": f"± {number(half)}", "sort": _value(r.mean),
                 "class": "num"},
                {"text": "baseline" if own and c.baseline == run else signed(r.difference),
                 "small": "" if own else relative(r),
                 "sort": None if own else _value(r.difference or 0.0), "class": "num"},
                {"text": "" if own else p_value(r.p_value), "mark": marked,
                 "sort": None if own or r.p_value is None else _value(r.p_value),
                 "class": "num " + {"▲": "better", "▼": "worse"}.get(marked, "")},
                {"text": "" if own else signed(r.effect_size, 2),
                 "sort": None if own or r.effect_size is None else _value(r.effect_size),
                 "class": "num"},
                {"text": "" if own else f"{r.wins}/{r.ties}/{r.losses}",
                 "sort": None if own else (r.wins or 0) - (r.losses or 0), "class": "num"},
            ]  # fmt: skip
        rows.append([{"small": "", "mark": "", **cell} for cell in cells])
    return {"measures": list(c.measures), "columns": columns, "rows": rows}


def _pairs_table(c: Comparison) -> list[list[str]]:
    """Without a baseline: a row per pair of runs and measure."""
    out = []
    for r in c.rows:
        if r.baseline is None:
            continue
        out.append([
            clean(r.measure), clean(r.run), clean(r.baseline), signed(r.difference),
            p_value(r.p_value) + mark(r), signed(r.effect_size, 2),
            f"{r.wins}/{r.ties}/{r.losses}",
        ])  # fmt: skip
    return out


def _share(share: float) -> str:
    """A run's share of the MC4 chain's mass as a percentage a reader takes in at once."""
    if share >= 0.001 or share == 0:
        return f"{100 * share:.1f}%"
    return "<0.1%"


def _topic_titles(
    c: Comparison, topics: str | os.PathLike[str] | Mapping[str, str] | None
) -> list[str]:
    if topics is None:
        return [""] * len(c.query_ids)
    if not isinstance(topics, Mapping):
        topics = read_topics(topics)
    titles = []
    for q in c.query_ids:
        title = clean(str(topics.get(q, "")))
        if len(title) > _TITLE_CHARACTERS:
            title = title[: _TITLE_CHARACTERS - 1] + "…"
        titles.append(html.escape(title, quote=False))
    return titles


def format_html(
    c: Comparison,
    *,
    topics: str | os.PathLike[str] | Mapping[str, str] | None = None,
    robustness: Study | None = None,
    title: str | None = None,
) -> str:
    """The report of comparison ``c`` as the text of one HTML page (see the module)."""
    check_requirements()

    titles = _topic_titles(c, topics)
    shared = _Shared()
    colours = run_colours(list(c.run_names))
    sections: list[dict[str, Any]] = []
    summaries = [_query_summary(c, m, i, titles, shared) for i, m in enumerate(c.measures)]
    sections.append({
        "id": "query-summary", "title": "Per-query differences against the baseline",
        "figures": [f for f in summaries if f is not None],
        "note": "Each bar is a query, sorted by the chosen run's difference from the baseline "
        "(for a preference method: its preference over the baseline); the menu picks the run, "
        "hovering a bar shows the query, its topic and both values." if c.baseline is not None
        else "A comparison of every pair of runs has no baseline: see the distributions below.",
    })  # fmt: skip
    curve = _precision_recall(c, colours)
    sections.append({
        "id": "precision-recall", "title": "Interpolated precision–recall curves",
        "figures": [curve] if curve else [], "wide": True,
        "note": "Interpolated precision at the 11 standard recall levels (trec_eval's "
        "iprec_at_recall), averaged over the compared queries; click a run in the legend to "
        "hide it.",
    })  # fmt: skip
    distributions = [
        _distribution(c, m, i, titles, shared, colours) for i, m in enumerate(c.measures)
    ]
    sections.append({
        "id": "distributions", "title": "Distribution of per-query values",
        "figures": [f for f in distributions if f is not None],
        "note": "A box per run (quartiles, whiskers, dashed mean), every query a point.",
    })  # fmt: skip
    orderings = []
    heat_maps = []
    for i, m in enumerate(c.measures):
        found = _preference_matrix(c, m, i)
        if found is not None:
            heat_maps.append(found[0])
            orderings.append({"measure": m, "ordering": [
                (clean(name), _share(share)) for name, share in found[1]
            ]})  # fmt: skip
    if heat_maps:
        sections.append({
            "id": "preferences", "title": "Preferences between runs",
            "figures": heat_maps, "orderings": orderings,
            "note": "The mean over queries of each run's (row) preference over each other run "
            "(column), in [−1, 1]; runs in the order of the MC4 aggregation of the per-query "
            "orderings (Dwork et al. 2001; Diaz & Ferraro 2022).",
        })  # fmt: skip
    levels = _recall_levels(c, shared)
    if levels is not None:
        sections.append({
            "id": "recall-levels", "title": "Recall levels: where the differences come from",
            "figures": [levels], "wide": True,
            "note": "The run picked in the menu against the baseline, level by level (Diaz & "
            "Ferraro 2022, §2 and Table 1a): level i is the user who wants i relevant "
            "documents (grade ≥ 1). Top: each metric's share Δμ_i of its difference run − "
            "baseline; middle: the shares added up to level i, each curve ending at the "
            "metric's mean difference and the dashed one at RPP; bottom: RPP's preference at "
            "level i (+1: the run reaches its i-th relevant document first), the mean over "
            "the queries with at least i relevant documents. A metric's shares fade with the "
            "rank, RPP's do not: where a curve and the dashed one end on opposite sides of 0, "
            "the metric and RPP disagree (marked in the menu). Means over the compared "
            "queries; RBP with persistence 0.9, nDCG and RR over the whole ranking; rankscope "
            "explain prints the same numbers.",
        })  # fmt: skip
    if robustness is not None:
        sections.append({
            "id": "robustness", "title": "Robustness to fewer queries and judgments",
            "figures": _robustness(robustness),
            "note": "Kendall's τ between the ordering of the runs on all data and on fewer "
            "queries or judgments (mean ± sd over samples, the bars cut at τ's range [−1, 1]), as "
            "rankscope meta computes it.",
        })  # fmt: skip
    n_runs, n_queries = len(c.run_names), len(c.query_ids)
    heading = title or f"{', '.join(c.measures)} of {n_runs} runs"
    return render_page(
        "report.html.j2",
        heading=heading,
        summary=f"{n_runs} runs, {n_queries} queries"
        + (f", baseline {clean(c.baseline)}" if c.baseline is not None else ", every pair"),
        sections=sections,
        shared=shared.arrays,
        table=_table(c),
        pairs=_pairs_table(c) if c.baseline is None else [],
        legend=legend(c).splitlines(),
    )


def render_page(
    template: str,
    *,
    heading: str,
    summary: str,
    sections: list[dict[str, Any]],
    shared: dict[str, list[Any]] | None = None,
    **context: Any,
) -> str:
    """An HTML report: the page ``template`` (in ``templates/``, extending ``page.html.j2``,
    the page every report shares: its styles, header, figure sections, footer and the script
    that unpacks and draws the plots) rendered by jinja2 with autoescaping on.  ``sections``:
    each an ``id``, a ``title``, a ``note`` and its ``figures`` (`_figure`), optionally
    ``orderings`` and ``wide`` (one plot per row); ``shared``: the arrays the figures refer
    to (`_Shared`); ``context``: what ``template`` itself shows."""
    jinja2 = check_requirements()
    sections = [{"orderings": [], "wide": False, **section} for section in sections]
    figures = [f for s in sections for f in s["figures"]]
    # the two packings side by side: zlib lets go of the GIL while it compresses, and
    # plotly's bundle (cached after the first page) is 0.3 s of it on a 100-run page
    with ThreadPoolExecutor(1) as pool:
        bundle = pool.submit(_plotly_bundle)
        figures_packed = packed_json({"shared": shared or {}, "figures": figures})
        plotly_version, plotly_packed = bundle.result()
    templates = resources.files(__package__).joinpath("templates")
    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(lambda name: templates.joinpath(name).read_text("utf-8")),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    return env.get_template(template).render(
        heading=clean(heading),
        summary=summary,
        sections=sections,
        figures_packed=figures_packed,
        plotly_packed=plotly_packed,
        plotly_version=plotly_version,
        version=_version(),
        **context,
    )


def write_html(
    c: Comparison,
    path: str | os.PathLike[str],
    *,
    topics: str | os.PathLike[str] | Mapping[str, str] | None = None,
    robustness: Study | None = None,
    title: str | None = None,
) -> None:
    """Write `format_html` of ``c`` to ``path`` (UTF-8, atomically: `write_atomically`)."""
    write_atomically(path, format_html(c, topics=topics, robustness=robustness, title=title))

