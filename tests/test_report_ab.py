"""An experiment's analysis as it leaves (`rankscope.report.experiments`): the terminal table
and its Markdown against hand-written expectations (the sample-ratio line first, a block per
metric, the legend and notes last), CSV and JSON at full precision, then the HTML page's
structure without a browser and in headless Chromium (skipped, with the reason, when
Chromium or playwright is absent).

The results are built by hand, with realistic numbers: two arms (a rate and a CUPED-adjusted
mean, sequential looks with O'Brien–Fleming boundaries), and three arms with a sample-ratio
mismatch (the verdict withheld) and a hostile variant name."""

from __future__ import annotations

import csv
import io
import json
import math
import re
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from rankscope.errors import UsageError
from rankscope.experiment.results import (
    BETTER,
    NO_DIFFERENCE,
    WITHHELD,
    Arm,
    Effect,
    ExperimentResult,
    Look,
    Omnibus,
    SampleRatio,
)
from rankscope.report.experiments import (
    FORMATS,
    format_experiment,
    format_experiment_html,
    write_experiment_html,
)

HOSTILE = "<img src=x onerror=alert(1)>"
ESCAPED = "&lt;img src=x onerror=alert(1)&gt;"
#: O'Brien–Fleming's boundaries for five looks at α = 0.05 (rpact, gsDesign)
OBF = (4.877, 3.357, 2.680, 2.290, 2.031)
#: every arm's revenue histogram on the same edges
EDGES = (0.0, 10.0, 20.0, 30.0, 40.0, 50.0)


def two_arms() -> ExperimentResult:
    """A new ranker against the control on 10,000 users: a click rate (no difference) and
    revenue (CUPED, a significant increase, five looks)."""
    srm = SampleRatio(("control", "new-ranker"), (5012, 4988), (0.5, 0.5), 0.0576, 1, 0.8103,
                      0.001, False)  # fmt: skip
    arms = (
        Arm("ctr", "control", 5012, 600 / 5012, 0.32462, 600.0),
        Arm("ctr", "new-ranker", 4988, 650 / 4988, 0.33666, 650.0),
        Arm("revenue", "control", 5012, 12.40, 30.0, 62148.8),
        Arm("revenue", "new-ranker", 4988, 12.95, 31.0, 64594.6),
    )
    effects = (
        Effect("ctr", "proportion", "control", "new-ranker", "z", 600 / 5012, 650 / 4988,
               0.0106, -0.002364, 0.023564, 0.0886, -0.0187, 0.2020, "fieller", 1.6027, "z",
               0.1090, 0.1090, None, NO_DIFFERENCE, 5012, 4988),
        Effect("revenue", "mean", "control", "new-ranker", "welch", 12.40, 12.95, 0.55, 0.0731,
               1.0269, 0.044355, 0.0058, 0.0833, "fieller", 2.261, "t", 0.02378, 0.02378, None,
               BETTER, 5012, 4988, "cuped", 0.4213),
    )  # fmt: skip
    columns = zip(
        (0.9, 0.7, 0.6, 0.58, 0.55), (-1.9, -0.8, -0.4, -0.2, -0.12), (3.7, 2.2, 1.6, 1.36, 1.22),
        (1.0, 0.71, 0.38, 0.2, 0.11), (1.62, 1.79, 1.91, 2.13, 2.261), OBF, strict=True,
    )  # fmt: skip
    looks = tuple(
        Look("revenue", "new-ranker", k + 1, 2000 * (k + 1), None, d, low, high, p, z, b, k == 4)
        for k, (d, low, high, p, z, b) in enumerate(columns)
    )
    histograms = {"revenue": {"control": (EDGES, (2500, 1200, 700, 400, 212)),
                              "new-ranker": (EDGES, (2300, 1250, 760, 430, 248))}}  # fmt: skip
    return ExperimentResult(
        "checkout.tsv", "units", "control", ("control", "new-ranker"), 0.05, 0.95, None, srm,
        False, arms, effects, sequential=looks, notes=("revenue in euros per user",),
        distributions=histograms,
    )  # fmt: skip


