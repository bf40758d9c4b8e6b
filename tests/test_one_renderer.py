"""One renderer: every table, CSV, Markdown, LaTeX and JSON text rankscope writes goes
through `rankscope.report.tables`; only trec_eval's text, ndeval's CSV and the HTML report
are special writers.  This test greps src/ for the ways of writing such text by hand."""

from __future__ import annotations

import re
from pathlib import Path

import rankscope
from rankscope.report import tables

SRC = Path(rankscope.__file__).parent

#: Writing CSV, JSON, Markdown or LaTeX by hand: a csv writer, json.dump(s), joined cells.
HAND_WRITTEN = re.compile(
    r"csv\.writer|json\.dumps?\(|\",\"\.join\(|\" & \"\.join\(|\" \| \"\.join\("
)

#: Where such code belongs, or is no table: file -> why.
ALLOWED = {
    "report/tables.py": "the renderer",
    "report/trec.py": "trec_eval's text, a special writer",
    "report/ndeval.py": "ndeval's CSV, a special writer",
    "report/html.py": "the HTML report's embedded data, a special writer",
    "report/reference.py": "the measure reference lists a measure's spellings",
    "scale/kernels.py": "metadata of an Arrow table passed between processes",
    "measures/registry.py": "trec_eval's name of a measure with cutoffs (P.5,10,15)",
    "preference/learned.py": "saves a learned model to a file, not a result",
    "cli/clicks/fit.py": "saves a fitted click model to a file, not a result",
}


def test_tables_text_and_json_only_through_the_renderer() -> None:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        name = path.relative_to(SRC).as_posix()
        if name in ALLOWED:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#")[0]
            if HAND_WRITTEN.search(code) and not code.lstrip().startswith(('"', "'", "``")):
                found.append(f"{name}:{number}: {line.strip()}")
    assert not found, "write tables, CSV and JSON with rankscope.report.tables:\n" + "\n".join(
        found
    )


def test_allowed_files_exist() -> None:
    assert all((SRC / name).is_file() for name in ALLOWED), "an allowed file moved: update"


def test_csv_and_json_keep_full_precision() -> None:
    third = 1 / 3
    assert tables.cell(third) == repr(third) and float(tables.cell(third)) == third
    assert tables.cell(third, exact=False) == "0.3333"
    columns = {"run": ["a"], "value": [third]}
    assert tables.format_columns(columns, "csv") == f"run,value\na,{third!r}\n"
    assert '"value": 0.3333333333333333' in tables.format_columns(columns, "json")
    assert tables.markdown_table([["a", "b"], ["1", "2"]]) == "| a | b |\n|---|---|\n| 1 | 2 |\n"


def test_estimates_csv_at_full_precision() -> None:
    """`rankscope clicks estimate --format csv` wrote four decimals; now ``repr``-exact."""
    from rankscope.clicks.estimators import Estimate
    from rankscope.report.estimates import format_estimates

    third = 1 / 3
    estimate = Estimate("ips", "p", third, 0.25, 0.5, 0.95, 0.125, 10, 100, 0, 7.25, 2.0)
    csv = format_estimates([estimate], "csv").splitlines()
    assert csv[1] == f"ips,p,{third!r},0.25,0.5,0.125,10,7.25,2.0"
    table = format_estimates([estimate], "table").splitlines()
    assert table[2].split() == ["ips", "p", "0.3333", "0.2500", "0.5000", "0.1250", "10", "7.2",
                                "2.0000"]  # fmt: skip
