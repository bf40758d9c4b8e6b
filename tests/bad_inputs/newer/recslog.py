"""`rankscope recsys`'s interaction and recommendation logs read column-wise from their bytes
when plain (issue 24, `rankscope.read.delimited.table`), line by line otherwise: the same
values either way, and the same errors naming file, line and what was wrong — ids that are
numbers with leading zeros, numbers the column-wise parse takes (signs, decimal points,
many digits) or leaves to the grammar (exponents, decimal commas), the ``::`` separator."""

from __future__ import annotations

LOG = b"7\t012\t5\t978300760\n7\t12\t1\t978300761\n08\t012\t4\t978300762\n08\t3\t5\t978300763\n"
RECS = b"7\t012\t0.9\n7\t3\t0.5\n08\t12\t0.7\n08\t3\t0.6\n"


def declare(make) -> None:
    def log_case(name, family, kind, test=LOG, recs=RECS, expect=None):
        files = {"test.tsv": test, "recs.tsv": recs}
        command = ["recsys", "@test.tsv", "@recs.tsv", "-m", "P@2", "-m", "nDCG@2",
                   "--format", "csv", "--threshold", "4"]  # fmt: skip
        twin = None
        if kind == "identical":
            files |= {"clean/test.tsv": LOG, "clean/recs.tsv": RECS}
            twin = ["@clean/" + a[1:] if a.startswith("@") else a for a in command]
        make.case(f"recslog-{name}", family, "interaction log", files, command, kind,
                  expect, twin)  # fmt: skip

    line = make.line
    log_case("rating-decimal-comma", "numbers", "error",
             test=line(LOG, 3, b"08\t012\t4,5\t978300762"),
             expect=["test.tsv:3", "rating '4,5' is not a number"])  # fmt: skip
    log_case("rating-not-a-number", "numbers", "error",
             test=line(LOG, 2, b"7\t12\thigh\t978300761"),
             expect=["test.tsv:2", "rating 'high' is not a number"])  # fmt: skip
    log_case("rating-nan", "numbers", "error", test=line(LOG, 4, b"08\t3\tnan\t978300763"),
             expect=["test.tsv:4", "rating 'nan' is not a finite number"])  # fmt: skip
    log_case("timestamp-digit-separator", "numbers", "error",
             test=line(LOG, 1, b"7\t012\t5\t978_300_760"),
             expect=["test.tsv:1", "timestamp '978_300_760' is not a number"])  # fmt: skip
    log_case("score-empty", "fields", "error", recs=line(RECS, 2, b"7\t3\t"),
             expect=["recs.tsv:2", "expected 3 fields, as line 1 has, found 2"])  # fmt: skip
    log_case("score-arabic-digits", "numbers", "error",
             recs=line(RECS, 3, "08\t12\t٠٫٧".encode()),
             expect=["recs.tsv:3", "is not a number"])  # fmt: skip
    # read column-wise or line by line, the same log
    log_case("ratings-with-points-and-signs", "numbers", "identical",
             test=LOG.replace(b"\t5\t", b"\t+5.0\t").replace(b"\t4\t", b"\t4.\t"))  # fmt: skip
    log_case("scores-with-exponents", "numbers", "identical",
             recs=RECS.replace(b"0.9", b"9e-1").replace(b"0.5", b"5E-1"))  # fmt: skip
    log_case("double-colons", "separators", "identical", test=LOG.replace(b"\t", b"::"))
    log_case("crlf", "line endings", "identical", test=make.crlf(LOG), recs=make.crlf(RECS))
    log_case("header", "structure", "identical", test=b"user\titem\trating\ttimestamp\n" + LOG,
             recs=b"user\titem\tscore\n" + RECS)  # fmt: skip
    # a carriage return inside a CSV line (not at its end): CSV cannot split it
    csv_log = LOG.replace(b"\t", b",")
    log_case("carriage-return-inside-a-csv-line", "line endings", "error",
             test=line(csv_log, 2, b"7,12,\r,978300761"),
             expect=["test.tsv:2", "a carriage return (\\r) inside the line"])  # fmt: skip
