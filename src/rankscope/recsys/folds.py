"""``rankscope.recsys.evaluate_folds``: the offline protocol's evaluation over folds.

Each fold is a training log and a test log (MovieLens ``u1.base``/``u1.test``, ...); each
system has one recommendation list per fold.  Per fold, every system is evaluated as
`rankscope.evaluate_recsys_systems` evaluates it on that fold alone, the fold's training
items removed from its lists first (``seen="drop"``, the protocol's default); preference
methods (RPP, gRPP, lexiprecision, ...) give each system its mean win rate over the
others on that fold's users.  Then, per system and measure: the mean over the folds, their
standard deviation (n − 1), minimum and maximum, and against a baseline system the
difference of the means with a paired test across the folds (optionally across the users
of every fold pooled), corrected over the comparisons of the measure as ``rankscope
compare`` corrects them.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError, RankscopeWarning, UsageError, warn
from ..judge import relevance_table
from ..measures import Request, compute_request, needs_rankings, parse_method
from ..model.frames import NamedTables
from ..read.runs import baseline_name
from ..stats.corrections import adjust, correction_named
from ..stats.procedures import named, p_values
from .evaluation import check_options, evaluate_inputs
from .registry import parse
from .splits import Split
from .systems import SystemEvaluation, _seen_policy, read_inputs

_FOLD_FILE = re.compile(r"^(.*?)(\d+)\.base$")
_TEST_FILE = re.compile(r"^(.*?\d+)\.test$")


@dataclass(frozen=True)
class Fold:
    """One fold: its name (``u1``), training and test data (anything the readers read)."""

    name: str
    train: Any
    test: Any


@dataclass(frozen=True)
class FoldSummary:
    """One system on one measure over the folds, and its comparison with the baseline
    (None for the baseline itself)."""

    system: str
    measure: str
    kind: str  # "metric" or "preference"
    mean: float  # of the fold values
    std: float  # sample standard deviation (n − 1) of the fold values
    min: float
    max: float
    folds: int  # folds with a value
    baseline: str | None = None
    difference: float | None = None  # mean − the baseline's mean
    p_value: float | None = None  # paired test across folds, after the correction
    p_unadjusted: float | None = None
    wins: int | None = None  # folds where the system beats the baseline
    losses: int | None = None
    users: int | None = None  # (fold, user) pairs of the pooled test
    p_users: float | None = None  # paired test across the pooled users, corrected
    p_users_unadjusted: float | None = None


@dataclass(frozen=True)
class FoldsEvaluation(NamedTables):
    """The result of `evaluate_folds`: fold values (systems × measures × folds), the users
    behind each, and a `FoldSummary` per (system, measure)."""

    folds: list[str]
    systems: list[str]
    measures: list[str]
    kinds: list[str]
    values: np.ndarray  # systems × measures × folds
    counts: np.ndarray  # users (ratings, for pooled rating measures) behind each value
    summaries: list[FoldSummary]
    baseline: str | None
    test: str
    correction: str

    def value(self, system: str, measure: str, fold: str) -> float:
        """One system's value on one measure in one fold."""
        return float(
            self.values[
                self.systems.index(system), self.measures.index(measure), self.folds.index(fold)
            ]
        )

    def summary(self, system: str, measure: str) -> FoldSummary:
        """The `FoldSummary` of ``system`` on ``measure``."""
        for s in self.summaries:
            if s.system == system and s.measure == measure:
                return s
        raise KeyError((system, measure))

    #: The two tables of a folds evaluation, for ``table=``, and their columns: the values,
    #: and the summaries.
    TABLES = {
        "folds": ("system", "fold", "measure", "value", "users"),
        "summaries": tuple(FoldSummary.__dataclass_fields__),
    }

    def records(self, table: str = "folds") -> list[dict[str, Any]]:
        """The rows of ``table``: ``folds``, the fold values as a tidy table (system, fold,
        measure, value, users); ``summaries``, one `FoldSummary` per (system, measure)."""
        if self.check_table(table) == "summaries":
            return [asdict(s) for s in self.summaries]
        return [
            {"system": system, "fold": fold, "measure": measure,
             "value": float(self.values[s, m, f]), "users": int(self.counts[s, m, f])}
            for s, system in enumerate(self.systems)
            for f, fold in enumerate(self.folds)
            for m, measure in enumerate(self.measures)
        ]  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        """The settings and both tables (full precision, JSON-ready)."""
        return {
            "folds": list(self.folds), "systems": list(self.systems),
            "measures": list(self.measures), "baseline": self.baseline, "test": self.test,
            "correction": self.correction, "values": self.records("folds"),
            "summaries": self.records("summaries"),
        }  # fmt: skip