def three_arms() -> ExperimentResult:
    """Two variants (one with a hostile name) against the control, 15,000 users planned in
    thirds but split 5,000/5,400/4,600: χ² = 2 · 400²/5,000 = 64 on 2 df, p = e^−32."""
    names = ("control", HOSTILE, "b")
    srm = SampleRatio(names, (5000, 5400, 4600), (1 / 3, 1 / 3, 1 / 3), 64.0, 2, math.exp(-32),
                      0.001, True)  # fmt: skip
    arms = (
        Arm("clicked", "control", 5000, 0.1000, 0.3, 500.0),
        Arm("clicked", HOSTILE, 5400, 0.1100, 0.3129, 594.0),
        Arm("clicked", "b", 4600, 0.0950, 0.2932, 437.0),
    )
    effects = (
        Effect("clicked", "proportion", "control", HOSTILE, "z", 0.1, 0.11, 0.01, -0.0019,
               0.0219, 0.1, -0.019, 0.2230, "fieller", 1.647, "z", 0.0996, 0.1992, "holm",
               WITHHELD, 5000, 5400),
        Effect("clicked", "proportion", "control", "b", "z", 0.1, 0.095, -0.005, -0.0172,
               0.0072, -0.05, -0.1676, 0.0757, "fieller", -0.804, "z", 0.4214, 0.4214, "holm",
               WITHHELD, 5000, 4600),
    )  # fmt: skip
    omnibus = (Omnibus("clicked", "χ² test", 5.52, 2.0, 0.0633),)
    return ExperimentResult("ranking.tsv", "units", "control", names, 0.05, 0.95, "holm", srm,
                            False, arms, effects, omnibus)  # fmt: skip


def cells(line: str) -> list[str]:
    """An aligned table's line cut into its cells (two spaces or more between them)."""
    return re.split(r"\s{2,}", line.strip())


def block(text: str, title: str) -> list[list[str]]:
    """The rows (header first, the rule left out) of the table under the line ``title``."""
    lines = text.splitlines()
    start = lines.index(title) + 1
    end = lines.index("", start)
    return [cells(line) for line in lines[start:end] if not set(line) <= {"-", " "}]


# --- the terminal table ---------------------------------------------------------------------


def test_the_table_opens_with_the_sample_ratio_then_a_block_per_metric():
    text = format_experiment(two_arms())
    paragraphs = text.split("\n\n")
    # 5012/10000 = 50.1%, 4988/10000 = 49.9%; χ² 0.0576 with two decimals
    assert " ".join(paragraphs[0].split()) == (
        "sample ratio: control 5012 (50.1%; planned 50.0%), new-ranker 4988 (49.9%; planned "
        "50.0%); χ² = 0.06, df = 1, p = 0.8103: no sample-ratio mismatch (a mismatch is p < "
        "0.001)."
    )
    assert block(text, "ctr (proportion; test z; lift interval fieller)") == [
        ["variant", "units", "value", "difference [95% CI]", "lift [95% CI]", "p", "decision"],
        ["control", "5012", "0.1197", "(control)"],  # 600/5012
        ["new-ranker", "4988", "0.1303", "+0.0106 [-0.0024, +0.0236]", "+8.9% [-1.9%, +20.2%]",
         "0.1090", NO_DIFFERENCE],
    ]  # fmt: skip
    assert block(text, "revenue (mean; test welch; lift interval fieller)") == [
        ["variant", "units", "value", "difference [95% CI]", "lift [95% CI]", "p", "decision",
         "variance removed"],
        ["control", "5012", "12.4000", "(control)"],
        ["new-ranker", "4988", "12.9500", "+0.5500 [+0.0731, +1.0269]", "+4.4% [+0.6%, +8.3%]",
         "0.0238", BETTER, "42.1% (cuped)"],
    ]  # fmt: skip
    assert all(len(line) <= 96 for line in paragraphs[0].splitlines())
    closing = " ".join(text[text.index("difference: variant") :].split())
    assert closing == (
        "difference: variant − control, with its 95% interval; lift: variant / control − 1; p: "
        "the test's p-value; a decision is significant at α = 0.05. variance removed: the "
        "share of the difference's variance that CUPED (the pre-period covariate) or the strata "
        "removed; on those metrics the difference, the lift and the values they compare are the "
        "adjusted ones, the arms' values the raw means. sequential, revenue, "
        "new-ranker: 5 looks up to 10000 units; at the last, difference +0.5500, always-valid "
        "p = 0.1100, confidence sequence [-0.1200, +1.2200], z = 2.26 against the boundary "
        "±2.031; first stop at look 5 (10000 units). note: revenue in euros per user"
    )


