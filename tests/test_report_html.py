"""The HTML report (`rankscope report`, `compare --html`, `Comparison.to_html`) and the
topics reader: the page's structure without a browser (a row per run, every plot, escaping of
hostile names and titles, no network resource, its size), then the page in headless Chromium
(skipped, with the reason, when Chromium or playwright is absent)."""

from __future__ import annotations

import base64
import gzip
import itertools
import json
import re
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import rankscope
from rankscope.errors import InputError, UsageError
from rankscope.read.topics import read_topics

from .conftest import run_cli

pytest.importorskip("plotly", reason="the HTML report needs the report extra (plotly)")
pytest.importorskip("jinja2", reason="the HTML report needs the report extra (jinja2)")

HOSTILE_RUN = "<img src=x onerror=alert(1)>"
HOSTILE_TITLE = "</script><script>alert('title')</script> & more"
EXAMPLES = files("rankscope.examples")


def generated(n_runs: int, n_queries: int, depth: int = 100, seed: int = 7):
    """Graded qrels and ``n_runs`` runs of ``depth`` documents per query, of varied quality;
    the second run carries a hostile name."""
    rng = np.random.default_rng(seed)
    qrels = {
        f"q{q}": {f"d{q}_{d}": int(rng.integers(1, 3)) for d in range(int(rng.integers(3, 15)))}
        for q in range(n_queries)
    }
    runs = {}
    for r in range(n_runs):
        name = HOSTILE_RUN if r == 1 else f"run{r:02d}"
        skill = r / n_runs
        run = {}
        for q in range(n_queries):
            scores = {f"d{q}_{d}": float(rng.random()) for d in range(depth)}
            for d in qrels[f"q{q}"]:
                if d in scores:
                    scores[d] += skill * rng.random()
            run[f"q{q}"] = scores
        runs[name] = run
    return qrels, runs


def ranked(docs: list[str]) -> dict[str, float]:
    """A ranking of ``docs`` as scores, the first highest."""
    return {d: float(len(docs) - i) for i, d in enumerate(docs)}


class Page(HTMLParser):
    """What the tests look for in the page: rows of the comparison table, plot divs, the
    figures' JSON, resource URLs, script elements."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.table_rows = 0
        self.plots: list[str] = []
        self.urls: list[str] = []
        self.scripts = 0
        self._in_table = self._in_body = False
        self._script_id: str | None = None
        self.script_text: dict[str, str] = {}
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("src", "href", "srcset", "data", "action", "poster"):
            if a.get(key) and not a[key].startswith("#"):
                self.urls.append(a[key])
        if tag == "table" and a.get("id") == "comparison-table":
            self._in_table = True
        elif tag == "tbody" and self._in_table:
            self._in_body = True
        elif tag == "tr" and self._in_body:
            self.table_rows += 1
        elif tag == "div" and "plot" in (a.get("class") or "").split():
            self.plots.append(a["id"])
        elif tag == "script":
            self.scripts += 1
            self._script_id = a.get("id") or f"inline{self.scripts}"
            self.script_text[self._script_id] = ""

    def handle_endtag(self, tag):
        if tag == "table":
            self._in_table = self._in_body = False
        elif tag == "script":
            self._script_id = None

    def handle_data(self, data):
        if self._script_id is not None:
            self.script_text[self._script_id] += data
        else:
            self.text.append(data)


def parse(page: str) -> Page:
    parser = Page()
    parser.feed(page)
    return parser


def unshare(node, shared: dict):
    """What the page's script does before plotting: each reference to a shared array
    replaced by what it stands for (see rankscope.report.html._Shared)."""
    if isinstance(node, list):
        return [unshare(x, shared) for x in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return shared[node["$ref"]]
    if "$rows" in node:
        columns = [shared[key] for key in node["$rows"]]
        at = node.get("at", range(len(columns[0])))
        return [[column[k] for column in columns] for k in at]
    if "$is" in node:
        return [owner == node["$is"] for owner in shared[node["in"]]]
    if "$sum" in node:
        return list(itertools.accumulate(shared[node["$sum"]]))
    return {key: unshare(value, shared) for key, value in node.items()}


def figures_of(page: Page) -> list[dict]:
    """The page's figures as plotly.js gets them."""
    data = json.loads(gzip.decompress(base64.b64decode(page.script_text["rankscope-figures"])))
    return unshare(data["figures"], data["shared"])


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """A 24-run × 50-query report with a preference method, topics and hostile text."""
    qrels, runs = generated(24, 50)
    result = rankscope.compare(qrels, runs, ["AP", "nDCG@10", "P@10", "RR", "R@100", "RPP"])
    topics = {f"q{q}": f"topic number {q}" for q in range(50)}
    topics["q3"] = HOSTILE_TITLE
    path = tmp_path_factory.mktemp("report") / "report.html"
    result.to_html(path, topics=topics)
    return result, path


