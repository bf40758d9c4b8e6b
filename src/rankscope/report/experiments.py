"""An online experiment's analysis (`rankscope.experiment.ExperimentResult`) as people and
programs read it.

``format_experiment``: the aligned table a product person reads (``table``) and its
Markdown, both in the order of trust — the sample-ratio check first (observed against
planned shares, its p-value, and whether the verdict is withheld), then a block per metric
(each arm's units and value, each variant's difference and relative lift against the
control with their intervals, p, adjusted p, the decision, the variance CUPED or the strata
removed), then what the marks mean, the omnibus and sequential tests, and the notes; CSV,
the effects table (``records("effects")``) exactly, at full precision; JSON, ``to_dict()``.

``format_experiment_html`` / ``write_experiment_html``: one self-contained page in the style
of the comparison report (`rankscope.report.html`, whose page, plots and packing it shares):
the sample-ratio panel with a banner when the verdict is withheld, the effects table, a
forest plot of the lifts, each arm's distribution (when the analysis recorded histograms),
and the sequential curves (the confidence sequence about the cumulative difference, the z
statistic against the group-sequential boundary).

Variant and metric names are the user's text: cleaned (`clean`) in the terminal table,
escaped in Markdown and CSV, autoescaped in the page, escaped in the plots' labels.
"""

from __future__ import annotations

import math
import os
import textwrap
from collections.abc import Callable
from typing import Any

from ..atomic import write_atomically
from ..errors import UsageError
from ..experiment.results import BETTER, WITHHELD, WORSE, Effect, ExperimentResult, Look
from .html import (
    _axis_title,
    _figure,
    _label,
    _layout,
    _values,
    check_requirements,
    render_page,
    run_colours,
)
from .marks import CORRECTION_NAMES, number, p_value, signed
from .tables import (
    cell,
    clean,
    csv_text,
    json_text,
    markdown_cell,
    markdown_table,
    text_table,
    without_nan,
)

#: The formats of `format_experiment`.
FORMATS = ("table", "markdown", "csv", "json")

_WIDTH = 96  # the terminal text's lines wrap here

#: How a format writes the user's text: `clean` (the terminal), `markdown_cell`.
Escape = Callable[[str], str]


def _percent(value: float | None) -> str:
    """A relative lift as a signed percentage with one decimal; ``−∞``/``+∞`` for an
    unbounded interval's end (Fieller's when the control is not clearly away from 0)."""
    if value is None or math.isnan(value):
        return "–"
    if math.isinf(value):
        return "+∞" if value > 0 else "−∞"
    return f"{100 * value:+.1f}%"


def _share(value: float) -> str:
    return f"{100 * value:.1f}%"


def _p_is(p: float) -> str:
    """``p = 0.0123``, or ``p < 0.0001`` (`p_value`'s floor) in a sentence."""
    written = p_value(p)
    return f"p {written[0]} {written[1:]}" if written.startswith("<") else f"p = {written}"


def _interval(value: float, low: float, high: float, write: Callable[[float], str] = signed) -> str:
    """``value [low, high]``, each written by ``write``."""
    return f"{write(value)} [{write(low)}, {write(high)}]"


def srm_line(result: ExperimentResult, escape: Escape = clean) -> str:
    """The sample-ratio check in one sentence: each variant's units and share against the
    planned share, the χ² test's p-value, and what it means for the verdict (``escape``
    writes a variant's name)."""
    s = result.srm
    total = sum(s.observed) or 1
    arms = ", ".join(
        f"{escape(v)} {o} ({_share(o / total)}; planned {_share(e)})"
        for v, o, e in zip(s.variants, s.observed, s.expected, strict=True)
    )
    test = f"χ² = {s.statistic:.2f}, df = {s.df}, {_p_is(s.p_value)}"
    if not s.mismatch:
        verdict = f"no sample-ratio mismatch (a mismatch is p < {s.threshold:g})"
    elif result.mismatch_allowed:
        verdict = (
            f"sample-ratio mismatch (p < {s.threshold:g}): the units are not split as planned; "
            "the verdict below is given only because the mismatch was allowed, read it with "
            "suspicion"
        )
    else:
        verdict = (
            f"sample-ratio mismatch (p < {s.threshold:g}): the units are not split as planned, "
            "so the arms are not comparable (the assignment or the logging is broken) and the "
            "verdict is withheld"
        )
    return f"sample ratio: {arms}; {test}: {verdict}."