# -- reading the folds and the systems ---------------------------------------------------------


def _natural(name: str) -> tuple:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name))


def _check_contiguous(root: Path, prefix: str, found: list[Fold]) -> None:
    """The folds of a directory are one complete set, ``u1`` to ``uK`` with no number
    missing and none repeated (``u01`` beside ``u1``): a split cut short, or an older split
    mixed with a newer one, would otherwise be evaluated as fewer folds, silently."""
    numbers = sorted(int(f.name[len(prefix) :]) for f in found)
    expected = list(range(1, len(numbers) + 1))
    if numbers == expected:
        return
    if len(set(numbers)) < len(numbers) or 0 in numbers:
        odd = sorted(f.name for f in found if f.name[len(prefix) :].startswith("0"))
        raise InputError(
            f"{root}: fold {odd[0]} is not one of {prefix}1 ... {prefix}{len(numbers)}: "
            "the folds are numbered from 1, without leading zeros"
        )
    missing = sorted(set(range(1, max(numbers) + 1)) - set(numbers))
    raise InputError(
        f"{root}: fold {prefix}{missing[0]} ({prefix}{missing[0]}.base and "
        f"{prefix}{missing[0]}.test) is missing, though {prefix}{max(numbers)} is there: "
        f"the folds must be {prefix}1 ... {prefix}K, each with its base and test files"
    )


def read_folds(folds: Any) -> list[Fold]:
    """The folds of ``folds``: a directory of ``PREFIX N.base``/``PREFIX N.test`` pairs
    (MovieLens ``u1.base``/``u1.test`` ... ``u5``, in the order of N; files without a number,
    ``ua.base``, are not folds), which must be a complete set, ``u1`` to ``uK`` each with
    both files (an `InputError` naming the fold or file missing), or a list of `Split`
    objects or ``(train, test)`` pairs (named ``u1``, ``u2``, ..., as `rankscope split`
    writes them)."""
    if isinstance(folds, str | os.PathLike):
        root = Path(folds)
        if not root.is_dir():
            raise UsageError(f"{folds}: the folds must be a directory of uN.base/uN.test files")
        found = []
        for child in sorted(root.iterdir()):
            match = _FOLD_FILE.match(child.name)
            if match and child.is_file():
                test = child.with_name(child.name[: -len(".base")] + ".test")
                if not test.is_file():
                    raise InputError(f"{child}: its test data, {test.name}, is not in {root}")
                found.append(Fold(child.name[: -len(".base")], str(child), str(test)))
            alone = _TEST_FILE.match(child.name)
            if alone and child.is_file() and not child.with_suffix(".base").is_file():
                raise InputError(f"{child}: its training data, {alone[1]}.base, is not in {root}")
        if not found:
            raise InputError(f"{folds}: no fold files (u1.base and u1.test, u2.base, ...)")
        prefixes = {_FOLD_FILE.match(f.name + ".base").group(1) for f in found}  # type: ignore[union-attr]
        if len(prefixes) > 1:
            raise InputError(
                f"{folds}: folds of several series ({', '.join(sorted(prefixes))}): "
                "keep one series of uN.base/uN.test files in the directory"
            )
        _check_contiguous(root, prefixes.pop(), found)
        return sorted(found, key=lambda f: _natural(f.name))
    if isinstance(folds, Sequence) and not isinstance(folds, str | bytes):
        out = []
        for i, item in enumerate(folds, start=1):
            if isinstance(item, Fold):
                out.append(item)
                continue
            if isinstance(item, Split) or (isinstance(item, tuple) and len(item) == 2):
                train_log, test_log = item
                out.append(Fold(f"u{i}", train_log, test_log))
                continue
            raise UsageError(
                f"fold {i}: expected a Split or a (train, test) pair, not {type(item).__name__}"
            )
        if not out:
            raise UsageError("no folds given")
        return out
    raise UsageError(f"cannot read folds from {type(folds).__name__}")


