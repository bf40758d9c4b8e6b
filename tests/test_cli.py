"""The command line: output formats, several runs, errors, `measures`, `example`, and the two
spellings of measure names."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import pytest

import rankscope
import rankscope.cli
import rankscope.cli.clicks
from tests.conftest import run_cli

# A small collection with hand-computed values.
#   run A: q1 ranks d3 (2), d2 (0), d1 (1)  -> AP (1/1 + 2/3)/2 = 5/6, RR 1, P@1 1
#          q2 ranks d4 (0), d1 (1)          -> AP (1/2)/1 = 1/2,      RR 1/2, P@1 0
#   run B: q1 ties d1, d2 at 1.0: d2 first  -> AP (1/2)/2 = 1/4,      RR 1/2, P@1 0
#          q2 ranks d1 (1)                  -> AP 1,                  RR 1,   P@1 1
QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d1 1\nq2 0 d4 0\n"
RUN_A = "q1 Q0 d3 1 3.0 A\nq1 Q0 d2 2 2.0 A\nq1 Q0 d1 3 1.0 A\nq2 Q0 d4 1 2.0 A\nq2 Q0 d1 2 1.0 A\n"
RUN_B = "q1 Q0 d1 1 1.0 B\nq1 Q0 d2 2 1.0 B\nq2 Q0 d1 1 5.0 B\n"
AP = {"A": {"q1": 5 / 6, "q2": 1 / 2}, "B": {"q1": 1 / 4, "q2": 1.0}}
RR = {"A": {"q1": 1.0, "q2": 1 / 2}, "B": {"q1": 1 / 2, "q2": 1.0}}


def line(label: str, query: str, value: str) -> str:
    """One line as trec_eval prints it: ``%-22s\\t%s\\t%s``."""
    return f"{label:<22}\t{query}\t{value}\n"


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in [("qrels", QRELS), ("runA", RUN_A), ("runB", RUN_B)]:
        paths[name] = tmp_path / name
        paths[name].write_text(text)
    return {k: str(v) for k, v in paths.items()}


def error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("rankscope: error: "), err
    return lines[0]


# -- output formats ----------------------------------------------------------------------------


def test_trec_format_per_query(files, capsys):
    code, out, err = run_cli(
        ["eval", "-q", "-m", "map", "-m", "P.1", files["qrels"], files["runA"]], capsys
    )
    assert code == 0, err
    assert out == (
        line("map", "q1", f"{5 / 6:6.4f}")
        + line("P_1", "q1", "1.0000")
        + line("map", "q2", "0.5000")
        + line("P_1", "q2", "0.0000")
        + line("map", "all", f"{(5 / 6 + 1 / 2) / 2:6.4f}")
        + line("P_1", "all", "0.5000")
    )
    assert err == ""


def test_trec_format_no_summary(files, capsys):
    code, out, _ = run_cli(["eval", "-q", "-n", "-m", "map", files["qrels"], files["runA"]], capsys)
    assert code == 0
    assert out == line("map", "q1", "0.8333") + line("map", "q2", "0.5000")


def test_trec_format_official_measures(files, capsys):
    code, out, _ = run_cli(["eval", files["qrels"], files["runA"]], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == line("runid", "all", "A").rstrip("\n")
    assert lines[1] == line("num_q", "all", "2").rstrip("\n")
    assert line("map", "all", "0.6667") in out
    assert line("recip_rank", "all", "0.7500") in out
    labels = [x.split("\t")[0].strip() for x in lines]
    assert labels[:12] == [
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "map",
        "gm_map",
        "Rprec",
        "bpref",
        "recip_rank",
        "iprec_at_recall_0.00",
        "iprec_at_recall_0.10",
    ]
    assert labels[-1] == "P_1000"


def test_json_format(files, capsys):
    code, out, err = run_cli(
        ["eval", "--format", "json", "-q", "-m", "AP", "-m", "RR", files["qrels"], files["runA"]],
        capsys,
    )
    assert code == 0, err
    (entry,) = json.loads(out)
    assert entry["run"] == "runA"  # named after its file (its tag is A)
    assert entry["summary"] == {
        "AP": pytest.approx((5 / 6 + 1 / 2) / 2, rel=1e-12),
        "RR": pytest.approx(0.75, rel=1e-12),
    }
    assert entry["queries"] == {
        q: {"AP": pytest.approx(AP["A"][q], rel=1e-12), "RR": RR["A"][q]} for q in ("q1", "q2")
    }


def test_json_format_without_per_query(files, capsys):
    code, out, _ = run_cli(
        ["eval", "--format", "json", "-m", "AP", files["qrels"], files["runA"]], capsys
    )
    assert code == 0
    (entry,) = json.loads(out)
    assert "queries" not in entry
    assert entry["summary"]["AP"] == pytest.approx(2 / 3, rel=1e-12)


def test_csv_format_several_runs(files, capsys):
    code, out, err = run_cli(
        ["eval", "--format", "csv", "-q", "-m", "AP", files["qrels"], files["runA"], files["runB"]],
        capsys,
    )
    assert code == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["run", "query", "measure", "value"]
    assert sorted(rows[1:]) == sorted(
        [
            ["runA", "q1", "AP", "0.8333333333333333"],  # (1 + 2/3) / 2, at full precision
            ["runA", "q2", "AP", "0.5"],
            ["runA", "all", "AP", "0.6666666666666666"],  # (1 + 2/3)/2 and 1/2, averaged
            ["runB", "q1", "AP", "0.25"],
            ["runB", "q2", "AP", "1.0"],
            ["runB", "all", "AP", "0.625"],
        ]
    )


def test_csv_prints_full_precision(files, capsys):
    """``eval --format csv`` writes every value exactly (it reads back as the same float), as
    JSON does; the aligned table keeps four decimals."""
    args = ["eval", "-q", "-m", "AP", files["qrels"], files["runA"], files["runB"]]
    code, out, err = run_cli([*args[:1], "--format", "json", *args[1:]], capsys)
    assert code == 0, err
    exact = {e["run"]: e["summary"]["AP"] for e in json.loads(out)}
    code, out, err = run_cli([*args[:1], "--format", "csv", "--wide", *args[1:]], capsys)
    assert code == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    assert {run: float(value) for run, value in rows[1:]} == exact
    assert rows[1] == ["runA", "0.6666666666666666"]
    code, out, err = run_cli([*args[:1], "--format", "table", "--wide", *args[1:]], capsys)
    assert f"{(5 / 6 + 0.5) / 2:.4f}" in out


@pytest.mark.parametrize("fmt", ["csv", "table", "json"])
def test_measures_print_in_the_order_asked(files, capsys, fmt):
    """The non-trec formats list the measures in the order asked (a nickname's and a cutoff
    list's in trec_eval's order); trec_eval's text keeps trec_eval's order."""
    asked = ["-m", "P.10,5", "-m", "map", "-m", "RR", "-m", "bpref"]
    labels = ["P_5", "P_10", "map", "RR", "bpref"]
    code, out, err = run_cli(
        ["eval", "--format", fmt, "--wide", *asked, files["qrels"], files["runA"], files["runB"]]
        if fmt != "json"
        else ["eval", "--format", fmt, *asked, files["qrels"], files["runA"], files["runB"]],
        capsys,
    )
    assert code == 0, err
    if fmt == "json":
        assert list(json.loads(out)[0]["summary"]) == labels
    elif fmt == "csv":
        assert out.splitlines()[0].split(",") == ["run", *labels]
    else:
        assert out.splitlines()[0].split() == ["run", *labels]
    code, out, err = run_cli(["eval", *asked, files["qrels"], files["runA"]], capsys)
    assert code == 0, err
    assert [row.split()[0] for row in out.splitlines()] == ["map", "bpref", "RR", "P_5", "P_10"]


def test_table_format_is_the_default_for_several_runs(files, capsys):
    code, out, _ = run_cli(
        ["eval", "-m", "AP", files["qrels"], files["runA"], files["runB"]], capsys
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["run", "query", "measure", "value"]
    assert set(lines[1]) <= {"-", " "}
    assert [x.split() for x in lines[2:]] == [
        ["runA", "all", "AP", "0.6667"],
        ["runB", "all", "AP", "0.6250"],
    ]


def test_table_wide(files, capsys):
    code, out, _ = run_cli(
        [
            "eval",
            "--format",
            "table",
            "--wide",
            "-m",
            "AP",
            "-m",
            "RR",
            files["qrels"],
            files["runA"],
            files["runB"],
        ],
        capsys,
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["run", "AP", "RR"]
    assert lines[2].split() == ["runA", "0.6667", "0.7500"]
    assert lines[3].split() == ["runB", "0.6250", "0.7500"]
    assert len(lines) == 4


def test_trec_format_with_several_runs_prints_each(files, capsys):
    code, out, _ = run_cli(
        ["eval", "--format", "trec", "-m", "map", files["qrels"], files["runA"], files["runB"]],
        capsys,
    )
    assert code == 0
    assert out == line("map", "all", "0.6667") + line("map", "all", "0.6250")


def test_directory_of_runs(files, tmp_path, capsys):
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a").write_text(RUN_A)
    (runs / "b").write_text(RUN_B)
    code, out, _ = run_cli(
        ["eval", "--format", "csv", "-m", "RR", files["qrels"], str(runs)], capsys
    )
    assert code == 0
    assert out.splitlines()[1:] == ["a,all,RR,0.75", "b,all,RR,0.75"]


def test_run_from_stdin(files, monkeypatch, capsys):
    class Stdin:
        buffer = io.BytesIO(RUN_B.encode())

    monkeypatch.setattr(sys, "stdin", Stdin())
    code, out, _ = run_cli(["eval", "-m", "map", files["qrels"], "-"], capsys)
    assert code == 0
    assert out == line("map", "all", "0.6250")


# -- options ---------------------------------------------------------------------------------


def test_complete_counts_missing_queries(files, tmp_path, capsys):
    only_q1 = tmp_path / "only_q1"
    only_q1.write_text(RUN_A.split("q2")[0])
    code, out, err = run_cli(
        ["eval", "-c", "-m", "map", "-m", "num_q", files["qrels"], str(only_q1)], capsys
    )
    assert code == 0
    assert out == line("num_q", "all", "2") + line("map", "all", f"{(5 / 6 + 0) / 2:6.4f}")
    assert "q2" in err and "warning" in err  # reported, on stderr
    code, out, _ = run_cli(
        ["eval", "-m", "map", "-m", "num_q", files["qrels"], str(only_q1)], capsys
    )
    assert out == line("num_q", "all", "1") + line("map", "all", f"{5 / 6:6.4f}")


def test_relevance_level(files, capsys):
    # level 2: only d3 of q1 is relevant (rank 1 in run A); q2 has none
    code, out, _ = run_cli(
        ["eval", "-q", "-l", "2", "-m", "map", files["qrels"], files["runA"]], capsys
    )
    assert code == 0
    assert line("map", "q1", "1.0000") in out and line("map", "q2", "0.0000") in out


def test_max_docs_and_judged_only(files, tmp_path, capsys):
    code, out, _ = run_cli(
        ["eval", "-q", "-M", "1", "-m", "num_ret", files["qrels"], files["runA"]], capsys
    )
    assert code == 0
    assert line("num_ret", "q1", "1") in out and line("num_ret", "all", "2") in out
    unjudged = tmp_path / "unjudged"
    unjudged.write_text("q1 Q0 x 1 9.0 U\nq1 Q0 d1 2 1.0 U\n")
    # -J drops the unjudged x: d1 moves to rank 1, AP (1/1)/2
    code, out, _ = run_cli(["eval", "-J", "-m", "map", files["qrels"], str(unjudged)], capsys)
    assert out == line("map", "all", "0.5000")
    code, out, _ = run_cli(["eval", "-m", "map", files["qrels"], str(unjudged)], capsys)
    assert out == line("map", "all", "0.2500")  # (1/2)/2


def test_num_docs(files, capsys):
    # utility.0,0,0,1 = N + relevant retrieved - retrieved - relevant; q1: 10 + 2 - 3 - 2
    args = ["eval", "-q", "-N", "10", "-m", "utility.0,0,0,1", files["qrels"], files["runA"]]
    code, out, _ = run_cli(args, capsys)
    assert code == 0
    assert line("utility_0,0,0,1", "q1", f"{10 + 2 - 3 - 2:6.4f}") in out


def test_ties_option(files, capsys):
    # run B ties d1 and d2 for q1: docno-asc puts d1 (relevant) first
    code, out, _ = run_cli(
        ["eval", "-q", "--ties", "docno-asc", "-m", "RR", files["qrels"], files["runB"]], capsys
    )
    assert code == 0
    assert line("RR", "q1", "1.0000") in out
    code, out, _ = run_cli(["eval", "-q", "-m", "RR", files["qrels"], files["runB"]], capsys)
    assert line("RR", "q1", "0.5000") in out


def test_duplicates_option(files, tmp_path, capsys):
    run = tmp_path / "dup"
    run.write_text("q1 Q0 d2 1 2.0 D\nq1 Q0 d1 2 1.0 D\nq1 Q0 d1 3 3.0 D\n")
    code, _, err = run_cli(["eval", "-m", "RR", files["qrels"], str(run)], capsys)
    assert code == 2
    assert "'d1'" in error_line(err) and "lines 2 and 3" in err
    code, out, _ = run_cli(
        ["eval", "--duplicates", "first", "-m", "RR", files["qrels"], str(run)], capsys
    )
    assert out == line("RR", "all", "0.5000")
    code, out, _ = run_cli(
        ["eval", "--duplicates", "max-score", "-m", "RR", files["qrels"], str(run)], capsys
    )
    assert out == line("RR", "all", "1.0000")


# -- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "measure,fragment",
    [
        ("foo", "unknown measure 'foo'"),
        ("nDGC@10", "did you mean"),
        ("P(rel=2)", "needs a cutoff"),
        ("map.5", "takes no parameters"),
        ("P.0", "positive"),
        ("P@x", "not a valid int"),
        ("AP(x=1)", "unknown parameter 'x'"),
        ("P@0", "cutoff"),
    ],
)
def test_bad_measure_names(files, capsys, measure, fragment):
    code, out, err = run_cli(["eval", "-m", measure, files["qrels"], files["runA"]], capsys)
    assert code == 2
    assert fragment in error_line(err)


def test_unknown_name_suggests_a_close_one(files, capsys):
    code, _, err = run_cli(["eval", "-m", "ndcg_cutt.10", files["qrels"], files["runA"]], capsys)
    assert code == 2
    assert "ndcg_cut" in error_line(err)


def test_suggestions_are_not_repeated(files, capsys):
    code, _, err = run_cli(["eval", "-m", "nDGC@10", files["qrels"], files["runA"]], capsys)
    suggestions = error_line(err).split("did you mean ")[1].split("?")[0].split(", ")
    assert len(suggestions) == len(set(suggestions)), suggestions


@pytest.mark.parametrize(
    "run_text,fragment",
    [
        ("q1 Q0 d1 1 1.0\n", ":1: expected at least 6 fields, found 5"),
        ("q1 Q0 d1 1 1.0 t\nq1 Q0 d2 1 x t\n", ":2: score 'x' is not a number"),
        ("q1 Q0 d1 1 nan t\n", ":1: score 'nan' is not finite"),
    ],
)
def test_bad_run_file(files, tmp_path, capsys, run_text, fragment):
    bad = tmp_path / "bad"
    bad.write_text(run_text)
    code, out, err = run_cli(["eval", files["qrels"], str(bad)], capsys)
    assert code == 2
    message = error_line(err)
    assert str(bad) + fragment in message
    assert out == ""


def test_bad_qrels_file(files, tmp_path, capsys):
    bad = tmp_path / "badq"
    bad.write_text("q1 0 d1 1\nq1 0 d2 high\n")
    code, _, err = run_cli(["eval", str(bad), files["runA"]], capsys)
    assert code == 2
    assert f"{bad}:2: relevance grade 'high' is not an integer" in error_line(err)


def test_missing_file(files, tmp_path, capsys):
    code, _, err = run_cli(["eval", files["qrels"], str(tmp_path / "absent")], capsys)
    assert code == 2
    assert "absent" in error_line(err)


def test_bad_option_value_is_a_usage_error(files, capsys):
    with pytest.raises(SystemExit) as info:
        run_cli(["eval", "--ties", "random", files["qrels"], files["runA"]], capsys)
    assert info.value.code == 2


def test_no_command_prints_help(capsys):
    code, out, _ = run_cli([], capsys)
    assert code == 2
    assert "eval" in out and "measures" in out


def test_version(capsys):
    code, out, _ = run_cli(["--version"], capsys)
    assert code == 0
    assert out.strip() == f"rankscope {rankscope.__version__}"


def test_exit_status_of_the_installed_command(files):
    """The process itself exits with 2 and one line on stderr."""
    result = subprocess.run(
        [sys.executable, "-m", "rankscope.cli", "eval", "-m", "foo", files["qrels"], files["runA"]],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert "unknown measure 'foo'" in error_line(result.stderr)


# -- measures, example -----------------------------------------------------------------------


def test_measures_lists_every_measure_and_spelling(capsys):
    code, out, _ = run_cli(["measures"], capsys)
    assert code == 0
    names = {m.name for m in rankscope.MEASURES}
    listed = out.split()
    # trec_eval spellings are listed as NAME, NAME.defaults or NAME[.params]
    trec_names = {token.split("[")[0].split(".")[0] for token in listed}
    assert names <= trec_names, names - trec_names
    for spelling in ("nDCG@k", "P@k", "AP", "RR", "R@k", "Bpref", "infAP", "Success@k", "RBP"):
        assert spelling in listed, spelling


def _example_collection():
    from rankscope.examples import example_paths

    qrels_path, run_paths = example_paths()
    qrels: dict[str, dict[str, int]] = {}
    for text in qrels_path.read_text().splitlines():
        q, _, d, g = text.split()
        qrels.setdefault(q, {})[d] = int(g)
    runs = {}
    for path in run_paths:
        run: dict[str, dict[str, float]] = {}
        for text in path.read_text().splitlines():
            q, _, d, _, s, tag = text.split()
            run.setdefault(q, {})[d] = float(s)
        runs[tag] = run
    return qrels, runs


def test_example_agrees_with_pytrec_eval(capsys):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    code, out, err = run_cli(["example"], capsys)
    assert code == 0, err
    table = out.split("\n\n")[1].splitlines()  # the first table
    header = table[0].split()
    assert header == ["run", "map", "bpref", "recip_rank", "P@10", "nDCG@10"]
    rows = {cells[0]: cells[1:] for cells in (x.split() for x in table[2:])}
    qrels, runs = _example_collection()
    assert set(rows) == set(runs) == {"strong", "medium", "weak"}
    names = ["map", "bpref", "recip_rank", "P_10", "ndcg_cut_10"]
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, {"map", "bpref", "recip_rank", "P.10", "ndcg_cut.10"}
    )
    for tag, run in runs.items():
        per_query = evaluator.evaluate(run)
        for name, cell in zip(names, rows[tag], strict=True):
            mean = sum(v[name] for v in per_query.values()) / len(per_query)
            assert cell == f"{mean:.4f}", (tag, name)


# -- the two spellings -----------------------------------------------------------------------

EXAMPLE_PAIRS = [
    # (ir_measures spelling, trec_eval spelling, extra trec_eval options)
    ("nDCG@10", "ndcg_cut.10", []),
    ("P(rel=2)@5", "P.5", ["-l", "2"]),
    ("AP", "map", []),
    ("AP@100", "map_cut.100", []),
    ("RR", "recip_rank", []),
    ("R@100", "recall.100", []),
    ("Rprec", "Rprec", []),
    ("Bpref", "bpref", []),
    ("infAP", "infAP", []),
    ("Success@5", "success.5", []),
    ("RBP(p=0.8)", "rbp.p=0.8", []),
    ("IPrec@0.1", "iprec_at_recall.0.1", []),
    ("nDCG", "ndcg", []),
    ("P@5", "P.5", []),
]


def _json_values(args, capsys) -> tuple[dict, dict]:
    code, out, err = run_cli(["eval", "--format", "json", "-q", *args], capsys)
    assert code == 0, err
    (entry,) = json.loads(out)
    ((label, summary),) = entry["summary"].items()
    per_query = {q: next(iter(v.values())) for q, v in entry["queries"].items()}
    return summary, per_query


@pytest.mark.parametrize(
    "ir_name,trec_name,options", EXAMPLE_PAIRS, ids=[p[0] for p in EXAMPLE_PAIRS]
)
def test_ir_measures_names_equal_trec_names(ir_name, trec_name, options, capsys):
    from rankscope.examples import example_paths

    qrels, runs = example_paths()
    run = str(runs[0])
    ir = _json_values(["-m", ir_name, str(qrels), run], capsys)
    trec = _json_values(["-m", trec_name, *options, str(qrels), run], capsys)
    assert ir == trec
    assert len(ir[1]) == 25


def test_relevance_level_parameter_agrees_with_pytrec_eval():
    """P(rel=2)@5 is P@5 at relevance level 2 (checked against trec_eval's code)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, runs = _example_collection()
    run = runs["medium"]
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"P.5"}, relevance_level=2).evaluate(run)
    table = rankscope.evaluate(qrels, {"medium": run}, ["P(rel=2)@5"], output="dict")
    got = dict(zip(table["query"], table["value"], strict=True))
    assert got == {q: v["P_5"] for q, v in expected.items()}


