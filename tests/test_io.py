"""Reading judgments and runs: TREC files, stdin, gzip, DataFrames, Parquet, dicts; and the
errors for bad input.  Tests that parse TREC text run with both readers (``reader``)."""

from __future__ import annotations

import gzip
import io
import sys
import warnings
from pathlib import Path

import pytest

import rankscope
from rankscope import InputError, RankscopeWarning

# -- helpers -------------------------------------------------------------------------------


def write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode())
    return path


def evaluate(qrels, runs, measures, **options) -> dict:
    """{(run, query, measure): value}, warnings about one-sided queries silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankscopeWarning)
        table = rankscope.evaluate(qrels, runs, measures, output="dict", **options)
    return {
        (r, q, m): v
        for r, q, m, v in zip(
            table["run"], table["query"], table["measure"], table["value"], strict=True
        )
    }


class FakeStdin:
    """Stands in for sys.stdin: the readers read ``sys.stdin.buffer``."""

    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)


QRELS_TEXT = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d1 1\n"
QRELS_DICT = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d1": 1}}
RUN_TEXT = "q1 Q0 d3 1 3.0 sys\nq1 Q0 d2 2 2.0 sys\nq1 Q0 d1 3 1.0 sys\nq2 Q0 d1 1 1.0 sys\n"
RUN_DICT = {"q1": {"d3": 3.0, "d2": 2.0, "d1": 1.0}, "q2": {"d1": 1.0}}


# -- TREC text: what is accepted -----------------------------------------------------------


def test_fields_separated_by_runs_of_spaces_and_tabs(tmp_path, reader):
    qrels = write(tmp_path / "qrels", "q1 0 d1 1\nq1\t0\td2\t\t0\n  q1   0 \t d3  2  \r\n")
    run = write(
        tmp_path / "run", "q1 Q0 d1 1 3.5 t\nq1\tQ0\t d2 \t2 2.5\tt\n q1  Q0  d3  3  -1  t \n"
    )
    assert rankscope.read_qrels(qrels).to_dict() == {"q1": {"d1": 1, "d2": 0, "d3": 2}}
    assert rankscope.read_run(run).to_dict() == {"q1": {"d1": 3.5, "d2": 2.5, "d3": -1.0}}


def test_any_iteration_column(tmp_path, reader):
    qrels = write(tmp_path / "qrels", "q1 0 d1 1\nq1 Q0 d2 0\nq1 AF d3 2\n")
    run = write(tmp_path / "run", "q1 Q0 d1 1 3 t\nq1 0 d2 2 2 t\nq1 AF d3 3 1 t\n")
    assert rankscope.read_qrels(qrels).to_dict() == {"q1": {"d1": 1, "d2": 0, "d3": 2}}
    assert rankscope.read_run(run).to_dict() == {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}


def test_rank_column_is_ignored(tmp_path, reader):
    qrels = write(tmp_path / "qrels", "q1 0 a 1\n")
    # the rank column says a first, the scores say b first
    run = write(tmp_path / "run", "q1 Q0 a 1 1.0 t\nq1 Q0 b 2 2.0 t\nq1 Q0 c 3 0.5 t\n")
    assert evaluate(qrels, run, ["RR"], names="tag") == {("t", "q1", "RR"): 1 / 2}


def test_extra_run_fields_are_ignored(tmp_path, reader):
    run = write(tmp_path / "run", "q1 Q0 d1 1 2.0 tag extra more fields\nq1 Q0 d2 2 1 tag x\n")
    parsed = rankscope.read_run(run)
    assert parsed.to_dict() == {"q1": {"d1": 2.0, "d2": 1.0}}
    assert parsed.name == "tag"


def test_numeric_forms_of_scores_and_grades(tmp_path, reader):
    qrels = write(tmp_path / "qrels", "q1 0 a +1\nq1 0 b 01\nq1 0 c -1\nq1 0 d 0\n")
    run = write(
        tmp_path / "run", "q1 Q0 a 1 1e3 t\nq1 Q0 b 1 -0.5 t\nq1 Q0 c 1 .5 t\nq1 Q0 d 1 +2 t\n"
    )
    assert rankscope.read_qrels(qrels).to_dict() == {"q1": {"a": 1, "b": 1, "c": -1, "d": 0}}
    assert rankscope.read_run(run).to_dict() == {"q1": {"a": 1000.0, "b": -0.5, "c": 0.5, "d": 2.0}}


def test_comments_and_blank_lines(tmp_path, reader):
    qrels = write(
        tmp_path / "qrels",
        "# a comment\n\nq1 0 d#1 1\n   # an indented comment\n\t\n  \nq1 0 #d2 0\n#q1 0 d3 1\n",
    )
    # document ids may contain '#' (even start with it): only the first field makes a comment
    assert rankscope.read_qrels(qrels).to_dict() == {"q1": {"d#1": 1, "#d2": 0}}
    run = write(tmp_path / "run", "#comment\n\nq1 Q0 d#1 1 1.0 t\n\n# q1 Q0 x 1 2 t\n")
    assert rankscope.read_run(run).to_dict() == {"q1": {"d#1": 1.0}}


def test_line_numbers_count_comments_and_blank_lines(tmp_path, reader):
    qrels = write(tmp_path / "qrels", "# comment\n\nq1 0 d1 1\nq1 0 d2 x\n")
    with pytest.raises(InputError, match=r"qrels:4: .*'x'"):
        rankscope.read_qrels(qrels)


def test_gzip(tmp_path, reader):
    gz_qrels = tmp_path / "qrels.gz"
    gz_qrels.write_bytes(gzip.compress(QRELS_TEXT.encode()))
    gz_run = tmp_path / "run.gz"
    gz_run.write_bytes(gzip.compress(RUN_TEXT.encode()))
    assert rankscope.read_qrels(gz_qrels).to_dict() == QRELS_DICT
    assert rankscope.read_run(gz_run).to_dict() == RUN_DICT
    # recognised by content, not by name
    plain_name = tmp_path / "run.txt"
    plain_name.write_bytes(gzip.compress(RUN_TEXT.encode()))
    assert rankscope.read_run(plain_name).to_dict() == RUN_DICT


def test_gzip_errors_name_the_line(tmp_path, reader):
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(b"q1 Q0 d1 1 1.0 t\nq1 Q0 d2 1 abc t\n"))
    with pytest.raises(InputError, match=r"run\.gz:2: score 'abc'"):
        rankscope.read_run(path)


def test_stdin(monkeypatch, reader):
    monkeypatch.setattr(sys, "stdin", FakeStdin(QRELS_TEXT.encode()))
    assert rankscope.read_qrels("-").to_dict() == QRELS_DICT
    monkeypatch.setattr(sys, "stdin", FakeStdin(RUN_TEXT.encode()))
    run = rankscope.read_run("-")
    assert run.to_dict() == RUN_DICT
    assert run.name == "sys"


def test_gzipped_stdin(monkeypatch, reader):
    monkeypatch.setattr(sys, "stdin", FakeStdin(gzip.compress(RUN_TEXT.encode())))
    assert rankscope.read_run("-").to_dict() == RUN_DICT


def test_stdin_errors_name_stdin(monkeypatch, reader):
    monkeypatch.setattr(sys, "stdin", FakeStdin(b"q1 0 d1 1\nq1 0 d2\n"))
    with pytest.raises(InputError, match=r"<stdin>:2: expected 4 fields, found 3"):
        rankscope.read_qrels("-")


def test_run_name_is_the_tag_of_the_last_line(tmp_path, reader):
    run = write(tmp_path / "run", "q1 Q0 d1 1 2 tagA\nq2 Q0 d1 1 2 tagB\n")
    assert rankscope.read_run(run).name == "tagB"
    qrels = write(tmp_path / "qrels", "q1 0 d1 1\n")
    assert {key[0] for key in evaluate(qrels, run, ["map"], names="tag")} == {"tagB"}
    assert rankscope.read_run(run, name="mine").name == "mine"


# -- TREC text: errors ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,line,message",
    [
        ("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 1 1.0\n", 2, "expected at least 6 fields, found 5"),
        ("q1 Q0 d1 1\n", 1, "expected at least 6 fields, found 4"),
        ("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 1 abc t\n", 2, "score 'abc' is not a number"),
        ("q1 Q0 d1 1 1_000 t\n", 1, "score '1_000'"),  # Python's float() would take it
        ("q1 Q0 d1 1 0x10 t\n", 1, "score '0x10'"),
        ("q1 Q0 d1 1 1,5 t\n", 1, "score '1,5'"),
        ("q1 Q0 d1 1 2 t\nq1 Q0 d2 1 nan t\n", 2, "score 'nan' is not finite"),
        ("q1 Q0 d1 1 NaN t\n", 1, "score 'NaN' is not finite"),
        ("q1 Q0 d1 1 inf t\n", 1, "score 'inf' is not finite"),
        ("q1 Q0 d1 1 -Infinity t\n", 1, "score '-Infinity' is not finite"),
        ("q1 Q0 d1 1 1e400 t\n", 1, "score '1e400' is not finite"),  # overflows
    ],
)
def test_bad_run_lines(tmp_path, reader, text, line, message):
    path = write(tmp_path / "bad.run", "# header\n" + text)
    with pytest.raises(InputError) as info:
        rankscope.read_run(path)
    assert str(info.value).startswith(f"{path}:{line + 1}: ")
    assert message in str(info.value)


@pytest.mark.parametrize(
    "text,line,message",
    [
        ("q1 0 d1 1\nq1 0 d2 1 extra\n", 2, "expected 4 fields, found 5"),
        ("q1 0 d1\n", 1, "expected 4 fields, found 3"),
        ("q1 0 d1 1.5\n", 1, "relevance grade '1.5' is not an integer"),
        ("q1 0 d1 x\n", 1, "relevance grade 'x' is not an integer"),
        ("q1 0 d1 1_0\n", 1, "relevance grade '1_0'"),  # Python's int() would take it
        ("q1 0 d1 1e2\n", 1, "relevance grade '1e2'"),
    ],
)
def test_bad_qrels_lines(tmp_path, reader, text, line, message):
    path = write(tmp_path / "bad.qrels", text)
    with pytest.raises(InputError) as info:
        rankscope.read_qrels(path)
    assert str(info.value).startswith(f"{path}:{line}: ")
    assert message in str(info.value)


def test_empty_files_are_errors(tmp_path, reader):
    with pytest.raises(InputError, match="no judgments"):
        rankscope.read_qrels(write(tmp_path / "q", "# nothing\n\n"))
    with pytest.raises(InputError, match="no ranked documents"):
        rankscope.read_run(write(tmp_path / "r", ""))


def test_missing_file_is_an_os_error(tmp_path, reader):
    with pytest.raises(OSError):
        rankscope.read_run(tmp_path / "absent")


# -- duplicates --------------------------------------------------------------------------------

DUPLICATED_RUN = "q1 Q0 d1 1 1.0 t\nq1 Q0 d2 2 3.0 t\nq2 Q0 d1 1 1.0 t\n\nq1 Q0 d1 3 5.0 t\n"


def test_duplicate_document_in_a_run_is_an_error(tmp_path, reader):
    path = write(tmp_path / "run", DUPLICATED_RUN)
    with pytest.raises(InputError) as info:
        rankscope.read_run(path)
    message = str(info.value)
    assert str(path) in message
    assert "'d1'" in message and "'q1'" in message
    assert "lines 1 and 5" in message


def test_duplicates_first_keeps_the_first_row(tmp_path, reader):
    path = write(tmp_path / "run", DUPLICATED_RUN)
    assert rankscope.read_run(path, duplicates="first").to_dict() == {
        "q1": {"d1": 1.0, "d2": 3.0},
        "q2": {"d1": 1.0},
    }


def test_duplicates_max_score_keeps_the_best_row(tmp_path, reader):
    path = write(tmp_path / "run", DUPLICATED_RUN)
    assert rankscope.read_run(path, duplicates="max-score").to_dict() == {
        "q1": {"d1": 5.0, "d2": 3.0},
        "q2": {"d1": 1.0},
    }


def test_duplicates_policy_changes_the_evaluation(tmp_path, reader):
    qrels = write(tmp_path / "qrels", "q1 0 d1 1\n")
    run = write(tmp_path / "run", DUPLICATED_RUN)
    # first: d2 (3.0), d1 (1.0) -> RR 1/2; max-score: d1 (5.0) first -> RR 1
    first = evaluate(qrels, run, ["RR"], duplicates="first", names="tag")
    assert first[("t", "q1", "RR")] == 1 / 2
    best = evaluate(qrels, run, ["RR"], duplicates="max-score", names="tag")
    assert best[("t", "q1", "RR")] == 1.0
    with pytest.raises(InputError, match="appears twice"):
        evaluate(qrels, run, ["RR"])


def test_same_document_for_different_queries_is_fine(tmp_path, reader):
    path = write(tmp_path / "run", "q1 Q0 d1 1 1 t\nq2 Q0 d1 1 1 t\n")
    assert rankscope.read_run(path).to_dict() == {"q1": {"d1": 1.0}, "q2": {"d1": 1.0}}


def test_duplicate_judgment_is_an_error(tmp_path, reader):
    qrels = write(tmp_path / "qrels", "q1 0 d1 1\nq1 0 d2 0\nq1 0 d1 0\n")
    run = write(tmp_path / "run", "q1 Q0 d1 1 1 t\n")
    with pytest.raises(InputError) as info:
        evaluate(qrels, run, ["map"])
    message = str(info.value)
    assert str(qrels) in message
    assert "'d1'" in message and "'q1'" in message
    assert "lines 1 and 3" in message


def test_unknown_duplicates_policy(tmp_path, reader):
    with pytest.raises(ValueError, match="duplicates"):
        rankscope.read_run(write(tmp_path / "run", RUN_TEXT), duplicates="last")


# -- several runs --------------------------------------------------------------------------------


def test_directory_of_runs(tmp_path, reader):
    runs = tmp_path / "runs"
    runs.mkdir()
    write(runs / "a.txt", "q1 Q0 d1 1 2 alpha\nq1 Q0 d3 2 1 alpha\n")
    write(runs / "b.txt", "q1 Q0 d3 1 2 beta\nq1 Q0 d1 2 1 beta\n")
    write(runs / ".hidden", "not a run\n")  # hidden files are skipped
    qrels = write(tmp_path / "qrels", "q1 0 d1 1\nq1 0 d3 0\n")
    assert evaluate(qrels, runs, ["RR"], names="tag") == {
        ("alpha", "q1", "RR"): 1.0,
        ("beta", "q1", "RR"): 1 / 2,
    }


def test_runs_with_the_same_tag_are_told_apart(tmp_path, reader):
    runs = tmp_path / "runs"
    runs.mkdir()
    write(runs / "first.txt", "q1 Q0 d1 1 2 same\n")
    write(runs / "second.txt", "q1 Q0 d2 1 2 same\n")
    qrels = write(tmp_path / "qrels", "q1 0 d1 1\n")
    with pytest.warns(RankscopeWarning):
        table = rankscope.evaluate(qrels, runs, ["RR"], output="dict", names="tag")
    assert len(set(table["run"])) == 2
    assert sorted(table["value"]) == [0.0, 1.0]


def test_empty_directory_is_an_error(tmp_path):
    (tmp_path / "runs").mkdir()
    with pytest.raises(InputError, match="no run files"):
        evaluate(QRELS_DICT, tmp_path / "runs", ["map"])


# -- one-sided queries -------------------------------------------------------------------------


def test_query_only_in_the_run_is_ignored(tmp_path, reader):
    qrels = write(tmp_path / "qrels", "q1 0 d1 1\n")
    run = write(tmp_path / "run", "q1 Q0 d1 1 2 t\nq9 Q0 d1 1 2 t\n")
    with pytest.warns(RankscopeWarning, match="q9"):
        table = rankscope.evaluate(qrels, run, ["map", "num_q"], per_query=False, output="dict")
    assert dict(zip(table["measure"], table["value"], strict=True)) == {"map": 1.0, "num_q": 1}


def test_query_only_in_the_qrels_is_left_out_and_reported(tmp_path, reader):
    qrels = write(tmp_path / "qrels", "q1 0 d1 1\nq2 0 d5 1\n")
    run = write(tmp_path / "run", "q1 Q0 d1 1 2 t\n")
    with pytest.warns(RankscopeWarning, match=r"not in the run.*q2"):
        table = rankscope.evaluate(qrels, run, ["map", "num_q"], per_query=False, output="dict")
    assert dict(zip(table["measure"], table["value"], strict=True)) == {"map": 1.0, "num_q": 1}


def test_query_only_in_the_qrels_counts_as_zero_with_complete(tmp_path, reader):
    qrels = write(tmp_path / "qrels", "q1 0 d1 1\nq2 0 d5 1\n")
    run = write(tmp_path / "run", "q1 Q0 d1 1 2 t\n")
    with pytest.warns(RankscopeWarning, match="q2"):
        table = rankscope.evaluate(
            qrels, run, ["map", "num_q", "num_rel"], per_query=False, complete=True, output="dict"
        )
    values = dict(zip(table["measure"], table["value"], strict=True))
    assert values == {"map": (1.0 + 0.0) / 2, "num_q": 2, "num_rel": 2}
    per_query = evaluate(qrels, run, ["map"], complete=True, names="tag")
    assert per_query[("t", "q2", "map")] == 0.0


# -- dicts -----------------------------------------------------------------------------------


def test_dicts_of_dicts():
    expected = {
        ("run", "q1", "RR"): 1.0,  # d3 (grade 2) first
        ("run", "q2", "RR"): 1.0,
    }
    assert evaluate(QRELS_DICT, RUN_DICT, ["RR"]) == expected  # a single run as a dict
    assert evaluate(QRELS_DICT, {"mine": RUN_DICT}, ["RR"]) == {
        ("mine", q, m): v for (_, q, m), v in expected.items()
    }


def test_dict_values_are_validated():
    with pytest.raises(InputError, match="not a finite number"):
        rankscope.read_run({"q1": {"d1": float("nan")}})
    with pytest.raises(InputError, match="not a finite number"):
        rankscope.read_run({"q1": {"d1": float("inf")}})
    with pytest.raises(InputError, match="1.5 is not an integer"):
        rankscope.read_qrels({"q1": {"d1": 1.5}})
    with pytest.raises(InputError, match="'x' is not a number"):
        rankscope.read_qrels({"q1": {"d1": 1, "d2": "x"}})


# -- DataFrames, Arrow, Parquet ---------------------------------------------------------------

FRAME_QRELS = {
    "query_id": ["q1", "q1", "q1", "q2"],
    "doc_id": ["d1", "d2", "d3", "d1"],
    "relevance": [1, 0, 2, 1],
}
FRAME_RUN = {
    "query_id": ["q1", "q1", "q1", "q2"],
    "doc_id": ["d3", "d2", "d1", "d1"],
    "score": [3.0, 2.0, 1.0, 1.0],
}


def _pandas():
    return pytest.importorskip("pandas")


def _polars():
    return pytest.importorskip("polars")


def test_pandas_frames():
    pd = _pandas()
    qrels = rankscope.read_qrels(pd.DataFrame(FRAME_QRELS))
    run = rankscope.read_run(pd.DataFrame(FRAME_RUN))
    assert qrels.to_dict() == QRELS_DICT
    assert run.to_dict() == RUN_DICT


def test_pandas_frames_with_other_column_names():
    pd = _pandas()
    frame = pd.DataFrame({"qid": ["q1"], "docno": ["d1"], "rel": [1]})
    columns = {"query": "qid", "doc": "docno", "relevance": "rel"}
    qrels = rankscope.read_qrels(frame, columns=columns)
    assert qrels.to_dict() == {"q1": {"d1": 1}}


@pytest.mark.parametrize(
    "column,values,message",
    [
        ("score", [1.0, None, 2.0, 3.0], "row 1: score"),
        ("score", [1.0, 2.0, float("inf"), 3.0], "row 2: score"),
        ("score", ["1", "2", "3", "x"], "row 3: score 'x' is not a number"),
        ("query_id", ["q1", None, "q1", "q2"], "row 1: missing query id"),
    ],
)
def test_pandas_run_bad_values_name_the_row(column, values, message):
    pd = _pandas()
    frame = pd.DataFrame({**FRAME_RUN, column: values})
    with pytest.raises(InputError, match=message):
        rankscope.read_run(frame)


def test_pandas_qrels_bad_grade_names_the_row():
    pd = _pandas()
    frame = pd.DataFrame({**FRAME_QRELS, "relevance": [1, 0, 1.5, 1]})
    with pytest.raises(InputError, match="row 2: relevance .* is not an integer"):
        rankscope.read_qrels(frame)


def test_polars_frames():
    pl = _polars()
    qrels = rankscope.read_qrels(pl.DataFrame(FRAME_QRELS))
    run = rankscope.read_run(pl.DataFrame(FRAME_RUN))
    assert qrels.to_dict() == QRELS_DICT
    assert run.to_dict() == RUN_DICT
    assert evaluate(pl.DataFrame(FRAME_QRELS), {"p": pl.DataFrame(FRAME_RUN)}, ["RR"]) == {
        ("p", "q1", "RR"): 1.0,
        ("p", "q2", "RR"): 1.0,
    }


def test_polars_frames_with_other_column_names():
    pl = _polars()
    frame = pl.DataFrame({"qid": ["q1", "q1"], "docno": ["a", "b"], "sim": [1.0, 2.0]})
    run = rankscope.read_run(frame, columns={"query": "qid", "doc": "docno", "score": "sim"})
    assert run.to_dict() == {"q1": {"a": 1.0, "b": 2.0}}


def test_frame_with_missing_columns_names_them():
    pl = _polars()
    with pytest.raises(InputError, match="'relevance'"):
        rankscope.read_qrels(pl.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "rel": [1]}))
    # the message says how to name the others, and the roles there are
    with pytest.raises(InputError, match=r"columns=\{role: name\}, roles query, doc, score"):
        rankscope.read_run(pl.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "sim": [1.0]}))


def test_columns_name_roles_only():
    pl = _polars()
    frame = pl.DataFrame({"qid": ["q1"], "doc_id": ["d1"], "relevance": [1]})
    # a role left out keeps its default name
    assert rankscope.read_qrels(frame, columns={"query": "qid"}).to_dict() == {"q1": {"d1": 1}}
    # a column name where a role belongs is no role: an error naming the roles
    with pytest.raises(rankscope.UsageError, match=r"'qid'.*roles are query, doc, relevance"):
        rankscope.read_qrels(frame, columns={"qid": "query_id"})


@pytest.mark.parametrize(
    "column,values,message",
    [
        ("score", [1.0, None, 2.0, 3.0], "row 1: score"),
        ("score", [1.0, 2.0, float("nan"), 3.0], "row 2: score"),
        ("score", [1.0, 2.0, 3.0, float("-inf")], "row 3: score"),
        ("score", ["1", "2", "3", "x"], "row 3: score 'x' is not a number"),
        ("query_id", ["q1", None, "q1", "q2"], "row 1: missing query id"),
        ("doc_id", ["d1", "d2", None, "d4"], "row 2: missing document id"),
    ],
)
def test_polars_run_bad_values_name_the_row(column, values, message):
    pl = _polars()
    frame = pl.DataFrame({**FRAME_RUN, column: values}, strict=False)
    with pytest.raises(InputError, match=message):
        rankscope.read_run(frame)


@pytest.mark.parametrize(
    "values,message",
    [
        ([1, 0, None, 1], "row 2: relevance"),
        ([1.0, 0.0, 2.5, 1.0], "row 2: relevance .* is not an integer"),
    ],
)
def test_polars_qrels_bad_values_name_the_row(values, message):
    pl = _polars()
    frame = pl.DataFrame({**FRAME_QRELS, "relevance": values})
    with pytest.raises(InputError, match=message):
        rankscope.read_qrels(frame)


def test_polars_duplicate_document_is_an_error():
    pl = _polars()
    frame = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "a"], "score": [1.0, 2.0]})
    with pytest.raises(InputError, match=r"'a' appears twice for query 'q1'"):
        rankscope.read_run(frame)
    assert rankscope.read_run(frame, duplicates="max-score").to_dict() == {"q1": {"a": 2.0}}
    assert rankscope.read_run(frame, duplicates="first").to_dict() == {"q1": {"a": 1.0}}


def test_arrow_tables():
    pa = pytest.importorskip("pyarrow")
    qrels = rankscope.read_qrels(pa.table(FRAME_QRELS))
    run = rankscope.read_run(pa.table(FRAME_RUN))
    assert qrels.to_dict() == QRELS_DICT
    assert run.to_dict() == RUN_DICT


def test_parquet_round_trip(tmp_path):
    pl = _polars()
    pytest.importorskip("pyarrow")
    pl.DataFrame(FRAME_QRELS).write_parquet(tmp_path / "qrels.parquet")
    pl.DataFrame(FRAME_RUN).write_parquet(tmp_path / "bm25.parquet")
    qrels = rankscope.read_qrels(tmp_path / "qrels.parquet")
    run = rankscope.read_run(tmp_path / "bm25.parquet")
    assert qrels.to_dict() == QRELS_DICT
    assert run.to_dict() == RUN_DICT
    assert run.name == "bm25"  # named after the file
    assert evaluate(tmp_path / "qrels.parquet", tmp_path / "bm25.parquet", ["RR"]) == {
        ("bm25", "q1", "RR"): 1.0,
        ("bm25", "q2", "RR"): 1.0,
    }


def test_parquet_with_other_column_names(tmp_path):
    pl = _polars()
    pytest.importorskip("pyarrow")
    path = tmp_path / "q.parquet"
    pl.DataFrame({"qid": ["q1"], "docno": ["d1"], "rel": [2]}).write_parquet(path)
    qrels = rankscope.read_qrels(path, columns={"query": "qid", "doc": "docno", "relevance": "rel"})
    assert qrels.to_dict() == {"q1": {"d1": 2}}


def test_read_parquet_takes_any_path_like(tmp_path):
    from rankscope.read.frames import read_parquet

    pl = _polars()
    pytest.importorskip("pyarrow")
    pl.DataFrame(FRAME_QRELS).write_parquet(tmp_path / "qrels.parquet")

    class Location:  # an os.PathLike that is not a pathlib.Path (polars takes str or Path)
        def __fspath__(self) -> str:
            return str(tmp_path / "qrels.parquet")

    assert read_parquet(Location()).equals(pl.DataFrame(FRAME_QRELS))


def test_parquet_bad_values_name_the_file(tmp_path):
    pl = _polars()
    pytest.importorskip("pyarrow")
    path = tmp_path / "r.parquet"
    pl.DataFrame({**FRAME_RUN, "score": [1.0, float("nan"), 2.0, 3.0]}).write_parquet(path)
    with pytest.raises(InputError, match=r"r\.parquet.*row 1: score"):
        rankscope.read_run(path)


def test_all_sources_give_the_same_evaluation(tmp_path, reader):
    pl = _polars()
    qrels_file = write(tmp_path / "qrels", QRELS_TEXT)
    run_file = write(tmp_path / "run", RUN_TEXT)
    measures = ["all_trec"]
    from_files = evaluate(qrels_file, {"x": run_file}, measures)
    from_dicts = evaluate(QRELS_DICT, {"x": RUN_DICT}, measures)
    from_frames = evaluate(pl.DataFrame(FRAME_QRELS), {"x": pl.DataFrame(FRAME_RUN)}, measures)
    assert from_files == from_dicts == from_frames
    assert len(from_files) > 100


def test_writing_judgments_and_runs_back(tmp_path):
    """report.files: TREC text (ranked, scores exact) and Parquet that read back the same."""
    pytest.importorskip("polars")
    from rankscope.report.files import format_qrels, format_run, write_parquet

    qrels = rankscope.read_qrels({"q1": {"d1": 1, "d2": 0}})
    run = rankscope.read_run({"q1": {"d1": 0.5, "d2": 0.5, "d3": 0.1}}, name="r")
    assert format_qrels(qrels) == "q1 0 d1 1\nq1 0 d2 0\n"
    # ties go docno-descending, as trec_eval orders them; scores print exactly
    assert format_run(run) == "q1 Q0 d2 1 0.5 r\nq1 Q0 d1 2 0.5 r\nq1 Q0 d3 3 0.1 r\n"
    write_parquet(qrels, tmp_path / "q.parquet")
    write_parquet(run, tmp_path / "r.parquet")
    assert rankscope.read_qrels(str(tmp_path / "q.parquet")).to_dict() == qrels.to_dict()
    assert rankscope.read_run(str(tmp_path / "r.parquet")).to_dict() == run.to_dict()