def _fold_file(directory: Path, fold: str) -> str:
    """The file of ``fold`` in a system's directory: the one named ``fold`` before its first
    dot (``u1.tsv``, ``u1.run.gz``, ``u1``)."""
    matches = [
        c
        for c in directory.iterdir()
        if c.is_file() and not c.name.startswith(".") and c.name.split(".")[0] == fold
    ]
    if not matches:
        raise InputError(f"{directory}: no recommendations for fold {fold} (a file {fold}.tsv)")
    if len(matches) > 1:
        shown = ", ".join(sorted(c.name for c in matches))
        raise InputError(f"{directory}: several files for fold {fold} ({shown}): keep one")
    return str(matches[0])


def _system_dirs(path: Path) -> list[tuple[str, Path]]:
    """A directory of system directories, or one system's directory (its name the
    system's)."""
    subdirs = sorted(c for c in path.iterdir() if c.is_dir() and not c.name.startswith("."))
    if subdirs:
        return [(c.name, c) for c in subdirs]
    return [(path.name, path)]


def read_systems(recommendations: Any, folds: Sequence[Fold]) -> dict[str, list[Any]]:
    """``{system: [recommendations of each fold]}`` from a ``{system: [source per fold]}``
    or ``{system: directory}`` dict, a directory, or a list of directories.  A system's
    directory holds one file per fold named after it (``u1.tsv``, ``u2.tsv``, ...); a
    directory of such directories is a system per subdirectory."""
    names = [f.name for f in folds]
    entries: list[tuple[str, Any]] = []
    if isinstance(recommendations, Mapping):
        entries = [(str(k), v) for k, v in recommendations.items()]
    elif isinstance(recommendations, str | os.PathLike):
        entries = [(n, p) for n, p in _system_dirs(_directory(recommendations))]
    elif isinstance(recommendations, Sequence) and not isinstance(recommendations, bytes):
        for r in recommendations:
            entries += [(n, p) for n, p in _system_dirs(_directory(r))]
    else:
        raise UsageError(f"cannot read recommendations from {type(recommendations).__name__}")
    systems: dict[str, list[Any]] = {}
    for name, source in entries:
        if name in systems:
            raise UsageError(f"two systems are named {name!r}: rename one of their directories")
        if isinstance(source, str | os.PathLike):
            directory = _directory(source)
            systems[name] = [_fold_file(directory, fold) for fold in names]
        elif isinstance(source, Sequence) and not isinstance(source, str | bytes):
            if len(source) != len(folds):
                raise UsageError(
                    f"system {name!r}: {len(source)} recommendation lists for {len(folds)} folds"
                )
            systems[name] = list(source)
        else:
            raise UsageError(
                f"system {name!r}: expected a directory or a list with one source per fold"
            )
    if not systems:
        raise UsageError("no systems given")
    return systems


def _directory(path: Any) -> Path:
    p = Path(path)
    if not p.is_dir():
        raise UsageError(
            f"{path}: with folds, recommendations are directories (SYSTEM/u1.tsv, "
            "SYSTEM/u2.tsv, ...)"
        )
    return p


# -- the evaluation --------------------------------------------------------------------------