def test_one_row_per_run_and_every_plot(big):
    result, path = big
    page = parse(path.read_text("utf-8"))
    assert page.table_rows == len(result.run_names) == 24
    figures = figures_of(page)
    ids = [f["id"] for f in figures]
    assert sorted(ids) == sorted(page.plots) and len(set(ids)) == len(ids)
    kinds = {i.split("-")[0] for i in ids}
    assert kinds == {"summary", "precision", "distribution", "preferences", "recall"}
    measures = result.measures
    assert sum(i.startswith("summary-") for i in ids) == len(measures)
    assert sum(i.startswith("distribution-") for i in ids) == len(measures)
    assert sum(i.startswith("preferences-") for i in ids) == 1  # RPP only
    for figure in figures:
        assert figure["data"], figure["id"]
    curves = next(f for f in figures if f["id"] == "precision-recall-plot")
    assert len(curves["data"]) == 24 and all(len(t["y"]) == 11 for t in curves["data"])


def test_report_size_24_runs_50_queries(big):
    _, path = big
    assert path.stat().st_size < 5_000_000


def test_hostile_text_is_escaped_never_markup(big):
    _, path = big
    text = path.read_text("utf-8")
    assert HOSTILE_RUN not in text  # neither in the table nor in the plots' data
    assert "&lt;img src=x onerror=alert(1)&gt;" in text  # the table cell, escaped
    assert "<script>alert" not in text and "</script><script>" not in text
    page = parse(text)
    assert page.scripts == 3  # the figures' data, the packed plotly.js, the page's script
    assert HOSTILE_RUN in "".join(page.text)  # shown as text
    figures = figures_of(page)
    # plotly.js reads tags in labels: what it is given is escaped, so shown as written
    names = {t.get("name") for f in figures for t in f["data"]}
    assert "&lt;img src=x onerror=alert(1)&gt;" in names and HOSTILE_RUN not in names
    hover = json.dumps(figures)
    assert "&lt;/script&gt;&lt;script&gt;alert('title')&lt;/script&gt; &amp; more" in hover


def test_no_network_resource(big):
    _, path = big
    text = path.read_text("utf-8")
    assert not re.search(r"https?://", text)  # plotly.js (and its URLs) travel compressed
    assert "@import" not in text and "url(" not in text
    assert parse(text).urls == []  # no src/href/... attribute but in-page anchors


def test_api_and_cli_on_the_bundled_example(tmp_path, capsys):
    qrels = str(EXAMPLES / "qrels.txt")
    runs = [str(EXAMPLES / f"run.{n}.txt") for n in ("weak", "medium", "strong")]
    out = tmp_path / "report.html"
    topics = tmp_path / "topics.tsv"
    topics.write_text("".join(f"{q}\ttitle of {q}\n" for q in range(1, 26)))
    code, _, err = run_cli(
        ["report", qrels, *runs, "-m", "AP", "-m", "RPP", "--topics", str(topics),
         "--baseline", "run.medium", "-o", str(out)], capsys,
    )  # fmt: skip
    assert code == 0, err
    page = parse(out.read_text("utf-8"))
    assert page.table_rows == 3
    assert {p.split("-")[0] for p in page.plots} == {
        "summary", "precision", "distribution", "preferences", "recall"
    }
    html_file = tmp_path / "compare.html"
    code, printed, err = run_cli(["compare", qrels, *runs, "--html", str(html_file)], capsys)
    assert code == 0, err and "AP" in printed
    assert parse(html_file.read_text("utf-8")).table_rows == 3


