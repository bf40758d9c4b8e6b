# ruff: noqa: E501  (a table of cases: one case per few lines reads better than wrapped calls)
"""Suspicious runs whose rows the compiled reader does not see listed query by query in rank
order (issue 24, `onerun7`): the steps up the ranks it gathers as it reads a run then give
way to numpy's, which sorts the rows first; the warnings are the same."""

from __future__ import annotations

from typing import Any


def declare(make: Any) -> None:
    eval_case = make.eval_case
    # each query's lines in two places: the first rise found after the rows are sorted
    split = b"1 Q0 d1 1 1 A\n2 Q0 d4 1 1 A\n1 Q0 d2 2 2 A\n2 Q0 d1 2 2 A\n1 Q0 d9 3 3 A\n2 Q0 d5 3 3 A\n"
    eval_case("run-scores-rise-queries-split", "suspicious", "run", run=split, kind="warning",
              expect=["run:3", "scores rise with the rank in every query", "rank 1 scores 1, rank 2 scores 2"])  # fmt: skip
    # a query's ranks falling (query 2) after a query tied on one score (query 1)
    falling = b"1 Q0 d1 1 1.0 A\n1 Q0 d2 2 1.0 A\n2 Q0 d4 2 3 A\n2 Q0 d5 1 2 A\n"
    eval_case("run-scores-tied-ranks-falling-later", "suspicious", "run", run=falling, kind="warning",
              expect=["run:1", "every document of query '1' has the score 1", "run:3", "rank 1 scores 2, rank 2 scores 3"])  # fmt: skip