@pytest.mark.parametrize(
    "spec,labels",
    [
        ("P.5,10", ["P_5", "P_10"]),
        ("P.10,5", ["P_5", "P_10"]),  # printed in increasing order, as trec_eval
        ("ndcg_cut.10,20,23.4", ["ndcg_cut_10", "ndcg_cut_20", "ndcg_cut_23"]),  # C's atol
        ("utility.2,-1,0,0", ["utility_2,-1,0,0"]),
        ("iprec_at_recall.0.1,.5", ["iprec_at_recall_0.10", "iprec_at_recall_0.50"]),
        ("Rprec_mult.0.5", ["Rprec_mult_0.50"]),
        ("success.2", ["success_2"]),
        ("relstring.3", ["relstring_3"]),
    ],
)
def test_trec_eval_spellings_and_labels(files, capsys, spec, labels):
    code, out, err = run_cli(["eval", "-m", spec, files["qrels"], files["runA"]], capsys)
    assert code == 0, err
    printed = [x.split("\t")[0].strip() for x in out.splitlines()]
    if spec.startswith("relstring"):
        assert printed == []  # per-query only
        code, out, _ = run_cli(["eval", "-q", "-m", spec, files["qrels"], files["runA"]], capsys)
        assert out == line("relstring_3", "q1", "'201'") + line("relstring_3", "q2", "'01'")
    else:
        assert printed == labels


