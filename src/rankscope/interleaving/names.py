"""The interleaving methods' names — the one declaration of each method's spellings and of
whether it is computed offline, from judgments — and the bound on the exact offline
computation (`MAX_STATES`).

These are what the preference methods' table declares ``OI`` with (its parameter's allowed
values and documentation, `rankscope.preference.methods`), and the measure registry reads
that table at every start: kept here, in a module that imports neither numpy nor the
methods' kernels, so that ``rankscope eval`` loads no interleaving code unless it computes
``OI``.  The table of the methods' rules (`rankscope.interleaving.methods.METHODS`) is built
on these names: a method has a rule for the offline computation exactly when `NAMES` says it
is computed offline.
"""

from __future__ import annotations

from typing import Any

from ..errors import UsageError

#: Each interleaving method, by canonical name (in the order they are listed): its other
#: spellings, and whether it is computed offline from judgments (``OI(interleaving=...)``).
NAMES: dict[str, tuple[tuple[str, ...], bool]] = {
    "team-draft": (("team_draft", "teamdraft", "td"), True),
    "balanced": ((), True),
    "probabilistic": (("pi",), False),
}

#: Default bound on the states the exact team-draft computation expands (``exact=None``).
MAX_STATES = 50_000

#: Every spelling of a method (lower case) -> its canonical name.
_SPELLINGS = {
    spelling: name for name, (aliases, _) in NAMES.items() for spelling in (name, *aliases)
}


def spellings(name: str) -> tuple[str, ...]:
    """Every spelling of the method called ``name`` (canonical), canonical name first."""
    return (name, *NAMES[name][0])


def offline_names() -> tuple[str, ...]:
    """Every spelling of the methods with an offline computation (``OI(interleaving=...)``)."""
    return tuple(s for name, (_, offline) in NAMES.items() if offline for s in spellings(name))


def listed(*, offline: bool = False) -> str:
    """The methods' canonical names as a sentence lists them (``team-draft or balanced``);
    with ``offline``, only those with an offline computation."""
    names = [name for name, (_, computed) in NAMES.items() if computed or not offline]
    return ", ".join(names[:-1]) + " or " + names[-1]


def canonical(name: Any, *, offline: bool = False) -> str:
    """The canonical name of the method a name (any spelling, any case) denotes; with
    ``offline``, only methods with an offline computation.  `UsageError` listing the methods
    otherwise."""
    try:
        found: str | None = _SPELLINGS[name.lower()]
    except (KeyError, AttributeError, TypeError):
        found = None
    if found is None or (offline and not NAMES[found][1]):
        raise UsageError(f"unknown interleaving method {name!r}: {listed(offline=offline)}")
    return found


__all__ = ["MAX_STATES", "NAMES", "canonical", "listed", "offline_names", "spellings"]
