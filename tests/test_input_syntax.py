"""One number syntax for every reader (issue 9): a table of tokens, valid and invalid, fed
through every place rankscope reads a number — TREC qrels, runs and diversity qrels,
trec_eval's preference, judgment-group and z-score files, document lengths, interaction
logs (every separator, headers, the column-wise and the line-by-line reader), recommendation
lists, item features, DataFrames and dicts — with the compiled and the pure-Python TREC
reader.  Each accepts exactly the same numbers, with the same value, and rejects the others
with an `InputError` shaped ``{file}:{line}: {field} {token!r} {problem}`` (``{source}: row
{row}: ...`` for frames and dicts)."""

from __future__ import annotations

import csv
import gzip
import io
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import rankscope
from rankscope import InputError, RankscopeWarning
from rankscope.read.duplicates import first_repeated, group_key, kept_rows
from rankscope.read.features import read_item_features
from rankscope.read.fields import Field, looks_numeric
from rankscope.read.interactions import keep_latest, read_interactions
from rankscope.read.prefs import read_prefs, read_qrels_jg, read_qrels_prefs, read_zscores
from rankscope.read.recommendations import read_recommendations
from rankscope.read.sources import read_doc_lengths as doc_lengths_of
from rankscope.read.trec import read_diversity_qrels, read_doc_lengths

REJECTED = None
TOKENS = [
    # token, its value as a real, as an integer (REJECTED: an InputError)
    ("1", 1.0, 1),
    ("+2", 2.0, 2),
    ("-1", -1.0, -1),
    ("0", 0.0, 0),
    ("-0", -0.0, 0),
    ("00012", 12.0, 12),
    ("1.5", 1.5, REJECTED),
    (".5", 0.5, REJECTED),
    ("5.", 5.0, REJECTED),
    ("-.5e-3", -0.0005, REJECTED),
    ("1e3", 1000.0, REJECTED),
    ("1E+3", 1000.0, REJECTED),
    ("1e-400", 0.0, REJECTED),  # underflows to 0, as strtod
    ("999999999999999999", 999999999999999999.0, 999999999999999999),  # 18 digits
    ("-999999999999999999", -999999999999999999.0, -999999999999999999),
    ("1000000000000000000", 1e18, REJECTED),  # 19 digits: out of range as an integer
    ("1_000", REJECTED, REJECTED),  # Python's float() and int() would take it
    ("1_000.5", REJECTED, REJECTED),
    ("1,5", REJECTED, REJECTED),
    ("0x10", REJECTED, REJECTED),
    ("1d3", REJECTED, REJECTED),
    ("nan", REJECTED, REJECTED),
    ("-NaN", REJECTED, REJECTED),
    ("inf", REJECTED, REJECTED),
    ("-Infinity", REJECTED, REJECTED),
    ("1e400", REJECTED, REJECTED),  # overflows
    ("١", REJECTED, REJECTED),  # ARABIC-INDIC DIGIT ONE: float() would take it
    ("１", REJECTED, REJECTED),  # FULLWIDTH DIGIT ONE
    ("++5", REJECTED, REJECTED),
    ("+-1", REJECTED, REJECTED),
    ("-", REJECTED, REJECTED),
    ("+", REJECTED, REJECTED),
    (".", REJECTED, REJECTED),
    ("e3", REJECTED, REJECTED),
    ("1e", REJECTED, REJECTED),
    ("1e+", REJECTED, REJECTED),
    ("1.2.3", REJECTED, REJECTED),
    ("x", REJECTED, REJECTED),
    # Fields that can hold them: delimited logs (an empty field) and frames (both; text
    # readers split fields at blanks, or trim them around a delimiter).
    ("", REJECTED, REJECTED),
    (" 1e3", REJECTED, REJECTED),
    ("1 ", REJECTED, REJECTED),
]
PROBLEMS = (
    "is not a number",
    "is not an integer",
    "is not finite",
    "is out of range",
    "is not a non-negative integer",
    "is not a non-negative number",
    "is not a finite number",  # the wording tests/test_recsys.py and test_io.py pin
)


def expected(kind: str, token: str) -> float | int | None:
    _, real, integer = next(t for t in TOKENS if t[0] == token)
    value = integer if kind in ("integer", "rank") else real
    if value is not None and kind in ("rank", "length") and value < 0:
        return REJECTED
    return value


