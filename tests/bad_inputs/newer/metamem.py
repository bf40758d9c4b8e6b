"""`rankscope meta --no-robustness` reading its runs one at a time (issue 24, as with the
curves): a run sharing no query with the judgments, a run that cannot be read and a run
that leaves a judged query out are told as when every run was read whole, in the same
order (the join's warning before the preference methods')."""

from __future__ import annotations


def declare(make) -> None:
    quick = ["meta", "--no-robustness", "--permutations", "50"]
    qrels = b"1 0 d1 1\n1 0 d2 1\n1 0 d3 2\n2 0 d1 1\n2 0 d4 1\n2 0 d5 1\n"
    other_queries = b"7 Q0 d1 1 3.0 C\n8 Q0 d2 1 2.0 C\n"
    make.case("meta-no-robustness-streamed-no-common-query", "structure", "run",
              {"qrels": qrels, "a": make.RUN, "c": other_queries, "b": make.RUN_B},
              [*quick, "@qrels", "@a", "@c", "@b"], "error",
              ["run 'c'", "no query in common"])  # fmt: skip
    short_line = make.RUN_B.replace(b"1 Q0 d1 2 2.0 B\n", b"1 Q0 d1 2 high B\n")
    make.case("meta-no-robustness-streamed-bad-line", "fields", "run",
              {"qrels": qrels, "a": make.RUN, "b": short_line},
              [*quick, "@qrels", "@a", "@b"], "error",
              ["b:2: score 'high' is not a number"])  # fmt: skip
    only_one = b"1 Q0 d3 1 3.0 B\n1 Q0 d1 2 2.0 B\n"
    make.case("meta-no-robustness-streamed-run-missing-a-query", "structure", "run",
              {"qrels": qrels, "a": make.RUN, "b": only_one, "c": make.RUN_B},
              [*quick, "@qrels", "@a", "@b", "@c"], "warning",
              ["run 'b': 1 judged query not in the run",
               "run 'b' ranks nothing for 1 query"])  # fmt: skip
    make.case("meta-no-robustness-streamed-one-run", "structure", "run",
              {"qrels": qrels, "a": make.RUN},
              [*quick, "@qrels", "@a"], "error",
              ["preferences compare rankings: give at least two runs"])  # fmt: skip