def test_trec_spelling_values(files, capsys):
    code, out, _ = run_cli(
        ["eval", "-q", "-m", "utility.2,-1,0,0", "-m", "P.1,2", files["qrels"], files["runA"]],
        capsys,
    )
    assert code == 0
    # run A, q1: 2 relevant of 3 retrieved -> 2*2 - 1 = 3; q2: 1 of 2 -> 2*1 - 1 = 1
    assert line("utility_2,-1,0,0", "q1", "3.0000") in out
    assert line("utility_2,-1,0,0", "q2", "1.0000") in out
    assert line("P_2", "q1", "0.5000") in out and line("P_2", "q2", "0.5000") in out


def test_explicit_cutoffs_replace_the_defaults(files, capsys):
    code, out, _ = run_cli(
        ["eval", "-m", "official", "-m", "P.5", files["qrels"], files["runA"]], capsys
    )
    assert code == 0
    labels = [x.split("\t")[0].strip() for x in out.splitlines()]
    assert "P_5" in labels and "P_10" not in labels


# -- the parser: shared options, cheap to build -------------------------------------------------


def test_shared_options_name_the_library_policies():
    from rankscope.cli import options
    from rankscope.judge import TIE_POLICIES
    from rankscope.read.trec import DUPLICATE_POLICIES

    assert options.TIES == TIE_POLICIES
    assert options.DUPLICATES == DUPLICATE_POLICIES


