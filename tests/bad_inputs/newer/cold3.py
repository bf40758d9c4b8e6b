"""Bad-input cases of issue 24's cold start (engineer ``cold3``): ``rankscope eval`` reads the
judgments and a lone run ahead, in a thread, while it imports (`rankscope.read.ahead`), and
the reader says what is wrong with them from what was read ahead.  Run as a process too
(where the thread and the collector's freeze are those of the command line), a bad line is
still the error at its line; a byte-order mark is still a warning, and a file that is not
read ahead (gzipped) gives what the plain one gives.
"""

from __future__ import annotations

from typing import Any


def declare(make: Any) -> None:
    case, eval_case, RUN, QRELS = make.case, make.eval_case, make.RUN, make.QRELS

    eval_case("eval-ahead-run-score-last-line", "numbers", "run",
              run=make.field(RUN, 6, 4, b"x1"), expect=["run:6", "score 'x1' is not a number"],
              subprocess=True)  # fmt: skip
    eval_case("eval-ahead-qrels-nul", "encodings", "qrels", qrels=make.nul_in_line(QRELS, 4),
              expect=["qrels:4", "NUL byte"], subprocess=True)  # fmt: skip
    eval_case("eval-ahead-run-cr-only", "encodings", "run", run=make.cr_only(RUN),
              expect=["run", "CR-only"], subprocess=True)  # fmt: skip
    eval_case("eval-ahead-arguments-swapped", "names", "run", qrels=RUN, run=QRELS,
              expect=["qrels:1", "looks like a run", "swapped"], subprocess=True)  # fmt: skip
    eval_case("eval-ahead-run-bom", "encodings", "run", run=make.bom(RUN), kind="warning",
              expect=["run", "byte-order mark"], twin=True)  # fmt: skip
    case("eval-ahead-gzipped-run", "compression", "run",
         {"qrels": QRELS, "run.gz": make.gzip_stored(RUN), "plain": RUN},
         ["eval", "-q", "@qrels", "@run.gz"], "identical", [],
         twin=["eval", "-q", "@qrels", "@plain"])  # fmt: skip