def _metrics(result: ExperimentResult) -> list[str]:
    """The metrics in the order of the analysis (the arms' order)."""
    return list(dict.fromkeys([a.metric for a in result.arms] + [e.metric for e in result.effects]))


def _corrected(effects: list[Effect]) -> bool:
    """Whether the adjusted p-values are worth a column: several variants, or one whose
    correction changed its p-value (Dunnett's)."""
    return len({e.variant for e in effects}) > 1 or any(
        e.adjusted_p != e.p_value and not (math.isnan(e.adjusted_p) and math.isnan(e.p_value))
        for e in effects
    )


def _reduction(effect: Effect) -> str:
    if effect.adjustment is None or effect.variance_reduction is None:
        return ""
    return f"{_share(effect.variance_reduction)} ({effect.adjustment})"


def _metric_rows(result: ExperimentResult, metric: str, escape: Escape) -> list[list[str]]:
    """One metric's table: a row per arm (the control first), its units and value, and for
    a variant its difference and lift against the control with their intervals, p, the
    adjusted p (with several variants), the decision and the variance removed (when CUPED or
    the strata were applied)."""
    confidence = f"{100 * result.confidence:g}% CI"
    effects = {e.variant: e for e in result.effects if e.metric == metric}
    several = _corrected(list(effects.values()))
    adjusted = any(e.adjustment is not None for e in effects.values())
    header = ["variant", "units", "value", f"difference [{confidence}]", f"lift [{confidence}]",
              "p", *(["adjusted p"] if several else []), "decision",
              *(["variance removed"] if adjusted else [])]  # fmt: skip
    rows = [header]
    for arm in (a for a in result.arms if a.metric == metric):
        row = [escape(arm.variant), str(arm.units), number(arm.value)]
        e = effects.get(arm.variant)
        if e is None:
            row += ["(control)" if arm.variant == result.control else "", "", ""]
            row += [""] * (len(header) - len(row))
        else:
            row += [
                _interval(e.difference, e.low, e.high),
                _interval(e.lift, e.lift_low, e.lift_high, _percent),
                p_value(e.p_value), *([p_value(e.adjusted_p)] if several else []), e.decision,
                *([_reduction(e)] if adjusted else []),
            ]  # fmt: skip
        rows.append(row)
    return rows


def _metric_title(result: ExperimentResult, metric: str, escape: Escape) -> str:
    """A metric's name (written by ``escape``) and how it was tested: its kind, the test, the
    lift's interval."""
    e = next((e for e in result.effects if e.metric == metric), None)
    if e is None:
        return escape(metric)
    return f"{escape(metric)} ({e.kind}; test {e.test}; lift interval {e.lift_method})"


def legend(result: ExperimentResult) -> list[str]:
    """What the columns mean: the difference, the lift, p and the decision."""
    k = len(result.variants) - 1
    correction = ""
    if k > 1 and result.correction not in (None, "none"):
        name = CORRECTION_NAMES.get(str(result.correction), f"the {result.correction} correction")
        correction = f"; adjusted p: {name} over the {k} variants against the control"
    elif k > 1:
        correction = "; adjusted p: not corrected (no correction asked)"
    lines = [
        f"difference: variant − control, with its {100 * result.confidence:g}% interval; lift: "
        f"variant / control − 1; p: the test's p-value{correction}; a decision is significant "
        f"at α = {result.alpha:g}."
    ]
    if any(e.adjustment is not None for e in result.effects):
        lines.append(
            "variance removed: the share of the difference's variance that CUPED (the "
            "pre-period covariate) or the strata removed; on those metrics the difference, "
            "the lift and the values they compare are the adjusted ones, the arms' values "
            "the raw means."
        )
    return lines


def _look_line(looks: list[Look], escape: Escape) -> str:
    """A variant's sequential looks in one sentence: the last look, and the first one that
    said stop."""
    last = looks[-1]
    line = (
        f"sequential, {escape(last.metric)}, {escape(last.variant)}: {len(looks)} looks up to "
        f"{last.units} units; at the last, difference {signed(last.difference)}, always-valid "
        f"{_p_is(last.p_value)}, confidence sequence [{signed(last.low)}, "
        f"{signed(last.high)}]"
    )
    if last.boundary is not None:
        line += f", z = {last.z:.2f} against the boundary ±{last.boundary:.3f}"
    stop = next((look for look in looks if look.stop), None)
    return line + (
        f"; first stop at look {stop.look} ({stop.units} units)." if stop else "; no stop."
    )