@dataclass(frozen=True)
class Case:
    """One place a number is read: the input it makes around the token, how it reads it
    back, and where the error must point."""

    name: str
    kind: str  # integer, real, rank (integer >= 0), length (real >= 0)
    field: str  # the field's name in messages
    read: Callable[[Path, str], tuple[Callable[[], float], str]]  # -> (read value, where)
    empty: bool = False  # can a field be empty (delimited text, frames)?
    blanks: bool = False  # can a field hold blanks (frames: text trims or splits at them)?
    compiled: bool = False  # does the compiled TREC reader take part?


def _file(path: Path, text: str, gz: bool = False) -> Path:
    if gz:
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _trec(name, kind, field, text, line, value, reader=None, gz=False, **flags) -> Case:
    def read(path, token):
        path = _file(path, text.format(t=token), gz)
        return (lambda: value((reader or rankscope.read_run)(str(path)))), f"{path}:{line}"

    return Case(name, kind, field, read, **flags)


def _delimited(sep: str, role: str, slow: bool, header: bool = False) -> Case:
    """An interaction log: the token in the rating or timestamp column of the second row."""

    def read(path, token):
        # a fifth column, ignored, keeps an empty token inside the line
        rows = [[f"u{n}", f"i{n}", "4", f"{n}00", "x"] for n in (1, 2, 3)]
        rows[1][2 if role == "rating" else 3] = token
        lines = [sep.join(r) for r in rows]
        if sep == ",":
            buffer = io.StringIO()
            csv.writer(buffer, lineterminator="\n").writerows(rows)
            lines = buffer.getvalue().splitlines()
        head = (["# a comment: the line-by-line reader"] if slow else []) + (
            ["userId,movieId,rating,timestamp,note"] if header else []
        )
        path = _file(path, "\n".join(head + lines) + "\n")

        def value():
            log = read_interactions(str(path))
            return (log.rating if role == "rating" else log.timestamp)[1]

        return value, f"{path}:{len(head) + 2}"

    name = f"log {role} sep={sep!r}{' header' if header else ''}{' lines' if slow else ''}"
    return Case(name, "real", role, read, empty=sep != " ")


def _recommendations_tsv(path, token):
    path = _file(path, f"u1\ti1\t0.5\tx\nu2\ti2\t{token}\tx\n")
    return (lambda: read_recommendations(str(path)).score[1]), f"{path}:2"


def _recommendations_csv(path, token):
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(
        [["user", "item", "rank"], ["u1", "i1", "7"], ["u2", "i2", token]]
    )
    path = _file(path, buffer.getvalue())
    return (lambda: -read_recommendations(str(path)).score[1]), f"{path}:3"


def _features_csv(path, token):
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(
        [["item", "year"], ["1", "1995"], ["2", token], ["3", "2000"]]
    )
    path = _file(path, buffer.getvalue())
    return (lambda: read_item_features(str(path)).matrix[1, 0]), f"{path}:3"


def _frame(kind, field, make, value, where, module="pandas") -> Case:
    def read(path, token):
        lib = pytest.importorskip(module)
        return (lambda: value(make(lib, token))), where

    name = f"{make.__name__.strip('_').replace('_', ' ')} {field}"
    return Case(name, kind, field, read, empty=True, blanks=True)


def _dict(kind, field, make, value, where) -> Case:
    return Case(
        f"dict {field} ({where})", kind, field,
        lambda path, token: ((lambda: value(make(token))), where), empty=True, blanks=True,
    )  # fmt: skip


def _pandas_run(pd, token):
    frame = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "d"], "score": ["1", token]})
    return rankscope.read_run(frame)


def _polars_run(pl, token):
    frame = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "d"], "score": ["1", token]})
    return rankscope.read_run(frame)


def _pandas_qrels(pd, token):
    frame = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "d"], "relevance": ["1", token]})
    return rankscope.read_qrels(frame)


def _pandas_log(pd, token):
    return read_interactions(pd.DataFrame({"user": ["u", "u"], "item": ["a", "d"],
                                           "rating": ["4", token]}))  # fmt: skip


