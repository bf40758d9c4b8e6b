"""What the local and the Dask recommender evaluations share: every input read into shared
vocabularies (`read_inputs`), a system's result (`SystemEvaluation`, `tidy`), the policy for
recommended items of the training data (`_seen_policy`), and the warnings about users on one
side only or without a relevant test item."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError, UsageError, warn
from ..measures.base import Request
from ..model import Interactions, ItemFeatures, Run, Vocabulary
from ..model.frames import is_frame, plain, records_frame
from ..read.features import read_item_features
from ..read.interactions import keep_latest, read_interactions
from ..read.recommendations import read_recommendations
from ..read.runs import unique_run_names
from ..read.trec import run_files
from .base import Context, Note, Popularity, Values

DEFAULT_TOPN = ["P", "Recall", "F1", "HitRate", "MRR", "MAP", "nDCG", "UserCoverage"]
DEFAULT_CATALOG = ["CatalogCoverage", "Gini", "Entropy"]
DEFAULT_POPULARITY = ["Novelty", "Serendipity", "LongTail"]


@dataclass(frozen=True)
class SystemEvaluation:
    """One system's values: per evaluated user (NaN: no value) and summaries (a value)."""

    name: str
    user_ids: list[str]
    requests: list[Request]
    values: list[Values]

    @property
    def labels(self) -> list[str]:
        return [r.label for r in self.requests]

    @property
    def summary(self) -> dict[str, float]:
        return {r.label: v.summary for r, v in zip(self.requests, self.values, strict=True)}

    @property
    def counts(self) -> dict[str, int]:
        """Users (ratings, for pooled rating measures) behind each summary."""
        return {r.label: v.count for r, v in zip(self.requests, self.values, strict=True)}

    def per_user(self, label: str) -> dict[str, float]:
        """``{user: value}`` for the users with a value."""
        for r, v in zip(self.requests, self.values, strict=True):
            if r.label == label:
                if v.per_user is None:
                    return {}
                return {
                    u: x for u, x in zip(self.user_ids, v.per_user.tolist(), strict=True) if x == x
                }
        raise KeyError(label)

    def records(self, per_user: bool = True) -> list[dict[str, Any]]:
        """The tidy rows (run, user, measure, value, users): with ``per_user`` one per (user
        with a value, measure), then per measure the summary under user ``all`` with
        ``users``, the number of users (or ratings) behind it (None on a user's row)."""
        out: list[dict[str, Any]] = []
        if per_user:
            for r, v in zip(self.requests, self.values, strict=True):
                if v.per_user is None:
                    continue
                for user, x in zip(self.user_ids, v.per_user.tolist(), strict=True):
                    if x == x:  # NaN: no value for this user
                        out.append(
                            {"run": self.name, "user": user, "measure": r.label, "value": x,
                             "users": None}
                        )  # fmt: skip
        for r, v in zip(self.requests, self.values, strict=True):
            out.append(
                {"run": self.name, "user": "all", "measure": r.label, "value": v.summary,
                 "users": v.count}
            )  # fmt: skip
        return out

    def to_frame(self, output: str = "pandas", per_user: bool = True) -> Any:
        """`records` as a DataFrame (pandas, polars) or a dict of columns."""
        return records_frame(self.records(per_user), (*TIDY_COLUMNS, "users"), output)

    def to_dict(self) -> dict[str, Any]:
        """The system's name, summaries, users behind them and per-user values (full
        precision, JSON-ready; users without a value left out)."""
        return {
            "run": self.name, "summary": plain(self.summary), "users": self.counts,
            "per_user": {label: self.per_user(label) for label in self.labels},
        }  # fmt: skip


#: The columns of the tidy table of systems (`tidy`).
TIDY_COLUMNS = ("run", "user", "measure", "value")


def _systems(recommendations: Any) -> list[tuple[str | None, Any]]:
    """(name, source) per system: one source, a list of them, a directory or a
    ``{name: source}`` dict (told apart from a ``{user: {item: score}}`` dict by depth)."""
    if isinstance(recommendations, Run | str | os.PathLike) or is_frame(recommendations):
        if isinstance(recommendations, str | os.PathLike) and Path(recommendations).is_dir():
            return [(None, p) for p in run_files([recommendations])]
        return [(None, recommendations)]
    if isinstance(recommendations, Mapping):
        first = next(iter(recommendations.values()), None)
        if isinstance(first, Mapping) and first:  # a dict of dicts: one system or several
            inner = next(iter(first.values()))
            if isinstance(inner, Mapping | list | tuple):
                return [(str(k), v) for k, v in recommendations.items()]
        if isinstance(first, Run | str | os.PathLike) or is_frame(first):
            return [(str(k), v) for k, v in recommendations.items()]
        return [(None, recommendations)]
    if isinstance(recommendations, Sequence):
        out: list[tuple[str | None, Any]] = []
        for r in recommendations:
            out.extend(_systems(r))
        return out
    raise UsageError(f"cannot read recommendations from {type(recommendations).__name__}")


