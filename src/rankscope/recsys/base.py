"""Recommender measures as declarative objects, and the evaluation context they read.

A `RecsysMeasure` is a `rankscope.measures.Measure` (name, spellings, parameter schema,
documentation with formula, meaning and reference) whose kernel maps a `Context` — one
system's recommendations joined with the test, training and feature data — to `Values`:
one value per evaluated user (NaN where the measure is undefined for the user, who is then
left out of the mean) and the summary.  The context computes each shared piece once (the
judged top-k lists per cutoff, item popularity, the popularity baseline) and caches it.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import UsageError
from ..judge import Judged, judge
from ..measures.base import Measure, Param
from ..model import Interactions, ItemFeatures, Qrels, Run, Vocabulary

#: The cutoff parameter of the top-N measures (None: the evaluation's ``k``).
K = Param(
    "k", int, None, "list length evaluated, the cutoff (default: the evaluation's k, 10)", minimum=1
)

KINDS = ("rating", "topn", "list", "catalog", "confidence")


@dataclass
class Values:
    """A measure's result for one system.

    ``tally``: for a measure whose summary is not a mean of its per-user values (the
    catalog, pooled rating and confidence measures), the totals the summary is made from by
    the measure's ``finish``: a dict whose entries add over disjoint sets of users (integers,
    integer arrays element by element, `rankscope.stats.exact.ExactSum`, `Sample`), so that a
    cluster adds its partitions' tallies (`add_tallies`) and finishes them into the very
    summary one process makes."""

    per_user: np.ndarray | None  # one float per evaluated user; NaN: no value (left out)
    summary: float
    count: int  # users (ratings, for pooled rating measures) behind the summary
    tally: dict[str, Any] | None = None


@dataclass(frozen=True)
class Sample:
    """Rows kept whole in a tally (they add by concatenation): for the summaries that need
    every pooled prediction, and whose finish does not depend on the rows' order."""

    columns: tuple[np.ndarray, ...]

    def __add__(self, other: Sample) -> Sample:
        return Sample(tuple(np.concatenate(p) for p in zip(self.columns, other.columns,
                                                           strict=True)))  # fmt: skip


@dataclass(frozen=True)
class Same:
    """A tally's entry that does not add: the same for every set of users (made from inputs
    every partition holds whole, such as the catalog's items per group)."""

    value: Any

    def __add__(self, other: Same) -> Same:
        if not np.array_equal(self.value, other.value):
            raise ValueError("tallies disagree on a value every partition shares")
        return self

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.asarray(self.value, dtype=dtype)