@pytest.mark.parametrize("how", [
    {"collection": "example"},
    {"collection": "example", "baseline": "run.strong", "measures": ["AP", "P@10"]},
    {"collection": "generated", "runs": 5},
    {"collection": "generated", "runs": 4, "common_queries": True, "ties": "docno-asc"},
])  # fmt: skip
def test_the_streamed_page_is_the_whole_runs_page(tmp_path, monkeypatch, how):
    # the report's comparison reads, judges and reduces one run at a time (the recall
    # levels' ranks of the relevant documents kept from the same pass); its page is
    # byte for byte the page of the runs read whole (the path preference methods take)
    how = dict(how)
    if how.pop("collection") == "example":
        qrels: Any = str(EXAMPLES / "qrels.txt")
        runs: Any = [str(EXAMPLES / f"run.{n}.txt") for n in ("weak", "medium", "strong")]
    else:
        qrels, runs = generated(how.pop("runs"), 12, depth=30)
    measures = how.pop("measures", ["AP", "nDCG@10", "RR"])
    streamed = rankscope.compare(qrels, runs, measures, **how)
    streamed.to_html(tmp_path / "streamed.html")
    monkeypatch.setattr("rankscope.api.comparison.streams", lambda requests: False)
    whole = rankscope.compare(qrels, runs, measures, **how)
    whole.to_html(tmp_path / "whole.html")
    assert len(streamed.recall_levels) == len(streamed.run_names) - 1 > 0
    assert streamed.precision_recall is not None
    assert (tmp_path / "streamed.html").read_bytes() == (tmp_path / "whole.html").read_bytes()


def test_report_jobs_share_the_runs_and_change_no_byte(tmp_path, capsys):
    # `report --jobs N` as `compare --jobs N`: worker processes share the runs; the page is
    # the one a single process writes
    qrels = str(EXAMPLES / "qrels.txt")
    runs = [str(EXAMPLES / f"run.{n}.txt") for n in ("weak", "medium", "strong")]
    pages = []
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}.html"
        code, _, err = run_cli(["report", "--jobs", jobs, "-m", "AP", "-m", "nDCG@10", "-o",
                                str(out), qrels, *runs], capsys)  # fmt: skip
        assert code == 0, err
        pages.append(out.read_bytes())
    assert pages[0] == pages[1]
    assert b"run.strong" in pages[0]


def test_all_pairs_and_robustness(tmp_path):
    from rankscope.read.sources import read_qrels, resolve_runs
    from rankscope.table.study import study

    qrels, runs = generated(3, 12, depth=20)
    result = rankscope.compare(qrels, runs, ["AP"], all_pairs=True)
    judgments = read_qrels(qrels)
    curves = study(judgments, resolve_runs(runs, judgments), ["AP", "RPP"], samples=2,
                   permutations=100)  # fmt: skip
    out = tmp_path / "pairs.html"
    result.to_html(out, robustness=curves, title="<b>all pairs</b>")
    text = out.read_text("utf-8")
    page = parse(text)
    assert page.table_rows == 3
    assert "&lt;b&gt;all pairs&lt;/b&gt;" in text and "<b>all pairs" not in text
    assert "summary-0" not in page.plots  # no baseline: no per-query differences
    assert {"robustness-queries", "robustness-uniform", "robustness-pool"} <= set(page.plots)


def test_missing_extra_names_it(monkeypatch, tmp_path):
    from rankscope.report import html

    monkeypatch.setitem(sys.modules, "plotly", None)
    qrels, runs = generated(2, 3, depth=5)
    result = rankscope.compare(qrels, runs, ["AP"])
    with pytest.raises(UsageError, match=re.escape("pip install 'rankscope[report]'")):
        result.to_html(tmp_path / "x.html")
    with pytest.raises(UsageError, match="rankscope.report"):
        html.check_requirements()


