"""Clicks simulated from a click model on the rankings of a run (seeded): the bridge from
judgments to click logs, interleaving and counterfactual estimates.

A model is either fitted (`rankscope.clicks.fit`: its parameters are used as they are, a
pair it does not list taking its default) or named (``"pbm"``, ...), and then built from the
judgments by `model_from_judgments`:

* attractiveness (and DBN's satisfaction) of a document of grade ``g`` for its query:
  ``(2^g - 1) / 2^g_max`` with ``g_max`` the highest grade in the judgments (Chapelle et al.
  2009's ERR mapping: 0 for a non-relevant document, ``1 - 2^-g_max`` for the best); an
  unjudged document, or one of negative grade, counts as grade 0.  ``attractiveness=`` and
  ``satisfaction=`` replace it with a ``{grade: probability}`` mapping (grades it does not
  list: an error), e.g. ``{0: 0.05, 1: 0.5, 2: 0.95}`` for clicks on non-relevant results;
* PBM's examination ``γ_r = 1/r`` (Joachims et al. 2017's ``(1/r)^η`` with ``η = 1``), UBM's
  ``γ_{r r'} = 1/(r - r')`` (``1/r`` without a click above), DBN's continuation ``γ = 0.9``,
  SDBN's 1; ``examination=`` and ``continuation=`` replace them.

Sessions go to the queries in turn (session ``i`` shows query ``i mod Q`` of the queries,
sorted as strings), so that each query gets ``sessions / Q`` of them, give or take one.
Each shows the query's first ``depth`` documents in the run's order (score descending,
equal scores by ``ties``), and the shown ranking id of every row is the run's name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypedDict

import numpy as np

from ..errors import InputError, UsageError, warn
from ..judge.join import order_run
from ..model import ImpressionLog, Qrels, Run, Vocabulary
from ..read.impressions import check_click_log
from .models import CM, DBN, PBM, SDBN, UBM, ClickModel, PairParameters, model_class

#: DBN's continuation probability when simulating from judgments.
CONTINUATION = 0.9


def attractiveness_of_grades(grades: np.ndarray, max_grade: int) -> np.ndarray:
    """``(2^g - 1) / 2^max_grade`` for each grade ``g`` (a negative grade counts as 0)."""
    g = np.maximum(np.asarray(grades, dtype=np.float64), 0.0)
    return (2.0**g - 1.0) / 2.0 ** max(int(max_grade), 0)


def _mapped(grades: np.ndarray, mapping: Mapping[int, float] | None, top: int, what: str):
    if mapping is None:
        return attractiveness_of_grades(grades, top)
    table = {int(k): float(v) for k, v in mapping.items()}
    bad = [v for v in table.values() if not 0 <= v <= 1]
    if bad:
        raise UsageError(f"{what} {bad[0]!r} is not a probability in [0, 1]")
    missing = sorted({int(g) for g in np.maximum(grades, 0).tolist()} - set(table))
    if missing:
        raise UsageError(f"{what} has no probability for grade {missing[0]}")
    return np.asarray([table[int(g)] for g in np.maximum(grades, 0).tolist()], dtype=np.float64)


def _probabilities(values: Sequence[float] | np.ndarray, what: str) -> np.ndarray:
    out = np.asarray(values, dtype=np.float64)
    if out.size == 0 or not ((out >= 0) & (out <= 1)).all():
        raise UsageError(f"{what} must be probabilities in [0, 1]")
    return out


def model_from_judgments(
    model: str,
    qrels: Qrels,
    *,
    depth: int = 10,
    attractiveness: Mapping[int, float] | None = None,
    satisfaction: Mapping[int, float] | None = None,
    examination: Sequence[float] | np.ndarray | None = None,
    continuation: float | None = None,
) -> ClickModel:
    """The click model ``model`` with its document parameters from the judgments' grades
    and its position parameters as the module docstring says (``depth`` positions)."""
    cls = model_class(model)
    if depth < 1:
        raise UsageError(f"depth must be 1 or more (got {depth})")
    if qrels.subtopic is not None:
        qrels = qrels.collapse()
    grades = np.asarray(qrels.grade, dtype=np.int64)
    top = int(grades.max()) if len(grades) else 1
    query_ids = qrels.queries.strings_of(qrels.query)
    doc_ids = qrels.docs.strings_of(qrels.doc)
    evidence = np.zeros(len(grades), dtype=np.int64)
    zero = np.zeros(1, dtype=np.int64)
    alpha = PairParameters(
        query_ids, doc_ids, _mapped(grades, attractiveness, top, "attractiveness"), evidence,
        float(_mapped(zero, attractiveness, top, "attractiveness")[0]),
    )  # fmt: skip
    if cls is PBM:
        gamma = 1.0 / np.arange(1, depth + 1) if examination is None else examination
        gamma = _probabilities(gamma, "examination")
        if len(gamma) < depth:
            raise UsageError(f"examination lists {len(gamma)} positions, depth is {depth}")
        return PBM(alpha, examination=gamma)
    if cls is UBM:
        if examination is None:
            r = np.arange(1, depth + 1)[:, None]
            gamma = np.tril(1.0 / np.maximum(r - np.arange(depth)[None, :], 1))
        else:
            gamma = _probabilities(examination, "examination")
            if gamma.ndim != 2 or gamma.shape[0] < depth or gamma.shape[1] < gamma.shape[0]:
                raise UsageError("UBM's examination is a (depth × depth) matrix γ[r - 1, r']")
        return UBM(alpha, examination=gamma)
    if cls in (DBN, SDBN):
        sigma = PairParameters(
            query_ids, doc_ids, _mapped(grades, satisfaction, top, "satisfaction"), evidence,
            float(_mapped(zero, satisfaction, top, "satisfaction")[0]),
        )  # fmt: skip
        g = (CONTINUATION if cls is DBN else 1.0) if continuation is None else continuation
        g = float(_probabilities([g], "continuation")[0])
        return cls(alpha, satisfaction=sigma, continuation=g)
    return CM(alpha)


class SimulateOptions(TypedDict, total=False):
    """The options of `simulate` after the model, the run and the judgments (the front door
    `rankscope.simulate_clicks` takes them as they are)."""

    sessions: int
    depth: int
    seed: int
    ties: str
    attractiveness: Mapping[int, float] | None
    satisfaction: Mapping[int, float] | None
    examination: Sequence[float] | np.ndarray | None
    continuation: float | None


def _warn_no_clicks(sessions: int, model: str, judgments: Qrels | None) -> None:
    """Warn that no simulated session has a click, with the likely reason."""
    reason = "the model's click probabilities are too small for this many sessions"
    if judgments is not None and not (np.asarray(judgments.grade) > 0).any():
        reason = (
            "every grade of the judgments is 0 or below, so every document's attractiveness "
            "is 0"
        )
    warn(f"none of the {sessions:,} simulated sessions has a click ({model}): {reason}")


def simulate(
    model: ClickModel | str,
    run: Run | ImpressionLog,
    judgments: Qrels | None = None,
    *,
    sessions: int = 1000,
    depth: int = 10,
    seed: int = 0,
    ties: str = "docno-desc",
    attractiveness: Mapping[int, float] | None = None,
    satisfaction: Mapping[int, float] | None = None,
    examination: Sequence[float] | np.ndarray | None = None,
    continuation: float | None = None,
) -> ImpressionLog:
    """A click log of ``sessions`` sessions on the rankings of ``run``, clicks drawn from
    ``model`` with ``seed``.

    ``model``: a fitted `ClickModel`, or a name (``pbm``, ``cm``, ``ubm``, ``dbn``, ``sdbn``)
    whose parameters come from ``judgments`` (required then) by `model_from_judgments`.  The
    sessions cover the queries of the run (of the run and the judgments, when judgments
    are given) in turn; see the module docstring.  `rankscope.simulate_clicks` reads the run
    and judgments from files, frames or dicts first.

    ``run`` may instead be the lists of an interleaving experiment (an `ImpressionLog` with
    a team column, as ``clicks interleave --lists`` writes them): the sessions then go to
    the lists in turn (session ``i`` shows list ``i mod L``, its first ``depth`` documents),
    and the log keeps each row's team and, as its ranking id, the list's, so that
    `rankscope.interleaving` credits the clicks (``ties`` does not apply).

    >>> import rankscope
    >>> log = rankscope.simulate_clicks(                            # doctest: +SKIP
    ...     "dbn", "run.txt", "qrels.txt", sessions=10_000)
    """
    if sessions < 1:
        raise UsageError(f"sessions must be 1 or more (got {sessions})")
    if depth < 1:
        raise UsageError(f"depth must be 1 or more (got {depth})")
    if isinstance(model, str):
        if judgments is None:
            raise UsageError(f"simulating from the {model} model needs judgments (qrels)")
        model = model_from_judgments(
            model, judgments, depth=depth, attractiveness=attractiveness,
            satisfaction=satisfaction, examination=examination, continuation=continuation,
        )  # fmt: skip
    shown = _lists(run, depth) if isinstance(run, ImpressionLog) else _rankings(run, ties, depth)
    if judgments is not None:
        judged = set(judgments.queries.strings_of(np.unique(judgments.query)))
        shown = [s for s in shown if s.query in judged]
        if not shown:
            name = run.source if isinstance(run, ImpressionLog) else f"the run {run.name}"
            raise UsageError(f"{name} has no query in common with the judgments")
    rng = np.random.default_rng(seed)
    docs_vocab, queries = Vocabulary(), Vocabulary(sorted({s.query for s in shown}))
    session_no, ranking, position, doc_col, clicked, team = [], [], [], [], [], []
    for li, one in enumerate(shown):
        numbers = np.arange(li, sessions, len(shown))  # the sessions showing it
        codes = docs_vocab.intern_many(one.docs)
        if len(numbers) == 0:
            continue
        k, n = len(one.docs), len(numbers)
        clicked.append(model.sample(one.query, one.docs, n, rng).reshape(-1))
        session_no.append(np.repeat(numbers, k))
        ranking.append(np.full(n * k, li, dtype=np.int32))
        position.append(np.tile(np.arange(1, k + 1, dtype=np.int64), n))
        doc_col.append(np.tile(codes, n))
        team.append(np.tile(one.team, n))
    number = np.concatenate(session_no)
    rows = np.argsort(number, kind="stable")  # session by session, positions in order
    if not any(c.any() for c in clicked):
        _warn_no_clicks(sessions, model.name, judgments)
    of_list = np.concatenate(ranking)[rows]
    query_codes = queries.lookup_many([s.query for s in shown]).astype(np.int32)
    lists = isinstance(run, ImpressionLog)
    label = run.source if isinstance(run, ImpressionLog) else run.name
    return ImpressionLog(
        Vocabulary([str(i + 1) for i in range(sessions)]),  # (session i shows i mod L)
        queries, docs_vocab, number[rows].astype(np.int32), query_codes[of_list],
        np.concatenate(position)[rows], np.concatenate(doc_col)[rows].astype(np.int32),
        np.concatenate(clicked)[rows].astype(np.float64),
        ranking=of_list if lists else np.zeros(len(number), dtype=np.int32),
        rankings=Vocabulary([s.name for s in shown] if lists else [label]),
        team=np.concatenate(team)[rows] if lists else None,
        source=f"<simulated {model.name}: {label}>",
    )  # fmt: skip


@dataclass(frozen=True)
class _Shown:
    """A list shown to the simulated users: its name, query, documents and teams."""

    name: str
    query: str
    docs: list[str]
    team: np.ndarray  # int8 per document (0: no team, a run's ranking)


def _rankings(run: Run, ties: str, depth: int) -> list[_Shown]:
    """The first ``depth`` documents of each query's ranking in ``run``, queries sorted."""
    order = order_run(run, ties)
    rows_query = run.query[order]
    first = np.concatenate(([0], np.flatnonzero(np.diff(rows_query) != 0) + 1))
    ends = np.append(first[1:], len(order))
    rankings: dict[str, list[str]] = {}
    for start, end in zip(first.tolist(), ends.tolist(), strict=True):
        qid = run.queries.strings_of(rows_query[start : start + 1])[0]
        rankings[qid] = run.docs.strings_of(run.doc[order[start : min(end, start + depth)]])
    return [
        _Shown(run.name, q, rankings[q], np.zeros(len(rankings[q]), np.int8))
        for q in sorted(rankings)
    ]


def _lists(lists: ImpressionLog, depth: int) -> list[_Shown]:
    """The first ``depth`` documents of each list of an interleaving experiment's lists
    (`rankscope.interleaving.write_lists`'s file read back), in the file's order."""
    check_click_log(lists)
    if lists.team is None:
        raise InputError(
            f"{lists.source}: no team column: lists to simulate clicks on are those "
            "'clicks interleave --lists' writes (impression, query, position, doc, team)"
        )
    out = []
    starts = lists.starts
    for s in range(lists.num_sessions):
        rows = np.arange(starts[s], min(starts[s + 1], starts[s] + depth))
        out.append(_Shown(
            lists.sessions.strings_of(lists.session[rows[:1]])[0],
            lists.queries.strings_of(lists.query[rows[:1]])[0],
            lists.docs.strings_of(lists.doc[rows]), lists.team[rows].astype(np.int8),
        ))  # fmt: skip
    return out
