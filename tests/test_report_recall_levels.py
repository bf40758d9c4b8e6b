"""The recall-level plot of the HTML report: its data against the comparison's own
differences (computed by the measures' kernels), its menu, the runs it marks, when it is
left out, and the plot in headless Chromium (skipped, with the reason, without it)."""

from __future__ import annotations

import numpy as np
import pytest

import rankscope
from rankscope.errors import RankscopeWarning

from .test_report_html import HOSTILE_RUN, figures_of, generated, parse, ranked, rendered

TRACES_PER_RUN = 2 * 4 + 2  # Δμ_i and its running sum per metric, RPP's sum, RPP's sign


def figure_of(path) -> dict:
    figures = figures_of(parse(path.read_text("utf-8")))
    return next(f for f in figures if f["id"] == "recall-levels-plot")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    qrels, runs = generated(5, 12, depth=40)
    result = rankscope.compare(qrels, runs, ["AP", "nDCG@10", "RPP"], baseline="run00")
    path = tmp_path_factory.mktemp("levels") / "report.html"
    result.to_html(path)
    return result, path


def test_one_trace_group_per_run_and_a_button_each(report):
    result, path = report
    figure = figure_of(path)
    others = [n for n in result.run_names if n != "run00"]
    assert len(figure["data"]) == TRACES_PER_RUN * len(others)
    buttons = figure["layout"]["updatemenus"][0]["buttons"]
    assert len(buttons) == len(others)
    for n, button in enumerate(buttons):
        visible = button["args"][0]["visible"]
        assert sum(visible) == TRACES_PER_RUN
        assert visible == [k // TRACES_PER_RUN == n for k in range(len(visible))]
    active = figure["layout"]["updatemenus"][0]["active"]
    assert [t["visible"] for t in figure["data"]] == buttons[active]["args"][0]["visible"]


def test_running_sums_end_at_the_compared_differences(report):
    """The AP curve of the middle panel ends at the AP difference `compare` reports (from
    its own kernels), and the dashed RPP curve at the run's mean RPP over the baseline."""
    result, path = report
    figure = figure_of(path)
    others = [n for n in result.run_names if n != "run00"]
    for n, run in enumerate(others):
        traces = figure["data"][n * TRACES_PER_RUN : (n + 1) * TRACES_PER_RUN]
        ap_sum = next(t for t in traces if t["name"] == "AP" and t.get("yaxis") == "y2")
        rpp_sum = next(t for t in traces if t["name"] == "RPP")
        assert ap_sum["y"][-1] == pytest.approx(result.row(run, "AP").difference, abs=2e-4)
        assert rpp_sum["y"][-1] == pytest.approx(result.row(run, "RPP").mean, abs=2e-4)
        view = result.recall_levels[run]
        ap = next(t for t in traces if t["name"] == "AP" and "yaxis" not in t)
        assert ap["y"] == pytest.approx([lv.delta["AP"] for lv in view.levels], rel=1e-3,
                                        abs=1e-12)  # fmt: skip
        assert len(ap["y"]) == max(len(q) for q in generated(5, 12, depth=40)[0].values())


def test_hostile_run_name_is_escaped_in_the_menu(report):
    _, path = report
    labels = [b["label"] for b in figure_of(path)["layout"]["updatemenus"][0]["buttons"]]
    assert any(label.startswith("&lt;img src=x onerror=alert(1)&gt;") for label in labels)
    assert not any(HOSTILE_RUN in label for label in labels)


def disagreeing(tmp_path):
    """Two queries on which run ``x`` gets its first relevant document sooner than the
    baseline but its two deeper ones later: AP prefers x, RPP the baseline."""
    qrels = {q: {"r1": 1, "r2": 1, "r3": 1} for q in ("q1", "q2")}
    x = {q: ranked(["r1", "n1", "n2", "n3", "r2", "r3"]) for q in qrels}  # 1, 5, 6
    same = {q: ranked(["r1", "r2", "r3"]) for q in qrels}
    base = {q: ranked(["n1", "n2", "r1", "r2", "r3"]) for q in qrels}  # 3, 4, 5
    return rankscope.compare(qrels, {"base": base, "same": same, "x": x}, ["AP", "RPP"])


def test_the_menu_marks_and_opens_on_a_disagreement(tmp_path):
    result = disagreeing(tmp_path)
    assert result.row("x", "AP").difference > 0 > result.row("x", "RPP").mean
    path = tmp_path / "r.html"
    result.to_html(path)
    menu = figure_of(path)["layout"]["updatemenus"][0]
    labels = [b["label"] for b in menu["buttons"]]
    assert labels[0] == "same" and labels[1].startswith("x (RPP ≠ AP")
    assert menu["active"] == 1


def test_left_out_without_a_baseline_or_with_judged_only(tmp_path):
    qrels, runs = generated(3, 6, depth=20)
    for options in ({"all_pairs": True}, {"judged_only": True}):
        result = rankscope.compare(qrels, runs, ["AP"], **options)
        assert result.recall_levels == {}
        path = tmp_path / "r.html"
        result.to_html(path)
        assert "recall-levels-plot" not in parse(path.read_text("utf-8")).plots


def test_compare_without_relevant_documents_still_works():
    qrels = {"q1": {"a": 0}, "q2": {"b": 0}}
    runs = {"x": {"q1": {"a": 1.0}, "q2": {"b": 1.0}}, "y": {"q1": {"a": 1.0}, "q2": {"c": 1.0}}}
    with pytest.warns(RankscopeWarning, match="no judged document is relevant"):
        result = rankscope.compare(qrels, runs, ["AP"])
    assert result.recall_levels == {} and result.row("y", "AP").difference == 0


def test_recall_levels_in_chromium(tmp_path):
    """The plot draws without a console error; picking another run in the menu shows that
    run's traces; hovering RPP's sign names the queries."""
    result = disagreeing(tmp_path)
    path = tmp_path / "r.html"
    result.to_html(path)
    with rendered(path) as (page, errors):
        plot = page.locator("#recall-levels-plot")
        plot.scroll_into_view_if_needed()
        assert plot.get_attribute("data-rendered") == "true"
        visible = """d => d.data.map((t, k) => t.visible === true ? k : -1)
                             .filter(k => k >= 0)"""
        shown = plot.evaluate(visible)
        assert shown == list(range(TRACES_PER_RUN, 2 * TRACES_PER_RUN))  # run x
        plot.locator(".updatemenu-header-group").click()
        plot.locator(".updatemenu-dropdown-button").first.click()
        page.wait_for_timeout(300)
        assert plot.evaluate(visible) == list(range(TRACES_PER_RUN))  # run "same"
        # RPP's sign at level 1 (run "same" is first there: +1), in page pixels (linear axis)
        x, y = plot.evaluate("""d => {
            const l = d._fullLayout;
            return [l.xaxis._offset + l.xaxis.l2p(1), l.yaxis3._offset + l.yaxis3.l2p(1)];
        }""")
        box = plot.bounding_box()
        assert box is not None
        page.mouse.move(box["x"] + x, box["y"] + y)
        page.wait_for_timeout(300)
        hover = plot.locator(".hoverlayer").text_content() or ""
        screenshot = tmp_path / "levels.png"
        plot.screenshot(path=str(screenshot))
    print(f"screenshot: {screenshot}")
    assert errors == []
    assert "queries" in hover and "level 1" in hover
    assert screenshot.stat().st_size > 10_000
    assert np.isfinite(result.row("x", "AP").difference)
