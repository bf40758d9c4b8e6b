"""Runs that parse but probably do not say what was meant (issue 22): each kind warned once
per file, naming the file and a line, the same by the compiled and the pure-Python readers
and by a run read whole or in blocks; clean runs warn of nothing."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from rankscope.api import evaluate_many
from rankscope.errors import RankscopeWarning
from rankscope.model import native
from rankscope.read.trec import read_diversity_qrels, read_run
from tests.conftest import run_cli

CLEAN = "1 Q0 a 1 3.0 t\n1 Q0 b 2 2.0 t\n2 Q0 a 1 2.5 t\n2 Q0 c 2 0.5 t\n"


def told(path, **options) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        read_run(path, **options)
    return [str(w.message) for w in caught if issubclass(w.category, RankscopeWarning)]


def test_a_clean_run_warns_of_nothing(tmp_path, reader):
    (tmp_path / "run").write_text(CLEAN)
    assert told(tmp_path / "run") == []
    assert told(tmp_path / "run", order="rank") == []


def test_a_line_with_more_fields_than_the_others(tmp_path, reader):
    run = tmp_path / "run"
    # line 3's document id holds a space: 7 fields, its rank 'c', score 2, tag 0.5 (read)
    run.write_text(CLEAN.replace("2 Q0 c 2 0.5 t", "2 Q0 my c 2 0.5 t") + "2 Q0 d 3 0.1 t x\n")
    [said] = told(run)
    assert said.startswith(f"{run}:4: 7 fields where the file's other lines have 6 fields")
    assert "(2 lines with more)" in said and "holding a space" in said


def test_one_warning_for_a_file_of_two_tags(tmp_path, reader):
    run = tmp_path / "run"
    run.write_text(CLEAN.replace("2.5 t", "2.5 u").replace("0.5 t", "0.5 u"))
    assert told(run) == [f"{run}:3: run tag 'u' where the lines before have 't': several runs "
                         "in one file?"]  # fmt: skip


def test_scores_tied_while_the_rank_column_orders(tmp_path, reader):
    run = tmp_path / "run"
    run.write_text(CLEAN.replace("2.5 t", "1 t").replace("0.5 t", "1 t"))
    [said] = told(run)
    assert said.startswith(f"{run}:3: every document of query '2' has the score 1 while")
    assert "order='rank'" in said
    assert told(run, order="rank") == []  # ordered by the rank column: nothing to say
    run.write_text(CLEAN.replace("2.5 t", "1 t").replace("2 Q0 c 2 0.5 t", "2 Q0 c 1 1 t"))
    assert told(run) == []  # the rank column ties them too


def test_scores_that_rise_with_the_rank_in_every_query(tmp_path, reader):
    run = tmp_path / "run"
    run.write_text("1 Q0 a 1 1 t\n1 Q0 b 2 2 t\n2 Q0 a 1 1 t\n2 Q0 c 2 3 t\n2 Q0 d 3 3 t\n")
    [said] = told(run)
    assert said.startswith(f"{run}:2: scores rise with the rank in every query (rank 1 scores "
                           "1, rank 2 scores 2)")  # fmt: skip
    run.write_text("1 Q0 a 1 1 t\n1 Q0 b 2 2 t\n2 Q0 a 1 3 t\n2 Q0 c 2 1 t\n")
    assert told(run) == []  # query 2 falls: not every query
    run.write_text("1 Q0 a 1 1 t\n1 Q0 b 2 2 t\n")
    assert told(run) == []  # one query is too little to tell


def test_a_nan_score_where_the_rank_orders(tmp_path, reader):
    run = tmp_path / "run"
    run.write_text(CLEAN.replace("2.0 t", "NaN t"))
    assert told(run, order="rank") == [
        f"{run}:2: the score is nan: the rank column orders the run, but whatever wrote it "
        "may not have ranked what it meant to"
    ]


def test_ad_hoc_qrels_read_as_diversity_judgments(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    with pytest.warns(RankscopeWarning, match=r"qrels:1: every judgment is of subtopic 0"):
        read_diversity_qrels(qrels)
    qrels.write_text("1 0 a 1\n1 2 b 1\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_diversity_qrels(qrels)


def test_the_command_line_names_its_option(tmp_path, capsys):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n")
    run.write_text("1 Q0 a 1 1 t\n1 Q0 b 2 1 t\n")
    code, _, err = run_cli(["eval", str(qrels), str(run)], capsys)
    assert code == 0 and "(--order rank follows the rank column)" in err
    assert "order='rank'" not in err


def test_recommended_items_never_seen_in_training(tmp_path, capsys):
    test, recs, train = tmp_path / "test.tsv", tmp_path / "recs.tsv", tmp_path / "train.tsv"
    test.write_text("u1\ti1\t5\nu2\ti2\t4\n")
    recs.write_text("u1\t1\t0.9\nu1\t2\t0.5\nu2\ti2\t0.7\n")  # ids 1, 2: of another mapping
    train.write_text("u1\ti2\t5\nu2\ti1\t4\n")
    args = ["recsys", "-m", "P@1", "--train", str(train), str(test), str(recs)]
    code, _, err = run_cli(args, capsys)
    assert code == 0
    assert "2 of the 3 items recommended (such as '1') never occur in the training " in err
    assert f"(--train {train})" in err
    recs.write_text("u1\ti2\t0.9\nu2\ti2\t0.7\nu2\t1\t0.5\n")  # 1 of 2 unseen: not most
    code, _, err = run_cli(args, capsys)
    assert code == 0 and "never occur" not in err
    code, _, err = run_cli(["recsys", "-m", "P@1", "-m", "Novelty@1", *args[3:]], capsys)
    assert code == 0 and "never occur" not in err  # a beyond-accuracy measure: legal


def test_a_run_read_in_blocks_warns_as_read_whole(tmp_path):
    """Blocks of whole queries add their evidence up: the same warnings, the same lines."""
    if native() is None:
        pytest.skip("blocks need the compiled reader")
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("".join(f"{q} 0 a 1\n" for q in range(1, 9)))
    lines = []
    for q in range(1, 9):
        tag = "t" if q < 6 else "u"  # a second system from query 6 (line 16)
        for r, d in enumerate("abc", 1):
            extra = " x" if (q, r) == (4, 2) else ""  # line 11: a field more
            score = 1 if q == 7 else 4 - r  # query 7 (line 19): tied, ordered by rank
            lines.append(f"{q} Q0 {d} {r} {score} {tag}{extra}\n")
    run.write_text("".join(lines))

    def said(**options) -> list[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            evaluate_many(str(qrels), [str(run)], ["map"], **options)
        return [str(w.message) for w in caught if str(w.message).startswith(str(run))]

    whole = said(block_bytes=1 << 40, jobs=1)
    assert [w.split(": ")[0] for w in whole] == [f"{run}:11", f"{run}:16", f"{run}:19"]
    for block in (40, 100, 200):
        assert said(block_bytes=block, jobs=1) == whole, block



def _steps(rows, gaps=()):
    """The run of ``rows`` of (query, rank, score) as text (a comment line after the rows in
    ``gaps``), read by the compiled reader: its columns (query codes, ranks, scores, lines)
    and the `RankSteps` it gathered."""
    from rankscope.model import Vocabulary
    from rankscope.read.trec import _native_parse

    text = "".join(
        f"q{q} Q0 d{i} {r} {float(s)!r} t\n" + ("# gap\n" if i in gaps else "")
        for i, (q, r, s) in enumerate(rows)
    )  # fmt: skip
    (q, _, s, line, _, shape), _ = _native_parse(
        text.encode(), "run", Vocabulary(), Vocabulary(), True
    )  # fmt: skip
    return (q, shape.rank, s, line), shape.steps


def test_rank_steps_worked_out_by_hand():
    """Query 0 tied on one score (rows 0-2, first line 1), query 1's step up the ranks
    raising the score (row 3 to 4, line 5), query 2's lowering it; every query steps."""
    from rankscope.read.trec import _rank_steps_numpy

    rows = [(0, 1, 5.0), (0, 2, 5.0), (0, 3, 5.0), (1, 1, 3.0), (1, 2, 4.0), (2, 1, 9.0),
            (2, 2, 8.0), (2, 2, 8.0)]  # fmt: skip
    q, r, s = (np.asarray(c) for c in zip(*rows, strict=True))
    expected = (0, 1, 3, True, 3)
    assert _rank_steps_numpy(q, r.astype(float), s, np.arange(1, 9)) == expected
    if native() is not None:
        assert _steps(rows)[1] == expected


