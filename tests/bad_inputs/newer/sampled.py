"""`rankscope sampled`'s score files: read column-wise when plain (issue 22's speed-up), line
by line otherwise; either way the same values, and the same errors naming file and line."""

from __future__ import annotations

SCORES = (b"u1\ti1\t0.9\nu1\ti2\t0.5\nu1\ti3\t0.1\nu2\ti1\t0.7\nu2\ti2\t0.6\nu2\ti3\t0.2\n")


def declare(make) -> None:
    def sampled_case(name, family, scores, kind, expect=None):
        files = {"test.tsv": make.TEST_LOG, "scores.tsv": scores}
        command = ["sampled", "@test.tsv", "@scores.tsv", "-m", "MRR", "--format", "csv"]
        twin = None
        if kind == "identical":
            files |= {"clean/test.tsv": make.TEST_LOG, "clean/scores.tsv": SCORES}
            twin = ["sampled", "@clean/test.tsv", "@clean/scores.tsv", "-m", "MRR",
                    "--format", "csv"]  # fmt: skip
        make.case(f"sampled-{name}", family, "score file", files, command, kind, expect, twin)

    line = make.line
    sampled_case("score-not-a-number", "numbers", line(SCORES, 4, b"u2\ti1\thigh"), "error",
                 ["scores.tsv:4", "high"])  # fmt: skip
    sampled_case("score-nan", "numbers", line(SCORES, 2, b"u1\ti2\tnan"), "error",
                 ["scores.tsv:2", "not a finite number"])  # fmt: skip
    sampled_case("score-inf", "numbers", line(SCORES, 6, b"u2\ti3\t-inf"), "error",
                 ["scores.tsv:6"])  # fmt: skip
    sampled_case("line-two-fields", "fields", line(SCORES, 3, b"u1\ti3"), "error",
                 ["scores.tsv:3", "expected 3 fields"])  # fmt: skip
    sampled_case("line-four-fields", "fields", line(SCORES, 5, b"u2\ti2\t0.6\tx"), "error",
                 ["scores.tsv:5", "expected 3 fields"])  # fmt: skip
    # what the line-by-line reader accepts reads the same as the plain file
    sampled_case("crlf", "line endings", make.crlf(SCORES), "identical")
    sampled_case("no-final-newline", "line endings", SCORES[:-1], "identical")
    sampled_case("comment-line", "structure", b"# two users\n" + SCORES, "identical")
    sampled_case("blank-line", "structure", SCORES.replace(b"i3\t0.1\n", b"i3\t0.1\n\n"),
                 "identical")  # fmt: skip
    sampled_case("header", "structure", b"user\titem\tscore\n" + SCORES, "identical")
    sampled_case("spaces", "separators", SCORES.replace(b"\t", b" "), "identical")
    sampled_case("commas", "separators", SCORES.replace(b"\t", b","), "identical")
    sampled_case("trailing-tab", "separators", SCORES.replace(b"\n", b"\t\n"), "identical")
    sampled_case("padded-fields", "separators", SCORES.replace(b"\t", b" \t "), "identical")
