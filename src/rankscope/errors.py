"""The one error and warning hierarchy.

* `InputError`: the user's input is wrong (a malformed line, a value out of range, a
  missing column); the message names the file (or frame, or option), the line or row, and
  what was wrong.
* `UsageError`: the user asked for something that cannot be done (an unknown measure, an
  option that does not apply, too few runs for a comparison).
* `RankscopeWarning`: a surprising but legal case, reported, never silent.

Both error classes derive from `RankscopeError`; the command line prints them as one line.
Anything else that escapes is a bug in rankscope, printed with its traceback.  Both also
derive from `ValueError`, so code that caught ``ValueError`` keeps working.
"""

from __future__ import annotations

import warnings


class RankscopeError(ValueError):
    """A mistake in what the user gave rankscope (input or request), not a bug."""


class InputError(RankscopeError):
    """Malformed or inconsistent input; the message names the source, line and problem."""


class UsageError(RankscopeError):
    """A request that cannot be carried out: unknown measure, inapplicable option, ..."""


class RankscopeWarning(UserWarning):
    """A surprising but recoverable situation in the input (reported, never silent)."""


def warn(message: str) -> None:
    """Report a surprising but legal case (shown on stderr by the command line)."""
    warnings.warn(message, RankscopeWarning, stacklevel=3)
