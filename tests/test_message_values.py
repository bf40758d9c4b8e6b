"""Messages show values as values (``0.5``, never numpy's ``np.float64(0.5)``) and, on the
command line, name the command's options instead of the API's keywords (issue 22)."""

from __future__ import annotations

import numpy as np
import pytest

from rankscope.errors import UsageError, shown
from rankscope.stats.power import power_paired_t
from tests.conftest import run_cli


@pytest.mark.parametrize(
    "value,text",
    [(np.float64(0.5), "0.5"), (np.int64(3), "3"), (np.float32(0.25), "0.25"), (0.5, "0.5"),
     ("x", "'x'"), (None, "None")],
)  # fmt: skip
def test_a_value_is_shown_as_a_value(value, text):
    assert shown(value) == text


def test_an_api_message_shows_a_numpy_value_as_a_number():
    with pytest.raises(UsageError) as caught:
        power_paired_t(np.float64(0.5), np.int64(1))
    assert "got 1" in str(caught.value) and "np." not in str(caught.value)


def test_recsys_says_its_needs_in_its_options(tmp_path, capsys):
    test, recs = tmp_path / "test.tsv", tmp_path / "recs.tsv"
    test.write_text("u1\ti1\t5\n")
    recs.write_text("u1\ti1\t0.9\n")
    code, _, err = run_cli(["recsys", "-m", "Novelty", str(test), str(recs)], capsys)
    assert code == 2 and "give the training interactions (--train FILE)" in err
    assert "train=" not in err and "popularity=" not in err
    code, _, err = run_cli(["recsys", "-m", "Serendipity", str(test), str(recs)], capsys)
    assert code == 2 and "(--train FILE) for the most-popular list" in err
    assert "baseline=" not in err