def test_a_mismatch_withholds_the_verdict_and_says_so_first():
    text = format_experiment(three_arms())
    first = " ".join(text.split("\n\n")[0].split())
    # 5400/15000 = 36.0%, 4600/15000 = 30.7%; e^−32 is below the four decimals
    assert first == (
        f"sample ratio: control 5000 (33.3%; planned 33.3%), {HOSTILE} 5400 (36.0%; planned "
        "33.3%), b 4600 (30.7%; planned 33.3%); χ² = 64.00, df = 2, p < 0.0001: sample-ratio "
        "mismatch (p < 0.001): the units are not split as planned, so the arms are not "
        "comparable (the assignment or the logging is broken) and the verdict is withheld."
    )
    rows = block(text, "clicked (proportion; test z; lift interval fieller)")
    assert rows[0] == ["variant", "units", "value", "difference [95% CI]", "lift [95% CI]", "p",
                       "adjusted p", "decision"]  # fmt: skip
    assert rows[2] == [HOSTILE, "5400", "0.1100", "+0.0100 [-0.0019, +0.0219]",
                       "+10.0% [-1.9%, +22.3%]", "0.0996", "0.1992", WITHHELD]  # fmt: skip
    assert rows[3][-3:] == ["0.4214", "0.4214", WITHHELD]
    closing = " ".join(text[text.index("difference: variant") :].split())
    assert "adjusted p: Holm's correction over the 2 variants against the control" in closing
    assert closing.endswith("all arms equal, clicked: χ² test, statistic 5.520, df = 2, "
                            "p = 0.0633.")  # fmt: skip


@pytest.mark.parametrize("correction, said", [
    ("holm", "adjusted p: Holm's correction over the 2 variants against the control;"),
    ("dunnett", "adjusted p: Dunnett's many-to-one comparison over the 2 variants against the "
                "control;"),
    (None, "adjusted p: not corrected (no correction asked);"),
])  # fmt: skip
def test_the_legend_names_the_correction(correction, said):
    text = format_experiment(replace(three_arms(), correction=correction))
    assert said in " ".join(text[text.index("difference: variant") :].split())


def test_an_anova_gives_both_degrees_of_freedom():
    anova = Omnibus("clicked", "Welch's one-way ANOVA", 7.617, 2.0, 0.000493, 5986.94)
    text = format_experiment(replace(three_arms(), omnibus=(anova,)))
    assert text.endswith("all arms equal, clicked: Welch's one-way ANOVA, statistic 7.617, "
                         "df = 2 and 5986.9, p = 0.0005.\n")  # fmt: skip


def test_dunnett_with_one_variant_shows_its_adjusted_p():
    result = two_arms()
    effects = tuple(replace(e, correction="dunnett", adjusted_p=e.p_value * 1.01)
                    for e in result.effects)  # fmt: skip
    text = format_experiment(replace(result, effects=effects, correction="dunnett"))
    rows = block(text, "ctr (proportion; test z; lift interval fieller)")
    assert rows[0][5:7] == ["p", "adjusted p"] and rows[2][5:7] == ["0.1090", "0.1101"]
    assert "adjusted p" not in format_experiment(result)  # equal to p: no column


def test_an_allowed_mismatch_is_said():
    text = format_experiment(replace(three_arms(), mismatch_allowed=True))
    first = " ".join(text.split("\n\n")[0].split())
    assert first.endswith(
        "sample-ratio mismatch (p < 0.001): the units are not split as planned; the verdict "
        "below is given only because the mismatch was allowed, read it with suspicion."
    )
    assert "withheld" not in first


def test_an_unbounded_lift_and_a_missing_value():
    """Fieller's interval is the whole line when the control is not clearly away from 0; a
    value the analysis could not give (NaN) is a dash, and null in JSON."""
    result = two_arms()
    ctr = replace(result.effects[0], lift_low=-math.inf, lift_high=math.inf, p_value=math.nan)
    result = replace(result, effects=(ctr, result.effects[1]))
    rows = block(format_experiment(result), "ctr (proportion; test z; lift interval fieller)")
    assert rows[2][4:6] == ["+8.9% [−∞, +∞]", "–"]
    loaded = json.loads(format_experiment(result, "json"))
    assert loaded["effects"][0]["p_value"] is None


