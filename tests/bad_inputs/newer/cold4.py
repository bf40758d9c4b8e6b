"""Bad-input cases of issue 24's cold start (engineer ``cold4``): the preference methods'
table declares ``OI`` from the interleaving methods' names alone
(`rankscope.interleaving.names`), and its methods reach offline interleaving's kernels only
when they compute: a method that is not computed offline, or no method at all, is still the
error it was, naming the allowed spellings, in ``eval`` and ``prefer`` alike.
"""

from __future__ import annotations

from typing import Any


def declare(make: Any) -> None:
    case, RUN, QRELS = make.case, make.RUN, make.QRELS
    runs = {"qrels": QRELS, "a": RUN, "b": make.field(RUN, 1, 4, b"9.5")}
    allowed = "must be one of ('team-draft', 'team_draft', 'teamdraft', 'td', 'balanced')"

    case("eval-oi-interleaving-not-offline", "options", "measure names", runs,
         ["eval", "-m", "OI(interleaving=probabilistic)", "@qrels", "@a", "@b"], "error",
         ["OI: parameter interleaving='probabilistic'", allowed])  # fmt: skip
    case("prefer-oi-interleaving-unknown", "options", "measure names", runs,
         ["prefer", "-m", "OI(interleaving=zipper)", "@qrels", "@a", "@b"], "error",
         ["OI: parameter interleaving='zipper'", allowed])  # fmt: skip
