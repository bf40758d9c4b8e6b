"""Bad-input cases of issue 22 for the newer commands no other module covers: ``explain``,
``--weights`` and ``--segments`` (on ``eval``), and ``sampled``."""

from __future__ import annotations

from typing import Any

TEST = b"u1\ti1\t5\nu1\ti2\t1\nu2\ti1\t4\nu2\ti3\t5\n"
SCORES = (
    b"u1 i1 0.9\nu1 i2 0.1\nu1 i3 0.5\nu1 i4 0.2\n"
    b"u2 i1 0.4\nu2 i2 0.3\nu2 i3 0.8\nu2 i4 0.6\n"
)


def declare(make: Any) -> None:
    case, eval_case, QRELS, RUN, RUN_B = make.case, make.eval_case, make.QRELS, make.RUN, make.RUN_B
    three = {"qrels": QRELS, "a": RUN, "b": RUN_B}

    # -- explain --------------------------------------------------------------------------
    case("explain-unknown-query", "names", "options", three,
         ["explain", "@qrels", "@a", "@b", "--query", "9"], "error",
         ["query '9' is not in the judgments"])  # fmt: skip
    case("explain-measure-not-decomposed", "options", "options", three,
         ["explain", "@qrels", "@a", "@b", "-m", "P@10"], "error",
         ["recall levels decompose", "not 'P@10'"])  # fmt: skip
    case("explain-one-run", "options", "argparse", three, ["explain", "@qrels", "@a"], "usage",
         ["RUN_B"])  # fmt: skip
    case("explain-run-five-fields", "fields", "run",
         {"qrels": QRELS, "a": make.line(RUN, 2, b"1 Q0 d2 2 2.0"), "b": RUN_B},
         ["explain", "@qrels", "@a", "@b"], "error",
         ["a:2", "expected at least 6 fields"])  # fmt: skip

    # -- --weights and --segments -----------------------------------------------------------
    def weighted(name, family, flag, data, kind, expect, **extra):
        eval_case(name, family, "weights", kind=kind, expect=expect,
                  options=[flag, "@w"], extra_files={"w": data}, **extra)  # fmt: skip

    weighted("weights-not-a-number", "numbers", "--weights", b"1 2.0\n2 x\n", "error",
             ["w:2", "weight 'x' is not a non-negative number"])
    weighted("weights-negative", "numbers", "--weights", b"1 -2.0\n2 1\n", "error",
             ["w:1", "'-2.0'", "non-negative"])
    weighted("weights-infinite", "numbers", "--weights", b"1 inf\n2 1\n", "error",
             ["w:1", "weight 'inf' is not finite"])
    weighted("weights-empty", "files", "--weights", b"", "error", ["w: no weights found"])
    weighted("weights-all-zero", "numbers", "--weights", b"1 0\n2 0\n", "error",
             ["every weight is 0"])
    weighted("weights-query-missing", "structure", "--weights", b"1 1.0\n", "error",
             ["1 query(s) of the table have no weight in", "'2'", "--missing warn"])
    weighted("weights-query-not-in-table", "names", "--weights", b"1 1\n2 1\n7 5\n", "warning",
             ["1 query(s) given a weight in", "are not in the table: '7'"])
    weighted("segments-twice", "structure", "--segments", b"1 a\n2 b\n2 c\n", "error",
             ["w:3", "query '2' has a segment already (line 2)"])
    weighted("segments-three-fields", "fields", "--segments", b"1 a b\n2 b\n", "error",
             ["w:1", "expected 2 fields (query segment), found 3"])
    weighted("segments-query-not-in-table", "names", "--segments", b"1 a\n2 b\n9 c\n", "warning",
             ["given a segment in", "are not in the table: '9'"])

    # -- sampled ------------------------------------------------------------------------------
    def sampled(name, family, scores, kind, expect, options=()):
        case(name, family, "scores", {"test.tsv": TEST, "scores.txt": scores},
             ["sampled", *options, "@test.tsv", "@scores.txt"], kind, expect)  # fmt: skip

    sampled("sampled-score-not-a-number", "numbers", make.line(SCORES, 3, b"u1 i3 high"),
            "error", ["scores.txt:3", "'high'"])
    sampled("sampled-score-nan", "numbers", make.line(SCORES, 2, b"u1 i2 nan"), "error",
            ["scores.txt:2", "nan"])
    sampled("sampled-two-fields", "fields", make.line(SCORES, 5, b"u2 i1"), "error",
            ["scores.txt:5"])
    sampled("sampled-negatives-zero", "options", SCORES, "usage", ["--negatives"],
            options=["--negatives", "0"])