def _choices(command: str, flag: str) -> tuple[str, ...]:
    from rankscope.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]
    return tuple(next(a for a in sub._actions if flag in a.option_strings).choices)


@pytest.mark.parametrize(
    ("command", "module"),
    [("eval", "evaluation"), ("prefer", "preference"), ("meta", "meta"), ("recsys", "recsys")],
)
def test_format_choices_are_the_report_formats(command, module):
    import importlib

    formats = importlib.import_module(f"rankscope.report.{module}").FORMATS
    assert _choices(command, "--format") == formats


def test_building_the_parser_imports_no_command_body():
    """`rankscope eval` starts cold in loops: its parser, as `main` builds it, loads no other
    command's module, neither numpy nor any layer of rankscope below the command line."""
    code = (
        "import sys\n"
        "from rankscope.cli import build_parser\n"
        "build_parser('eval').parse_args(['eval', 'q', 'r'])\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith(('rankscope', 'numpy')))))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    loaded = set(result.stdout.split())
    expected = {"rankscope", "rankscope.errors", "rankscope.cli", "rankscope.cli.options"}
    expected.add("rankscope.cli.eval")
    expected.add("rankscope.cli.segments")  # the aggregation options (argparse only)
    assert loaded <= expected, loaded - expected


def last_line_of(program: str) -> str:
    """The last line ``program`` prints, run in a fresh Python process."""
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=True
    )
    return result.stdout.splitlines()[-1]