def _sequences(result: ExperimentResult) -> list[list[Look]]:
    """The looks of each (metric, variant), in the order of the analysis."""
    groups: dict[tuple[str, str], list[Look]] = {}
    for look in result.sequential:
        groups.setdefault((look.metric, look.variant), []).append(look)
    return [sorted(looks, key=lambda look: look.look) for looks in groups.values()]


def _closing_lines(result: ExperimentResult, escape: Escape) -> list[str]:
    """The legend, the omnibus tests, the sequential looks and the notes, one line each."""
    lines = legend(result)
    lines += [
        f"all arms equal, {escape(o.metric)}: {o.test}, statistic {o.statistic:.3f}, "
        f"df = {o.df:g}{'' if o.df_denominator is None else f' and {o.df_denominator:.1f}'}, "
        f"{_p_is(o.p_value)}."
        for o in result.omnibus
    ]
    lines += [_look_line(looks, escape) for looks in _sequences(result)]
    lines += [f"note: {escape(note)}" for note in result.notes]
    return lines


def format_text(result: ExperimentResult) -> str:
    """The sample-ratio line, a block per metric, then the legend and the notes."""

    def fill(line: str) -> str:
        return textwrap.fill(line, _WIDTH, subsequent_indent="  ", break_on_hyphens=False)

    blocks = [fill(srm_line(result)) + "\n"]
    for metric in _metrics(result):
        blocks.append(_metric_title(result, metric, clean) + "\n" + text_table(
            _metric_rows(result, metric, clean)))  # fmt: skip
    closing = "".join(fill(line) + "\n" for line in _closing_lines(result, clean))
    return "\n".join(blocks) + "\n" + closing


def format_markdown(result: ExperimentResult) -> str:
    """The same as `format_text`: the sample-ratio paragraph, a table per metric under its
    name, the legend and notes as a list."""
    parts = [srm_line(result, markdown_cell) + "\n"]
    for metric in _metrics(result):
        title = _metric_title(result, metric, markdown_cell)
        parts.append(f"**{title}**\n\n" + markdown_table(
            _metric_rows(result, metric, markdown_cell)))  # fmt: skip
    parts.append("".join(f"- {line}\n" for line in _closing_lines(result, markdown_cell)))
    return "\n".join(parts)


def format_csv(result: ExperimentResult) -> str:
    """The effects table (`ExperimentResult.records` ``("effects")``): every field, full
    precision."""
    names = list(ExperimentResult.TABLES["effects"])
    records = result.records("effects")
    return csv_text([names, *[[cell(r[n]) for n in names] for r in records]])


def format_json(result: ExperimentResult) -> str:
    """`ExperimentResult.to_dict` (NaN as null)."""
    return json_text(without_nan(result.to_dict()), False)


_WRITERS = {
    "table": format_text,
    "markdown": format_markdown,
    "csv": format_csv,
    "json": format_json,
}


def format_experiment(result: ExperimentResult, fmt: str = "table") -> str:
    """The analysis ``result`` in one of `FORMATS` (see the module)."""
    if fmt not in _WRITERS:
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return _WRITERS[fmt](result)


# -- the HTML report -------------------------------------------------------------------------

#: The effects table's class per decision (its colour).
_DECISION_CLASS = {BETTER: "better", WORSE: "worse", WITHHELD: "withheld"}


def _bounded(x: float) -> float | None:
    """A number for the page: None when not finite (unbounded or undefined)."""
    return x if math.isfinite(x) else None


