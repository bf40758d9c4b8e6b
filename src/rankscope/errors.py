"""The one error and warning hierarchy.

* `InputError`: the user's input is wrong (a malformed line, a value out of range, a
  missing column); the message names the file (or frame, or option), the line or row, and
  what was wrong.
* `UsageError`: the user asked for something that cannot be done (an unknown measure, an
  option that does not apply, too few runs for a comparison).
* `RankscopeWarning`: a surprising but legal case, reported, never silent.

Both error classes derive from `RankscopeError`; the command line prints them as one line.
A message that names a remedy names it as the API spells it (``duplicates='first'``); the
same message for the command line, naming the option (``--duplicates first``), goes in
``cli=`` and is what `cli_message` gives (warnings likewise).
Anything else that escapes is a bug in rankscope, printed with its traceback.  Both also
derive from `ValueError`, so code that caught ``ValueError`` keeps working.
"""

from __future__ import annotations

import warnings


class _ToldTwice(Exception):
    """A message told two ways: to a caller of the API (``str``) and on the command line
    (``cli_message``, naming its options instead of the API's keywords)."""

    def __init__(self, message: str, *, cli: str | None = None) -> None:
        super().__init__(message)
        self._cli = cli

    @property
    def cli_message(self) -> str:
        """The message as the command line says it (its options instead of API keywords)."""
        return self._cli if self._cli is not None else str(self)


class RankscopeError(_ToldTwice, ValueError):
    """A mistake in what the user gave rankscope (input or request), not a bug."""


class InputError(RankscopeError):
    """Malformed or inconsistent input; the message names the source, line and problem."""


class UsageError(RankscopeError):
    """A request that cannot be carried out: unknown measure, inapplicable option, ..."""


class RankscopeWarning(_ToldTwice, UserWarning):
    """A surprising but recoverable situation in the input (reported, never silent)."""


def shown(value: object) -> str:
    """A value as a message shows it: a number as the number (``0.5``, where numpy's scalars
    print ``np.float64(0.5)``), anything else as its ``repr`` (a string quoted)."""
    item = getattr(value, "item", None)
    if callable(item) and getattr(value, "shape", None) == ():  # a numpy scalar
        value = item()
    return repr(value)


def warn(message: str, *, cli: str | None = None) -> None:
    """Report a surprising but legal case (shown on stderr by the command line, which shows
    ``cli`` instead when given: the message naming command-line options)."""
    warnings.warn(RankscopeWarning(message, cli=cli), stacklevel=3)