def test_eval_loads_only_what_evaluating_a_run_needs(files):
    """``rankscope eval QRELS RUN`` (issue 24's cold start): no other command's module, and
    none of the preference methods' computations, online interleaving, or statistics beyond
    what the default output needs (the registry declares preference measures from their
    table alone)."""
    code = (
        "import sys\n"
        "from rankscope.cli import main\n"
        f"assert main(['eval', {files['qrels']!r}, {files['runA']!r}]) == 0\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('rankscope'))))"
    )
    loaded = set(last_line_of(code).split())
    unwanted = {f"rankscope.cli.{c}" for c in rankscope.cli.COMMANDS if c != "eval"}
    unwanted |= {
        "rankscope.preference.recall", "rankscope.preference.learned",
        "rankscope.interleaving.online", "rankscope.interleaving.outcomes",
        "rankscope.interleaving.power", "rankscope.stats.paired", "rankscope.read.impressions",
        # the preference methods' table is declared without offline interleaving's kernels
        # and the aggregators (`rankscope.interleaving.names`)
        "rankscope.interleaving.methods", "rankscope.interleaving.kernels",
        "rankscope.interleaving.offline", "rankscope.preference.aggregate", "rankscope.stats",
    }  # fmt: skip
    assert "rankscope.cli.eval" in loaded and "rankscope.measures.catalog" in loaded
    assert not loaded & unwanted, loaded & unwanted