def _forest(result: ExperimentResult, colours: dict[str, str]) -> dict[str, Any] | None:
    """The lift of each variant on each metric with its interval: a row per (metric,
    variant), a trace per variant (its colour, a legend entry), a line at 0.  An unbounded
    end is drawn to the plot's edge and said so in the hover."""
    if not result.effects:
        return None
    rows = [f"{_label(e.metric)} · {_label(e.variant)}" for e in result.effects]
    finite = [abs(x) for e in result.effects for x in (e.lift, e.lift_low, e.lift_high)
              if math.isfinite(x)]  # fmt: skip
    edge = 1.15 * max(finite, default=1.0) or 1.0
    traces = []
    for variant in result.variants[1:]:
        effects = [(n, e) for n, e in enumerate(result.effects) if e.variant == variant]
        if not effects:
            continue
        lifts = [e.lift for _, e in effects]
        highs = [min(e.lift_high, edge) - e.lift for _, e in effects]
        lows = [e.lift - max(e.lift_low, -edge) for _, e in effects]
        traces.append({
            "type": "scatter", "mode": "markers", "name": _label(variant),
            "x": _values([100 * x for x in lifts]), "y": [rows[n] for n, _ in effects],
            "error_x": {"type": "data", "symmetric": False, "thickness": 1.6,
                        "array": _values([100 * x for x in highs]),
                        "arrayminus": _values([100 * x for x in lows])},
            "marker": {"size": 10, "color": colours[variant],
                       "symbol": [_SYMBOL.get(e.decision, "circle-open") for _, e in effects],
                       "line": {"width": 2, "color": colours[variant]}},
            "customdata": [[_percent(e.lift_low), _percent(e.lift_high), p_value(e.adjusted_p),
                            e.decision] for _, e in effects],
            "hovertemplate": "%{y}<br>lift %{x:+.1f}% [%{customdata[0]}, %{customdata[1]}]"
            "<br>adjusted p %{customdata[2]}<br>%{customdata[3]}<extra></extra>",
        })  # fmt: skip
    confidence = f"{100 * result.confidence:g}%"
    layout = _layout(
        height=120 + 36 * len(rows),
        xaxis={"title": {"text": f"lift against {_label(result.control)}, % (with its "
                         f"{confidence} interval)"}, "ticksuffix": "%", "zeroline": True,
               "zerolinewidth": 2},
        yaxis={"type": "category", "autorange": "reversed"},
        legend={"orientation": "h", "x": 1, "xanchor": "right", "y": 1.02, "yanchor": "bottom"},
    )  # fmt: skip
    if len(finite) < 3 * len(result.effects):  # an unbounded end: the axis stops at the edge
        layout["xaxis"]["range"] = [-100 * edge, 100 * edge]
    return _figure("lift-forest", "relative lift per metric and variant", traces, layout)


#: A filled marker for a significant decision, an open one otherwise.
_SYMBOL = {BETTER: "circle", WORSE: "circle"}


def _distribution(
    result: ExperimentResult, metric: str, index: int, units: str, colours: dict[str, str]
) -> dict[str, Any] | None:
    """Each arm's histogram of the units' values on ``metric`` (its share of the arm's units
    per bin, the arms overlaid)."""
    arms = result.distributions.get(metric)
    if not arms:
        return None
    traces = []
    for variant in (v for v in result.variants if v in arms):
        edges, counts = arms[variant]
        total = sum(counts) or 1
        traces.append({
            "type": "bar", "name": _label(variant), "opacity": 0.55,
            "x": _values([(a + b) / 2 for a, b in zip(edges[:-1], edges[1:], strict=True)]),
            "width": _values([b - a for a, b in zip(edges[:-1], edges[1:], strict=True)]),
            "y": _values([100 * c / total for c in counts]),
            "customdata": [[_label(number(a)), _label(number(b)), c]
                           for a, b, c in zip(edges[:-1], edges[1:], counts, strict=True)],
            "marker": {"color": colours[variant]},
            "hovertemplate": "%{fullData.name}: [%{customdata[0]}, %{customdata[1]}): "
            f"%{{y:.1f}}% of its {_label(units)} (%{{customdata[2]}})<extra></extra>",
        })  # fmt: skip
    layout = _layout(
        height=340, barmode="overlay", bargap=0,
        xaxis={"title": _axis_title(f"{metric} per {units.removesuffix('s')}", 480)},
        yaxis={"title": {"text": f"% of the arm's {_label(units)}"}, "ticksuffix": "%"},
    )  # fmt: skip
    return _figure(f"distribution-{index}", clean(metric), traces, layout)  # autoescaped