def test_control_characters_and_table_characters_are_escaped():
    result = two_arms()
    evil = "evil\x1b[31m|name"
    effects = tuple(replace(e, variant=evil) for e in result.effects)
    arms = tuple(replace(a, variant=evil) if a.variant == "new-ranker" else a for a in result.arms)
    srm = replace(result.srm, variants=("control", evil))
    result = replace(result, effects=effects, arms=arms, srm=srm, sequential=(),
                     variants=("control", evil))  # fmt: skip
    text = format_experiment(result)
    assert "\x1b" not in text and "evil\\x1b[31m|name 4988" in text
    markdown = format_experiment(result, "markdown")
    assert "\x1b" not in markdown
    assert "| evil\\\\x1b[31m\\|name | 4988 | 12.9500 |" in markdown


def test_markdown_has_the_same_parts_in_the_same_order():
    text = format_experiment(three_arms(), "markdown")
    lines = text.splitlines()
    assert lines[0].startswith("sample ratio: control 5000 (33.3%; planned 33.3%)")
    assert lines[0].endswith("and the verdict is withheld.")
    assert lines[2] == "**clicked (proportion; test z; lift interval fieller)**"
    assert lines[4] == ("| variant | units | value | difference [95% CI] | lift [95% CI] | p | "
                        "adjusted p | decision |")  # fmt: skip
    assert lines[7] == (f"| {HOSTILE} | 5400 | 0.1100 | +0.0100 [-0.0019, +0.0219] | "
                        f"+10.0% [-1.9%, +22.3%] | 0.0996 | 0.1992 | {WITHHELD} |")  # fmt: skip
    assert lines[-1] == ("- all arms equal, clicked: χ² test, statistic 5.520, df = 2, "
                         "p = 0.0633.")


# --- CSV and JSON ---------------------------------------------------------------------------


def test_csv_is_the_effects_table_at_full_precision():
    result = three_arms()
    rows = list(csv.reader(io.StringIO(format_experiment(result, "csv"))))
    assert rows[0] == list(ExperimentResult.TABLES["effects"])
    assert len(rows) == 3
    first = dict(zip(rows[0], rows[1], strict=True))
    assert first["variant"] == HOSTILE and first["decision"] == WITHHELD
    assert float(first["lift_high"]) == 0.2230 and float(first["adjusted_p"]) == 0.1992
    assert first["adjustment"] == "" and first["correction"] == "holm"
    two = list(csv.DictReader(io.StringIO(format_experiment(two_arms(), "csv"))))
    assert float(two[0]["control_value"]) == 600 / 5012  # repr: read back to the same float
    assert two[1]["variance_reduction"] == "0.4213" and two[1]["adjustment"] == "cuped"


def test_json_is_the_result_as_a_dict():
    loaded = json.loads(format_experiment(three_arms(), "json"))
    assert loaded["withheld"] is True and loaded["mismatch_allowed"] is False
    assert loaded["srm"]["observed"] == [5000, 5400, 4600]
    assert loaded["srm"]["p_value"] == math.exp(-32)
    assert [e["variant"] for e in loaded["effects"]] == [HOSTILE, "b"]
    assert loaded["omnibus"] == [{
        "metric": "clicked", "test": "χ² test", "statistic": 5.52, "df": 2.0, "p_value": 0.0633,
        "df_denominator": None,
    }]  # fmt: skip
    two = json.loads(format_experiment(two_arms(), "json"))
    assert two["distributions"]["revenue"]["control"] == {
        "edges": [0.0, 10.0, 20.0, 30.0, 40.0, 50.0], "counts": [2500, 1200, 700, 400, 212]
    }
    assert [look["boundary"] for look in two["sequential"]] == list(OBF)


def test_an_unknown_format_names_the_choices():
    with pytest.raises(UsageError, match="unknown format 'latex'; choose one of table, markdown"):
        format_experiment(two_arms(), "latex")
    assert FORMATS == ("table", "markdown", "csv", "json")


