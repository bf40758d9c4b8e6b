"""One log of shown results (issue 21 §1): `rankscope.model.ImpressionLog`, read by one
schema-driven reader, `rankscope.read.impressions.read_impressions`, for click models,
counterfactual estimators and interleaving alike."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from rankscope.clicks import write_clicks
from rankscope.errors import InputError
from rankscope.model import ImpressionLog
from rankscope.read.impressions import ROLES, read_impressions

ROOT = Path(__file__).resolve().parents[1]


def test_impression_is_the_session_and_the_shown_list_is_the_ranking():
    assert "impression" in ROLES["session"].names
    assert "impression_id" in ROLES["session"].names
    assert {"ranking", "ranking_id", "list", "list_id"} <= set(ROLES["ranking"].names)
    # each header name maps one role
    names = [name for role in ROLES.values() for name in role.names]
    assert len(names) == len(set(names))


def test_every_optional_column_is_read_and_written_back(tmp_path):
    text = (
        "impression\tquery\tposition\tdoc\tclick\ttimestamp\tlist\tteam\tpropensity\n"
        "i2\tq\t1\tc\t0\t2019-11-24 00:00:01+00:00\tL2\ta\t0.5\n"
        "i1\tq\t2\tb\t1\t2019-11-24 00:00:00+00:00\tL1\tb\t0.25\n"
        "i1\tq\t1\ta\t0\t2019-11-24 00:00:00+00:00\tL1\ta\t0.5\n"
        "i2\tq\t2\td\t1\t2019-11-24 00:00:01+00:00\tL2\t\t0.25\n"
    )
    path = tmp_path / "log.tsv"
    path.write_text(text)
    log = read_impressions(path)
    assert isinstance(log, ImpressionLog)
    # sessions in order of first appearance, rows by session then position
    assert log.sessions.strings_of(log.session) == ["i2", "i2", "i1", "i1"]
    assert log.position.tolist() == [1, 2, 1, 2]
    assert log.line.tolist() == [2, 5, 4, 3]
    assert log.where(1) == f"{path}:5"
    assert log.team.tolist() == [1, 0, 1, -1]
    assert log.rankings.strings_of(log.ranking) == ["L2", "L2", "L1", "L1"]
    assert log.timestamp.tolist() == [1574553601.0, 1574553601.0, 1574553600.0, 1574553600.0]
    assert log.propensity.tolist() == [0.5, 0.25, 0.5, 0.25]
    assert log.clicked.tolist() == [False, True, False, True]
    out = tmp_path / "again.tsv"
    write_clicks(log, out)
    again = read_impressions(out)
    assert again.columns() == log.columns()


def test_taking_sessions_renumbers_them_in_order():
    log = read_impressions({
        "session": ["a", "a", "b", "c", "c"], "position": [1, 2, 1, 1, 2],
        "doc": ["x", "y", "x", "y", "z"], "click": [0, 1, 1, 0, 0.5],
    })  # fmt: skip
    assert log.num_sessions == 3 and log.session_query.tolist() == [0, 0, 0]
    kept = log.take_sessions(np.array([0, 2]))
    assert kept.session.tolist() == [0, 0, 1, 1]
    assert kept.sessions.strings == ["a", "c"]
    assert kept.columns()["clicked"] == [0.0, 1.0, 0.0, 0.5]  # a reward: not rounded


def test_a_log_without_session_or_query_has_a_session_per_row_and_one_query():
    log = read_impressions({"position": [1, 1], "doc": ["x", "y"], "click": [1, 0]})
    assert log.num_sessions == 2 and log.queries.strings == ["all"]


def test_binary_clicks_and_required_roles():
    frame = {"session": ["s"], "position": [1], "doc": ["a"], "click": [0.5]}
    assert read_impressions(frame).click.tolist() == [0.5]
    with pytest.raises(InputError, match="row 0: clicked 0.5 is not 0, 1, true or false"):
        read_impressions(frame, binary=True)
    with pytest.raises(InputError, match="no query column"):
        read_impressions(frame, require=("session", "query"))


def test_one_container_and_one_reader_of_shown_results():
    """No other container or reader of click logs or logged rankings is left in src/."""
    gone = re.compile(r"\b(ClickLog|LoggedSlates|read_clicks|read_logged_slates|click_log)\b")
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "src" / "rankscope").rglob("*.py")
        if gone.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