def test_the_cli_checks_the_extra_before_working(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "jinja2", None)
    code, _, err = run_cli(
        ["report", str(EXAMPLES / "qrels.txt"), str(EXAMPLES / "run.weak.txt"),
         str(EXAMPLES / "run.strong.txt"), "-o", str(tmp_path / "r.html")], capsys,
    )  # fmt: skip
    assert code == 2 and "rankscope[report]" in err and not (tmp_path / "r.html").exists()


# --- topics ---------------------------------------------------------------------------------


def test_topics_tsv(tmp_path):
    path = tmp_path / "topics.tsv"
    path.write_text("# id\ttitle\n401\tforeign minorities,  Germany\n\n402\tbehavioral genetics\n")
    assert read_topics(path) == {"401": "foreign minorities, Germany", "402": "behavioral genetics"}


def test_topics_trec_sgml(tmp_path):
    path = tmp_path / "topics.401-450"
    path.write_text(
        "<top>\n\n<num> Number: 401 \n<title> foreign minorities, Germany \n\n<desc> "
        "Description:\nWhat language ...\n</top>\n\n<top>\n<num> Number: 402\n<title> "
        "behavioral genetics\n<desc> Description:\n...\n</top>\n"
    )
    assert read_topics(path) == {"401": "foreign minorities, Germany", "402": "behavioral genetics"}


def test_topics_xml(tmp_path):
    web = tmp_path / "web.xml"
    web.write_text(
        '<webtrack2012>\n<topic number="151" type="faceted">\n  <query>403b &amp; co</query>\n'
        '  <description>x</description>\n</topic>\n<topic number="152">\n'
        "  <query>mitchell college</query>\n</topic>\n</webtrack2012>\n"
    )
    assert read_topics(web) == {"151": "403b & co", "152": "mitchell college"}
    clef = tmp_path / "clef.xml"
    clef.write_text(
        "<queries>\n<query>\n<id>101001</id>\n<title>sore throat &lt;3 days</title>\n</query>\n"
        "<query><id>101002</id><title>rash</title></query>\n</queries>\n"
    )
    assert read_topics(clef) == {"101001": "sore throat <3 days", "101002": "rash"}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("401\tfine\n402 no tab here\n", "line 2: expected 'query id<TAB>title'"),
        ("401\tone\n401\ttwo\n", "line 2: topic 401 is given twice"),
        ("<top>\n<title> no number\n</top>\n", "line 1: a <top> without a topic number"),
        ("<top>\n<num> 1\n</top>\n<top>\n<num> 2\n<desc> x\n</top>\n", "topic 1 has no <title>"),
        ("<topics></topics>\n", "no <top>, <topic> or <query> element"),
    ],
)
def test_topics_errors_name_file_and_line(tmp_path, text, problem):
    path = tmp_path / "topics.txt"
    path.write_text(text)
    with pytest.raises(InputError, match=re.escape(problem)) as caught:
        read_topics(path)
    assert str(path) in str(caught.value)


# --- in a real browser ----------------------------------------------------------------------

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


def chromium() -> str:
    """The distribution's Chromium (never a downloaded build), or skip with the reason."""
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name) or (f"/usr/bin/{name}" if Path(f"/usr/bin/{name}").exists()
                                       else None)  # fmt: skip
        if found:
            return found
    pytest.skip("Chromium is absent (apt-get install chromium; .ci/run installs it)")


