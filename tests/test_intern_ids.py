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


@pytest.mark.parametrize("pure", [True, False])
def test_a_scoped_vocabulary_shares_its_bases_codes_until_the_base_grows(pure):
    base = Vocabulary(["a", "b", "c"], pure=pure)
    scoped = base.scoped()
    scoped.intern_many(["x", "a", "y"])
    assert base.shared_codes(base) == 3 and base.shared_codes(scoped) == 3
    assert base.translate(scoped).tolist() == [0, 1, 2, -1, -1]
    assert scoped.shared_codes(base) is None and Vocabulary(pure=pure).shared_codes(base) is None
    base.intern("z")  # grown since: a lookup of every id again
    assert base.shared_codes(scoped) is None
    assert base.translate(scoped).tolist() == [0, 1, 2, -1, -1]


def test_judging_again_after_the_shared_vocabulary_grew():
    """`judge` keeps what it works out of a qrels once (its duplicates checked, the judged
    queries and documents): a run read later into the same vocabularies, with ids the first
    did not have, is judged against all of them (grades by hand)."""
    from rankscope.judge import judge
    from rankscope.read.trec import parse_qrels, parse_run_lines

    queries, docs = Vocabulary(), Vocabulary()
    qrels = parse_qrels(b"1 0 a 1\n1 0 b 0\n2 0 c 2\n", "qrels", queries, docs)
    first = parse_run_lines(b"1 Q0 b 1 2 t\n1 Q0 a 2 1 t\n", "r1", queries, docs)
    assert judge(qrels, first).judged_grades.tolist() == [0, 1]
    later = parse_run_lines(b"1 Q0 new 1 3 t\n1 Q0 a 2 2 t\n1 Q0 newer 3 1 t\n3 Q0 c 1 1 t\n"
                            b"2 Q0 c 1 1 t\n", "r2", queries, docs)  # fmt: skip
    judged = judge(qrels, later)
    assert judged.query_ids == ["1", "2"]
    assert judged.judged_positions.tolist() == [1, 3] and judged.judged_grades.tolist() == [1, 2]


@pytest.mark.skipif(native() is None, reason="the compiled reader")
def test_ids_read_from_text_are_found_by_lookups_at_every_length():
    """The compiled reader hashes a line's document id reading its last bytes as one word
    (the rest of the line follows it): the same hash as an id looked up or interned alone,
    at every length and at the end of the text."""
    from rankscope.read.trec import parse_qrels, parse_run_lines

    ids = ["x" * n + str(n % 10) for n in range(0, 24)] + ["ü", "日本語", "a"]
    queries, docs = Vocabulary(), Vocabulary()
    text = "".join(f"q 0 {d} 1\n" for d in ids)
    qrels = parse_qrels(text.rstrip("\n").encode(), "qrels", queries, docs)
    assert docs.strings_of(qrels.doc) == ids
    assert [docs.code(d) for d in ids] == qrels.doc.tolist()
    assert docs.intern_many(ids).tolist() == qrels.doc.tolist()
    block = docs.scoped(per_query=True)
    lines = "".join(f"q Q0 {d} 1 1 t\n" for d in ids + ["new"])
    run = parse_run_lines(lines.encode(), "run", queries, block)
    assert run.doc.tolist() == [*qrels.doc.tolist(), len(docs)]


@pytest.mark.skipif(native() is None, reason="compiled reader not built")
def test_ids_ordered_by_the_compiled_table_as_numpy_orders_their_strings():
    """`Vocabulary.order_of` (what breaks a block's ties by document id): the compiled
    table's order of ASCII ids, equal ids in their order, is numpy's stable argsort of the
    strings, bit for bit; ids of other bytes (an escaped invalid byte sorts by its code
    point, not its byte) and the pure-Python vocabulary take numpy's way."""
    rng = np.random.default_rng(3)
    alphabet = list("abcXYZ019-_.~ ")
    words = ["", "a", "ab", "abc", "b", "a b", "a~", "A", "10", "9", "010"]
    words += ["".join(rng.choice(alphabet, rng.integers(1, 12))) for _ in range(300)]
    ids = [w.strip() or "x" for w in words]
    for pure in (False, True):
        vocabulary = Vocabulary(ids, pure=pure)
        for size in (0, 1, 2, 7, 500, 3000):
            codes = rng.integers(0, len(vocabulary), size).astype(np.int32)  # (repeats: ties)
            expected = np.argsort(np.array(vocabulary.strings_of(codes)), kind="stable")
            got = vocabulary.order_of(codes)
            assert got.dtype == np.int64 and got.tolist() == expected.tolist(), (pure, size)
    compiled = Vocabulary(ids)
    for bad in (-1, len(compiled)):  # (a code the table lacks)
        with pytest.raises(IndexError, match="code out of range"):
            compiled._native.order_of(np.array([0, bad], dtype=np.int32))
    table = Vocabulary(["b", "\udc80", "a", "\u00e9", "z"])  # (non-ASCII: numpy's way)
    codes = np.array([4, 3, 1, 0, 2, 3], dtype=np.int32)
    assert table._native.order_of(codes) is None
    # z é \udc80 b a é: a, b, z, then by code point é (twice, in order) before \udc80
    # (whose byte, 0x80, comes before é's 0xc3 0xa9)
    assert table.order_of(codes).tolist() == [4, 3, 0, 1, 5, 2]


def test_a_table_of_many_ids_grows_past_the_sizes_mapped_apart():
    """600,000 ids interned one after the other: the compiled table's memory grows past
    4 MB, where it is mapped apart (with huge pages) and moved as it grows; a block of such
    memory whose size is no multiple of 2 MB (the ids' offsets) once failed to grow (a
    MemoryError), and every id keeps its code."""
    ids = [f"doc-{i}" for i in range(600_000)]
    vocabulary = Vocabulary()
    assert vocabulary.intern_many(ids).tolist() == list(range(len(ids)))
    assert vocabulary.strings_of(np.array([0, 299_999, 599_999])) == [ids[0], ids[299_999], ids[-1]]
    assert vocabulary.code("doc-424242") == 424_242
