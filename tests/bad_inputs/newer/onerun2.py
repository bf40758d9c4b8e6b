"""Bad-input cases of issue 24's one-run step (engineer ``onerun2``): the compiled reader now
splits a line in one walk over a table of byte classes, up to its newline (a last line
without one split as before), and reads the usual score in one pass, the rest as before.
Every blank C's isspace knows still separates fields, blank and comment lines (a NUL in one
included) are what they were, a last line without a newline is read, and numbers in every
form the grammar takes give the values they gave.
"""

from __future__ import annotations

from typing import Any

#: make.py's RUN with fields apart by every blank, lines indented, blank lines of blanks,
#: an indented comment, CRLF endings and no newline at the end.
BLANKS = (
    b"1 Q0\td1\v1\f3.0 A\r\n"
    b"  \t\n"
    b"\t1 Q0 d2 2 2.0 A\n"
    b"   # a comment, indented\n"
    b"1  Q0  d9  3  1.0  A  \r\n"
    b"\v\f\r\n"
    b"2 Q0 d4 1 3.0 A\n2 Q0 d1 2 2.0 A\n2 Q0 d5 3 1.0 A"
)
#: make.py's RUN with its scores written otherwise: the same values.
NUMBERS = (
    b"1 Q0 d1 1 +3. A\n1 Q0 d2 2 2.000000000000000000000 A\n1 Q0 d9 3 .1e1 A\n"
    b"2 Q0 d4 1 0003 A\n2 Q0 d1 2 20E-1 A\n2 Q0 d5 3 1.0000000000000000001 A\n"
)
#: make.py's RUN with a comment holding a NUL byte after its first line.
NUL_COMMENT = b"1 Q0 d1 1 3.0 A\n# a \x00 comment\n1 Q0 d2 2 2.0 A\n"


def declare(make: Any) -> None:
    eval_case = make.eval_case

    eval_case("eval-run-every-blank-and-no-final-newline", "fields", "run", run=BLANKS,
              kind="identical", twin=True)  # fmt: skip
    eval_case("eval-run-scores-written-otherwise", "numbers", "run", run=NUMBERS,
              kind="identical", twin=True)  # fmt: skip
    eval_case("eval-run-nul-in-a-comment", "encodings", "run", run=NUL_COMMENT,
              expect=[":2: holds a NUL byte"])  # fmt: skip
