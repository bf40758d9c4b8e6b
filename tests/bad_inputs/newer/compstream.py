"""`rankscope compare` reading, judging and reducing one run at a time (issue 24): the same
errors naming file and line as when every run was read whole, ``--jobs`` checked as for
``eval``, and the table the same with and without the runs read whole (``--html``)."""

from __future__ import annotations


def declare(make) -> None:
    runs = {"qrels": make.QRELS, "a": make.RUN, "b": make.RUN_B}
    make.case("compare-streamed-bad-line-second-run", "fields", "run",
              {**runs, "b": make.line(make.RUN_B, 3, b"2 Q0 d4 1 3.0")},
              ["compare", "-m", "AP", "@qrels", "@a", "@b"], "error",
              ["b:3", "expected at least 6 fields, found 5"])  # fmt: skip
    make.case("compare-jobs-zero", "options", "--jobs", runs,
              ["compare", "--jobs", "0", "@qrels", "@a", "@b"], "usage",
              ["argument --jobs", "must be at least 1"])  # fmt: skip
    make.case("compare-streamed-as-whole", "structure", "run",
              runs,
              ["compare", "-m", "AP", "-m", "P@10", "--jobs", "2", "@qrels", "@a", "@b"],
              "identical", None,
              ["compare", "-m", "AP", "-m", "P@10", "--html", "@r.html", "@qrels", "@a",
               "@b"])  # fmt: skip