@dataclass(frozen=True)
class Inputs:
    """Everything an evaluation reads, users and items interned into shared vocabularies."""

    items: Vocabulary
    test: Interactions
    train: Interactions | None
    popularity: Interactions | None
    runs: list[Run]
    baseline: Run | None
    features: ItemFeatures | None
    catalog: np.ndarray | None

    def item_popularity(self) -> Popularity | None:
        """The popularity log counted (None without one)."""
        return None if self.popularity is None else Popularity.of(self.popularity, len(self.items))


def read_inputs(
    test_log: Any, recommendations: Any, train: Any, popularity: Any, baseline: Any,
    features: Any, catalog: Any, columns: Mapping[str, str] | None, duplicates: str = "max-score",
) -> Inputs:  # fmt: skip
    """Every input of an evaluation read (see `evaluate` for each), users and items
    interned into shared vocabularies."""
    users, items = Vocabulary(), Vocabulary()

    def log(source: Any) -> Interactions:
        return read_interactions(source, users=users, items=items, columns=columns)

    def lists(source: Any, name: str | None) -> Run:
        return read_recommendations(
            source, users=users, items=items, name=name, columns=columns, duplicates=duplicates
        )

    test_log = keep_latest(log(test_log))
    train_log = None if train is None else keep_latest(log(train))
    pop_log = train_log if popularity is None else log(popularity)
    runs = unique_run_names([lists(src, name) for name, src in _systems(recommendations)])
    base_run = None if baseline is None else lists(baseline, "baseline")
    item_features = None
    if features is not None:
        item_features = read_item_features(features, items=items, columns=columns)
    catalog_codes = None
    if catalog is not None:
        ids = [str(i) for i in catalog]
        if not ids:
            raise InputError("catalog is empty")
        catalog_codes = items.intern_many(ids).astype(np.int64)
    return Inputs(
        items, test_log, train_log, pop_log, runs, base_run, item_features, catalog_codes
    )


def _seen_policy(run: Run, train_log: Interactions | None, seen: str, num_items: int) -> Run:
    """Find (and with ``seen="drop"`` remove) recommended items of the user's training data."""
    if train_log is None:
        return run
    hit = seen_pairs(run, train_log, num_items)
    tell_seen(run.name, int(hit.sum()), seen)
    return drop_rows(run, hit) if seen == "drop" else run


def seen_pairs(run: Run, train_log: Interactions, num_items: int) -> np.ndarray:
    """Which rows of ``run`` recommend an item of the user's training data."""
    seen_keys = np.unique(train_log.keys(num_items))
    keys = run.query.astype(np.int64) * num_items + run.doc
    pos = np.minimum(np.searchsorted(seen_keys, keys), max(len(seen_keys) - 1, 0))
    return seen_keys[pos] == keys if len(seen_keys) else np.zeros(len(keys), dtype=bool)


def tell_seen(name: str, found: int, seen: str) -> None:
    """The warning for ``found`` recommended (user, item) pairs of the training data: kept
    (``seen="keep"``) or removed."""
    if not found:
        return
    if seen == "keep":
        text = (
            f"{name}: {found} recommended (user, item) pairs are in the training data; "
            "they count as non-relevant unless also in the test data"
        )
        warn(f"{text} (seen='drop' removes them)", cli=f"{text} (--seen drop removes them)")
    else:
        warn(f"{name}: {found} recommended (user, item) pairs of the training data removed")


def drop_rows(run: Run, drop: np.ndarray) -> Run:
    """``run`` without the rows ``drop`` marks."""
    if not drop.any():
        return run
    keep = ~drop
    return Run(
        run.name, run.queries, run.docs, run.query[keep], run.doc[keep], run.score[keep],
        run.source, None if run.line is None else run.line[keep], run.tag,
    )  # fmt: skip


