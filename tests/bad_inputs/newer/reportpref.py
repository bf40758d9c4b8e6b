"""`rankscope prefer` reading, judging and reducing one run at a time (issue 24): the same
errors naming file and line as when every run was read whole, ``--jobs`` checked as for
``eval``, the warning for a run that ranks nothing for a query with relevant documents, and
the output the same for every number of jobs; `compare` with preference methods too."""

from __future__ import annotations


def declare(make) -> None:
    runs = {"qrels": make.QRELS, "a": make.RUN, "b": make.RUN_B}
    make.case("prefer-streamed-bad-line-second-run", "fields", "run",
              {**runs, "b": make.line(make.RUN_B, 3, b"1 Q0 d2 3 1.0")},
              ["prefer", "@qrels", "@a", "@b"], "error",
              ["b:3", "expected at least 6 fields, found 5"])  # fmt: skip
    make.case("prefer-jobs-zero", "options", "--jobs", runs,
              ["prefer", "--jobs", "0", "@qrels", "@a", "@b"], "usage",
              ["argument --jobs", "must be at least 1"])  # fmt: skip
    make.case("prefer-streamed-no-common-query", "structure", "run",
              {**runs, "b": make.RUN_B.replace(b"1 Q0", b"7 Q0").replace(b"2 Q0", b"8 Q0")},
              ["prefer", "@qrels", "@a", "@b"], "error",
              ["run 'b'", "no query in common"])  # fmt: skip
    make.case("prefer-streamed-query-unranked", "structure", "run",
              {**runs, "b": b"".join(make.RUN_B.splitlines(keepends=True)[:3])},
              ["prefer", "@qrels", "@a", "@b"], "warning",
              ["run 'b' ranks nothing for 1 query with relevant documents (2)"])  # fmt: skip
    make.case("prefer-streamed-jobs", "structure", "run", runs,
              ["prefer", "-m", "RPP", "-m", "gRPP", "--jobs", "2", "@qrels", "@a", "@b"],
              "identical", None,
              ["prefer", "-m", "RPP", "-m", "gRPP", "@qrels", "@a", "@b"])  # fmt: skip
    make.case("compare-methods-streamed-bad-line-second-run", "fields", "run",
              {**runs, "b": make.line(make.RUN_B, 3, b"1 Q0 d2 3 1.0")},
              ["compare", "-m", "AP", "-m", "RPP", "@qrels", "@a", "@b"], "error",
              ["b:3", "expected at least 6 fields, found 5"])  # fmt: skip
    make.case("compare-methods-streamed-jobs", "structure", "run", runs,
              ["compare", "-m", "AP", "-m", "RPP", "--jobs", "2", "@qrels", "@a", "@b"],
              "identical", None,
              ["compare", "-m", "AP", "-m", "RPP", "@qrels", "@a", "@b"])  # fmt: skip
