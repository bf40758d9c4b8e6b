"""``rankscope recsys``: formats, several systems, options, errors, and MovieLens files."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest

from tests.conftest import DATA, need, run_cli

# u1: relevant c (5), f (4); u2: relevant b; u3: none; u5: relevant a, no list.
TEST = "u1\tc\t5\t1\nu1\tf\t4\t1\nu1\te\t2\t1\nu2\tb\t4\t1\nu2\te\t1\t1\nu3\tf\t3\t1\nu5\ta\t5\t1\n"
TRAIN = "u1\ta\t3\nu1\tb\t4\nu2\ta\t5\nu2\tc\t2\nu3\ta\t4\nu3\tb\t3\nu4\td\t1\n"
# sys: u1 c a f b; u2 e b; u3 c d f.  other: u1 f c; u2 b; u3 d.
SYS = (
    "u1 Q0 c 1 4 sys\nu1 Q0 a 2 3 sys\nu1 Q0 f 3 2 sys\nu1 Q0 b 4 1 sys\n"
    "u2 Q0 e 1 2 sys\nu2 Q0 b 2 1 sys\nu3 Q0 c 1 3 sys\nu3 Q0 d 2 2 sys\nu3 Q0 f 3 1 sys\n"
)
OTHER = "user,item\nu1,f\nu1,c\nu2,b\nu3,d\n"
ITEMS = "a|A|x||u|1|1|0\nb|B|x||u|1|0|0\nc|C|x||u|0|1|1\nd|D|x||u|0|0|1\ne|E|x||u|1|1|1\n"


@pytest.fixture
def files(tmp_path):
    out = {}
    for name, text in [("test", TEST), ("train", TRAIN), ("sys.run", SYS),
                       ("other.csv", OTHER), ("u.item", ITEMS)]:  # fmt: skip
        path = tmp_path / name
        path.write_text(text)
        out[name] = str(path)
    return out


def test_table_with_two_systems(files, capsys):
    code, out, err = run_cli(
        ["recsys", files["test"], files["sys.run"], files["other.csv"], "-k", "3",
         "-m", "P", "-m", "MRR", "--train", files["train"]],
        capsys,
    )  # fmt: skip
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["run", "P@3", "MRR@3"]
    # sys: P (2/3 + 1/3 + 0)/3, MRR (1 + 1/2 + 0)/3; other: u1 f, c (2/3), u2 b (1/3), u5 0
    assert lines[2].split() == ["sys", f"{1 / 3:.4f}", "0.5000"]
    assert lines[3].split() == ["other", f"{1 / 3:.4f}", f"{2 / 3:.4f}"]
    assert "1 of 4 test users have no relevant test item (rating >= 4)" in err
    assert "1 of 4 test users have no recommendations" in err


def test_json_per_user(files, capsys):
    code, out, _ = run_cli(
        ["recsys", files["test"], files["sys.run"], "-k", "3", "-m", "P", "-m", "ILD",
         "-m", "Novelty", "--train", files["train"], "--features", files["u.item"],
         "--format", "json", "-q"],
        capsys,
    )  # fmt: skip
    assert code == 0
    (entry,) = json.loads(out)
    assert entry["run"] == "sys"
    assert entry["summary"]["P@3"] == pytest.approx(1 / 3)
    assert entry["users"]["P@3"] == 3
    assert entry["per_user"]["P@3"] == pytest.approx({"u1": 2 / 3, "u2": 1 / 3, "u5": 0.0})
    cosine = (0.5 + (1 - 1 / math.sqrt(3)) + (1 - 1 / math.sqrt(2))) / 3
    assert entry["summary"]["ILD@3"] == pytest.approx(cosine)
    assert set(entry["per_user"]["Novelty@3"]) == {"u1", "u2", "u3"}


def test_csv_and_no_relevant_zero(files, capsys):
    code, out, _ = run_cli(
        ["recsys", files["test"], files["sys.run"], "-k", "3", "-m", "P",
         "--no-relevant", "zero", "--format", "csv"],
        capsys,
    )  # fmt: skip
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows == [
        {"run": "sys", "user": "all", "measure": "P@3", "value": repr(1 / 4), "users": "4"}
    ]


def test_threshold_none_and_graded(files, capsys):
    code, out, _ = run_cli(
        ["recsys", files["test"], files["sys.run"], "-k", "3", "-m", "P", "--threshold",
         "none", "--format", "csv"],
        capsys,
    )  # fmt: skip
    # every test interaction relevant: u1 c, f; u2 e, b; u3 f; u5 none retrieved
    assert float(out.splitlines()[1].split(",")[3]) == pytest.approx((2 + 2 + 1 + 0) / 12)
    code, out, _ = run_cli(
        ["recsys", files["test"], files["sys.run"], "-k", "3", "-m", "nDCG",
         "--relevance", "graded", "--format", "csv"],
        capsys,
    )  # fmt: skip
    u1 = (5 + 4 / 2) / (5 + 4 / math.log2(3))
    assert float(out.splitlines()[1].split(",")[3]) == pytest.approx((u1 + 1 / math.log2(3)) / 3)


def test_seen_drop(files, capsys):
    code, out, err = run_cli(
        ["recsys", files["test"], files["sys.run"], "-k", "2", "-m", "P", "--train",
         files["train"], "--seen", "drop", "--format", "csv"],
        capsys,
    )  # fmt: skip
    assert code == 0 and "2 recommended (user, item) pairs of the training data removed" in err
    assert float(out.splitlines()[1].split(",")[3]) == pytest.approx((1 + 1 / 2 + 0) / 3)


def test_errors(files, tmp_path, capsys):
    code, _, err = run_cli(["recsys", files["test"], files["sys.run"], "-m", "Novelty"], capsys)
    assert code == 2 and "Novelty@10 needs item popularity" in err
    code, _, err = run_cli(["recsys", files["test"]], capsys)
    assert code == 2 and "needs a TEST file and at least one RECS file" in err
    bad = tmp_path / "bad"
    bad.write_text("u1\tc\t5\nu1\tf\tx\n")
    code, _, err = run_cli(["recsys", str(bad), files["sys.run"]], capsys)
    assert code == 2 and "bad:2: rating 'x' is not a number" in err
    code, _, err = run_cli(["recsys", files["test"], files["sys.run"], "-m", "Gin@3"], capsys)
    assert code == 2 and "unknown measure 'Gin@3'; did you mean Gini" in err


def test_list(capsys):
    code, out, _ = run_cli(["recsys", "--list"], capsys)
    assert code == 0
    for name in ("MAE", "RMSE", "SE", "P@k | P", "nDCG@k", "ILD@k", "Serendipity@k", "LongTail@k"):
        assert name in out
    assert "nicknames: rating, topn, beyond, popularity, confidence, all" in out


def test_movielens_files(capsys):
    folder = need(DATA / "movielens-100k")
    code, out, err = run_cli(
        ["recsys", str(folder / "u1.test"), str(folder / "u1.test"), "--train",
         str(folder / "u1.base"), "-m", "P@10", "-m", "UserCoverage", "-m", "MAE",
         "--format", "json"],
        capsys,
    )  # fmt: skip
    # the test ratings as their own predictions: MAE 0; scores = ratings, so each user's
    # list is his test items by rating, best first
    assert code == 0
    (entry,) = json.loads(out)
    assert entry["summary"]["MAE"] == 0.0 and entry["users"]["MAE"] == 20_000
    assert entry["summary"]["UserCoverage"] == 1.0 and entry["users"]["UserCoverage"] == 459
    assert 0.5 < entry["summary"]["P@10"] <= 1.0


def test_systems_of_one_file_name_are_named_by_their_paths(tmp_path, capsys):
    """``pop/u1.tsv knn/u1.tsv``: the columns are ``pop/u1`` and ``knn/u1`` (the shortest end
    of each path that tells them apart), not ``u1`` twice."""
    test = tmp_path / "test.tsv"
    test.write_text("u1\ta\t5\nu2\tb\t4\n")
    for system, lists in (("pop", "u1\ta\t1\nu2\tc\t1\n"), ("knn", "u1\tb\t1\nu2\tb\t1\n")):
        (tmp_path / system).mkdir()
        (tmp_path / system / "u1.tsv").write_text(lists)
    paths = [str(tmp_path / s / "u1.tsv") for s in ("pop", "knn")]
    code, out, err = run_cli(["recsys", str(test), *paths, "-m", "P@1", "--format", "csv"], capsys)
    assert code == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    assert [r[0] for r in rows[1:]] == ["pop/u1", "knn/u1"]
    col = rows[0].index("value")
    assert [r[col] for r in rows[1:]] == ["0.5", "0.5"]  # pop: u1 hit, u2 not; knn: u2 only
