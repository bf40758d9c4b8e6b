"""Ids interned once into dense integer codes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ._native import native


class Vocabulary:
    """Interns string ids to dense ``int32`` codes, in first-seen order.

    Shared between qrels and runs, so that the join is integer-based.  Backed by the compiled
    interner when it is built (ids then live in one byte arena, and Python strings are made
    only on request), else by a dict; both behave the same.
    """

    __slots__ = ("_native", "_index", "_strings", "_base", "_base_size", "_roomy", "_per_query")

    def __init__(self, strings: Iterable[str] = (), *, pure: bool | None = None) -> None:
        module = None if pure else native()
        self._native = module.Interner() if module is not None else None
        self._index: dict[str, int] = {}
        self._strings: list[str] = []
        self._base: Vocabulary | None = None  # see `scoped`
        self._base_size = 0
        # see `scoped`: room -> a copy with room for it (None: asked once, the copy given)
        self._roomy: dict[int, Any] = {}
        self._per_query: Any = None  # see `scoped`: a per-query copy, copied for each

        if strings:
            self.intern_many(list(strings))

    def scoped(self, room: int = 0, per_query: bool = False) -> Vocabulary:
        """A new vocabulary holding this one's ids under the same codes, to which ids are
        then added without growing this one: a run read into ``judgments.docs.scoped()``
        joins the judgments on the codes they share, and its other ids go with it (where a
        shared vocabulary would keep every run's documents).

        ``room``: about how many ids will be added.  The compiled table is then copied from
        one sized for them, made once (per power of two of ``room``) and kept, rather than
        grown, id by id, in every copy: what keeps reading many blocks of a run against
        large judgments fast.  The first vocabulary asked with that room takes the table
        made for it; the second makes the one kept: a single run (the cold start of
        ``rankscope eval``) copies no table it will not use again.

        ``per_query``: the compiled reader gives the ids of a run that this vocabulary
        lacks codes query by query, never looked up across queries: the same id in two
        queries may have two codes (an id keeps one code within its query's lines when
        they come together), and `code` or `lookup_many` find only the ids interned
        otherwise.  What a block of a large run is read into (`rankscope.table.many`):
        evaluating it needs of a document its judgment (its code here, for a judged one)
        and its id within its query (ties, a document listed twice); numbering every
        document of the block in one table probed a table far larger than the caches at
        random.  ``room`` is then not needed (the table takes none of them); the
        pure-Python backend numbers them across queries, which satisfies the same.  Such a
        copy is made once (with the filter its lookups go through) and copied for each; the
        compiled copies share its table and filter (written by none of them while shared:
        one that adds ids to its table copies them first), where a copy of the table for
        each block of a large run cost ~2.5 ms and 8 MB of memory for 207k judged ids."""
        out = Vocabulary(pure=self._native is None)
        if self._native is not None and per_query:
            made = self._per_query
            if made is None or len(made) != len(self):  # (none yet, or ids added since)
                made = self._per_query = self._native.copy()
                made.per_query()
            out._native = made.copy()
        elif self._native is not None and room > 0:
            size = 1 << max(room - 1, 1).bit_length()
            roomy = self._roomy.get(size)
            if roomy is None or len(roomy) != len(self):  # (none yet, or ids added since)
                made = self._native.copy()
                made.reserve(size)
                first = size not in self._roomy  # the first asked takes the table made
                self._roomy[size] = None if first else made
                out._native = made if first else made.copy()
            else:
                out._native = roomy.copy()
        elif self._native is not None:
            out._native = self._native.copy()
        else:
            out._index, out._strings = dict(self._index), list(self._strings)
        out._base, out._base_size = self, len(self)
        return out

    def continues(self, origin: tuple[Any, int] | None) -> bool:
        """Whether this vocabulary holds exactly the ids of ``origin``, a compiled id table
        as it held so many ids (None: no id), under the same codes: what ids interned into
        a copy of ``origin`` then may be taken for its own (`adopt`).  True when it is empty
        (and ``origin`` None), or `scoped` from the vocabulary of ``origin`` that held as
        many ids, none added to either since."""
        if self._native is None:
            return False
        if origin is None:
            return len(self) == 0
        table, size = origin
        base = self._base
        return (
            base is not None and base._native is table and len(base) == size
            and self._base_size == size and len(self) == size
        )  # fmt: skip

    def adopt(self, table: Any) -> None:
        """Take the compiled id table ``table`` for this vocabulary's: ids interned into a
        copy of what this one holds (`continues`), by the reader that read them ahead
        (`rankscope.read.ahead`)."""
        self._native = table

    def __reduce__(self) -> tuple[Any, tuple[list[str], bool]]:
        """Pickled as its ids in code order (the compiled interner does not pickle): what
        sends judgments to the workers of a cluster.  The copy is a vocabulary of its own
        (not `scoped` from another)."""
        return _unpickled, (list(self.strings), self._native is None)

    @property
    def native(self) -> Any:
        """The compiled interner, or None for the pure-Python backend."""
        return self._native

    def __len__(self) -> int:
        return len(self._native) if self._native is not None else len(self._strings)

    def __contains__(self, s: object) -> bool:
        if self._native is not None:
            return isinstance(s, str) and self._native.lookup(s) >= 0
        return s in self._index

    def intern(self, s: str) -> int:
        if self._native is not None:
            return self._native.intern(s)
        code = self._index.get(s)
        if code is None:
            code = len(self._strings)
            self._index[s] = code
            self._strings.append(s)
        return code

    def intern_many(self, strings: Sequence[str]) -> np.ndarray:
        if self._native is not None:
            return np.frombuffer(self._native.intern_many(strings), dtype=np.int32)
        index = self._index
        out: list[int] = []
        append = out.append
        for s in strings:
            code = index.get(s)
            if code is None:
                code = len(self._strings)
                index[s] = code
                self._strings.append(s)
            append(code)
        return np.asarray(out, dtype=np.int32)

    def lookup_many(self, strings: Sequence[str], missing: int = -1) -> np.ndarray:
        if self._native is not None:
            codes = np.frombuffer(self._native.lookup_many(strings), dtype=np.int32)
            return codes if missing == -1 else np.where(codes < 0, missing, codes)
        get = self._index.get
        return np.asarray([get(s, missing) for s in strings], dtype=np.int32)

    def code(self, s: str) -> int:
        if self._native is not None:
            c = self._native.lookup(s)
            if c < 0:
                raise KeyError(s)
            return c
        return self._index[s]

    @property
    def strings(self) -> list[str]:
        """The id of each code (index = code).  Do not modify."""
        if self._native is not None:
            return self._native.strings()
        return self._strings

    def strings_of(self, codes: np.ndarray) -> list[str]:
        """The ids of ``codes`` (without making every id a Python string)."""
        if self._native is not None:
            return self._native.strings_of(np.ascontiguousarray(codes, dtype=np.int32))
        strings = self._strings
        return [strings[c] for c in np.asarray(codes).tolist()]

    def order_of(self, codes: np.ndarray) -> np.ndarray:
        """The positions of ``codes`` ordered by their ids, equal ids in their order (a
        stable argsort of `strings_of`): from the compiled table without a Python string
        per id, where it has them and they are ASCII (what ties of a run's block are
        broken by, `rankscope.judge`)."""
        if self._native is not None:
            order = self._native.order_of(np.ascontiguousarray(codes, dtype=np.int32))
            if order is not None:
                return np.frombuffer(order, dtype=np.int64)
        return np.argsort(np.array(self.strings_of(codes)), kind="stable")

    def shared_codes(self, other: Vocabulary) -> int | None:
        """How many codes ``other`` shares with this vocabulary: every id of this one under
        the same code in ``other`` (``other`` is this one, or `scoped` from it and this one
        has not grown since), and none of ``other``'s later codes here; None when unknown
        (`translate` then looks every id up)."""
        if other is self or (other._base is self and other._base_size == len(self)):
            return len(self)
        return None

    def translate(self, other: Vocabulary) -> np.ndarray:
        """Array mapping each code of ``other`` to this vocabulary's code (-1 if absent)."""
        shared = self.shared_codes(other)
        if shared is not None:
            codes = np.arange(len(other), dtype=np.int32)
            codes[shared:] = -1  # added to ``other`` after it was made from this
            return codes
        if self._native is not None and other._native is not None:
            return np.frombuffer(self._native.translate(other._native), dtype=np.int32)
        return self.lookup_many(other.strings)


def _unpickled(strings: list[str], pure: bool) -> Vocabulary:
    """A pickled `Vocabulary` again: its ids interned in code order keep their codes."""
    return Vocabulary(strings, pure=pure)