def _split_measures(
    measures: str | Sequence[str] | None, k: int
) -> tuple[list[str] | None, list[Request]]:
    """(recommender measure names or None for the defaults, preference requests)."""
    if measures is None:
        return None, []
    specs = [measures] if isinstance(measures, str) else list(measures)
    metrics: list[str] = []
    methods: dict[Request, Request] = {}
    for spec in specs:
        try:
            request = parse_method(spec)
        except UsageError:
            parse(spec, k)  # a name of neither kind: the recommender registry's error
            metrics.append(spec)
            continue
        methods.setdefault(request, request)
    return (metrics or []), list(methods.values())


@dataclass
class _FoldResult:
    labels: list[str]
    kinds: list[str]
    summary: np.ndarray  # systems × measures
    counts: np.ndarray
    per_user: list[list[dict[str, float] | None]]  # [system][measure] -> {user: value}


def _preference_values(
    qrels, runs, methods: list[Request], k: int, ties: str, no_relevant: str, test_users: int,
    reference: int,
) -> tuple[np.ndarray, np.ndarray, list[list[dict[str, float]]]]:
    """Each system's mean preference over the ``reference`` system (the baseline), per
    method: a value of the two systems only, whichever others are given."""
    if len(runs) < 2:
        raise UsageError("preference methods compare systems: give at least two systems")
    table = relevance_table(
        qrels, runs, ties=ties, max_docs=k, keep_rankings=needs_rankings(methods)
    )
    summary = np.zeros((len(runs), len(methods)))
    counts = np.zeros((len(runs), len(methods)), dtype=np.int64)
    per_user: list[list[dict[str, float]]] = [[] for _ in runs]
    for m, request in enumerate(methods):
        found = compute_request(table, request)
        wins = found.prefs[:, :, reference]  # users × systems: P[user, system, baseline]
        users = len(found.query_ids)
        divisor = users if no_relevant == "exclude" else test_users
        for s in range(len(runs)):
            column = wins[:, s]
            summary[s, m] = float(np.cumsum(column)[-1] / divisor) if users else math.nan
            counts[s, m] = divisor
            per_user[s].append(dict(zip(found.query_ids, column.tolist(), strict=True)))
    return summary, counts, per_user


def _evaluate_fold(
    fold: Fold, systems: dict[str, list[Any]], index: int, metrics: list[str] | None,
    methods: list[Request], options: dict[str, Any],
) -> _FoldResult:  # fmt: skip
    sources = {name: lists[index] for name, lists in systems.items()}
    read = read_inputs(
        fold.test, sources, fold.train, None, None, options["features"], None,
        options["columns"], options["duplicates"],
    )  # fmt: skip
    runs = read.runs
    seen = options["seen"]
    if seen == "drop":  # removed once here (one warning), for the metrics and the preferences
        runs = [_seen_policy(run, read.train, "drop", len(read.items)) for run in runs]
    labels: list[str] = []
    kinds: list[str] = []
    blocks: list[np.ndarray] = []
    count_blocks: list[np.ndarray] = []
    per_user: list[list[dict[str, float] | None]] = [[] for _ in runs]
    if metrics is None or metrics:
        kept = "keep" if seen == "drop" else seen
        check_options(options["no_relevant"], kept, options["relevance"], options["k"])
        results: list[SystemEvaluation] = evaluate_inputs(
            dataclasses.replace(read, runs=runs), metrics, k=options["k"],
            threshold=options["threshold"], relevance=options["relevance"],
            no_relevant=options["no_relevant"], seen=kept, ties=options["ties"],
        )  # fmt: skip
        labels += results[0].labels
        kinds += ["metric"] * len(results[0].labels)
        blocks.append(np.array([[v.summary for v in r.values] for r in results]))
        count_blocks.append(np.array([[v.count for v in r.values] for r in results]))
        for s, res in enumerate(results):
            for label, v in zip(res.labels, res.values, strict=True):
                per_user[s].append(None if v.per_user is None else res.per_user(label))
    if methods:
        qrels = read.test.to_qrels(options["threshold"], options["relevance"])
        test_users = len(np.unique(read.test.user))
        summary, counts, prefs = _preference_values(
            qrels, runs, methods, options["k"], options["ties"], options["no_relevant"],
            test_users, options["baseline"],
        )  # fmt: skip
        base = runs[options["baseline"]].name
        labels += [f"{r.label} vs {base}" for r in methods]
        kinds += ["preference"] * len(methods)
        blocks.append(summary)
        count_blocks.append(counts)
        for s in range(len(runs)):
            per_user[s] += prefs[s]
    return _FoldResult(
        labels, kinds, np.hstack(blocks), np.hstack(count_blocks).astype(np.int64), per_user
    )


