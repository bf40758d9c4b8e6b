"""Access to the optional compiled module ``rankscope.model._trecio`` (in C: the id interner
and the TREC line scanner).

The compiled reader and the pure-Python reader in `trec` accept and reject exactly the same
input; tests run both.  Set ``RANKSCOPE_PURE_PYTHON=1`` to force the pure-Python one.
"""

from __future__ import annotations

import os
from types import ModuleType

_cache: list[ModuleType | None] = []


def native() -> ModuleType | None:
    if os.environ.get("RANKSCOPE_PURE_PYTHON"):
        return None
    if not _cache:
        try:
            from . import _trecio  # type: ignore[attr-defined]
        except ImportError:
            _cache.append(None)
        else:
            _cache.append(_trecio)
    return _cache[0]