def add_tallies(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """The tally of the union of two disjoint sets of users: each entry added (an entry one
    side lacks is the other's)."""
    out = dict(a)
    for key, value in b.items():
        out[key] = out[key] + value if key in out else value
    return out


def finished(per_user: np.ndarray | None, tally: dict[str, Any], finish: Callable[..., Any],
             **params: Any) -> Values:  # fmt: skip
    """A pooled measure's `Values`: its summary and count made by ``finish(tally, **params)``,
    as a cluster makes them from the added tallies of its partitions."""
    summary, count = finish(tally, **params)
    return Values(per_user, summary, count, tally)


#: A recommender measure's kernel: a `Context` (and parameters) to `Values`.
RecsysKernel = Callable[..., Values]


#: How the system's value of a measure of each kind summarises its users, for the measures
#: that do not say (rating and confidence measures each say how they pool).
KIND_SUMMARIES = {
    "topn": "mean over the users with a value",
    "list": "mean over the users with a non-empty list",
    "catalog": "one value for the system (no per-user value)",
}


@dataclass(eq=False)
class RecsysMeasure(Measure[Values]):
    """A recommender measure.

    ``kind``: ``rating`` (rating prediction: predictions joined with the test ratings),
    ``topn`` (accuracy of the top-k list against the relevant test items), ``list`` (a
    property of each user's top-k list) or ``catalog`` (a property of all lists together,
    no per-user value) or ``confidence`` (predicted probabilities joined with the test
    outcomes).  ``relevance``: the value needs relevant test items, so users
    without any follow the no-relevant policy.  ``needs``: inputs beyond test and
    recommendations (``ratings``, ``popularity``, ``features``).  ``finish``: for a measure
    whose summary is not the mean of its per-user values, the function that makes the
    summary and its count from the tally the kernel returns (`Values.tally`), with the
    measure's parameters.  Every recommender measure is of the ``recsys`` family.
    """

    family: str = "recsys"
    kind: str = "topn"
    relevance: bool = False
    needs: tuple[str, ...] = ()
    summary_doc: str = ""  # how the summary is made; default: the kind's (KIND_SUMMARIES)
    finish: Callable[..., tuple[float, int]] | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.summary_doc:
            self.summary_doc = KIND_SUMMARIES[self.kind]


def user_mean(per_user: np.ndarray) -> Values:
    """The mean over the users with a value (the usual summary)."""
    defined = ~np.isnan(per_user)
    n = int(defined.sum())
    mean = float(np.cumsum(per_user[defined])[-1] / n) if n else float("nan")
    return Values(per_user, mean, n)


@dataclass(frozen=True)
class Lists:
    """Each evaluated user's top-k list: item codes ``items[offsets[u]:offsets[u+1]]``."""

    offsets: np.ndarray  # int64 (users + 1,)
    items: np.ndarray  # int64 flat item codes, best first
    relevant: np.ndarray  # bool flat: the item is a relevant test item of the user

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    @functools.cached_property
    def owner(self) -> np.ndarray:
        """The user (row) of each flat entry."""
        return np.repeat(np.arange(len(self.offsets) - 1), self.lengths)


@dataclass(frozen=True)
class Note:
    """Something a measure tells the user about a system's evaluation, in parts that add
    over disjoint sets of users (so that a cluster tells what one process tells): counts,
    distinct item ids and the first example by position in the input.

    ``template``: a `str.format` string over the ``counts`` by name, ``items`` (how many
    distinct ``item_ids``) and ``example``; ``when``: the count that must be positive for
    the note to be told (``"!name"``: that must be zero; empty: always)."""

    template: str
    counts: tuple[tuple[str, int], ...]
    item_ids: frozenset[str] = frozenset()
    example: tuple[int, str] | None = None  # (position in the input, the text)
    when: str = ""

    def __add__(self, other: Note) -> Note:
        counts = dict(self.counts)
        for name, value in other.counts:
            counts[name] = counts.get(name, 0) + value
        examples = [e for e in (self.example, other.example) if e is not None]
        return dataclasses.replace(
            self, counts=tuple(counts.items()), item_ids=self.item_ids | other.item_ids,
            example=min(examples, default=None),
        )  # fmt: skip

    @property
    def told(self) -> bool:
        counts = dict(self.counts)
        if not self.when:
            return True
        if self.when.startswith("!"):
            return counts[self.when[1:]] == 0
        return counts[self.when] > 0

    @property
    def text(self) -> str:
        example = "" if self.example is None else self.example[1]
        return self.template.format(**dict(self.counts), items=len(self.item_ids),
                                    example=example)  # fmt: skip


def catalog_of(
    items: Vocabulary, test: Interactions, train: Interactions | None, catalog: np.ndarray | None
) -> np.ndarray:
    """The catalog's item codes (``catalog``, or every item of training and test), in the
    order of their ids (sorted as strings): the order every process holding the same catalog
    gives it, whatever its codes."""
    if catalog is not None:
        codes = np.unique(catalog)
    else:
        parts = [test.item] if train is None else [test.item, train.item]
        codes = np.unique(np.concatenate(parts)).astype(np.int64)
    ids = np.array(items.strings_of(codes.astype(np.int32)), dtype=str)
    return codes[np.argsort(ids, kind="stable")].astype(np.int64)


@dataclass(frozen=True)
class Popularity:
    """Item popularity: the distinct users who interacted with each item code in the
    popularity log, and how many users the log has (counted once over the whole log: a
    cluster's partitions receive it counted)."""

    per_item: np.ndarray  # int64, one per item code
    users: int

    @classmethod
    def of(cls, log: Interactions, num_items: int) -> Popularity:
        return cls(log.popularity(num_items), len(np.unique(log.user)))

    def by_id(self, items: Vocabulary) -> tuple[list[str], np.ndarray]:
        """The items someone interacted with, as ids of ``items``, and their counts."""
        codes = np.flatnonzero(self.per_item)
        return items.strings_of(codes.astype(np.int32)), self.per_item[codes]


@dataclass(eq=False)
class Context:
    """One system's recommendations with everything the measures need.

    Evaluated users: those with at least one test interaction, in id order (sorted as
    strings).  Their recommendation lists are ordered once, by `rankscope.judge.judge`.
    """

    qrels: Qrels  # test interactions as judgments (grade >= 1: relevant)
    test: Interactions
    run: Run  # recommendations (after the seen-items policy)
    k: int = 10
    ties: str = "input-order"
    no_relevant: str = "exclude"  # exclude | zero
    train: Interactions | None = None
    item_popularity: Popularity | None = None  # None: no popularity log was given
    baseline: Run | None = None
    features: ItemFeatures | None = None
    catalog: np.ndarray | None = None  # item codes; None: items of training and test
    _judged: dict = field(default_factory=dict)
    _lists: dict = field(default_factory=dict)
    notes: dict = field(default_factory=dict)  # shared intermediate results and notes

    def cached(self, key, make):
        """``make()``, computed once per context (shared by the measures that need it)."""
        if key not in self.notes:
            self.notes[key] = make()
        return self.notes[key]

    def note(self, key: str, note: Note) -> None:
        """Record something the user should be told (emitted once, as a warning, when it
        says so: `Note.told`)."""
        self.notes.setdefault(("note", key), note)

    @property
    def told_notes(self) -> dict[str, Note]:
        """The notes the measures left, by key, in the order they were left."""
        return {k[1]: v for k, v in self.notes.items() if isinstance(k, tuple) and k[0] == "note"}

    @property
    def num_items(self) -> int:
        return len(self.qrels.docs)

    def judged(self, k: int) -> Judged:
        """The top ``k`` of every evaluated user's list, joined with the test judgments (a
        user without recommendations has an empty list)."""
        if k not in self._judged:
            self._judged[k] = judge(self.qrels, self.run, ties=self.ties, max_docs=k, complete=True)
        return self._judged[k]

    @functools.cached_property
    def user_ids(self) -> list[str]:
        return self.judged(self.k).query_ids

    @property
    def num_users(self) -> int:
        return len(self.user_ids)

    @functools.cached_property
    def user_codes(self) -> np.ndarray:
        return self.qrels.queries.lookup_many(self.user_ids).astype(np.int64)

    def lists(self, k: int) -> Lists:
        if k not in self._lists:
            j = self.judged(k)
            self._lists[k] = Lists(j.offsets.astype(np.int64), j.doc.astype(np.int64), j.grade >= 1)
        return self._lists[k]

    @functools.cached_property
    def num_relevant(self) -> np.ndarray:
        """Relevant test items per evaluated user."""
        return self.judged(self.k).num_rel(1)

    def relevance_policy(self, values: np.ndarray) -> np.ndarray:
        """Users without relevant test items: NaN (left out of the mean) or 0."""
        none = self.num_relevant == 0
        if none.any():
            values = values.astype(np.float64, copy=True)
            values[none] = np.nan if self.no_relevant == "exclude" else 0.0
        return values

    # -- popularity ---------------------------------------------------------------------------

    def need_popularity(self, measure: str) -> Popularity:
        if self.item_popularity is None:
            said = f"{measure} needs item popularity: give the training interactions ({{}})"
            raise UsageError(
                said.format("train=..., or popularity=..."), cli=said.format("--train FILE")
            )
        return self.item_popularity

    @property
    def popularity(self) -> np.ndarray:
        """Distinct users per item code in the popularity log."""
        return self.need_popularity("this measure").per_item

    @property
    def popularity_users(self) -> int:
        return self.need_popularity("this measure").users

    @functools.cached_property
    def catalog_codes(self) -> np.ndarray:
        """The catalog's item codes, in the order of the item ids: `catalog_of`."""
        return catalog_of(self.qrels.docs, self.test, self.train, self.catalog)

    @functools.cached_property
    def in_catalog(self) -> np.ndarray:
        mask = np.zeros(self.num_items, dtype=bool)
        mask[self.catalog_codes] = True
        return mask

    @functools.cached_property
    def seen_keys(self) -> np.ndarray:
        """Sorted (user, item) keys of the training interactions."""
        if self.train is None:
            return np.zeros(0, dtype=np.int64)
        return np.unique(self.train.keys(self.num_items))