def _caught(evaluate: Any, *args: Any) -> tuple[Any, list[warnings.WarningMessage]]:
    """``evaluate(*args)`` and the warnings it gave, held back (`_tell_once` tells them)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = evaluate(*args)
    return result, list(caught)


#: A number in a message: the part of a warning that differs between folds and systems.
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _tell_once(
    told: list[tuple[str, warnings.WarningMessage]], systems: Sequence[str], num_folds: int
) -> None:
    """Tell each distinct warning of the folds' evaluations once: the same message for
    several folds and systems (numbers aside; a message naming a system starts with
    ``system: ``) becomes one warning saying which folds and systems it applies to, with
    the first one's numbers; a warning of one fold and system is told as it was."""
    groups: dict[str, list[tuple[str, str | None, str, str]]] = {}
    for fold, caught in told:
        message = caught.message
        if not isinstance(message, RankscopeWarning):
            warnings.warn(message, caught.category, stacklevel=3)
            continue
        text, cli, system = str(message), message.cli_message, None
        for name in systems:
            if text.startswith(f"{name}: ") and cli.startswith(f"{name}: "):
                system, text, cli = name, text[len(name) + 2 :], cli[len(name) + 2 :]
                break
        groups.setdefault(_NUMBER.sub("#", text), []).append((fold, system, text, cli))
    for entries in groups.values():
        fold, system, text, cli = entries[0]
        first = f"fold {fold}" + (f", {system}" if system else "")
        if len(entries) == 1:
            warn(f"{first}: {text}", cli=f"{first}: {cli}")
            continue
        folds = list(dict.fromkeys(e[0] for e in entries))
        named = list(dict.fromkeys(e[1] for e in entries if e[1] is not None))
        if named:
            scope = (
                f"{len(entries)} of the {num_folds * len(systems)} fold × system evaluations "
                f"(folds {', '.join(folds)}; systems {', '.join(named)})"
            )
        else:
            scope = f"{len(folds)} of the {num_folds} folds ({', '.join(folds)})"
        same = all(e[2] == text for e in entries)
        tail = "" if same else f" (the numbers of {first}; they differ between them)"
        warn(f"in {scope}: {text}{tail}", cli=f"in {scope}: {cli}{tail}")


def _pooled_differences(
    per_user: list[list[list[dict[str, float] | None]]], s: int, b: int, m: int
) -> np.ndarray | None:
    """The differences system − baseline over every (fold, user) with both values; None for
    a measure without per-user values."""
    out: list[float] = []
    for fold in per_user:
        mine, theirs = fold[s][m], fold[b][m]
        if mine is None or theirs is None:
            return None
        out += [mine[u] - theirs[u] for u in mine if u in theirs]
    return np.asarray(out, dtype=np.float64)