def open_in_chromium(path: Path, screenshot: Path) -> dict:
    """Open ``path`` in headless Chromium, wait for every plot, take a full page screenshot;
    what the page did: console errors, requests, rows, plots, hover text.  (Playwright starts
    the browser with a fresh temporary profile of its own: it refuses ``--user-data-dir``.)"""
    from playwright.sync_api import sync_playwright

    executable = chromium()
    seen: dict = {"errors": [], "requests": [], "blocked": []}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1366, "height": 900})

            def only_the_file(route):
                if route.request.url == path.as_uri():
                    route.continue_()
                else:
                    seen["blocked"].append(route.request.url)
                    route.abort()

            context.route("**/*", only_the_file)
            page = context.new_page()
            page.on("console", lambda m: m.type == "error" and seen["errors"].append(m.text))
            page.on("pageerror", lambda e: seen["errors"].append(str(e)))
            page.on("request", lambda r: seen["requests"].append(r.url))
            page.on("dialog", lambda d: (seen["errors"].append(f"dialog {d.message}"),
                                         d.dismiss()))  # fmt: skip
            page.goto(path.as_uri())
            page.wait_for_function("document.body.dataset.plots === 'rendered'", timeout=60_000)
            seen["rows"] = page.locator("#comparison-table tbody tr").count()
            seen["plots"] = page.locator("div.plot").count()
            seen["rendered"] = page.locator("div.plot[data-rendered=true] svg.main-svg").count()
            seen["pending"] = [
                d.get_attribute("id") for d in page.locator("div.plot:not([data-rendered])").all()
            ]
            # the table sorts: by the first measure's mean, ascending
            page.locator("#comparison-table thead th[data-col='1']").click()
            means = [
                float(v)
                for v in page.locator("#comparison-table tbody tr td:nth-of-type(1)")
                .evaluate_all("cells => cells.map(c => c.dataset.sort)")
            ]
            seen["sorted"] = means == sorted(means)
            # hovering a bar of the first query summary shows its query
            bar = page.locator("#summary-0 .trace.bars .point path").first
            bar.scroll_into_view_if_needed()
            bar.hover(force=True)
            page.wait_for_timeout(300)
            seen["hover"] = page.locator("#summary-0 .hoverlayer").text_content()
            page.mouse.move(0, 0)
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(screenshot), full_page=True)
        finally:
            browser.close()
    return seen


def test_report_in_chromium(big, tmp_path):
    result, path = big
    screenshot = tmp_path / "report.png"
    seen = open_in_chromium(path, screenshot)
    print(f"screenshot: {screenshot}")
    assert seen["errors"] == []
    assert seen["blocked"] == [] and set(seen["requests"]) == {path.as_uri()}
    assert seen["rows"] == len(result.run_names)
    assert seen["pending"] == [] and seen["rendered"] >= seen["plots"] > 0
    assert seen["sorted"]
    assert "query q" in seen["hover"] and "topic number" in seen["hover"]
    assert screenshot.stat().st_size > 50_000


# --- reads at a glance ----------------------------------------------------------------------

BASELINE = "the baseline run of a group whose name is long enough to wrap"
GLANCE_MEASURES = ["AP", "nDCG@10", "P@10", "RR", "R@100", "ERR@20", "P@5", "RPP"]


@pytest.fixture(scope="module")
def glance(tmp_path_factory):
    """8 runs (the baseline first, with a long name), 8 measures (more than 1,400 px of
    table), a query with 30-odd relevant documents (a log-scale recall-level axis) and
    robustness curves whose mean ± sd passes τ = 1 and τ = −1."""
    from rankscope.table.study import Study

    qrels, generated_runs = generated(8, 30, depth=60)
    qrels["q0"].update({f"d0_{d}": 1 for d in range(20, 45)})
    names = [BASELINE] + [f"group{r}_EN_Run{r}_with_a_suffix" for r in range(1, 8)]
    runs = dict(zip(names, generated_runs.values(), strict=True))
    result = rankscope.compare(qrels, runs, GLANCE_MEASURES, baseline=BASELINE)
    curves = Study(run_names=names, measures=["AP"], tau=np.eye(1), power={},
                   query_curves={"AP": [(5, 0.95, 0.1), (10, -0.9, 0.3), (20, 0.5, 0.1)]})
    path = tmp_path_factory.mktemp("glance") / "glance.html"
    result.to_html(path, robustness=curves)
    return result, path


