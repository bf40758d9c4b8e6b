"""Z-scores (trec_eval ``-Z``): per-query values standardised by a table of means and standard
deviations, summaries from the z-scores; the reader's errors."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import rankscope
from rankscope import InputError, RankscopeWarning
from rankscope.model.judgments import MISSING_ZSCORE
from rankscope.read.prefs import read_zscores
from tests.conftest import run_cli

QRELS = "q1 0 A 1\nq1 0 B 0\nq2 0 A 1\nq3 0 C 1\n"
RUN = "q1 Q0 A 1 2 r\nq1 Q0 B 2 1 r\nq2 Q0 B 1 2 r\nq2 Q0 A 2 1 r\nq3 Q0 C 1 1 r\n"
# AP: q1 1, q2 1/2, q3 1; num_ret 2, 2, 1
ZSCORES = """\
q1 map 0.5 0.25
q1 num_ret 3 0.5
q2 map 0.5 0
q2 num_ret 1 0
"""


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path, Path]:
    paths = []
    for name, text in (("qrels", QRELS), ("run", RUN), ("zscores", ZSCORES)):
        (tmp_path / name).write_text(text)
        paths.append(tmp_path / name)
    return tuple(paths)


def test_standardised_values_and_summaries(files):
    qrels, run, zscores = files
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankscopeWarning)
        (result,) = rankscope.evaluate_many(
            qrels, run, ["map", "num_ret", "num_q", "gm_map", "P.5"], zscores=zscores
        )
    # q1: (1 - 0.5) / 0.25; q2: stddev 0 and value = mean: 0; q3: not in the table
    assert result.value("map").tolist() == [2.0, 0.0, MISSING_ZSCORE]
    # q2: stddev 0 and value 2 != mean 1: missing
    assert result.value("num_ret").tolist() == [-2.0, MISSING_ZSCORE, MISSING_ZSCORE]
    assert result.value("P_5").tolist() == [MISSING_ZSCORE] * 3  # no P_5 in the table
    assert result.summary_of("map") == pytest.approx((2 + 0 + MISSING_ZSCORE) / 3)
    assert result.summary_of("num_ret") == -2 + 2 * MISSING_ZSCORE  # a sum, as the counts
    assert result.summary_of("num_q") == 3  # not standardised
    assert result.summary_of("gm_map") == pytest.approx(1e-5)  # every value floored


def test_printed_as_trec_eval_does(files, capsys):
    qrels, run, zscores = files
    code, out, err = run_cli(
        ["eval", "-q", "-m", "runid", "-m", "num_q", "-m", "map", "-m", "num_ret",
         "-m", "relstring", "-Z", str(zscores), str(qrels), str(run)],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    lines = out.splitlines()
    # 'Z' then the name padded to 22; counts with 4 decimals; text as usual
    assert lines[:3] == [
        "Znum_ret               \tq1\t-2.0000",
        "Zmap                   \tq1\t2.0000",
        "relstring             \tq1\t'10'",
    ]
    assert lines[-4:] == [
        "runid                 \tall\tr",
        "Znum_q                 \tall\t3.0000",
        "Znum_ret               \tall\t-2000002.0000",
        "Zmap                   \tall\t-333332.6667",
    ]


@pytest.mark.parametrize(
    "text,line,message",
    [
        ("q1 map 0.5\n", 1, "expected 4 fields (qid measure mean stddev), found 3"),
        ("q1 map 0.5 0.1\nq1 P_5 x 0.1\n", 2, "mean 'x' is not a number"),
        ("q1 map 0.5 -\n", 1, "standard deviation '-' is not a number"),
    ],
)
def test_bad_lines(tmp_path, text, line, message):
    path = tmp_path / "z"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        read_zscores(path)
    assert str(info.value).startswith(f"{path}:{line}: ")
    assert message in str(info.value)


def test_repeated_entry_is_an_error(tmp_path):
    path = tmp_path / "z"
    path.write_text("q1 map 0.5 0.1\nq2 map 0.5 0.1\nq1 map 0.4 0.1\n")
    with pytest.raises(InputError, match=r"'map' of query 'q1' is given twice \(lines 1 and 3\)"):
        read_zscores(path)
