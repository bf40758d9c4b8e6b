"""The experiment reader (`rankscope.read.experiments`): the three shapes of input, frames,
dicts, Parquet and one file per variant, and each error it names by file and line."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from rankscope.errors import InputError, UsageError
from rankscope.read.experiments import read_experiment

UNITS = (
    "user\tvariant\tclicks\trevenue\tpre_revenue\tcountry\n"
    "u1\tcontrol\t1\t2.5\t2\tus\n"
    "u2\ttreatment\t0\t0\t1\tde\n"
    "u3\tcontrol\t2\t1\t0.5\tus\n"
    "u4\ttreatment\t3\t4\t3\tde\n"
)


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    if name.endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return str(path)


def test_units_table_with_covariate_and_stratum(tmp_path):
    e = read_experiment(write(tmp_path, "u.tsv", UNITS), columns={"stratum": "country"})
    assert e.shape == "units"
    assert e.variant_names == ["control", "treatment"]
    assert e.variant.tolist() == [0, 1, 0, 1]
    assert e.units is not None and e.units.strings_of(np.arange(4)) == ["u1", "u2", "u3", "u4"]
    assert e.metrics["clicks"].tolist() == [1, 0, 2, 3]
    assert e.metrics["revenue"].tolist() == [2.5, 0, 1, 4]
    assert list(e.covariates) == ["revenue"] and e.covariates["revenue"].tolist() == [2, 1, .5, 3]
    assert e.strata is not None and e.strata.strings_of(e.stratum) == ["us", "de", "us", "de"]
    assert e.counts().tolist() == [2, 2]
    assert e.where(2).endswith("u.tsv:4")  # the header is line 1


def test_metrics_selects_columns_and_their_covariates(tmp_path):
    e = read_experiment(write(tmp_path, "u.tsv", UNITS), metrics=["revenue"])
    assert list(e.metrics) == ["revenue"] and list(e.covariates) == ["revenue"]
    with pytest.raises(InputError, match="no metric column 'spend'"):
        read_experiment(write(tmp_path, "v.tsv", UNITS), metrics=["spend"])


def test_a_text_column_read_as_a_metric_says_how_to_name_a_stratum(tmp_path):
    with pytest.raises(InputError) as error:
        read_experiment(write(tmp_path, "u.tsv", UNITS))
    assert "u.tsv:2: country 'us' is not a number" in str(error.value)
    assert "--columns stratum=NAME" in error.value.cli_message


def test_event_log_is_summed_per_unit(tmp_path):
    text = (
        "unit,variant,metric,value,timestamp\n"
        "u1,A,click,1,2024-01-01T10:00:00\n"
        "u1,A,click,1,2024-01-01T09:00:00\n"
        "u2,B,buy,5,2024-01-02T00:00:00\n"
        "u3,B,click,1,2024-01-03\n"
        "u1,A,pre_click,4,2023-12-01\n"
    )
    e = read_experiment(write(tmp_path, "e.csv.gz", text))
    assert e.shape == "events"
    assert e.counts().tolist() == [1, 2]
    assert e.metrics["click"].tolist() == [2, 0, 1]  # u2 had no click: 0
    assert e.metrics["buy"].tolist() == [0, 5, 0]
    assert e.covariates["click"].tolist() == [4, 0, 0]
    # u1's first event, 2023-12-01 (its pre-period event counts as its first)
    assert e.timestamp is not None and e.timestamp[1] == 1704153600.0  # 2024-01-02 UTC
    assert e.line is not None and e.line.tolist() == [2, 4, 5]


def test_summary_counts_expand_to_units(tmp_path):
    e = read_experiment(write(tmp_path, "c.csv", "variant,trials,conversions\nA,5,2\nB,4,3\n"))
    assert e.shape == "counts" and e.units is None
    assert e.counts().tolist() == [5, 4]
    conversions = e.metrics["conversions"]
    assert conversions[e.variant == 0].sum() == 2 and conversions[e.variant == 1].sum() == 3
    assert set(conversions.tolist()) == {0.0, 1.0}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("variant,trials,conversions\nA,5,2\nA,4,3\n", r"c.csv:2 and .*c.csv:3: variant 'A' is "
         "listed twice"),
        ("variant,trials,conversions\nA,5,-2\nB,4,3\n", r"c.csv:2: conversions -2 is negative"),
        ("variant,trials,conversions\nA,-5,2\nB,4,3\n", r"c.csv:2: trials -5 is negative"),
        ("variant,trials,conversions\nA,5,6\nB,4,3\n", r"c.csv:2: conversions 6 exceeds "
         "the trials"),
        ("variant,trials,conversions\nA,5,2\nB,0,0\n", r"c.csv:3: variant 'B' has no units"),
        ("variant,trials,conversions\nA,5,2.5\nB,4,3\n", r"c.csv:2: conversions '2.5' is not an "
         "integer"),
        ("variant,trials\nA,5\nB,4\n", "no successes column"),
    ],
)
def test_bad_summary_counts(tmp_path, text, message):
    with pytest.raises(InputError, match=message):
        read_experiment(write(tmp_path, "c.csv", text))


def test_a_unit_in_two_variants_names_both_lines(tmp_path):
    text = "unit\tvariant\tclicks\nu1\tA\t1\nu2\tB\t0\nu1\tB\t2\n"
    with pytest.raises(InputError, match=r"x.tsv:2 and .*x.tsv:4: unit 'u1' is in two variants, "
                       "'A' and 'B'"):
        read_experiment(write(tmp_path, "x.tsv", text))
    text = "unit\tvariant\tclicks\nu1\tA\t1\nu2\tB\t0\nu1\tA\t2\n"
    with pytest.raises(InputError, match=r"x.tsv:2 and .*x.tsv:4: unit 'u1' is listed twice"):
        read_experiment(write(tmp_path, "x.tsv", text))


def test_an_event_log_unit_in_two_variants_names_both_lines(tmp_path):
    text = "unit,variant,metric,value\nu1,A,click,1\nu2,B,click,1\nu1,B,click,0\n"
    with pytest.raises(InputError, match=r"e.csv:2 and .*e.csv:4: unit 'u1' is in two variants"):
        read_experiment(write(tmp_path, "e.csv", text))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("unit\tclicks\nu1\t1\n", r"no variant column in the header \(unit, clicks\); name it"),
        ("unit\tvariant\nu1\tA\nu2\tB\n", "no metric column"),
        ("unit\tvariant\tclicks\nu1\tA\t1\nu2\tA\t2\n", "every unit is in variant 'A'"),
        ("unit\tvariant\tclicks\nu1\tA\t1\nu2\tB\tnan\n", r"x.tsv:3: clicks 'nan' is not finite"),
        ("unit\tvariant\tclicks\tpre_spend\nu1\tA\t1\t2\nu2\tB\t1\t1\n", "pre_spend' is the "
         "pre-experiment covariate of a metric 'spend'"),
        ("u1\tA\t1\nu2\tB\t2\n", "no header line"),
        ("unit\tvariant\tclicks\n", "no units found after the header"),
        ("unit\tvariant\tclicks\nu1\tA\t1\nu2\tB\n", r"x.tsv:3"),
    ],
)
def test_bad_units_tables(tmp_path, text, message):
    with pytest.raises(InputError, match=message):
        read_experiment(write(tmp_path, "x.tsv", text))


def test_frames_dicts_and_parquet_agree_with_text(tmp_path):
    pd = pytest.importorskip("pandas")
    text = read_experiment(write(tmp_path, "u.tsv", UNITS), columns={"stratum": "country"})
    frame = pd.read_csv(tmp_path / "u.tsv", sep="\t")
    for source in (frame, {c: frame[c].to_numpy() for c in frame.columns}):
        e = read_experiment(source, columns={"stratum": "country"})
        assert e.variant.tolist() == text.variant.tolist()
        assert {k: v.tolist() for k, v in e.metrics.items()} == {
            k: v.tolist() for k, v in text.metrics.items()}
        assert e.covariates["revenue"].tolist() == text.covariates["revenue"].tolist()
    pytest.importorskip("pyarrow")
    frame.to_parquet(tmp_path / "u.parquet")
    e = read_experiment(str(tmp_path / "u.parquet"), columns={"stratum": "country"})
    assert e.metrics["clicks"].tolist() == [1, 0, 2, 3] and e.source.endswith("u.parquet")
    bad = frame.assign(clicks=[1.0, None, 2.0, 3.0])
    with pytest.raises(InputError, match="row 1"):
        read_experiment(bad, columns={"stratum": "country"})


def test_one_source_per_variant(tmp_path):
    a = write(tmp_path, "a.csv", "ts,click,item\n1,0,x\n2,1,y\n")
    b = write(tmp_path, "b.csv", "ts,click,item\n3,1,z\n")
    e = read_experiment([("random", a), ("bts", b)], metrics=["click"])
    assert e.variant_names == ["random", "bts"] and e.variant.tolist() == [0, 0, 1]
    assert e.units is None and e.metrics["click"].tolist() == [0, 1, 1]
    assert e.timestamp is not None and e.timestamp.tolist() == [1, 2, 3]
    with pytest.raises(UsageError, match="variant 'x' is given two sources"):
        read_experiment([("x", a), ("x", b)], metrics=["click"])
    ua = write(tmp_path, "ua.csv", "user,click\nu1,0\nu2,1\n")
    ub = write(tmp_path, "ub.csv", "user,click\nu3,0\nu2,1\n")
    with pytest.raises(InputError, match=r"ua.csv:3 and .*ub.csv:3: unit 'u2' is in two variants"):
        read_experiment([("A", ua), ("B", ub)])
    with pytest.raises(InputError, match="has no variant column"):
        read_experiment([("A", write(tmp_path, "u.tsv", UNITS)), ("B", ub)])


def test_columns_names_roles_and_rejects_unknown_ones(tmp_path):
    text = "who\tarm\tclicks\nu1\tA\t1\nu2\tB\t2\n"
    e = read_experiment(write(tmp_path, "x.tsv", text), columns={"unit": "who"})
    assert e.units is not None and len(e.units) == 2 and list(e.metrics) == ["clicks"]
    with pytest.raises(UsageError, match="unknown experiment column role"):
        read_experiment(write(tmp_path, "x.tsv", text), columns={"user": "who"})