def evaluate_folds(
    folds: Any,
    recommendations: Any,
    measures: str | Sequence[str] | None = None,
    *,
    k: int = 10,
    threshold: float | None = 4.0,
    relevance: str = "binary",
    no_relevant: str = "exclude",
    seen: str = "drop",
    ties: str = "input-order",
    features: Any = None,
    columns: Mapping[str, str] | None = None,
    duplicates: str = "max-score",
    baseline: str | None = None,
    test: str = "t",
    correction: str = "holm",
    users: bool = False,
    permutations: int = 10_000,
    seed: int = 0,
) -> FoldsEvaluation:
    """Evaluate systems over the folds of an offline protocol: per fold, then the mean over
    the folds ± their spread, and a paired test against the baseline across the folds.

    Parameters
    ----------
    folds:
        A directory of ``uN.base``/``uN.test`` pairs (MovieLens ``u1``-``u5``, what
        ``rankscope split`` writes), or a list of `rankscope.recsys.splits.Split` objects or
        ``(train, test)`` pairs (named ``u1``, ``u2``, ...).
    recommendations:
        Per system, one recommendation list per fold: a directory of system directories
        (``RECS/pop/u1.tsv``, ``RECS/pop/u2.tsv``, ..., ``RECS/knn/u1.tsv``, ...; a file's
        name before its first dot names its fold), one system's directory, a list of
        directories, or a dict ``{system: [source per fold]}`` or ``{system: directory}``.
    measures:
        Recommender measure names (as `rankscope.evaluate_recsys`; default its defaults)
        and preference methods (``RPP``, ``gRPP``, ``lexiprecision``, ...: each system's
        mean win rate over the others, on the users with a relevant test item, its top
        ``k`` against theirs).
    k, threshold, relevance, no_relevant, ties, features, columns, duplicates:
        As in `rankscope.evaluate_recsys`; relevance comes from the test ratings
        (``rating >= threshold``, default 4: the RPP paper's "rating < 4 is
        non-relevant"; ``relevance="graded"``: the rating as the gain).
    seen:
        ``drop`` (default here, the protocol's usual rule): items of the fold's training
        data are removed from the user's list before the cutoff; ``keep`` leaves them
        (they count as non-relevant), with a warning.
    baseline:
        The system the others are compared with (default: the first).
    test, correction, permutations, seed:
        The paired test across the folds (a paired test of `rankscope.stats.procedures`:
        ``t``, ``wilcoxon``, ``sign``, ``randomization`` (or ``permutation``),
        ``bootstrap``; random ones take ``permutations`` resamples and ``seed``) and its
        correction over the comparisons of a measure (``holm``, ``bonferroni``, ``bh``,
        ``none``).  With 5 folds the Wilcoxon and sign tests cannot go below p = 0.0625.
    users:
        Also test across the users of every fold pooled (a (fold, user) pair is one
        observation; measures without per-user values get none).

    Examples
    --------
    >>> from rankscope import recsys
    >>> folds = [({"u": {"a": 5}, "v": {"b": 4}}, {"u": {"b": 5}, "v": {"a": 4}}),
    ...          ({"u": {"b": 5}, "v": {"a": 4}}, {"u": {"a": 5}, "v": {"b": 4}})]
    >>> recs = {"good": [{"u": ["b"], "v": ["a"]}, {"u": ["a"], "v": ["b"]}],
    ...         "bad": [{"u": ["c"], "v": ["c"]}, {"u": ["c"], "v": ["c"]}]}
    >>> result = recsys.evaluate_folds(folds, recs, ["HitRate@1"], baseline="bad")
    >>> result.summary("good", "HitRate@1").mean
    1.0
    """
    test = named(test, "paired").name  # the paired tests of `rankscope.stats.procedures`
    correction = correction_named(correction)
    if seen not in ("keep", "drop"):
        raise UsageError(f"seen must be 'keep' or 'drop', not {seen!r}")
    if no_relevant not in ("exclude", "zero"):
        raise UsageError(f"no_relevant must be 'exclude' or 'zero', not {no_relevant!r}")
    fold_list = read_folds(folds)
    systems = read_systems(recommendations, fold_list)
    names = list(systems)
    # a system's directory names it too (--baseline knn/ for the system knn)
    dirs = [(n, Path(f[0]).parent if isinstance(f[0], str | os.PathLike) else None)
            for n, f in systems.items()]  # fmt: skip
    base = names[0] if baseline is None else baseline_name(baseline, dirs)
    if base not in systems:
        raise UsageError(f"baseline {base!r} is not one of the systems ({', '.join(names)})")
    metrics, methods = _split_measures(measures, k)
    options = {
        "k": k, "threshold": threshold, "relevance": relevance, "no_relevant": no_relevant,
        "seen": seen, "ties": ties, "features": features, "columns": columns,
        "duplicates": duplicates, "baseline": names.index(base),
    }  # fmt: skip
    results = []
    told: list[tuple[str, warnings.WarningMessage]] = []
    for i, fold in enumerate(fold_list):
        result, caught = _caught(_evaluate_fold, fold, systems, i, metrics, methods, options)
        results.append(result)
        told += [(fold.name, w) for w in caught]
    _tell_once(told, names, len(fold_list))
    labels, kinds = results[0].labels, results[0].kinds
    for fold, r in zip(fold_list, results, strict=True):
        if r.labels != labels:  # (the defaults depend on the inputs: a fold without ratings)
            raise InputError(
                f"fold {fold.name}: measured {', '.join(r.labels)}, but fold "
                f"{fold_list[0].name} {', '.join(labels)}: give the folds the same columns"
            )
    values = np.stack([r.summary for r in results], axis=2)  # systems × measures × folds
    counts = np.stack([r.counts for r in results], axis=2)
    summaries = _summaries(
        names, labels, kinds, values, [r.per_user for r in results], names.index(base),
        test, correction, users, permutations, seed,
    )  # fmt: skip
    return FoldsEvaluation(
        [f.name for f in fold_list], names, labels, kinds, values, counts, summaries, base,
        test, correction,
    )  # fmt: skip


