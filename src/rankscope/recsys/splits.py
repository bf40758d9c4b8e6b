"""The offline protocol's first step: an interaction log split into training and test data.

Every function takes a log (anything `rankscope.recsys.read_interactions` reads: a file, a
DataFrame, a dict, an `Interactions`) and returns `Split` objects whose ``train`` and
``test`` are `Interactions` sharing the log's user and item vocabularies.

* `holdout`: a random share of the interactions is the test set (``per_user=True``: the
  same share of each user's interactions);
* `temporal`: one global time cut (a timestamp, or a quantile of the log's times);
* `temporal_per_user`: each user's latest ``last_n`` interactions;
* `leave_one_out`: one interaction per user, the latest (``by="time"``) or a random one;
* `kfold`: ``k`` near-equal parts, each the test set once (``per_user=True``: each
  user's interactions spread over the parts).

Policies (docs/recsys.md, "The offline protocol"):

* A (user, item) pair the log lists twice is merged first, keeping its latest rating, with
  a warning (`rankscope.read.interactions.keep_latest`, as every evaluation does), so a pair is in
  the training or the test data of a split, never in both.
* Random choices come from ``numpy.random.default_rng(seed)`` (PCG64: the same split on
  every platform and run for a seed and a log in the same row order).
* Shares round half up: a test share ``s`` of ``n`` interactions is ``⌊s·n + ½⌋`` of them,
  at least 1 and at most ``n − 1``.
* A user with too few interactions to give some to each side (fewer than 2 for
  `holdout` per user and `leave_one_out`, at most ``last_n`` for `temporal_per_user`) is
  kept whole in the training data, with a warning counting such users.
* Equal timestamps are ordered by the log's row order (a later line is later).
* Rows keep the log's order within the training and the test data.

Every split is checked as it is made: no (user, item) pair of its test data is in its
training data, and the test parts of `kfold` partition the log; a failed check is a bug in
rankscope (a `RuntimeError`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import UsageError, shown, warn
from ..model import Interactions
from ..read.interactions import keep_latest, read_interactions

METHODS = (
    "holdout", "per-user", "temporal", "temporal-per-user", "leave-one-out", "kfold",
    "kfold-per-user",
)  # fmt: skip


@dataclass(frozen=True, eq=False)
class Split:
    """A training log and a test log made from one interaction log (same vocabularies)."""

    train: Interactions
    test: Interactions

    def __iter__(self) -> Iterator[Interactions]:  # so that ``train, test = split`` works
        return iter((self.train, self.test))


def _read(log: Any, columns: Mapping[str, str] | None) -> Interactions:
    interactions = keep_latest(read_interactions(log, columns=columns))
    if len(interactions) < 2:
        raise UsageError(
            f"{interactions.source}: a split needs at least 2 interactions "
            f"(the log has {len(interactions)})"
        )
    return interactions


def _share(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.floating):
        raise UsageError(f"{name} must be a number between 0 and 1 (got {shown(value)})")
    if not 0 < float(value) < 1:
        said = f"{{}} must lie strictly between 0 and 1 (got {shown(value)})"
        raise UsageError(said.format(name), cli=said.format(f"--{name.replace('_', '-')}"))
    return float(value)


def _whole(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        said = f"{{}} must be a whole number >= {minimum} (got {shown(value)})"
        flag = f"-{name}" if len(name) == 1 else f"--{name.replace('_', '-')}"
        raise UsageError(said.format(name), cli=said.format(flag))
    return int(value)


def _rng(seed: Any) -> np.random.Generator:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise UsageError(
            f"seed must be a whole number >= 0 (got {seed!r})",
            cli=f"--seed must be a whole number >= 0 (got {seed!r})",
        )
    return np.random.default_rng(int(seed))


def _test_count(share: float, n: np.ndarray | int) -> np.ndarray:
    """⌊share·n + ½⌋, at least 1 and at most n − 1 (for n >= 2)."""
    count = np.floor(share * np.asarray(n, dtype=np.float64) + 0.5).astype(np.int64)
    return np.clip(count, 1, np.maximum(np.asarray(n) - 1, 1))


def _make(log: Interactions, test_rows: np.ndarray) -> Split:
    """The split whose test data are the rows ``test_rows`` (a boolean mask), checked."""
    split = Split(log.take(np.flatnonzero(~test_rows)), log.take(np.flatnonzero(test_rows)))
    _check_leakage(split)
    return split


def _check_leakage(split: Split) -> None:
    n = max(len(split.train.items), 1)
    leaked = np.isin(split.test.keys(n), split.train.keys(n))
    if leaked.any():  # every pair is once in the log (keep_latest): cannot happen
        raise RuntimeError(f"{int(leaked.sum())} test (user, item) pairs are in the training data")


def _within_user_position(user: np.ndarray, order_key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each row: its 0-based position among its user's rows ordered by ``order_key``
    (then by row), and its user's number of rows."""
    rows = np.arange(len(user))
    order = np.lexsort((rows, order_key, user))
    sorted_user = user[order]
    starts = np.flatnonzero(np.concatenate(([True], sorted_user[1:] != sorted_user[:-1])))
    sizes = np.diff(np.concatenate((starts, [len(user)])))
    position = np.empty(len(user), dtype=np.int64)
    position[order] = rows - np.repeat(starts, sizes)
    count = np.empty(len(user), dtype=np.int64)
    count[order] = np.repeat(sizes, sizes)
    return position, count


