"""A stochastic ranking policy's marginal probabilities π(d at k | x) from a delimited text
file (TSV, CSV, ``.gz``, ``-``): the evaluation policy of ``rankscope clicks estimate --policy``
when it is not one ranking per query (`rankscope.clicks.stochastic_policy` takes the columns
returned).

The file has a header line naming its columns by the roles of `POLICY_ROLES`: the impression
log's ``query``, ``position`` and ``doc`` (`rankscope.read.impressions.ROLES`, the same names:
``context``, ``item``, ``slot``, ...) and ``probability`` (``probability``,
``policy_probability``); ``query`` is optional (one query, ``all``, as in a log
without a query column).  The tokenizer is the log readers' (`rankscope.read.delimited`).

Checks, each an `InputError` naming the file and line: a position that is not an integer from
1; a probability that is not a number in [0, 1]; a (query, position, document) listed twice;
the probabilities of a (query, position) not summing to 1 (within `TOLERANCE`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InputError
from .fields import Field, at_line, excerpt
from .impressions import DEFAULT_QUERY, POSITION, ROLES
from .roles import Role, first_line_names, header_columns, locate

PROBABILITY = Field("probability")

#: The columns of a policy file by role, in the impression log's vocabulary.
POLICY_ROLES: dict[str, Role] = {
    "query": ROLES["query"],
    "position": ROLES["position"],
    "doc": ROLES["doc"],
    "probability": Role(("probability", "policy_probability"), "number", PROBABILITY),
}
#: The roles a policy file must have.
POLICY_REQUIRED = ("position", "doc", "probability")
#: How far the probabilities of a (query, position) may sum from 1.
TOLERANCE = 1e-6


def is_policy_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a text file whose first content line is a header naming a
    probability column (a policy file), rather than a run."""
    return first_line_names(path, POLICY_ROLES["probability"].names)


def read_policy(path: str | os.PathLike) -> dict[str, Any]:
    """The columns ``query``, ``position``, ``doc``, ``probability`` of a policy file,
    checked (see the module); the query column is ``all`` throughout when the file has none."""
    source, header, fields, lines = header_columns(
        path, POLICY_ROLES, min_fields=len(POLICY_REQUIRED), what="policy probabilities",
        expected="query, position, doc, probability",
    )  # fmt: skip
    at = locate(header, POLICY_ROLES, source=source, header=True, require=POLICY_REQUIRED)

    def column(role: str) -> list[str]:
        return fields[at[role]]

    positions = [int(POSITION.parse(t, source, n))
                 for t, n in zip(column("position"), lines, strict=True)]  # fmt: skip
    for k, n in zip(positions, lines, strict=True):
        if k < 1:
            raise InputError(f"{at_line(source, n)}: position {k} is below 1 (1 is the top)")
    probability = PROBABILITY.tokens(column("probability"), source, lines)
    for p, n in zip(probability.tolist(), lines, strict=True):
        if not 0 <= p <= 1:
            raise InputError(f"{at_line(source, n)}: probability {p!r} is not in [0, 1]")
    query = column("query") if "query" in at else [DEFAULT_QUERY] * len(lines)
    docs = column("doc")
    _check_sums(source, lines, query, positions, docs, probability)
    return {
        "query": query,
        "position": np.asarray(positions, dtype=np.int64),
        "doc": docs,
        "probability": probability,
    }


def _check_sums(
    source: str, lines: Sequence[int], query: Sequence[str], position: Sequence[int],
    docs: Sequence[str], probability: np.ndarray,
) -> None:  # fmt: skip
    """`InputError` for a (query, position, doc) listed twice, or a (query, position) whose
    probabilities do not sum to 1 (the line of its first row named)."""
    seen: dict[tuple[str, int, str], int] = {}
    total: dict[tuple[str, int], float] = {}
    first: dict[tuple[str, int], int] = {}
    for n, q, k, d, p in zip(lines, query, position, docs, probability.tolist(), strict=True):
        earlier = seen.setdefault((q, k, d), n)
        if earlier != n:
            raise InputError(
                f"{at_line(source, n)}: document {excerpt(d)} at position {k} of query "
                f"{excerpt(q)} is listed twice (line {earlier} first)"
            )
        total[q, k] = total.get((q, k), 0.0) + p
        first.setdefault((q, k), n)
    for (q, k), value in total.items():
        if abs(value - 1.0) > TOLERANCE:
            raise InputError(
                f"{at_line(source, first[q, k])}: the probabilities of query {excerpt(q)} at "
                f"position {k} sum to {value:.6g}, not 1: a policy shows one document at each "
                "position"
            )


__all__ = ["POLICY_ROLES", "PROBABILITY", "TOLERANCE", "is_policy_file", "read_policy"]
