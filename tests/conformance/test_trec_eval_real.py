"""trec_eval's output on real collections (../shared/conformance/trec_eval/real): identical text."""

from __future__ import annotations

import pytest

from tests.conftest import CONFORMANCE, DATA, need, run_cli

REAL = CONFORMANCE / "trec_eval" / "real"
OPTIONS = {"aq": "-m all_trec -q", "aqcl2": "-m all_trec -q -c -l2", "aqJ": "-m all_trec -q -J"}


def _cases():
    if not REAL.exists():
        return [pytest.param(None, None, None, None, id="absent")]
    cases = []
    for f in sorted(REAL.iterdir()):
        parts = f.name.split(".")
        if parts[0] == "ehealth2016":
            run, opt = parts[1], parts[2]
            cases.append(
                pytest.param(
                    OPTIONS[opt],
                    DATA / "clef_ehealth2016" / "task2.qrels",
                    DATA / "clef_ehealth2016" / "runs" / f"{run}.txt.gz",
                    f,
                    id=f.name,
                )
            )
        elif f.name == "robust04.rm3.aq":
            cases.append(
                pytest.param(
                    "-m all_trec -q",
                    DATA / "robust04" / "qrels.robust2004.txt",
                    DATA / "robust04" / "rob04_yang19_rm3.run.gz",
                    f,
                    id=f.name,
                )
            )
        elif f.name == "robust04.rm3.aqcM100":
            cases.append(
                pytest.param(
                    "-m all_trec -q -c -M100",
                    DATA / "robust04" / "qrels.robust2004.txt",
                    DATA / "robust04" / "rob04_yang19_rm3.run.gz",
                    f,
                    id=f.name,
                )
            )
    return cases


@pytest.mark.parametrize("options,qrels,run,expected", _cases())
def test_real_collection(options, qrels, run, expected, capsys):
    need(REAL)
    need(qrels)
    need(run)
    code, out, err = run_cli(["eval", *options.split(), str(qrels), str(run)], capsys)
    assert code == 0, err
    assert out == expected.read_text()