def _polars_recommendations(pl, token):
    frame = pl.DataFrame({"user": ["u", "u"], "item": ["a", "d"], "score": ["1", token]})
    return read_recommendations(frame)


TREC_RUN = "q Q0 a 1 1 t\nq Q0 d 2 {t} t\n"
CASES = [
    _trec("TREC qrels grade", "integer", "relevance grade", "q 0 a 1\nq 0 d {t}\n", 2,
          lambda q: q.grade[1], rankscope.read_qrels, compiled=True),
    _trec("TREC qrels grade (gzip)", "integer", "relevance grade", "q 0 a 1\nq 0 d {t}\n", 2,
          lambda q: q.grade[1], rankscope.read_qrels, gz=True, compiled=True),
    _trec("TREC run score", "real", "score", TREC_RUN, 2, lambda r: r.score[1], compiled=True),
    _trec("TREC run score (gzip)", "real", "score", TREC_RUN, 2, lambda r: r.score[1],
          gz=True, compiled=True),
    _trec("TREC run rank (order=rank)", "rank", "rank", "q Q0 a 7 1 t\nq Q0 d {t} 1 t\n", 2,
          lambda r: -r.score[1], lambda p: rankscope.read_run(p, order="rank")),
    _trec("diversity qrels grade", "integer", "relevance grade", "q 1 a 1\nq 1 d {t}\n", 2,
          lambda q: q.grade[1], read_diversity_qrels),
    _trec("diversity qrels subtopic", "integer", "subtopic", "q 1 a 1\nq {t} d 1\n", 2,
          lambda q: q.subtopic[1], read_diversity_qrels),
    _trec("prefs level", "real", "relevance level", "# c\nq u s A 1\nq u s B {t}\n", 3,
          lambda p: p.level[1], read_prefs),
    _trec("qrels_prefs level", "real", "relevance level", "q u A 1\nq u B {t}\n", 2,
          lambda p: p.level[1], read_qrels_prefs),
    _trec("qrels_jg grade", "integer", "relevance grade", "q u A 1\nq u B {t}\n", 2,
          lambda q: q.grade[1], read_qrels_jg),
    _trec("z-score mean", "real", "mean", "q map 0.5 0.1\nq P_5 {t} 0.1\n", 2,
          lambda z: z.table["q", "P_5"][0], read_zscores),
    _trec("z-score standard deviation", "real", "standard deviation",
          "q map 0.5 0.1\nq P_5 0.5 {t}\n", 2, lambda z: z.table["q", "P_5"][1], read_zscores),
    _trec("document length", "length", "length", "a 10\nd {t}\n", 2, lambda d: d["d"],
          read_doc_lengths),
    _trec("recommendations as a TREC run", "real", "score", TREC_RUN, 2,
          lambda r: r.score[1], read_recommendations, compiled=True),
    _trec("interactions as TREC qrels", "integer", "relevance grade",
          "u1 0 i1 1\nu2 0 i2 {t}\n", 2, lambda log: log.rating[1], read_interactions),
    *[_delimited(sep, role, slow) for sep, role, slow in
      itertools.product(["\t", " ", ",", "::"], ["rating", "timestamp"], [False, True])],
    _delimited(",", "rating", False, header=True),
    _delimited(",", "timestamp", True, header=True),
    Case("recommendations score", "real", "score", _recommendations_tsv, empty=True),
    Case("recommendations rank (header)", "rank", "rank", _recommendations_csv, empty=True),
    Case("item feature (header)", "real", "feature year", _features_csv, empty=True),
    _frame("real", "score", _pandas_run, lambda r: r.score[1], "<run frame run>: row 1"),
    _frame("real", "score", _polars_run, lambda r: r.score[1], "<run frame run>: row 1",
           "polars"),
    _frame("integer", "relevance", _pandas_qrels, lambda q: q.grade[1],
           "<qrels frame>: row 1"),
    _frame("real", "rating", _pandas_log, lambda log: log.rating[1],
           "<interactions frame>: row 1"),
    _frame("real", "score", _polars_recommendations, lambda r: r.score[1],
           "<recommendations frame recommendations>: row 1", "polars"),
    _dict("integer", "relevance", lambda t: rankscope.read_qrels({"q": {"a": "1", "d": t}}),
          lambda q: q.grade[1], "<qrels dict>: row 1"),
    _dict("real", "score", lambda t: rankscope.read_run({"q": {"a": 1.0, "d": t}}),
          lambda r: r.score[1], "<run dict run>: row 1"),
    _dict("real", "rating", lambda t: read_interactions({"u": {"a": 4, "d": t}}),
          lambda log: log.rating[1], "<interactions dict>: row 1"),
    _dict("real", "score", lambda t: read_recommendations({"u": {"a": 1, "d": t}}),
          lambda r: r.score[1], "<recommendations dict recommendations>: row 1"),
    _dict("length", "length", lambda t: doc_lengths_of({"a": 10, "d": t}), lambda d: d["d"],
          "<doc lengths dict>: row 1"),
]  # fmt: skip


