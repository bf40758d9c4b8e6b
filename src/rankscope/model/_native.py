"""Access to the optional compiled modules: ``rankscope.model._trecio`` (in C: the id
interner and the TREC line scanner) here, and the one switch every compiled module obeys.

The compiled reader and the pure-Python reader in `trec` accept and reject exactly the same
input, and each compiled kernel (team-draft offline interleaving, the preference Tukey
kernel) computes its numpy twin's values bit for bit; tests run both.  Set
``RANKSCOPE_PURE_PYTHON=1`` to run pure Python (and numpy) everywhere.
"""

from __future__ import annotations

import os
from types import ModuleType

_trecio: ModuleType | None
try:  # an optional compiled extension: absent, the pure-Python reader does the work
    from . import _trecio  # type: ignore[no-redef]
except ImportError:
    _trecio = None


def compiled(module: ModuleType | None) -> ModuleType | None:
    """``module`` (one of rankscope's optional compiled modules, None when it is not built),
    or None when ``RANKSCOPE_PURE_PYTHON`` is set: the pure-Python (numpy) twin runs."""
    if os.environ.get("RANKSCOPE_PURE_PYTHON"):
        return None
    return module


def native() -> ModuleType | None:
    """The compiled reader (`compiled`), or None."""
    return compiled(_trecio)


def available_cores() -> int:
    """The cores this process may run on: what the compiled modules' threads and the
    worker pools share (`rankscope.stats.multiple`, `rankscope.table.many`)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def release_memory() -> int:
    """Free what the compiled reader keeps for its next parser (each run or block it reads
    leaves its buffers for the next: up to hundreds of MB), then give the free memory the C
    allocator keeps back to the system (glibc keeps freed memory where it was, between the
    blocks still in use, and each thread's in that thread's arena); the bytes of the first.
    For a caller that reads many runs one at a time keeping a little of each, or whose
    threads have freed much memory (a study of many runs)."""
    return _trecio.release_memory() if _trecio is not None else 0