def test_eval_starts_reading_its_files_before_numpy_is_imported(files):
    """``rankscope eval QRELS RUN`` starts the thread that reads its files ahead
    (`rankscope.read.ahead`) before numpy is imported: the parse hides behind that import."""
    from rankscope.model import native

    if native() is None:
        pytest.skip("reading ahead needs the compiled reader")
    code = (
        "import sys, threading\n"
        "seen = []\n"
        "start = threading.Thread.start\n"
        "def recorded(self):\n"
        "    seen.append('numpy' in sys.modules)\n"
        "    start(self)\n"
        "threading.Thread.start = recorded\n"
        "from rankscope.cli import main\n"
        f"assert main(['eval', {files['qrels']!r}, {files['runA']!r}]) == 0\n"
        "print(seen)"
    )
    assert last_line_of(code) == "[False]"


def test_the_command_line_ends_the_process_only_as_the_program(files, capsys, tmp_path):
    """`main` run as the process's command line (no ``argv``) ends the process when its
    command is done: its output written, the functions registered to run at exit run (its
    `gc.freeze` among them), its status the process's, and nothing after it run; with a
    thread still running, the usual exit (which waits for it).  Called with arguments, from
    a program that goes on, it returns, and leaves the collector as it was."""
    import atexit
    import gc

    handlers = atexit._ncallbacks()
    code, _, _ = run_cli(["eval", "-m", "P_5", files["qrels"], files["runA"]], capsys)
    assert code == 0 and gc.get_freeze_count() == 0 and atexit._ncallbacks() == handlers

    def program(argv: list[str], thread: bool = False) -> subprocess.CompletedProcess:
        code = (
            "import atexit, gc, sys, threading, time\n"
            "from rankscope.cli import main\n"
            "atexit.register(lambda: print('at exit, frozen:', gc.get_freeze_count() > 0))\n"
            + ("threading.Thread(target=time.sleep, args=(0.5,)).start()\n" if thread else "")
            + f"sys.argv = ['rankscope', *{argv!r}]\n"
            "main()\n"
            "print('after main')\n"
        )
        return subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
        )

    ok = program(["eval", "-m", "P_5", files["qrels"], files["runA"]])
    assert ok.returncode == 0, ok.stderr
    lines = ok.stdout.splitlines()
    assert lines[0].startswith("P_5") and lines[-1] == "at exit, frozen: True"
    assert "after main" not in ok.stdout
    bad = program(["eval", "-m", "P_5", files["qrels"], str(tmp_path / "none")])
    assert bad.returncode == 2 and "rankscope: error:" in bad.stderr
    assert bad.stdout.splitlines() == ["at exit, frozen: True"]
    waited = program(["eval", "-m", "P_5", files["qrels"], files["runA"]], thread=True)
    assert waited.returncode == 0 and waited.stdout.splitlines()[-2:] == [
        "after main", "at exit, frozen: True",
    ]  # fmt: skip


