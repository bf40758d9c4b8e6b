# ruff: noqa: E501  (a table of cases: one case per few lines reads better than wrapped calls)
"""Suspicious but parseable input, ids shown to a person, message spellings and naming
(issue 22): each warning case with a clean twin whose output must be the same where the
mutation changes no value."""

from __future__ import annotations

from typing import Any


def declare(make: Any) -> None:
    case, eval_case, recsys_case = make.case, make.eval_case, make.recsys_case
    QRELS, RUN, RUN_B, line = make.QRELS, make.RUN, make.RUN_B, make.line

    # -- suspicious runs: one warning per kind, naming the file and a line ---------------
    eval_case("run-line-with-a-field-more", "suspicious", "run",
              run=line(RUN, 3, b"1 Q0 d9 3 1.0 A extra"), kind="warning", twin=True,
              expect=["run:3", "7 fields where the file's other lines have 6", "shifts every field"])  # fmt: skip
    eval_case("run-docno-holding-a-space", "suspicious", "run",
              run=line(RUN, 2, b"1 Q0 d 2 2 2.0 A"), kind="warning",
              expect=["run:2", "7 fields", "document id holding a space"])  # fmt: skip
    eval_case("run-fields-warned-once", "suspicious", "run",
              run=line(line(RUN, 2, b"1 Q0 d2 2 2.0 A x"), 5, b"2 Q0 d1 2 2.0 A x"), kind="warning", twin=True,
              expect=["run:2", "(2 lines with more)"])  # fmt: skip
    two_tags = RUN.replace(b"2 Q0 d4 1 3.0 A", b"2 Q0 d4 1 3.0 B")
    eval_case("run-two-tags", "suspicious", "run", run=two_tags,
              kind="warning", twin=True, expect=["run:4", "run tag 'B' where the lines before have 'A'", "several runs"])  # fmt: skip
    case("runs-concatenated", "suspicious", "run", {"qrels": QRELS, "run": RUN + RUN_B},
         ["eval", "--duplicates", "first", "@qrels", "@run"], "warning",
         ["run:7", "run tag 'B'"])  # fmt: skip
    eval_case("run-scores-tied-ranks-ordered", "suspicious", "run",
              run=RUN.replace(b" 3.0 A", b" 1.0 A").replace(b" 2.0 A", b" 1.0 A"), kind="warning",
              expect=["run:1", "every document of query '1' has the score 1", "--order rank"])  # fmt: skip
    eval_case("run-scores-tied-by-rank-order", "suspicious", "run",
              run=RUN.replace(b" 3.0 A", b" 1.0 A").replace(b" 2.0 A", b" 1.0 A"), options=["--order", "rank"],
              kind="identical", twin=True)  # fmt: skip
    rising = b"1 Q0 d1 1 1 A\n1 Q0 d2 2 2 A\n1 Q0 d9 3 3 A\n2 Q0 d4 1 1 A\n2 Q0 d1 2 2 A\n2 Q0 d5 3 3 A\n"
    eval_case("run-scores-rise-with-rank", "suspicious", "run", run=rising, kind="warning",
              expect=["run:2", "scores rise with the rank in every query", "rank 1 scores 1, rank 2 scores 2", "reversed"])  # fmt: skip
    eval_case("run-scores-rise-in-one-query-only", "suspicious", "run",
              run=rising.replace(b"2 Q0 d4 1 1 A\n2 Q0 d1 2 2 A\n2 Q0 d5 3 3 A", b"2 Q0 d4 1 3 A\n2 Q0 d1 2 2 A\n2 Q0 d5 3 1 A"),
              options=["-m", "P.1"], kind="output", expect=["P_1"], forbid=["warning"])  # fmt: skip
    eval_case("run-nan-score-ordered-by-rank", "suspicious", "run",
              run=line(RUN, 2, b"1 Q0 d2 2 nan A"), options=["--order", "rank"], kind="warning", twin=True,
              expect=["run:2", "the score is nan", "the rank column orders the run"])  # fmt: skip
    eval_case("run-nan-score-ordered-by-score", "suspicious", "run",
              run=line(RUN, 2, b"1 Q0 d2 2 nan A"), expect=["run:2", "score", "nan"])  # fmt: skip
    case("ndeval-ad-hoc-qrels", "suspicious", "qrels", {"qrels": QRELS, "run": RUN},
         ["ndeval", "@qrels", "@run"], "warning",
         ["qrels:1", "every judgment is of subtopic 0", "ad hoc judgments"])  # fmt: skip
    case("ndeval-diversity-qrels", "suspicious", "qrels", {"qrels": make.DIVERSITY, "run": RUN},
         ["ndeval", "@qrels", "@run"], "output", ["A,1,"], forbid=["warning"])  # fmt: skip
    train_elsewhere = b"u1\tj1\t5\nu2\tj2\t4\nu2\tj3\t5\n"
    case("recsys-items-never-in-training", "suspicious", "interaction log",
         {"test.tsv": make.TEST_LOG, "recs.tsv": make.RECS, "train.tsv": train_elsewhere},
         ["recsys", "-m", "P@2", "--train", "@train.tsv", "@test.tsv", "@recs.tsv"], "warning",
         ["3 of the 3 items recommended", "never occur in the training interactions (--train", "item ids"])  # fmt: skip
    case("recsys-items-in-training", "suspicious", "interaction log",
         {"test.tsv": make.TEST_LOG, "recs.tsv": make.RECS, "train.tsv": make.TEST_LOG},
         ["recsys", "-m", "P@2", "--train", "@train.tsv", "@test.tsv", "@recs.tsv"], "output",
         ["P@2"], forbid=["never occur"])  # fmt: skip

    # -- messages in the command line's own spelling -----------------------------------
    recsys_case("recsys-novelty-without-train", "spelling", "interaction log",
                options=["-m", "Novelty"], kind="error",
                expect=["Novelty@10 needs item popularity", "--train FILE"])  # fmt: skip
    recsys_case("recsys-ild-without-features", "spelling", "interaction log",
                options=["-m", "ILD"], kind="error", expect=["ILD@10 needs item features", "--features"])  # fmt: skip

    # -- measure names: the suggestion is the measure meant ----------------------------
    eval_case("measure-cutoff-without-at", "spelling", "options", options=["-m", "P10"],
              expect=["unknown measure 'P10'", "did you mean P@10"])  # fmt: skip
    eval_case("measure-letters-swapped", "spelling", "options", options=["-m", "nDGC@10"],
              expect=["unknown measure 'nDGC@10'", "did you mean nDCG@10"])  # fmt: skip

    # -- naming: --baseline by path, runs of one file name --------------------------------
    case("baseline-by-path", "naming", "run", {"qrels": QRELS, "runs/a.txt": RUN, "runs/b.txt": RUN_B},
         ["compare", "-m", "P@1", "--format", "csv", "--baseline", "@runs/b.txt", "@qrels", "@runs/a.txt", "@runs/b.txt"],
         "identical", twin=["compare", "-m", "P@1", "--format", "csv", "--baseline", "b", "@qrels", "@runs/a.txt", "@runs/b.txt"])  # fmt: skip
    case("baseline-path-not-a-run", "naming", "run", {"qrels": QRELS, "runs/a.txt": RUN, "runs/b.txt": RUN_B},
         ["compare", "--baseline", "runs/c.txt", "@qrels", "@runs/a.txt", "@runs/b.txt"], "error",
         ["baseline 'runs/c.txt' is not one of the runs (a, b)"])  # fmt: skip
    case("runs-of-one-file-name", "naming", "run", {"qrels": QRELS, "x/run.txt": RUN, "y/run.txt": RUN_B},
         ["eval", "-m", "P@1", "--format", "csv", "@qrels", "@x/run.txt", "@y/run.txt"], "output",
         ["x/run,", "y/run,"])  # fmt: skip
    case("ndeval-runs-of-one-tag", "naming", "run",
         {"qrels": make.DIVERSITY, "runs/a.txt": RUN, "runs/b.txt": RUN.replace(b" d9 ", b" d3 ")},
         ["ndeval", "@qrels", "@runs"], "warning",
         ["runs tagged A come from several files", "(a, b)"])  # fmt: skip
    case("recsys-systems-of-one-file-name", "naming", "recommendations",
         {"test.tsv": make.TEST_LOG, "pop/u1.tsv": make.RECS, "knn/u1.tsv": make.RECS},
         ["recsys", "-m", "P@1", "--format", "csv", "@test.tsv", "@pop/u1.tsv", "@knn/u1.tsv"], "warning",
         ["(pop/u1, knn/u1)"])  # fmt: skip

    # -- ids shown to a person: control characters and undecodable bytes escaped --------
    latin = QRELS.replace(b"1 0 ", b"1\xe9 0 "), RUN.replace(b"1 Q0 ", b"1\xe9 Q0 ")
    case("undecodable-byte-in-a-table", "encodings", "run", {"qrels": latin[0], "run": latin[1]},
         ["eval", "-q", "-m", "P.1", "--format", "table", "@qrels", "@run"], "output",
         ["1\\xe9"], forbid=["\\udc", "\udce9"])  # fmt: skip
    case("undecodable-byte-in-csv", "encodings", "run", {"qrels": latin[0], "run": latin[1]},
         ["eval", "-q", "-m", "P.1", "--format", "csv", "@qrels", "@run"], "output",
         ["1\\xe9"], forbid=["\\udc", "\udce9"])  # fmt: skip
    escaped = QRELS.replace(b"1 0 ", b"1\x1b[2J 0 "), RUN.replace(b"1 Q0 ", b"1\x1b[2J Q0 ")
    case("control-character-in-explain-title", "encodings", "run",
         {"qrels": escaped[0], "a": escaped[1], "b": RUN_B.replace(b"1 Q0 ", b"1\x1b[2J Q0 ")},
         ["explain", "--query", "1\x1b[2J", "@qrels", "@a", "@b"], "output",
         ["query 1\\x1b[2J:"], forbid=["\x1b"])  # fmt: skip
    recsys_case("recsys-serendipity-without-train", "spelling", "interaction log",
                options=["-m", "Serendipity"], kind="error",
                expect=["Serendipity@10 needs a baseline", "(--train FILE) for the most-popular list"])  # fmt: skip
    recsys_case("recsys-seen-drop-without-train", "spelling", "interaction log",
                options=["--seen", "drop"], kind="error",
                expect=["--seen drop needs the training interactions (--train FILE)"])  # fmt: skip
    recsys_case("recsys-group-exposure-without-train", "spelling", "interaction log",
                options=["--table", "group-exposure"], kind="error",
                expect=["--table group-exposure's default groups", "--train FILE, or --groups FILE"])  # fmt: skip
    case("split-temporal-without-cut", "spelling", "interaction log", {"log.tsv": make.TEST_LOG},
         ["split", "--method", "temporal", "-o", "out", "@log.tsv"], "error",
         ["--method temporal needs --cut"])  # fmt: skip
