# ruff: noqa: E501  (a table of cases: one case per few lines reads better than wrapped calls)
"""The bad-input cases of the files commands write (issue 22, "Loses no data"): an existing
output refused without --force by every writing command, an output naming one of the
command's inputs refused even with --force, split's directory whole, the folds recsys
--folds reads a complete set, and clicks fit's --columns."""

from __future__ import annotations

from typing import Any

LABELS = b"1 x d1 1\n1 y d1 1\n1 x d2 0\n1 y d2 1\n2 x d4 1\n2 y d4 1\n"
CLICKS = (
    b"session\tquery\tposition\tdoc\tclicked\n"
    b"s1\t1\t1\td1\t1\ns1\t1\t2\td2\t0\ns2\t2\t1\td4\t0\ns2\t2\t2\td5\t1\n"
)
OLD = b"an older output\n"


def declare(make: Any) -> None:
    case, QRELS, RUN, RUN_B = make.case, make.QRELS, make.RUN, make.RUN_B
    runs = {"qrels": QRELS, "a": RUN, "b": RUN_B}
    log = make.TEST_LOG

    # -- an existing output: refused unless --force, by every writing command ----------------
    exists = ["already exists", "--force overwrites"]
    for name, files, args in [
        ("fuse", {"a": RUN, "b": RUN_B, "out": OLD}, ["fuse", "@a", "@b", "-o", "@out"]),
        ("report", {**runs, "out": OLD}, ["report", "@qrels", "@a", "@b", "-o", "@out"]),
        ("compare-html", {**runs, "out": OLD}, ["compare", "@qrels", "@a", "@b", "--html", "@out"]),
        ("meta-plot", {**runs, "out": OLD}, ["meta", "@qrels", "@a", "@b", "--plot", "@out"]),
        ("agree-to-qrels", {"labels": LABELS, "out": OLD}, ["agree", "@labels", "--to-qrels", "majority", "-o", "@out"]),
        ("clicks-fit", {"clicks": CLICKS, "out": OLD}, ["clicks", "fit", "@clicks", "-o", "@out"]),
        ("clicks-simulate", {**runs, "out": OLD}, ["clicks", "simulate", "@qrels", "@a", "-o", "@out"]),
        ("clicks-interleave-lists", {"a": RUN, "b": RUN_B, "out": OLD}, ["clicks", "interleave", "--lists", "@a", "@b", "-o", "@out"]),
        ("clicks-learn-save", {**runs, "out": OLD}, ["clicks", "learn", "--from", "AP", "@qrels", "@a", "@b", "--save", "@out"]),
    ]:
        case(f"{name}-output-exists", "outputs", args[args.index("@out") - 1], files, args,
             "error", [args[args.index("@out") - 1].replace("-o", "--output"), *exists])  # fmt: skip
    case("split-output-exists", "outputs", "-o",
         {"log": log, "folds/u1.base": log, "folds/u1.test": log},
         ["split", "@log", "--method", "holdout", "-o", "@folds"], "error",
         ["folds/u1.base", "already exist", "--force overwrites"])  # fmt: skip

    # -- an output naming an input: refused even with --force ----------------------------------
    over = ["would overwrite an input file", "write elsewhere"]
    case("fuse-output-is-a-run", "outputs", "-o", {"a": RUN, "b": RUN_B},
         ["fuse", "@a", "@b", "-o", "@b", "--force"], "error", ["--output", *over])  # fmt: skip
    case("clicks-interleave-lists-output-is-run-b", "outputs", "-o", {"a": RUN, "b": RUN_B},
         ["clicks", "interleave", "--lists", "@a", "@b", "-o", "@b", "--force"], "error",
         ["--output", *over])  # fmt: skip
    case("clicks-fit-output-is-the-log", "outputs", "-o", {"clicks": CLICKS},
         ["clicks", "fit", "@clicks", "-o", "@clicks", "--force"], "error", ["--output", *over])  # fmt: skip
    case("clicks-simulate-output-is-the-run", "outputs", "-o", runs,
         ["clicks", "simulate", "@qrels", "@a", "-o", "@a", "--force"], "error", ["--output", *over])  # fmt: skip
    case("agree-output-is-the-labels", "outputs", "-o", {"labels": LABELS},
         ["agree", "@labels", "--to-qrels", "mean", "-o", "@labels", "--force"], "error",
         ["--output", *over])  # fmt: skip
    case("clicks-learn-save-over-a-run", "outputs", "--save", runs,
         ["clicks", "learn", "--from", "AP", "@qrels", "@a", "@b", "--save", "@b", "--force"],
         "error", ["--save", *over])  # fmt: skip
    case("fuse-output-is-a-directory", "outputs", "-o", {"a": RUN, "b": RUN_B, "dir/x": OLD},
         ["fuse", "@a", "@b", "-o", "@dir", "--force"], "error", ["--output", "is a directory"])  # fmt: skip
    case("split-output-holds-the-log", "outputs", "-o", {"folds/u1.base": log},
         ["split", "@folds/u1.base", "--method", "holdout", "-o", "@folds", "--force"], "error",
         ["would overwrite the log", "write elsewhere"])  # fmt: skip
    case("split-output-holds-other-files", "outputs", "-o", {"log": log, "folds/notes.txt": OLD},
         ["split", "@log", "--method", "holdout", "-o", "@folds", "--force"], "error",
         ["holds files that are not a split's (notes.txt)", "name a new or empty directory"])  # fmt: skip

    # -- the folds recsys --folds reads: u1 ... uK, each with base and test ---------------------
    recs = {f"recs/x/u{i}.tsv": make.RECS for i in (1, 2, 3)}
    for name, folds, words in [
        ("missing-fold", (1, 3), ["fold u2 (u2.base and u2.test) is missing", "u1 ... uK"]),
        ("fold-zero", (0, 1, 2), ["fold u0 is not one of u1 ... u3", "numbered from 1"]),
    ]:
        files = {f"folds/u{i}.{part}": log for i in folds for part in ("base", "test")}
        case(f"recsys-folds-{name}", "structure", "--folds", {**files, **recs},
             ["recsys", "--folds", "@folds", "@recs/x", "-m", "P@1"], "error", words)  # fmt: skip
    for name, present, words in [
        ("test-without-base", ("u1.base", "u1.test", "u2.test"), ["u2.test: its training data, u2.base, is not in"]),
        ("base-without-test", ("u1.base", "u1.test", "u2.base"), ["u2.base: its test data, u2.test, is not in"]),
    ]:
        files = {f"folds/{p}": log for p in present}
        case(f"recsys-folds-{name}", "structure", "--folds", {**files, **recs},
             ["recsys", "--folds", "@folds", "@recs/x", "-m", "P@1"], "error", words)  # fmt: skip

    # -- clicks fit --columns ------------------------------------------------------------------
    renamed = CLICKS.replace(b"clicked", b"klik", 1)
    case("clicks-fit-columns-not-pairs", "options", "--columns", {"clicks": CLICKS},
         ["clicks", "fit", "@clicks", "--columns", "click"], "usage",
         ["argument --columns", "expected ROLE=NAME pairs, got 'click'"])  # fmt: skip
    case("clicks-fit-column-missing-names-the-option", "options", "--columns", {"clicks": renamed},
         ["clicks", "fit", "@clicks"], "error",
         ["no clicked column in the header", "name it with --columns click=NAME"])  # fmt: skip
    case("clicks-fit-columns-unknown-column", "options", "--columns", {"clicks": renamed},
         ["clicks", "fit", "@clicks", "--columns", "click=clicks"], "error",
         ["no column 'clicks' for click"])  # fmt: skip
    case("clicks-fit-columns-without-header", "options", "--columns",
         {"clicks": CLICKS.split(b"\n", 1)[1]},
         ["clicks", "fit", "@clicks", "--columns", "click=klik"], "error",
         ["--columns names header columns, and it has no header"])  # fmt: skip
    case("clicks-fit-columns-named", "options", "--columns", {"clicks": renamed},
         ["clicks", "fit", "@clicks", "--columns", "click=klik", "--format", "json"], "output",
         ['"model": "pbm"', '"log_likelihood"'])  # fmt: skip
