"""The HTML report (`rankscope report`, `compare --html`, `Comparison.to_html`) and the
topics reader: the page's structure without a browser (a row per run, every plot, escaping of
hostile names and titles, no network resource, its size), then the page in headless Chromium
(skipped, with the reason, when Chromium or playwright is absent)."""

from __future__ import annotations

import json
import re
import shutil
import sys
from html.parser import HTMLParser
from importlib.resources import files
from pathlib import Path

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
    return {key: unshare(value, shared) for key, value in node.items()}


def figures_of(page: Page) -> list[dict]:
    """The page's figures as plotly.js gets them."""
    data = json.loads(page.script_text["rankscope-figures"])
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