# --- the HTML page --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def html():
    """The compare report's test helpers (the page's parser, its figures, Chromium), or a
    skip when the report extra is absent (the text formats above need none of it)."""
    pytest.importorskip("plotly", reason="the HTML report needs the report extra (plotly)")
    pytest.importorskip("jinja2", reason="the HTML report needs the report extra (jinja2)")
    from . import test_report_html

    return test_report_html


@pytest.fixture(scope="module")
def pages(html, tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("ab")
    out = {"two": folder / "two.html", "three": folder / "three.html"}
    write_experiment_html(two_arms(), out["two"], units="users")
    write_experiment_html(three_arms(), out["three"], title="Ranking test")
    return out


def test_the_page_holds_every_figure(html, pages):
    page = html.parse(pages["two"].read_text("utf-8"))
    figures = {f["id"]: f for f in html.figures_of(page)}
    assert sorted(figures) == sorted(page.plots) == [
        "distribution-1", "lift-forest", "sequential-0"
    ]  # ctr has no histogram: revenue (the second metric) has
    forest = figures["lift-forest"]["data"]
    assert len(forest) == 1 and forest[0]["y"] == ["ctr · new-ranker", "revenue · new-ranker"]
    # the lifts in percent; the bars reach +20.2% − 8.86% and 8.86% + 1.87% for ctr
    assert forest[0]["x"] == [8.86, 4.4355]
    assert forest[0]["error_x"]["array"] == [11.34, 3.8945]
    assert forest[0]["error_x"]["arrayminus"] == [10.73, 3.8555]
    assert forest[0]["marker"]["symbol"] == ["circle-open", "circle"]  # filled: significant
    bars = figures["distribution-1"]["data"]
    assert [t["name"] for t in bars] == ["control", "new-ranker"]
    assert bars[0]["x"] == [5, 15, 25, 35, 45] and bars[0]["width"] == [10] * 5
    assert bars[0]["y"][0] == 49.8803  # 2500 of 5012 users
    curve = figures["sequential-0"]["data"]
    assert [t["name"] for t in curve if "name" in t] == [
        "confidence sequence", "difference", "stop (look 5)", "|z|", "boundary"
    ]
    assert curve[-1]["y"] == list(OBF) and curve[0]["x"] == [2000, 4000, 6000, 8000, 10000]
    text = "".join(page.text)
    assert "No sample-ratio mismatch" in text and "Verdict withheld" not in text


def test_the_withheld_banner_and_hostile_names(html, pages):
    raw = pages["three"].read_text("utf-8")
    assert HOSTILE not in raw and ESCAPED in raw
    page = html.parse(raw)
    assert page.scripts == 3 and page.urls == [] and not re.search(r"https?://", raw)
    assert HOSTILE in "".join(page.text)  # shown as text
    assert '<div class="banner withheld" role="alert" id="srm-banner">' in raw
    assert "Verdict withheld: sample-ratio mismatch" in "".join(page.text)
    figures = {f["id"]: f for f in html.figures_of(page)}
    assert sorted(figures) == ["lift-forest"]  # no histograms, no looks
    labels = json.dumps(figures)
    assert HOSTILE not in labels and ESCAPED in labels
    forced = format_experiment_html(replace(three_arms(), mismatch_allowed=True))
    assert '<div class="banner forced"' in forced and "banner withheld" not in forced


def test_a_hostile_metric_name_is_escaped_everywhere_on_the_page(html):
    """A metric's name is in the tables, the figures' captions, the plots' labels, their axis
    titles and the sequential curve's caption."""
    metric = "<b onmouseover=alert(2)>revenue</b>"
    result = two_arms()
    result = replace(
        result,
        arms=tuple(replace(a, metric=metric) for a in result.arms),
        effects=tuple(replace(e, metric=metric) for e in result.effects),
        sequential=tuple(replace(look, metric=metric) for look in result.sequential),
        distributions={metric: result.distributions["revenue"]},
    )  # fmt: skip
    raw = format_experiment_html(result)
    assert metric not in raw
    page = html.parse(raw)
    assert metric in "".join(page.text)
    figures = html.figures_of(page)
    assert [f["id"] for f in figures] == ["lift-forest", "distribution-0", "sequential-0"]
    labels = json.dumps([[f["data"], f["layout"]] for f in figures])  # what plotly.js draws
    assert metric not in labels and "&lt;b onmouseover=alert(2)&gt;revenue&lt;/b&gt;" in labels


def test_an_unbounded_interval_reaches_the_edge_of_the_forest_plot(html):
    result = two_arms()
    ctr = replace(result.effects[0], lift_low=-math.inf, lift_high=math.inf)
    page = html.parse(format_experiment_html(replace(result, effects=(ctr, result.effects[1]))))
    forest = next(f for f in html.figures_of(page) if f["id"] == "lift-forest")
    # the largest finite value left is ctr's lift, 8.86%: the axis stops at 1.15 times it
    edge = 1.15 * 8.86
    assert forest["layout"]["xaxis"]["range"] == pytest.approx([-edge, edge])
    trace = forest["data"][0]
    assert trace["error_x"]["array"][0] == pytest.approx(edge - 8.86, abs=1e-4)
    assert trace["error_x"]["arrayminus"][0] == pytest.approx(8.86 + edge, abs=1e-4)
    assert trace["customdata"][0][:2] == ["−∞", "+∞"]


def test_a_missing_extra_is_named_and_nothing_is_written(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "jinja2", None)
    with pytest.raises(UsageError, match=re.escape("pip install 'rankscope[report]'")):
        write_experiment_html(two_arms(), tmp_path / "ab.html")
    assert list(tmp_path.iterdir()) == []
    assert format_experiment(two_arms(), "json")  # the text formats need no extra


SEEN = """() => ({
  rendered: document.querySelectorAll("div.plot[data-rendered=true] svg.main-svg").length,
  plots: document.querySelectorAll("div.plot").length,
  banner: document.getElementById("srm-banner").innerText,
  bannerClass: document.getElementById("srm-banner").className,
  cells: Array.from(document.querySelectorAll("#effects-table tbody tr td:nth-child(2)"))
    .map(function (td) { return td.textContent; }),
  images: document.querySelectorAll("img").length,
  ticks: Array.from(document.querySelectorAll("#lift-forest .ytick text"))
    .map(function (t) { return t.textContent; }),
})"""


def open_page(html, path: Path, screenshot: Path) -> dict:
    """``path`` in headless Chromium with every request but the file's refused: what the
    page shows (`SEEN`), its console errors and dialogs, and a full-page screenshot."""
    from playwright.sync_api import sync_playwright

    executable = html.chromium()
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=html.CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1366, "height": 900})
            context.route("**/*", lambda route: route.continue_()
                          if route.request.url == path.as_uri() else route.abort())  # fmt: skip
            page = context.new_page()
            page.on("console", lambda m: m.type == "error" and errors.append(m.text))
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("dialog", lambda d: (errors.append(f"dialog {d.message}"), d.dismiss()))
            page.goto(path.as_uri())
            page.wait_for_function("document.body.dataset.plots === 'rendered'", timeout=60_000)
            seen = page.evaluate(SEEN)
            page.screenshot(path=str(screenshot), full_page=True)
        finally:
            browser.close()
    seen["errors"] = errors
    return seen


def test_the_reports_in_chromium(html, pages, tmp_path):
    seen = open_page(html, pages["two"], tmp_path / "two.png")
    print(f"screenshot: {tmp_path / 'two.png'}")
    assert seen["errors"] == []
    assert seen["plots"] == 3 and seen["rendered"] >= 3
    assert seen["bannerClass"] == "banner ok"
    assert sorted(seen["ticks"]) == ["ctr · new-ranker", "revenue · new-ranker"]

    seen = open_page(html, pages["three"], tmp_path / "three.png")
    assert seen["errors"] == []  # no alert: the hostile name is never markup
    assert seen["bannerClass"] == "banner withheld"
    assert seen["banner"].startswith("Verdict withheld: sample-ratio mismatch")
    assert seen["cells"] == [HOSTILE, "b"] and seen["images"] == 0
    assert sorted(seen["ticks"]) == [f"clicked · {HOSTILE}", "clicked · b"]  # drawn as text
    assert (tmp_path / "three.png").stat().st_size > 30_000
