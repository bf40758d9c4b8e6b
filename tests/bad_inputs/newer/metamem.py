"""`rankscope meta --no-robustness` reading its runs one at a time (issue 24, as with the
curves): a run sharing no query with the judgments, a run that cannot be read, a run that
leaves a judged query out and a single run are told as when every run was read whole, in
the same order (the join's warning before the preference methods')."""

from __future__ import annotations


def declare(make) -> None:
    qrels = b"1 0 d1 1\n1 0 d2 1\n1 0 d3 2\n2 0 d1 1\n2 0 d4 1\n2 0 d5 1\n"
    runs = {
        "a": make.RUN, "b": make.RUN_B, "other": b"7 Q0 d1 1 3.0 C\n8 Q0 d2 1 2.0 C\n",
        "bad": make.RUN_B.replace(b"1 Q0 d1 2 2.0 B\n", b"1 Q0 d1 2 high B\n"),
        "short": b"1 Q0 d3 1 3.0 B\n1 Q0 d1 2 2.0 B\n",
    }  # fmt: skip
    # name, mutated part, runs given, kind, messages
    cases = [
        ("no-common-query", "structure", ["a", "other", "b"], "error",
         ["run 'other'", "no query in common"]),
        ("bad-line", "fields", ["a", "bad"], "error", ["bad:2: score 'high' is not a number"]),
        ("run-missing-a-query", "structure", ["a", "short", "b"], "warning",
         ["run 'short': 1 judged query not in the run", "run 'short' ranks nothing for 1 query"]),
        ("one-run", "structure", ["a"], "error",
         ["preferences compare rankings: give at least two runs"]),
    ]  # fmt: skip
    for name, part, given, kind, messages in cases:
        files = {"qrels": qrels, **{run: runs[run] for run in given}}
        arguments = ["meta", "--no-robustness", "--permutations", "50", "@qrels",
                     *(f"@{run}" for run in given)]  # fmt: skip
        make.case(f"meta-no-robustness-streamed-{name}", part, "run", files, arguments, kind,
                  messages)  # fmt: skip