def test_rank_steps_gathered_as_numpy_works_them_out():
    """What the compiled reader gathers as it reads a run is numpy's result bit for bit, on
    seeded runs with tied scores and ranks, one-row queries and comment lines between rows;
    and nothing (numpy's turn) where the rows are not listed query by query in rank order,
    a rank is not a number, or there is one row."""
    from rankscope.read.trec import _rank_steps_numpy

    if native() is None:
        pytest.skip("compiled reader not built")
    for seed in range(300):
        rng = np.random.default_rng(seed)
        queries = int(rng.integers(1, 12))
        sizes = rng.integers(1, 9, size=queries)
        q = np.repeat(rng.permutation(queries + 3)[:queries], sizes)
        r = np.concatenate([np.sort(rng.integers(0, 4, size=k)) for k in sizes])
        s = rng.integers(0, 3, size=len(q)) * rng.choice([1.0, -0.5])
        gaps = set(np.flatnonzero(rng.random(len(q)) < 0.2).tolist())
        columns, steps = _steps(list(zip(q, r, s, strict=True)), gaps)
        assert steps == (_rank_steps_numpy(*columns) if len(q) > 1 else None)
    assert _steps([(0, 1, 2.0), (1, 1, 2.0), (0, 2, 1.0)])[1] is None  # query 0 twice
    assert _steps([(0, 2, 2.0), (0, 1, 2.0)])[1] is None  # ranks falling
    assert _steps([(0, 1, 2.0), (0, "x", 1.0)])[1] is None  # a rank that is no number
    assert _steps([(0, 1, 2.0)])[1] is None
