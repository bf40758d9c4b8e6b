"""Bad-input cases of issue 24's cold start (engineer ``coldstart``): ``rankscope COMMAND``
builds that command's parser alone, so a mistake in the command line must read as it did when
every parser was built (the usage line listing every command, an unknown command's choices,
another command's option); and a run whose query's lines are apart is ranked as a whole
(the test of contiguous queries no longer goes through ``np.unique``).
"""

from __future__ import annotations

from typing import Any

#: A run whose q1 is split by q2, and the same run with q1's lines together.
APART = b"1 Q0 d1 1 1.0 r\n2 Q0 d2 1 2.0 r\n1 Q0 d3 2 5.0 r\n1 Q0 d4 3 0.5 r\n"
TOGETHER = b"1 Q0 d3 1 5.0 r\n1 Q0 d1 2 1.0 r\n1 Q0 d4 3 0.5 r\n2 Q0 d2 1 2.0 r\n"


def declare(make: Any) -> None:
    case, RUN, QRELS = make.case, make.RUN, make.QRELS

    case("command-unknown", "names", "command line", {"qrels": QRELS, "run": RUN},
         ["evl", "@qrels", "@run"], "usage",
         ["invalid choice: 'evl'", "choose from 'eval', 'compare'", "'example')"])  # fmt: skip
    case("eval-option-of-another-command", "options", "command line",
         {"qrels": QRELS, "run": RUN}, ["eval", "--train", "@qrels", "@qrels", "@run"], "usage",
         ["unrecognized arguments: --train"])  # fmt: skip
    case("eval-query-lines-apart", "structure", "run",
         {"qrels": QRELS, "apart": APART, "together": TOGETHER},
         ["eval", "-q", "@qrels", "@apart"], "identical", [],
         twin=["eval", "-q", "@qrels", "@together"])  # fmt: skip