def _tell_kept(log: Interactions, too_few: np.ndarray, what: str) -> None:
    """Warn of the users kept whole in the training data; `UsageError` when that is every
    user (the test data would be empty)."""
    users = len(np.unique(log.user[too_few]))
    if users and too_few.all():
        raise UsageError(
            f"{log.source}: every user ({users:,}) has {what}, kept whole in the training "
            "data: the test data would be empty"
        )
    if users:
        warn(
            f"{log.source}: {users} user{'s' if users > 1 else ''} with {what} "
            f"kept whole in the training data"
        )


def _time(value: float) -> str:
    """A timestamp as written in logs: whole seconds without a decimal point."""
    value = float(value)
    return str(int(value)) if value.is_integer() else repr(value)


def _times(log: Interactions, method: str) -> np.ndarray:
    if log.timestamp is None:
        raise UsageError(
            f"{log.source}: {method} needs timestamps, and the log has none "
            "(columns user item rating timestamp)"
        )
    return log.timestamp


def holdout(
    log: Any,
    test_size: float = 0.2,
    seed: int = 0,
    per_user: bool = False,
    *,
    columns: Mapping[str, str] | None = None,
) -> Split:
    """A random share of the interactions as the test data (the rest: training).

    ``test_size``: the share, strictly between 0 and 1; ⌊test_size·n + ½⌋ of the n
    interactions are drawn, without replacement, by ``numpy.random.default_rng(seed)``.
    ``per_user=True`` splits each user's interactions by the share: ⌊test_size·n_u + ½⌋ of
    the user's n_u interactions (at least 1, at most n_u − 1) drawn at random for the test
    data; users with a single interaction are kept in the training data, with a warning.

    >>> from rankscope.recsys import splits
    >>> log = {"u": {"a": 5, "b": 3, "c": 4, "d": 1, "e": 2}}
    >>> split = splits.holdout(log, test_size=0.4, seed=1)
    >>> len(split.train), len(split.test)
    (3, 2)
    """
    share = _share("test_size", test_size)
    if per_user:
        return _random_per_user(log, seed, columns, lambda count: _test_count(share, count))
    rng = _rng(seed)
    interactions = _read(log, columns)
    n = len(interactions)
    test = np.zeros(n, dtype=bool)
    test[rng.permutation(n)[: int(_test_count(share, n))]] = True
    return _make(interactions, test)


def _random_per_user(
    log: Any, seed: Any, columns: Mapping[str, str] | None,
    test_count: Callable[[np.ndarray], np.ndarray | int],
) -> Split:
    """Each user's interactions in a random order (``seed``), the first ``test_count`` of
    the user's count of them the test data (the per-user holdout, leave-one-out at random);
    users with a single interaction are kept in the training data, with a warning."""
    rng = _rng(seed)
    interactions = _read(log, columns)
    position, count = _within_user_position(interactions.user, rng.random(len(interactions)))
    test = (count >= 2) & (position < test_count(count))
    _tell_kept(interactions, count < 2, "a single interaction")
    return _make(interactions, test)


def temporal(
    log: Any,
    cut: float,
    *,
    columns: Mapping[str, str] | None = None,
) -> Split:
    """One global time cut: the interactions before it are the training data, those at or
    after it the test data.

    ``cut`` strictly between 0 and 1 is a quantile: the cut is the timestamp of the
    interaction at 0-based position ⌊cut·n⌋ in time order, so that (with distinct
    timestamps) the first ⌊cut·n⌋ interactions train and interactions sharing the cut's
    timestamp all go to the test data.  Any other number is a timestamp, in the log's unit
    (MovieLens: seconds since 1970).  A cut leaving either side empty is a `UsageError`.
    """
    if isinstance(cut, bool) or not isinstance(cut, int | float | np.integer | np.floating):
        raise UsageError(f"cut must be a timestamp or a quantile in (0, 1) (got {cut!r})")
    if not math.isfinite(float(cut)):
        raise UsageError(f"cut must be a finite number (got {cut!r})")
    interactions = _read(log, columns)
    times = _times(interactions, "a temporal split")
    if 0 < float(cut) < 1:
        at = np.sort(times, kind="stable")[int(math.floor(float(cut) * len(times)))]
        described = f"the {float(cut):g} quantile, timestamp {_time(at)}"
    else:
        at = float(cut)
        described = f"timestamp {_time(at)}"
    test = times >= at
    if test.all() or not test.any():
        side = "training" if test.all() else "test"
        raise UsageError(
            f"{interactions.source}: the cut at {described} leaves the {side} data empty "
            f"(the log's timestamps run from {_time(times.min())} to {_time(times.max())})",
        )
    return _make(interactions, test)