def _summaries(
    names: list[str], labels: list[str], kinds: list[str], values: np.ndarray,
    per_user: list[list[list[dict[str, float] | None]]], base: int, test: str,
    correction: str, pooled: bool, permutations: int, seed: int,
) -> list[FoldSummary]:  # fmt: skip
    out: list[FoldSummary] = []
    others = [s for s in range(len(names)) if s != base]
    for m, label in enumerate(labels):
        fold_values = values[:, m, :]
        defined = ~np.isnan(fold_values).any(axis=0)  # folds where every system has a value
        p = p_raw = np.array([])
        if others and defined.sum() >= 2:
            differences = fold_values[others][:, defined] - fold_values[base, defined]
            p_raw = p_values(differences, test, permutations, seed)
            p = adjust(p_raw, correction)
        pu = pu_raw = np.full(len(others), math.nan)
        sizes = [0] * len(others)
        if pooled and others:
            pools = [_pooled_differences(per_user, s, base, m) for s in others]
            if all(d is not None and len(d) >= 2 for d in pools):
                rows = [d for d in pools if d is not None]
                sizes = [len(d) for d in rows]
                pu_raw = np.array(
                    [float(p_values(d[None, :], test, permutations, seed)[0]) for d in rows]
                )
                pu = adjust(pu_raw, correction)
        for s, name in enumerate(names):
            row = fold_values[s][~np.isnan(fold_values[s])]
            n = len(row)
            stats = {
                "mean": float(row.mean()) if n else math.nan,
                "std": float(row.std(ddof=1)) if n > 1 else math.nan,
                "min": float(row.min()) if n else math.nan,
                "max": float(row.max()) if n else math.nan,
                "folds": n,
            }
            if s == base:
                out.append(FoldSummary(name, label, kinds[m], **stats))  # type: ignore[arg-type]
                continue
            j = others.index(s)
            diff = fold_values[s, defined] - fold_values[base, defined]
            base_row = fold_values[base][~np.isnan(fold_values[base])]
            out.append(
                FoldSummary(
                    name,
                    label,
                    kinds[m],
                    **stats,  # type: ignore[arg-type]
                    baseline=names[base],
                    difference=stats["mean"] - float(base_row.mean()) if len(base_row) else None,
                    p_value=float(p[j]) if len(p) else None,
                    p_unadjusted=float(p_raw[j]) if len(p_raw) else None,
                    wins=int((diff > 0).sum()),
                    losses=int((diff < 0).sum()),
                    users=sizes[j] if pooled and sizes[j] else None,
                    p_users=float(pu[j]) if pooled and sizes[j] else None,
                    p_users_unadjusted=float(pu_raw[j]) if pooled and sizes[j] else None,
                )  # fmt: skip
            )
    return out