def _tokens(case: Case) -> list[str]:
    return [
        token for token, _, _ in TOKENS
        if (token != "" or case.empty) and (token.strip() == token or case.blanks)
    ]  # fmt: skip


def _check(tmp_path: Path, case: Case) -> None:
    """Every token through one reader; the failures all reported at once."""
    failures = []
    for number, token in enumerate(_tokens(case)):
        value, where = case.read(tmp_path / f"input{number}", token)
        want = expected(case.kind, token)
        try:
            got = value()
        except InputError as error:
            message = str(error)
            if want is not REJECTED:
                failures.append(f"{token!r}: rejected ({message}), expected {want!r}")
            elif not message.startswith(f"{where}: {case.field} {token!r} "):
                failures.append(f"{token!r}: message {message!r} does not start with "
                                f"{where}: {case.field} {token!r}")  # fmt: skip
            elif not message.endswith(PROBLEMS):
                failures.append(f"{token!r}: unknown problem in {message!r}")
            continue
        if want is REJECTED:
            failures.append(f"{token!r}: accepted as {got!r}, expected an InputError")
        elif got != want or isinstance(got, str):
            failures.append(f"{token!r}: read as {got!r}, expected {want!r}")
        elif case.kind in ("integer", "rank") and not float(got).is_integer():
            failures.append(f"{token!r}: read as {got!r}, not an integer")
    assert not failures, "\n".join([case.name, *failures])


@pytest.mark.parametrize("case", [c for c in CASES if not c.compiled], ids=lambda c: c.name)
def test_every_reader_takes_the_same_numbers(tmp_path, case):
    _check(tmp_path, case)


@pytest.mark.parametrize("case", [c for c in CASES if c.compiled], ids=lambda c: c.name)
def test_compiled_and_python_readers_take_the_same_numbers(tmp_path, case, reader):
    _check(tmp_path, case)  # `reader`: once with the compiled reader, once without


def test_compiled_and_python_messages_are_identical(tmp_path, monkeypatch):
    from rankscope.model._native import native

    if native() is None:
        pytest.skip("compiled reader not built")
    outcomes: dict[str, list[str]] = {"": [], "1": []}
    for number, (token, _, _) in enumerate(TOKENS):
        if not token or token.strip() != token:
            continue
        qrels = _file(tmp_path / f"qrels{number}", f"q 0 a 1\nq 0 d {token}\n")
        run = _file(tmp_path / f"run{number}", f"q Q0 a 1 1 t\nq Q0 d 2 {token} t\n")
        for pure, seen in outcomes.items():
            monkeypatch.setenv("RANKSCOPE_PURE_PYTHON", pure)
            for read, path in ((rankscope.read_qrels, qrels), (rankscope.read_run, run)):
                try:
                    read(str(path))
                    seen.append(f"{token!r} accepted")
                except InputError as error:
                    seen.append(str(error))
    assert outcomes[""] == outcomes["1"]


def test_the_token_table_is_python_s_float_made_strict():
    """What the grammar adds to float()/int(): every rejection is one of its rules, never
    a difference in value."""
    for token, real, integer in TOKENS:
        if real is not None:
            assert float(token) == real
        if integer is not None:
            assert int(token) == integer
    accepted_by_python = [t for t, real, _ in TOKENS if real is None and _float_ok(t)]
    assert sorted(accepted_by_python) == sorted(
        ["1_000", "1_000.5", "nan", "-NaN", "inf", "-Infinity", "1e400", "١", "１", " 1e3", "1 "]
    )