def temporal_per_user(
    log: Any,
    last_n: int = 1,
    *,
    columns: Mapping[str, str] | None = None,
) -> Split:
    """Each user's ``last_n`` latest interactions as the test data (equal timestamps in
    the log's row order: the later line is the later one).  Users with at most ``last_n``
    interactions are kept whole in the training data, with a warning."""
    last = _whole("last_n", last_n, 1)
    interactions = _read(log, columns)
    times = _times(interactions, "a temporal split per user")
    position, count = _within_user_position(interactions.user, times)
    test = (count > last) & (position >= count - last)
    what = "a single interaction" if last == 1 else f"at most {last} interactions"
    _tell_kept(interactions, count <= last, what)
    return _make(interactions, test)


def leave_one_out(
    log: Any,
    by: str = "time",
    seed: int = 0,
    *,
    columns: Mapping[str, str] | None = None,
) -> Split:
    """One interaction per user as the test data: the latest (``by="time"``; equal
    timestamps in row order, the later line last) or one drawn at random (``by="random"``,
    ``seed``).  Users with a single interaction are kept in the training data (warned)."""
    if by not in ("time", "random"):
        raise UsageError(f"by must be 'time' or 'random', not {by!r}")
    if by == "time":
        return temporal_per_user(log, 1, columns=columns)
    return _random_per_user(log, seed, columns, lambda count: 1)


def kfold(
    log: Any,
    k: int = 5,
    seed: int = 0,
    per_user: bool = False,
    *,
    columns: Mapping[str, str] | None = None,
) -> list[Split]:
    """``k`` splits whose test data are ``k`` near-equal parts of the log (sizes differ by
    at most one), each part the test data once, the other parts its training data.

    The interactions are shuffled by ``numpy.random.default_rng(seed)`` and dealt into the
    parts.  ``per_user=True`` deals each user's interactions in turn (shuffled, then cycled
    over the parts), so every user's interactions spread over the parts as evenly as they
    can; a user with fewer than ``k`` interactions is in the test data of some folds only
    (and a user with one interaction has no training data in that fold).

    >>> from rankscope.recsys import splits
    >>> log = {"u": {"a": 5, "b": 3, "c": 4}, "v": {"a": 2, "d": 5}}
    >>> folds = splits.kfold(log, k=2, seed=0)
    >>> [len(f.test) for f in folds]
    [3, 2]
    """
    parts = _whole("k", k, 2)
    rng = _rng(seed)
    interactions = _read(log, columns)
    n = len(interactions)
    if parts > n:
        raise UsageError(
            f"{interactions.source}: {parts} folds need at least {parts} interactions "
            f"(the log has {n})"
        )
    if per_user:
        order = np.lexsort((rng.random(n), interactions.user))
    else:
        order = rng.permutation(n)
    fold = np.empty(n, dtype=np.int64)
    if per_user:
        fold[order] = np.arange(n) % parts
    else:
        sizes = np.full(parts, n // parts)
        sizes[: n % parts] += 1
        fold[order] = np.repeat(np.arange(parts), sizes)
    splits = [_make(interactions, fold == f) for f in range(parts)]
    covered = np.sort(np.concatenate([np.flatnonzero(fold == f) for f in range(parts)]))
    if len(covered) != n or not np.array_equal(covered, np.arange(n)):
        raise RuntimeError("the test parts of the folds do not partition the log")
    return splits


def split(
    log: Any,
    method: str,
    *,
    k: int = 5,
    test_size: float = 0.2,
    cut: float | None = None,
    last_n: int = 1,
    by: str = "time",
    seed: int = 0,
    columns: Mapping[str, str] | None = None,
) -> list[Split]:
    """The splits of ``method`` (one of `METHODS`: ``holdout``, ``per-user``,
    ``temporal``, ``temporal-per-user``, ``leave-one-out``, ``kfold``, ``kfold-per-user``)
    as a list (one split, or ``k`` for K-fold), with that method's parameters."""
    if method == "holdout":
        return [holdout(log, test_size, seed, columns=columns)]
    if method == "per-user":
        return [holdout(log, test_size, seed, per_user=True, columns=columns)]
    if method == "temporal":
        if cut is None:
            raise UsageError(
                "a temporal split needs a cut (cut=...)", cli="a temporal split needs a cut (--cut)"
            )
        return [temporal(log, cut, columns=columns)]
    if method == "temporal-per-user":
        return [temporal_per_user(log, last_n, columns=columns)]
    if method == "leave-one-out":
        return [leave_one_out(log, by, seed, columns=columns)]
    if method in ("kfold", "kfold-per-user"):
        return kfold(log, k, seed, method == "kfold-per-user", columns=columns)
    raise UsageError(f"unknown split method {method!r}: choose {', '.join(METHODS)}")