def test_a_query_whose_lines_are_apart_is_ranked_whole(tmp_path, capsys):
    """A query's lines split by another query's (q1, q2, q1) are ranked together, by score:
    q1 ranks d3 (5.0) above d1 (1.0), so its reciprocal rank is 1/2; the run whose lines are
    together takes the usual path and gives the same."""
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\nq2 0 d2 1\n")
    apart, together = tmp_path / "apart", tmp_path / "together"
    apart.write_text("q1 Q0 d1 1 1.0 r\nq2 Q0 d2 1 2.0 r\nq1 Q0 d3 2 5.0 r\n")
    together.write_text("q1 Q0 d3 1 5.0 r\nq1 Q0 d1 2 1.0 r\nq2 Q0 d2 1 2.0 r\n")
    expected = line("recip_rank", "q1", "0.5000") + line("recip_rank", "q2", "1.0000")
    for run in (apart, together):
        code, out, _ = run_cli(["eval", "-q", "-n", "-m", "recip_rank", str(qrels), str(run)],
                               capsys)
        assert code == 0 and out == expected, (run.name, out)


def test_every_parser_is_the_named_commands_parser():
    """`main` builds the named command's parser alone: it declares the same options, and says
    the same on a mistake, as the parser of every command."""
    from rankscope.cli import COMMANDS, build_parser

    def options(parser, command):
        sub = next(a for a in parser._actions if a.dest == "command").choices[command]
        return [(a.option_strings, a.dest, a.default, a.help) for a in sub._actions]

    whole = build_parser()
    for command in COMMANDS:
        alone = build_parser(command)
        assert options(alone, command) == options(whole, command), command
        assert alone.format_usage() == whole.format_usage()