def _float_ok(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


# -- numbers that are already numbers (frames, dicts) ----------------------------------------

VALUES = [
    # value, as a real, as an integer
    (1, 1.0, 1),
    (2.0, 2.0, 2),
    (np.int64(-3), -3.0, -3),
    (np.float32(0.5), 0.5, REJECTED),
    (1.5, 1.5, REJECTED),
    (True, 1.0, 1),
    (10**18 - 1, float(10**18 - 1), 10**18 - 1),
    (10**18, 1e18, REJECTED),  # beyond 18 digits, as in text
    (1e18, 1e18, REJECTED),
    (float("nan"), REJECTED, REJECTED),
    (float("inf"), REJECTED, REJECTED),
    (-float("inf"), REJECTED, REJECTED),
    (None, REJECTED, REJECTED),
    ([1], REJECTED, REJECTED),
]


@pytest.mark.parametrize("value,real,integer", VALUES, ids=[repr(v[0]) for v in VALUES])
def test_values_in_dicts_and_frames(value, real, integer):
    pd = pytest.importorskip("pandas")
    cases = [
        (lambda: rankscope.read_qrels({"q": {"a": 1, "d": value}}).grade[1], integer,
         "<qrels dict>: row 1: relevance"),
        (lambda: rankscope.read_run({"q": {"a": 1.0, "d": value}}).score[1], real,
         "<run dict run>: row 1: score"),
        (lambda: read_interactions({"u": {"a": 4, "d": value}}).rating[1], real,
         "<interactions dict>: row 1: rating"),
        (lambda: rankscope.read_qrels(pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "d"],
                                                    "relevance": [1, value]})).grade[1],
         integer, "<qrels frame>: row 1: relevance"),
    ]  # fmt: skip
    for read, want, where in cases:
        if want is REJECTED:
            with pytest.raises(InputError, match="^" + where.replace("[", r"\[")):
                read()
        else:
            assert read() == want


def test_numeric_columns_are_checked_column_wise():
    pd = pytest.importorskip("pandas")
    score = np.linspace(0, 1, 100_000)
    frame = pd.DataFrame({"query_id": ["q"] * len(score), "doc_id": np.arange(len(score)),
                          "score": score})  # fmt: skip
    assert rankscope.read_run(frame).score.tolist() == score.tolist()
    score[70_000] = np.nan
    with pytest.raises(InputError, match=r"^<run frame run>: row 70000: score nan "):
        rankscope.read_run(frame.assign(score=score))
    grades = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"],
                           "relevance": np.array([1, 10**18], dtype=np.int64)})  # fmt: skip
    with pytest.raises(InputError, match=r"row 1: relevance 1000000000000000000 is out of range"):
        rankscope.read_qrels(grades)


# -- the grammar itself ----------------------------------------------------------------------


@pytest.mark.parametrize("token,real,integer", TOKENS, ids=[repr(t[0]) for t in TOKENS])
def test_field_parses_bytes_and_str_alike(token, real, integer):
    for field, want in ((Field("x"), real), (Field("x", integer=True), integer)):
        for form in (token, token.encode()):
            if want is REJECTED:
                with pytest.raises(InputError, match=r"^f:3: x "):
                    field.parse(form, "f", 3)
            else:
                assert field.parse(form, "f", 3) == want
        column = np.array(["1", token], dtype=object)
        if want is REJECTED:
            with pytest.raises(InputError, match=r"^s: row 1: x "):
                field.values(column, "s")
        else:
            assert field.values(column, "s")[1] == want


def test_column_wise_token_check_matches_token_by_token():
    field = Field("rating")
    tokens = [t for t, real, _ in TOKENS if real is not None]
    assert field.fast_tokens(tokens).tolist() == [field.parse(t, "f", 1) for t in tokens]
    for token, real, _ in TOKENS:
        if real is None:
            assert field.fast_tokens(["1", token]) is None, token
    with pytest.raises(InputError, match=r"^f:11: rating '1_000' is not a number$"):
        field.tokens(["1", "1_000"], "f", [10, 11])


