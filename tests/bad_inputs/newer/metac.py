"""`rankscope meta` with its discriminative powers computed beside the robustness curves
(issue 24): a collection the powers' tests refuse (one judged query) still fails with
their error, as when the powers came before the curves, not with the curves' own."""

from __future__ import annotations


def declare(make) -> None:
    one_query = b"1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n"
    make.case("meta-one-query", "structure", "qrels",
              {"qrels": one_query, "a": make.RUN, "b": make.RUN_B},
              ["meta", "--permutations", "50", "--samples", "2", "@qrels", "@a", "@b"], "error",
              ["a paired test needs at least 2 queries, got 1"])  # fmt: skip