def check_one_sided(ctx: Context) -> None:
    """`tell_one_sided` for the users of ``ctx``'s test log and recommendation lists."""
    test_users = np.zeros(len(ctx.qrels.queries), dtype=bool)
    test_users[ctx.test.user] = True
    rec_users = np.zeros(len(ctx.qrels.queries), dtype=bool)
    rec_users[ctx.run.query] = True
    examples = None
    if rec_users.any() and not (rec_users & test_users).any():
        vocabulary = ctx.qrels.queries
        examples = (
            vocabulary.strings[int(np.flatnonzero(rec_users)[0])],
            vocabulary.strings[int(np.flatnonzero(test_users)[0])],
        )
    tell_one_sided(
        ctx.run.name, ctx.run.source, ctx.test.source,
        only_recs=int((rec_users & ~test_users).sum()),
        only_test=int((test_users & ~rec_users).sum()),
        test_users=int(test_users.sum()), overlap=bool((rec_users & test_users).any()),
        examples=examples,
    )  # fmt: skip


def tell_one_sided(
    name: str,
    recs_source: str,
    test_source: str,
    *,
    only_recs: int,
    only_test: int,
    test_users: int,
    overlap: bool,
    examples: tuple[str, str] | None = None,
) -> None:
    """Users on one side only, from their counts: lists sharing no user with the test log
    are an `InputError` (``examples``: a user of each side, to show), others a warning."""
    if only_recs and not overlap:  # nothing to evaluate
        shown = (
            f" (the lists have {examples[0]!r}, the test log {examples[1]!r})" if examples else ""
        )
        raise InputError(
            f"{recs_source}: no user of the recommendation lists is in the test log "
            f"{test_source}: every measure would be 0; are the user ids spelled alike{shown}, "
            "and the files given in the order TEST RECS?"
        )
    if only_recs:
        warn(f"{name}: {only_recs} users with recommendations have no test data; ignored")
    if only_test:
        warn(
            f"{name}: {only_test} of {test_users} test users have no "
            "recommendations; they count with an empty list"
        )


def _looks_like_scores(test_log: Interactions) -> bool:
    """Whether a test log's ratings look like a recommender's scores (some not whole
    numbers), as when the recommendations were given as the test log."""
    ratings = test_log.rating
    if ratings is None or not len(ratings):
        return False
    return bool(np.any(ratings != np.round(ratings)))


def tell_notes(name: str, notes: Iterable[Note]) -> None:
    """The notes the measures left (what they could not compute, and why), each a warning
    naming the system ``name``, when it says so."""
    for note in notes:
        if note.told:
            warn(f"{name}: {note.text}")


def tell_no_relevant(
    name: str,
    requests: Sequence[Any],
    *,
    none: int,
    users: int,
    no_relevant: str,
    rule: bool,
    threshold: float | None,
    looks_like_scores: bool,
) -> None:
    """The warning for ``none`` of ``users`` test users without a relevant test item, for
    the ``requests`` that count relevant items (``rule``: relevance is ``rating >=
    threshold``, else any interaction); all of them, and test ratings that look like
    scores (``looks_like_scores``), suggest the arguments were swapped."""
    if not none:
        return
    relevance = [r.label for r in requests]
    rule_text = f"rating >= {threshold:g}" if rule and threshold is not None else "any interaction"
    what, option = (
        ("left out of the means", "")
        if no_relevant == "exclude"
        else ("counted as 0", "no_relevant='zero'")
    )
    shown = ", ".join(relevance[:4]) + (", ..." if len(relevance) > 4 else "")
    text = (
        f"{name}: {none} of {users} test users have no relevant test item "
        f"({rule_text}); {what}{{}} of {shown}"
    )
    swapped = ""
    if none == users and looks_like_scores:
        swapped = (
            "; the test ratings look like recommendation scores: are the arguments "
            "swapped? The test log comes first, then the recommendations"
        )
    warn(
        text.format(f" ({option})" if option else "") + swapped,
        cli=text.format(" (--no-relevant zero)" if option else "") + swapped,
    )


def tidy(results: list[SystemEvaluation], per_user: bool = True) -> dict[str, list]:
    """The tidy table (run, user, measure, value) of systems as a dict of columns: their
    `SystemEvaluation.records`, one system after another."""
    records = [record for res in results for record in res.records(per_user)]
    return records_frame(records, TIDY_COLUMNS, "dict")