def _sequential(looks: list[Look], index: int, units: str, colour: str) -> dict[str, Any]:
    """A variant's looks at a metric: above, the cumulative difference inside its
    always-valid confidence sequence; below (when looks were planned), |z| against the
    group-sequential boundary.  A stop is marked."""
    x = [look.units for look in looks]
    name = f"{clean(looks[0].metric)} · {clean(looks[0].variant)}"  # autoescaped
    traces: list[dict[str, Any]] = [
        {"type": "scatter", "mode": "lines", "x": x, "y": _values([lk.high for lk in looks]),
         "line": {"width": 0}, "showlegend": False, "hoverinfo": "skip"},
        {"type": "scatter", "mode": "lines", "x": x, "y": _values([lk.low for lk in looks]),
         "fill": "tonexty", "fillcolor": "rgba(46,145,229,0.18)", "line": {"width": 0},
         "name": "confidence sequence", "hoverinfo": "skip"},
        {"type": "scatter", "mode": "lines+markers", "x": x,
         "y": _values([lk.difference for lk in looks]), "name": "difference",
         "line": {"color": colour}, "marker": {"size": 5},
         "customdata": [[lk.look, _label(signed(lk.low)), _label(signed(lk.high)),
                         p_value(lk.p_value)] for lk in looks],
         "hovertemplate": f"look %{{customdata[0]}}, %{{x}} {_label(units)}<br>difference "
         "%{y:+.4f} [%{customdata[1]}, %{customdata[2]}]<br>always-valid p %{customdata[3]}"
         "<extra></extra>"},
    ]  # fmt: skip
    stops = [lk for lk in looks if lk.stop]
    if stops:
        traces.append({
            "type": "scatter", "mode": "markers", "x": [stops[0].units],
            "y": _values([stops[0].difference]), "name": f"stop (look {stops[0].look})",
            "marker": {"symbol": "star", "size": 14, "color": "#c62828"}, "hoverinfo": "name",
        })  # fmt: skip
    planned = [lk for lk in looks if lk.boundary is not None]
    layout = _layout(
        height=460 if planned else 340,
        xaxis={"title": {"text": f"{_label(units)} so far"}, "anchor": "y2" if planned else "y"},
        yaxis={"title": {"text": "cumulative difference"},
               "domain": [0.42, 1.0] if planned else [0.0, 1.0]},
        legend={"orientation": "h", "x": 1, "xanchor": "right", "y": 1.02, "yanchor": "bottom"},
    )  # fmt: skip
    if planned:
        px = [lk.units for lk in planned]
        traces += [
            {"type": "scatter", "mode": "lines+markers", "x": px, "yaxis": "y2",
             "y": _values([abs(lk.z) for lk in planned]), "name": "|z|",
             "line": {"color": colour, "dash": "dot"}, "marker": {"size": 5},
             "hovertemplate": "|z| %{y:.3f}<extra></extra>"},
            {"type": "scatter", "mode": "lines+markers", "x": px, "yaxis": "y2",
             "y": _values([lk.boundary for lk in planned]), "name": "boundary",
             "line": {"color": "#222222", "dash": "dash"}, "marker": {"size": 6},
             "hovertemplate": "boundary %{y:.3f}<extra></extra>"},
        ]  # fmt: skip
        layout["yaxis2"] = {"domain": [0.0, 0.32], "anchor": "x", "gridcolor": "#e5e5e5",
                            "zerolinecolor": "#999999", "rangemode": "tozero",
                            "title": {"text": "|z| and boundary"}}  # fmt: skip
    return _figure(f"sequential-{index}", name, traces, layout)


def _effect_table(result: ExperimentResult, confidence: str) -> dict[str, Any]:
    """The effects table: its columns (the adjusted p with several variants, the variance
    removed when CUPED or the strata were applied) and its rows, each cell its text, a sort
    key and whether it is text (left-aligned) or a number."""
    several = _corrected(list(result.effects))
    adjusted = any(e.adjustment is not None for e in result.effects)
    columns = ["metric", "variant", "control", "variant value", f"difference [{confidence} CI]",
               f"lift [{confidence} CI]", "p", *(["adjusted p"] if several else []), "decision",
               *(["variance removed"] if adjusted else [])]  # fmt: skip
    text = {"metric", "variant", "decision"}
    rows = []
    for e in result.effects:
        cells = [
            (clean(e.metric), e.metric, ""), (clean(e.variant), e.variant, ""),
            (number(e.control_value), _bounded(e.control_value), ""),
            (number(e.variant_value), _bounded(e.variant_value), ""),
            (signed(e.difference), _bounded(e.difference),
             f"[{signed(e.low)}, {signed(e.high)}]"),
            (_percent(e.lift), _bounded(e.lift),
             f"[{_percent(e.lift_low)}, {_percent(e.lift_high)}]"),
            (p_value(e.p_value), _bounded(e.p_value), ""),
            *([(p_value(e.adjusted_p), _bounded(e.adjusted_p), "")] if several else []),
            (e.decision, e.decision, ""),
            *([(_reduction(e), e.variance_reduction, "")] if adjusted else []),
        ]  # fmt: skip
        rows.append({"class": _DECISION_CLASS.get(e.decision, ""), "cells": [
            {"text": t, "sort": key, "small": small,
             "class": f"text {name}" if name in text else "num"}
            for (t, key, small), name in zip(cells, columns, strict=True)
        ]})  # fmt: skip
    return {"columns": [{"name": c, "text": c in text} for c in columns], "rows": rows}


