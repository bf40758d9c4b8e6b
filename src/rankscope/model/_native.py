"""Access to the optional compiled module ``rankscope.model._trecio`` (in C: the id interner
and the TREC line scanner).

The compiled reader and the pure-Python reader in `trec` accept and reject exactly the same
input; tests run both.  Set ``RANKSCOPE_PURE_PYTHON=1`` to force the pure-Python one.
"""

from __future__ import annotations

import os
from types import ModuleType

_trecio: ModuleType | None
try:  # an optional compiled extension: absent, the pure-Python reader does the work
    from . import _trecio  # type: ignore[no-redef]
except ImportError:
    _trecio = None


def native() -> ModuleType | None:
    """The compiled module, or None when it is absent or ``RANKSCOPE_PURE_PYTHON`` is set."""
    if os.environ.get("RANKSCOPE_PURE_PYTHON"):
        return None
    return _trecio