LAYOUT = """() => {
  const out = {};
  const wrap = document.querySelector("#comparison .table-wrap");
  out.page = [document.documentElement.scrollWidth, document.documentElement.clientWidth];
  out.table = [wrap.scrollWidth, wrap.clientWidth];
  wrap.scrollLeft = wrap.scrollWidth;  // to the last measure
  const box = wrap.getBoundingClientRect();
  const heads = wrap.querySelectorAll("thead tr:last-child th");
  const last = heads[heads.length - 1].getBoundingClientRect();
  out.lastHeader = [last.left - box.left, last.right - box.left, wrap.clientWidth];
  out.runCells = Array.from(wrap.querySelectorAll("tbody th.run")).map(function (th) {
    const r = th.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + 8, (r.top + r.bottom) / 2);
    return [r.left - box.left, th.contains(hit)];
  });
  out.colours = {};
  out.titles = [];
  out.heights = {};
  for (const div of document.querySelectorAll("div.plot")) {
    const outer = div.getBoundingClientRect();
    for (const t of div.querySelectorAll(".infolayer g[class$='title'] text")) {
      const r = t.getBoundingClientRect();
      if (!t.textContent) continue;
      out.titles.push([div.id, t.textContent, r.left - outer.left, r.top - outer.top,
                       outer.right - r.right, outer.bottom - r.bottom]);
    }
    if (div.id.startsWith("distribution-") || div.id.startsWith("preferences-")) {
      out.heights[div.id] = div._fullLayout.yaxis._length;
    }
    if (div.id === "precision-recall-plot" || div.id.startsWith("distribution-")) {
      out.colours[div.id] = div._fullData.map(function (t) {
        return [t.name, t.marker.color, t.line.color];
      });
    }
  }
  const levels = document.getElementById("recall-levels-plot");
  out.levelAxis = [levels._fullLayout.xaxis.type,
    Array.from(levels.querySelectorAll(".xtick text")).map(function (t) { return t.textContent; })];
  const tau = document.getElementById("robustness-queries");
  const axis = tau._fullLayout.yaxis, top = tau.getBoundingClientRect().top;
  out.tauPixels = [axis._offset + axis.l2p(1), axis._offset + axis.l2p(-1)];
  out.errorBars = Array.from(tau.querySelectorAll("g.errorbar path")).map(function (p) {
    const r = p.getBoundingClientRect();
    return [r.top - top, r.bottom - top];
  });
  out.errorY = [tau._fullData[0].error_y.array, tau._fullData[0].error_y.arrayminus];
  return out;
}"""


@contextmanager
def rendered(path: Path, width: int = 1366) -> Iterator[tuple[Any, list[str]]]:
    """The page ``path`` in headless Chromium ``width`` px wide, every plot drawn, and the
    list its console errors go to."""
    from playwright.sync_api import sync_playwright

    executable = chromium()
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.on("console", lambda m: m.type == "error" and errors.append(m.text))
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(path.as_uri())
            page.wait_for_function("document.body.dataset.plots === 'rendered'", timeout=60_000)
            yield page, errors
        finally:
            browser.close()


def layout_at_1400px(path: Path, screenshot: Path) -> dict:
    """The page laid out in headless Chromium 1,400 px wide: the facts `LAYOUT` measures."""
    with rendered(path, 1400) as (page, errors):
        seen = page.evaluate(LAYOUT)
        page.locator("#comparison").screenshot(path=str(screenshot))
    seen["errors"] = errors
    return seen


