"""`rankscope meta` reading its runs one at a time (issue 24): a run that cannot be read and
a run sharing no query with the judgments are the errors of reading every run first, and a
run that leaves a judged query out warns once, its join's warning before the preference
methods' (as when the runs were read whole)."""

from __future__ import annotations


def declare(make) -> None:
    quick = ["meta", "--permutations", "50", "--samples", "2"]
    # every judged document relevant: each reduced set of the curves keeps relevant ones
    qrels = b"1 0 d1 1\n1 0 d2 1\n1 0 d3 2\n2 0 d1 1\n2 0 d4 1\n2 0 d5 1\n"
    other_queries = b"7 Q0 d1 1 3.0 C\n8 Q0 d2 1 2.0 C\n"
    make.case("meta-streamed-no-common-query", "structure", "run",
              {"qrels": qrels, "a": make.RUN, "c": other_queries, "b": make.RUN_B},
              [*quick, "@qrels", "@a", "@c", "@b"], "error",
              ["run 'c'", "no query in common"])  # fmt: skip
    short_line = make.RUN_B.replace(b"1 Q0 d1 2 2.0 B\n", b"1 Q0 d1 2 high B\n")
    make.case("meta-streamed-bad-line-in-a-later-run", "fields", "run",
              {"qrels": qrels, "a": make.RUN, "b": short_line},
              [*quick, "@qrels", "@a", "@b"], "error",
              ["b:2: score 'high' is not a number"])  # fmt: skip
    only_one = b"1 Q0 d3 1 3.0 B\n1 Q0 d1 2 2.0 B\n"
    make.case("meta-streamed-run-missing-a-query", "structure", "run",
              {"qrels": qrels, "a": make.RUN, "b": only_one, "c": make.RUN_B},
              [*quick, "@qrels", "@a", "@b", "@c"], "warning",
              ["run 'b': 1 judged query not in the run",
               "run 'b' ranks nothing for 1 query"])  # fmt: skip