def format_experiment_html(
    result: ExperimentResult, *, title: str | None = None, units: str | None = None
) -> str:
    """The analysis ``result`` as the text of one self-contained HTML page (see the module).
    ``title``: the page's heading (default: the metrics and the source); ``units``: what a
    unit is, in the labels (``users``, ``impressions``; default ``units``)."""
    check_requirements()
    units = clean(units or "units")
    colours = run_colours(list(result.variants))
    metrics = _metrics(result)
    confidence = f"{100 * result.confidence:g}%"
    sections: list[dict[str, Any]] = []
    forest = _forest(result, colours)
    withheld = (" The verdict is withheld (sample-ratio mismatch): these lifts compare arms "
                "that were not split as planned." if result.withheld else "")  # fmt: skip
    sections.append({
        "id": "lifts", "title": "Lift against the control", "wide": True,
        "figures": [forest] if forest else [],
        "note": f"Each variant's relative lift on each metric, variant / control − 1, with its "
        f"{confidence} interval; a filled marker is a significant decision at α = "
        f"{result.alpha:g} (after the correction), an open one is not." + withheld,
    })  # fmt: skip
    distributions = [_distribution(result, m, i, units, colours) for i, m in enumerate(metrics)]
    sections.append({
        "id": "distributions", "title": "Distribution per arm",
        "figures": [f for f in distributions if f is not None],
        "note": f"Each arm's histogram of its {units}' values, as a share of the arm's {units}, "
        "the arms overlaid on the same bins.",
    })  # fmt: skip
    sequences = _sequences(result)
    sections.append({
        "id": "sequential", "title": "Sequential looks",
        "figures": [_sequential(looks, i, units, colours[looks[0].variant])
                    for i, looks in enumerate(sequences)],
        "note": f"The cumulative difference variant − control after each look, inside its "
        f"{confidence} always-valid confidence sequence (mixture SPRT: valid however often it "
        "is looked at); below, with planned looks, |z| against the group-sequential boundary "
        "(α-spending): crossing it says stop. A star marks the first look that said stop.",
    })  # fmt: skip
    total = sum(result.srm.observed)
    heading = title or f"{', '.join(metrics)}: {', '.join(result.variants[1:])} against " \
        f"{result.control}"
    return render_page(
        "experiment.html.j2",
        heading=heading,
        summary=f"{clean(result.source)}: {total} {units}, control {clean(result.control)}, "
        f"{len(result.variants) - 1} variant{'s' if len(result.variants) > 2 else ''}, "
        f"α = {result.alpha:g}, {confidence} intervals",
        sections=sections,
        srm=result.srm,
        srm_rows=[
            {"variant": clean(r["variant"]), "units": r["units"],
             "expected": f"{r['expected_units']:.1f}", "observed": _share(r["observed_share"]),
             "planned": _share(r["planned_share"])}
            for r in result.srm.records()
        ],  # fmt: skip
        srm_sentence=srm_line(result),
        withheld=result.withheld,
        forced=result.mismatch_allowed and result.srm.mismatch,
        effects=_effect_table(result, confidence),
        arms=[{"metric": clean(a.metric), "variant": clean(a.variant), "units": a.units,
               "value": number(a.value), "sd": number(a.sd)} for a in result.arms],
        closing=_closing_lines(result, clean),
    )  # fmt: skip


def write_experiment_html(
    result: ExperimentResult,
    path: str | os.PathLike[str],
    *,
    title: str | None = None,
    units: str | None = None,
) -> None:
    """Write `format_experiment_html` of ``result`` to ``path`` (UTF-8, atomically:
    `write_atomically`)."""
    write_atomically(path, format_experiment_html(result, title=title, units=units))