def test_the_page_reads_at_a_glance_in_chromium(glance, tmp_path):
    result, path = glance
    seen = layout_at_1400px(path, tmp_path / "table.png")
    assert seen["errors"] == []
    # the page never scrolls sideways; the table does (8 measures), and scrolled to its end
    # its last measure is in view while every run's name stays in view at the left edge
    assert seen["page"][0] <= seen["page"][1]
    assert seen["table"][0] > seen["table"][1]
    left, right, width = seen["lastHeader"]
    assert 0 <= left and right <= width + 1
    assert len(seen["runCells"]) == 8
    assert all(abs(x) <= 1 and on_top for x, on_top in seen["runCells"])
    # one colour per run on the whole page, although the RPP boxes leave the baseline out
    colours: dict[str, set] = {}
    for traces in seen["colours"].values():
        for name, marker, line in traces:
            colours.setdefault(name, set()).update({marker, line})
    assert len(colours) == 8 and all(len(c) == 1 for c in colours.values())
    assert len(set.union(*colours.values())) == 8
    rpp = seen["colours"][f"distribution-{GLANCE_MEASURES.index('RPP')}"]
    assert len(rpp) == 7 and BASELINE not in [name for name, _, _ in rpp]
    # the log-scale recall-level axis: ticks 1, 2, 5, 10, 20 (the deepest level is 28-39)
    assert seen["levelAxis"] == ["log", ["1", "2", "5", "10", "20"]]
    # robustness: τ 0.95 ± 0.1, −0.9 ± 0.3, 0.5 ± 0.1 drawn inside τ's range [−1, 1]
    up, down = seen["errorY"]
    assert up == pytest.approx([0.05, 0.3, 0.1]) and down == pytest.approx([0.1, 0.1, 0.1])
    top, bottom = seen["tauPixels"]
    assert seen["errorBars"] and all(
        top - 1 <= a and b <= bottom + 1 for a, b in seen["errorBars"]
    )
    # long run names as tick labels do not squeeze the boxes or the heat map into a strip
    assert len(seen["heights"]) == 9
    assert all(height >= 200 for height in seen["heights"].values()), seen["heights"]
    # no axis title is cut off at its plot's edge, and the baseline's long name is whole
    assert seen["titles"]
    for plot, text, *margins in seen["titles"]:
        assert min(margins) >= -1, (plot, text, margins)
    whole = BASELINE.replace(" ", "")
    assert any(whole in text.replace(" ", "") for _, text, *_ in seen["titles"])


def test_mc4_shows_each_runs_share_of_the_chain(tmp_path):
    """Three runs every query orders A > B > C: MC4's chain (move to each run ranked above
    with probability 1/3), 10 steps from one unit on each run, leaves B 2(2/3)^10 − 3^−10 =
    0.03467, C 3^−10 and A the rest of the 3 units: 98.8%, 1.2%, <0.1%."""
    qrels = {q: {"r": 1} for q in ("q1", "q2", "q3")}
    runs = {
        "A": {q: ranked(["r", "n1", "n2"]) for q in qrels},
        "B": {q: ranked(["n1", "r", "n2"]) for q in qrels},
        "C": {q: ranked(["n1", "n2", "r"]) for q in qrels},
    }
    path = tmp_path / "mc4.html"
    rankscope.compare(qrels, runs, ["RPP"], baseline="B").to_html(path)
    text = path.read_text("utf-8")
    shown = re.findall(r"<li>(\w) <small[^>]*>([^<]*)</small></li>", text)
    assert shown == [("A", "98.8%"), ("B", "1.2%"), ("C", "&lt;0.1%")]
    assert "share of the MC4 Markov chain" in text


@pytest.mark.slow  # a scale test; the page's content is checked on small reports above
def test_a_100_run_report_stays_under_5_mb(tmp_path):
    """A 100-run × 50-query report with six measures and 250-odd recall levels (about 10 MB
    when each plot carried its own copies of the arrays, the menus a flag per trace and the
    data as plain JSON) stays under 5 MB.  The size is deterministic (seeded runs)."""
    qrels, runs = generated(100, 50, depth=260)
    for k in range(5):  # five queries with 70 to 270 relevant documents
        qrels[f"q{k}"].update({f"d{k}_{d}": 1 for d in range(20, 70 + 50 * k)})
    result = rankscope.compare(qrels, runs, ["AP", "nDCG@10", "P@10", "RR", "R@100", "RPP"])
    assert max(len(view.levels) for view in result.recall_levels.values()) > 200
    path = tmp_path / "100.html"
    result.to_html(path)
    assert path.stat().st_size < 5_000_000
    page = parse(path.read_text("utf-8"))
    assert page.table_rows == 100
    figures = figures_of(page)
    summary = next(f for f in figures if f["id"] == "summary-0")
    assert len(summary["data"]) == 99 and all(len(t["customdata"]) == 50 for t in summary["data"])
