"""Columns of integer ids (a large log's users and items) are interned one distinct id at a
time: the codes must be those of interning every row's string in turn."""

from __future__ import annotations

import numpy as np
import pytest

from rankscope.model import Vocabulary, native
from rankscope.read.frames import id_strings, intern_ids


@pytest.mark.parametrize("pure", [True, False])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint16, np.int8])
def test_integer_ids_get_the_codes_of_interning_row_by_row(pure, dtype):
    if not pure and native() is None:
        pytest.skip("compiled reader not built")
    rng = np.random.default_rng(3)
    for n in (0, 1, 2, 50, 5000):
        values = rng.integers(-100 if np.dtype(dtype).kind == "i" else 0, 120, n).astype(dtype)
        one, other = (Vocabulary(["7", "x", "-3"], pure=pure) for _ in range(2))
        expected = one.intern_many(id_strings(values, "<t>", "id"))
        got = intern_ids(other, values, "<t>", "id")
        assert got.dtype == np.int32 and got.tolist() == expected.tolist()
        assert other.strings == one.strings  # the same ids, in the same order


def test_other_columns_go_row_by_row():
    values = np.array(["b", 3, "a", 3.5], dtype=object)
    assert intern_ids(Vocabulary(), values, "<t>", "id").tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("pure", [True, False])
def test_a_pickled_vocabulary_keeps_every_code(pure):
    """Judgments sent to a cluster's workers are pickled: each id keeps its code, the copy
    stays of its backend, and ids added to the copy do not reach the original."""
    import pickle

    if not pure and native() is None:
        pytest.skip("compiled reader not built")
    vocab = Vocabulary(["q7", "a", "ü", "b"], pure=pure).scoped()
    vocab.intern("late")
    copy = pickle.loads(pickle.dumps(vocab))
    assert copy.strings == ["q7", "a", "ü", "b", "late"]
    assert [copy.code(s) for s in ("q7", "a", "ü", "b", "late")] == [0, 1, 2, 3, 4]
    assert (copy.native is None) == pure
    assert copy.intern("new") == 5 and "new" not in vocab