def test_runs_are_named_after_their_files_unless_names_tag(files, capsys):
    args = ["eval", "--format", "csv", "-m", "RR", files["qrels"], files["runA"], files["runB"]]
    code, out, _ = run_cli(args, capsys)
    assert code == 0 and [r.split(",")[0] for r in out.splitlines()[1:]] == ["runA", "runB"]
    code, out, _ = run_cli([*args[:1], "--names", "tag", *args[1:]], capsys)
    assert code == 0 and [r.split(",")[0] for r in out.splitlines()[1:]] == ["A", "B"]
    # trec_eval's output prints the tag as runid, whatever the runs are called
    code, out, _ = run_cli(["eval", "-m", "runid", files["qrels"], files["runA"]], capsys)
    assert code == 0 and out == line("runid", "all", "A")


def test_a_command_imports_with_the_collector_paused(monkeypatch):
    """`rankscope.cli.importing`: the cyclic collector paused while a command imports, as it
    was after; what was imported frozen (`gc.freeze`) only in the process's command line."""
    import gc

    from rankscope import cli

    assert gc.isenabled() and gc.get_freeze_count() == 0
    with cli.importing():
        assert not gc.isenabled()
    assert gc.isenabled() and gc.get_freeze_count() == 0
    gc.disable()
    try:
        with cli.importing():
            pass
        assert not gc.isenabled()  # (paused by the caller: left so)
    finally:
        gc.enable()
    monkeypatch.setattr(cli, "_PROGRAM", True)
    try:
        with cli.importing():
            pass
        assert gc.isenabled() and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