def test_layout_decisions_look_past_invalid_numbers():
    # an invalid number is still a number to the header and column heuristics, so it is
    # reported instead of turning its line into a header or its column into text
    assert all(looks_numeric(t) for t in ("1_000", "1,5", "nan", "inf", "1e400", " 1e3", "１"))
    assert not any(looks_numeric(t) for t in ("x", "", "rating", "0x10", "Action|Comedy"))


def test_a_log_whose_first_rating_is_invalid_is_not_taken_for_a_header(tmp_path):
    path = _file(tmp_path / "log.tsv", "u1\ti1\tnan\t1\nu2\ti2\t4\t2\n")
    with pytest.raises(InputError, match=r"log.tsv:1: rating 'nan' is not a finite number"):
        read_interactions(str(path))


def test_a_feature_column_with_a_typo_is_reported_not_dropped(tmp_path):
    path = _file(tmp_path / "items.csv", "item,year,genres\n1,1995,A\n2,19 95,B\n3,2000,A|B\n")
    with pytest.raises(InputError, match=r"items.csv:3: feature year '19 95' is not a number"):
        read_item_features(str(path))
    path = _file(tmp_path / "items.csv", "item,title,genres\n1,Heat,A\n2,1984,B\n3,Up,A|B\n")
    assert read_item_features(str(path)).names == ["A", "B"]  # titles stay text


def test_empty_timestamp_is_an_error(tmp_path):
    path = _file(tmp_path / "log.csv", "user,item,rating,timestamp\nu,a,4,\n")
    with pytest.raises(InputError, match=r"log.csv:2: timestamp '' is not a number"):
        read_interactions(str(path))


def test_fast_and_line_readers_agree_on_every_valid_token(tmp_path):
    tokens = [t for t, real, _ in TOKENS if real is not None]
    rows = "".join(f"u{n}\ti{n}\t{t}\t{t}\n" for n, t in enumerate(tokens))
    fast = read_interactions(str(_file(tmp_path / "fast", rows)))
    slow = read_interactions(str(_file(tmp_path / "slow", "#\n" + rows)))
    want = [float(t) for t in tokens]
    assert fast.rating.tolist() == slow.rating.tolist() == want
    assert fast.timestamp.tolist() == slow.timestamp.tolist() == want


# -- repeated keys ---------------------------------------------------------------------------


def _first_repeated_by_hand(q: np.ndarray, d: np.ndarray) -> tuple[int, int] | None:
    """The first row repeating an earlier (query, document) pair, and that earlier row."""
    seen: dict[tuple[int, int], int] = {}
    for j, key in enumerate(zip(q.tolist(), d.tolist(), strict=True)):
        if key in seen:
            return seen[key], j
        seen[key] = j
    return None


@pytest.mark.parametrize("pure", ["", "1"])
def test_first_repeated_is_the_first_in_input_order(monkeypatch, pure):
    monkeypatch.setenv("RANKSCOPE_PURE_PYTHON", pure)
    q = np.array([0, 1, 0, 1, 0], dtype=np.int32)
    d = np.array([5, 2, 7, 2, 5], dtype=np.int32)
    assert first_repeated(q, d) == (1, 3)  # row 3 repeats row 1 before row 4 repeats row 0
    assert first_repeated(q[:3], d[:3]) is None
    assert first_repeated(np.array([], dtype=np.int32), np.array([], dtype=np.int32)) is None
    t = np.array([1, -1, 2, 3, 1], dtype=np.int64)  # a third column, negative values
    assert first_repeated(q, d, t) == (0, 4)
    assert first_repeated(np.array([3, 1, 3])) == (0, 2)
    rng = np.random.default_rng(0)
    for _ in range(50):
        q, d = (rng.integers(0, 6, 20).astype(np.int32) for _ in range(2))
        assert first_repeated(q, d) == _first_repeated_by_hand(q, d)


