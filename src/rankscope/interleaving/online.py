"""Online interleaving: experiments built from two runs and scored from their click logs.

An interleaving experiment shows, for each impression (a query issued by a user), one list
merged from two rankings a and b, records the clicks, and credits each click to a, to b or
to both; the ranking with more credited clicks wins the impression.  `interleaved_lists`
builds the lists of an experiment from two runs; `interleaving_outcomes` scores a click log
of interleaved lists by the credit rule of its method (`rankscope.interleaving.methods`:
team draft by the log's ``team`` column, balanced and marginalised probabilistic from the
two rankings of the impression's query); `preference_from_clicks` scores a log that already
gives each click's credit.  Each returns an `InterleavingOutcomes` (wins, ties, losses, the
preference and the sign test; `rankscope.interleaving.outcomes`), the same type offline
interleaving's simulated users would give.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ..atomic import write_atomically
from ..errors import InputError, UsageError, shown
from ..judge import order_run
from ..model import ImpressionLog, Run
from ..model.frames import to_frame
from ..read.fields import excerpt
from ..read.impressions import check_click_log, read_impressions
from .methods import TAU, TEAM_DRAFT, _generator, check_tau, interleaved_list, method_named
from .outcomes import InterleavingOutcomes

# --------------------------------------------------------------------------------------
# Rankings


def rankings_of(run: Any, *, ties: str = "docno-desc") -> dict[str, list[str]]:
    """Each query's ranking (document ids, best first) of a run: a `Run` (ordered by score
    with the tie policy ``ties``) or a mapping ``{query: [doc, ...]}`` taken as given.  (The
    front doors `rankscope.interleaved_lists` and `rankscope.interleaving_outcomes` read run
    files, Parquet files and DataFrames into a `Run` first.)"""
    if isinstance(run, Mapping):
        out: dict[str, list[str]] = {}
        for query, ranking in run.items():
            if isinstance(ranking, str | bytes) or not isinstance(ranking, Sequence | np.ndarray):
                raise TypeError(f"rankings: query {query!r} needs a sequence of document ids")
            out[str(query)] = [str(d) for d in ranking]
        return out
    if not isinstance(run, Run):
        raise UsageError(
            f"rankings: expected a Run or {{query: [doc, ...]}}, got {type(run).__name__} "
            "(rankscope.interleaved_lists and rankscope.interleaving_outcomes read run files)"
        )
    order = order_run(run, ties)
    queries = run.queries.strings_of(run.query[order])
    docs = run.docs.strings_of(run.doc[order])
    out = {}
    for query, doc in zip(queries, docs, strict=True):
        out.setdefault(query, []).append(doc)
    return out


# --------------------------------------------------------------------------------------
# The lists of an experiment


def interleaved_lists(
    run_a: Any,
    run_b: Any,
    *,
    method: str = "team-draft",
    impressions: int = 1,
    depth: int = 10,
    seed: int | np.random.Generator | None = 0,
    tau: float = TAU,
    ties: str = "docno-desc",
    output: str = "dict",
) -> Any:
    """Interleaved lists for every query two runs share, to build an experiment (seeded).

    ``impressions`` lists per query, each of the first ``depth`` documents of an
    interleaving of the two runs' rankings (see `interleaved_list`), queries in id order.  The
    result is a table with one row per shown document, columns ``impression``
    (``query/number``), ``query``, ``position`` (1-based), ``doc`` and ``team`` (``a`` or
    ``b``) — a click log once a ``clicked`` column is added — as a dict of lists
    (``output="dict"``) or a pandas / polars DataFrame.
    """
    method = method_named(method).name
    for value, name in ((impressions, "impressions"), (depth, "depth")):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise UsageError(f"{name} must be an integer >= 1, got {shown(value)}")
    rng = _generator(seed)
    first, second = rankings_of(run_a, ties=ties), rankings_of(run_b, ties=ties)
    shared = sorted(set(first) & set(second))
    if not shared:
        raise InputError("the two runs have no query in common: nothing to interleave")
    columns: dict[str, list[Any]] = {
        k: [] for k in ("impression", "query", "position", "doc", "team")
    }
    for query in shared:
        for number in range(1, impressions + 1):
            made = interleaved_list(
                first[query], second[query], method=method, seed=rng, length=depth, tau=tau
            )
            for position, (doc, team) in enumerate(zip(made.docs, made.team.tolist(), strict=True)):
                columns["impression"].append(f"{query}/{number}")
                columns["query"].append(query)
                columns["position"].append(position + 1)
                columns["doc"].append(str(doc))
                columns["team"].append("a" if team > 0 else "b")
    return to_frame(columns, output)


def write_lists(lists: Mapping[str, Sequence[Any]], path: str | os.PathLike) -> None:
    """Write `interleaved_lists`' table (``output="dict"``) as a tab-separated file with a
    header (``-``: standard output)."""
    names = list(lists)
    rows = zip(*(lists[n] for n in names), strict=True)
    text = "\t".join(names) + "\n" + "".join("\t".join(map(str, r)) + "\n" for r in rows)
    if str(path) == "-":
        sys.stdout.write(text)
    else:
        write_atomically(path, text)


# --------------------------------------------------------------------------------------
# Outcomes of a log


#: The roles of a log of interleaved lists (`rankscope.read.impressions.ROLES`): the query
#: and the team are read when the log has them and required where the credit needs them.
LOG_ROLES = ("session", "position", "doc", "click")


def read_interleaving_log(
    source: Any, *, require: Sequence[str] = LOG_ROLES, columns: Mapping[str, str] | None = None
) -> ImpressionLog:
    """A click log of interleaved lists as an `ImpressionLog` (team +1 for a, −1 for b, 0
    for an empty cell), read by the one reader of shown results
    (`rankscope.read.impressions.read_impressions`: a text file, a Parquet file, a DataFrame
    or Arrow table, a dict of columns, or an `ImpressionLog`) with 0/1 clicks, each
    session's positions 1..n and each document once per session
    (`rankscope.read.impressions.check_click_log`).  ``require``: the roles it must have;
    ``columns``: roles -> column names the header does not use."""
    return check_click_log(
        read_impressions(source, require=tuple(require), binary=True, columns=columns)
    )


def interleaving_outcomes(
    log: Any,
    *,
    method: str = "team-draft",
    a: Any = None,
    b: Any = None,
    marginalise: bool = True,
    tau: float = TAU,
    ties: str = "docno-desc",
) -> InterleavingOutcomes:
    """Score an online interleaving experiment from a click log of interleaved lists.

    ``log``: a click log of interleaved lists (`read_interleaving_log`: one row per shown
    document, with session (impression), position, doc, clicked, and team and query as the
    method needs).  ``method``: ``team-draft`` (credit by the ``team`` column),
    ``balanced`` (credit by the two rankings: ``a`` and ``b`` are runs or ``{query:
    [doc, ...]}`` mappings, see `rankings_of`, looked up by the ``query`` column) or
    ``probabilistic`` (marginalised over the assignments with ``a``, ``b`` and ``tau``;
    ``marginalise=False``: credit by the ``team`` column).  See the module documentation
    for the credit rules and the totals.
    """
    rule = method_named(method)
    # a marginalising method credits the logged team when asked not to marginalise
    credited = TEAM_DRAFT if rule.marginalises and not marginalise else rule
    first = second = None
    if credited.needs_rankings:
        if a is None or b is None:
            raise UsageError(
                f"{rule.name} interleaving needs the two rankings (a= and b=, --a/--b)"
            )
        log = read_interleaving_log(log, require=(*LOG_ROLES, "query"))
        first, second = rankings_of(a, ties=ties), rankings_of(b, ties=ties)
        tau = check_tau(tau)
    else:
        log = read_interleaving_log(log)
        if log.team is None:
            raise InputError(
                f"{log.source}: no team column: {rule.name} credit needs the team (a or b) "
                "of each shown document"
            )
    starts = log.starts
    sessions = log.sessions.strings_of(log.session[starts[:-1]])
    queries = log.queries.strings_of(log.session_query)
    outcome: list[float] = []
    credit_a: list[float] = []
    credit_b: list[float] = []
    last: list[int] = []
    for s, (start, stop) in enumerate(zip(starts[:-1].tolist(), starts[1:].tolist(), strict=True)):
        clicked = log.clicked[start:stop]
        clicked_at = np.flatnonzero(clicked)
        last.append(int(clicked_at[-1]) + 1 if clicked_at.size else 0)
        shown = log.docs.strings_of(log.doc[start:stop])
        team = np.zeros(stop - start, np.int8) if log.team is None else log.team[start:stop]
        if not credited.needs_rankings:
            if not team.all():
                row = start + int(np.flatnonzero(team == 0)[0])
                raise InputError(f"{log.where(row)}: team is missing ({rule.name} credit needs it)")
            impression = credited.observe(shown, (), (), team, tau)
        else:
            assert first is not None and second is not None
            query = queries[s]
            if query not in first or query not in second:
                side = "a" if query not in first else "b"
                raise InputError(
                    f"{log.where(start)}: query {excerpt(query)} has no ranking in {side}"
                )
            try:
                impression = credited.observe(shown, first[query], second[query], team, tau)
            except InputError as error:
                raise InputError(
                    f"{log.where(start)}: impression {excerpt(sessions[s])} "
                    f"(query {excerpt(query)}): {error}"
                ) from None
        h_a, h_b = impression.credit(clicked)
        credit_a.append(h_a)
        credit_b.append(h_b)
        outcome.append(impression.outcome(clicked))
    return InterleavingOutcomes.of(rule.name, sessions, queries, credit_a, credit_b, outcome, last)


# --------------------------------------------------------------------------------------
# Logs that give each click's credit


_SIDES = {"a": (1, 0), "b": (0, 1), "both": (1, 1), None: (0, 0)}


def _side(label: Any) -> tuple[int, int]:
    if isinstance(label, float) and math.isnan(label):
        label = None
    try:
        return _SIDES[label]
    except (KeyError, TypeError):
        raise InputError(f"click credit {label!r}: expected 'a', 'b', 'both' or None") from None


def preference_from_clicks(
    log: Any, *, columns: Mapping[str, str] | None = None
) -> InterleavingOutcomes:
    """Score an online interleaving experiment from the credited side of each click.

    ``log`` is either a click log of shown results with a ``team`` column, as
    `read_interleaving_log` reads it (a file given as a `pathlib.Path`, a DataFrame, a dict
    of columns or an `ImpressionLog`; ``columns``: roles -> column names): each click is
    credited to the
    team of its row (a row without a team to neither); or an iterable of impressions,
    each an iterable of click credits ``'a'``, ``'b'``, ``'both'`` (a
    balanced-interleaving click counting for both) or None (credited to neither).

    Per impression the outcome is sgn(clicks_a − clicks_b); the preference is their mean
    over all impressions (ties count as 0), and the p-value the sign test on wins vs
    losses (`rankscope.interleaving.power.sign_test`).  Impressions are identified by
    their session id in a log and by their index in an iterable.

    >>> r = preference_from_clicks([["a", "b", "a"], ["b"], [], ["a"], ["a", "b"], ["a"]])
    >>> r.wins, r.ties, r.losses, round(r.preference, 4), round(r.p_value, 4)
    (3, 2, 1, 0.3333, 0.625)
    """
    if isinstance(log, str | bytes):
        raise TypeError("click log: an iterable of impressions, or a log read by read_impressions")
    if isinstance(log, ImpressionLog | Mapping | os.PathLike) or hasattr(log, "columns"):
        read = read_interleaving_log(log, require=(*LOG_ROLES, "team"), columns=columns)
        assert read.team is not None  # required above
        starts = read.starts
        clicked = read.clicked
        credit_a = np.add.reduceat(clicked & (read.team > 0), starts[:-1]).astype(np.int64)
        credit_b = np.add.reduceat(clicked & (read.team < 0), starts[:-1]).astype(np.int64)
        keys: list[Hashable] = list(read.sessions.strings_of(read.session[starts[:-1]]))
        pairs = np.column_stack([credit_a, credit_b])
    else:
        totals = []
        for number, clicks in enumerate(log):
            if isinstance(clicks, str | bytes) or not isinstance(clicks, Iterable):
                raise TypeError(
                    f"click log: impression {number} must be a list of credits, got {clicks!r}"
                )
            credit = [0, 0]
            for label in clicks:
                side_a, side_b = _side(label)
                credit[0] += side_a
                credit[1] += side_b
            totals.append(credit)
        if not totals:
            raise InputError("click log: no impressions")
        keys = list(range(len(totals)))
        pairs = np.array(totals, dtype=np.int64).reshape(-1, 2)
    outcomes = np.sign(pairs[:, 0] - pairs[:, 1])
    return InterleavingOutcomes.of(None, keys, None, pairs[:, 0], pairs[:, 1], outcomes)


__all__ = [
    "interleaved_lists",
    "interleaving_outcomes",
    "preference_from_clicks",
    "read_interleaving_log",
    "rankings_of",
    "write_lists",
]