@pytest.mark.parametrize("pure", ["", "1"])
def test_first_repeated_when_each_querys_rows_are_together(monkeypatch, pure):
    # (the compiled check's one pass for runs listing each query's rows together, and its
    # counting sort when a query's rows come back later)
    monkeypatch.setenv("RANKSCOPE_PURE_PYTHON", pure)
    q = np.array([4, 4, 4, 0, 0, 2, 2, 2], dtype=np.int32)
    d = np.array([1, 2, 3, 1, 2, 7, 1, 7], dtype=np.int32)
    assert first_repeated(q, d) == (5, 7)  # the same document for other queries is fine
    assert first_repeated(q[:7], d[:7]) is None
    back = np.array([4, 4, 0, 4, 0], dtype=np.int32)  # query 4 comes back
    assert first_repeated(back, np.array([1, 2, 3, 1, 3], dtype=np.int32)) == (0, 3)
    rng = np.random.default_rng(1)
    for _ in range(100):
        q = np.sort(rng.integers(0, 4, 30)).astype(np.int32)
        q = rng.permutation(4).astype(np.int32)[q]  # together, in any order of queries
        if rng.random() < 0.3:
            q[rng.integers(0, 30)] = rng.integers(0, 4)  # (now and then one row elsewhere)
        d = rng.integers(0, 25, 30).astype(np.int32)
        assert first_repeated(q, d) == _first_repeated_by_hand(q, d)


def test_group_key_and_kept_rows():
    huge = np.array([2**40, 2**40, 0, 5], dtype=np.int64)
    key = group_key(huge, huge, huge)  # too wide for one mixed-radix int64
    assert key[0] == key[1] and len(set(key.tolist())) == 3
    key = np.array([1, 2, 1, 1])
    assert kept_rows(key, "first").tolist() == [0, 1]
    assert kept_rows(key, "max-score", np.array([1.0, 0, 3, 3])).tolist() == [1, 2]
    assert kept_rows(key, "latest", np.array([9.0, 0, 3, 3])).tolist() == [0, 1]


def test_every_reader_names_both_lines_of_a_repeated_key(tmp_path, reader):
    run = _file(tmp_path / "run", "q Q0 a 1 3 t\nq Q0 b 2 2 t\nq Q0 b 3 1 t\nq Q0 a 4 0 t\n")
    with pytest.raises(InputError, match=r"'b' appears twice for query 'q' at lines 2 and 3"):
        rankscope.read_run(str(run))
    with pytest.warns(RankscopeWarning, match=r"2 repeated .* item 'b' \(lines 2 and 3\)"):
        assert len(read_recommendations(str(run))) == 2
    div = _file(tmp_path / "div", "q 1 a 1\nq 2 a 1\nq 2 b 1\nq 2 a 0\nq 1 a 0\n")
    with pytest.raises(InputError, match=r"'a' is judged twice .* subtopic 2 \(lines 2 and 4\)"):
        read_diversity_qrels(str(div))
    jg = _file(tmp_path / "jg", "q u a 1\nq v a 1\nq v a 0\nq u a 0\n")
    with pytest.raises(InputError, match=r"group 'v' \(lines 2 and 3\)"):
        read_qrels_jg(str(jg))
    qrels = _file(tmp_path / "qrels", "q 0 a 1\nq 0 b 1\nq 0 b 0\nq 0 a 2\n")
    with pytest.raises(InputError, match=r"'b' is judged twice for query 'q' \(lines 2 and 3\)"):
        rankscope.evaluate(str(qrels), {"r": {"q": {"a": 1.0}}}, ["AP"])
    log = _file(tmp_path / "log", "u\tb\t1\t5\nu\ta\t2\t1\nu\ta\t3\t0\nu\tb\t4\t1\n")
    with pytest.warns(RankscopeWarning, match=r"2 repeated .* item 'a' \(lines 2 and 3\)"):
        latest = keep_latest(read_interactions(str(log)))
    assert sorted(latest.rating.tolist()) == [1, 2]  # b: timestamp 5; a: timestamp 1


def test_errors_are_input_errors_naming_file_line_and_field(tmp_path):
    # the same bad rating, read from four layouts, gives the same message but for the file
    for name, text in [
        ("a.tsv", "u\ti\t4\nu\tj\t1_000\n"),
        ("b.csv", "user,item,rating\nu,i,4\nu,j,1_000\n"),
        ("c.dat", "u::i::4::1\nu::j::1_000::2\n"),
        ("d.txt", "u i 4\nu j 1_000\n"),
    ]:
        path = _file(tmp_path / name, text)
        line = 3 if name == "b.csv" else 2
        with pytest.raises(InputError) as info:
            read_interactions(str(path))
        assert str(info.value) == f"{path}:{line}: rating '1_000' is not a number"
