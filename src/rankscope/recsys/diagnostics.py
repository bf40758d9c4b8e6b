"""Curves and per-group figures behind the popularity and confidence measures, as tidy
tables: `reliability` (the reliability diagram's bins), `coverage_accuracy` (the
coverage–accuracy curve) and `group_exposure` (exposure, statistical parity and equal
opportunity per item group).

They read their inputs as `rankscope.evaluate_recsys` does (the same files, frames and
dicts, the same ``threshold``, ``seen`` and ``columns``), one system or several.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import UsageError, shown
from ..model.frames import to_frame
from ..read.groups import read_item_groups
from .base import Context
from .confidence import calibration, coverage_accuracy_curve, probabilities
from .popularity import DEFAULT_GROUPS, group_codes, group_counts, popularity_groups
from .systems import _seen_policy, check_one_sided, read_inputs, tell_notes


def _contexts(
    test_log: Any, recommendations: Any, *, k: int = 10, threshold: float | None = 4.0,
    train: Any = None, popularity: Any = None, catalog: Any = None, seen: str = "keep",
    ties: str = "input-order", columns: Mapping[str, str] | None = None,
    duplicates: str = "max-score",
) -> list[Context]:  # fmt: skip
    if seen not in ("keep", "drop"):
        raise UsageError(f"seen must be 'keep' or 'drop', not {seen!r}")
    if k < 1:
        raise UsageError(f"k must be >= 1 (got {k})")
    read = read_inputs(
        test_log, recommendations, train, popularity, None, None, catalog, columns, duplicates
    )
    if seen == "drop" and read.train is None:
        raise UsageError(
            "seen='drop' needs the training interactions (train=...)",
            cli="--seen drop needs the training interactions (--train FILE)",
        )
    qrels = read.test.to_qrels(threshold)
    popularity = read.item_popularity()
    out = []
    for run in read.runs:
        run = _seen_policy(run, read.train, seen, len(read.items))
        ctx = Context(
            qrels=qrels, test=read.test, run=run, k=k, ties=ties, train=read.train,
            item_popularity=popularity, catalog=read.catalog,
        )  # fmt: skip
        check_one_sided(ctx)
        out.append(ctx)
    return out


def reliability(
    test_log: Any,
    predictions: Any,
    *,
    bins: int = 10,
    target: str = "relevance",
    threshold: float | None = 4.0,
    columns: Mapping[str, str] | None = None,
    duplicates: str = "max-score",
    output: str = "pandas",
) -> Any:
    """The reliability diagram's data: per system and bin, the bin's bounds, its number of
    predictions, their mean and the mean outcome.

    ``predictions``: scores for (user, item) pairs of the test log (one system or several,
    as `rankscope.evaluate_recsys` reads them).  ``target="relevance"`` (default): the
    scores are probabilities of relevance (rating >= ``threshold``), binned on [0, 1] in
    ``bins`` equal-width bins (edge_b < p <= edge_(b+1), the first bin closed), ``observed``
    the share of relevant items; ``target="rating"``: the scores are predicted ratings,
    binned over their range, ``observed`` the mean test rating.  Empty bins have count 0
    and NaN means.  Scores outside [0, 1] with ``target="relevance"`` are a `UsageError`.

    Columns: run, bin, lower, upper, count, mean_predicted, observed.  ECE is
    Σ count·|mean_predicted − observed| / Σ count.

    >>> from rankscope import recsys
    >>> test = {"u": {"a": 5, "b": 1, "c": 5, "d": 2}}
    >>> preds = {"u": {"a": 0.9, "b": 0.1, "c": 0.8, "d": 0.7}}
    >>> table = recsys.reliability(test, preds, bins=2, output="dict")
    >>> table["count"], table["observed"]
    ([1, 3], [0.0, 0.6666666666666666])
    """
    if bins < 1:
        raise UsageError(f"bins must be >= 1 (got {bins})")
    if target not in ("relevance", "rating"):
        raise UsageError(f"target must be 'relevance' or 'rating', not {target!r}")
    cols: dict[str, list] = {
        k: [] for k in ("run", "bin", "lower", "upper", "count", "mean_predicted", "observed")
    }
    for ctx in _contexts(test_log, predictions, threshold=threshold, columns=columns,
                         duplicates=duplicates):  # fmt: skip
        result = calibration(ctx, bins, target)
        if result is None:
            raise UsageError(_not_probabilities(ctx))
        tell_notes(ctx.run.name, ctx.told_notes.values())
        for b in range(len(result.count)):
            cols["run"].append(ctx.run.name)
            cols["bin"].append(b)
            cols["lower"].append(float(result.lower[b]))
            cols["upper"].append(float(result.upper[b]))
            cols["count"].append(int(result.count[b]))
            cols["mean_predicted"].append(float(result.mean_predicted[b]))
            cols["observed"].append(float(result.observed[b]))
    return to_frame(cols, output)


def _not_probabilities(ctx: Context) -> str:
    note = ctx.told_notes.get("not-probabilities")
    return f"{ctx.run.name}: {'the scores are not probabilities' if note is None else note.text}"


def coverage_accuracy(
    test_log: Any,
    predictions: Any,
    *,
    threshold: float | None = 4.0,
    columns: Mapping[str, str] | None = None,
    duplicates: str = "max-score",
    output: str = "pandas",
) -> Any:
    """The coverage–accuracy curve of probabilistic predictions, per system.

    A prediction p for a test interaction says relevant when p >= 0.5 and is right when
    the interaction is relevant (rating >= ``threshold``) exactly then; its confidence is
    |p − 0.5|·2.  Sorted by decreasing confidence, one row per distinct confidence: the
    predictions covered so far, their share, the confidence and the accuracy of those
    covered.  The CoverageAccuracy measure is the area under this curve.  Scores outside
    [0, 1] are a `UsageError`.

    Columns: run, covered, coverage, confidence, accuracy.

    >>> from rankscope import recsys
    >>> test = {"u": {"a": 5, "b": 1, "c": 5, "d": 2}}
    >>> preds = {"u": {"a": 0.9, "b": 0.1, "c": 0.8, "d": 0.7}}
    >>> recsys.coverage_accuracy(test, preds, output="dict")["accuracy"]
    [1.0, 1.0, 0.75]
    """
    cols: dict[str, list] = {
        k: [] for k in ("run", "covered", "coverage", "confidence", "accuracy")
    }
    for ctx in _contexts(test_log, predictions, threshold=threshold, columns=columns,
                         duplicates=duplicates):  # fmt: skip
        data = probabilities(ctx, "the coverage-accuracy curve")
        if data is None:
            raise UsageError(_not_probabilities(ctx))
        tell_notes(ctx.run.name, ctx.told_notes.values())
        curve = coverage_accuracy_curve(data.score, data.outcome)
        cols["run"] += [ctx.run.name] * len(curve.covered)
        cols["covered"] += curve.covered.tolist()
        cols["coverage"] += curve.coverage.tolist()
        cols["confidence"] += curve.confidence.tolist()
        cols["accuracy"] += curve.accuracy.tolist()
    return to_frame(cols, output)


def group_exposure(
    test_log: Any,
    recommendations: Any,
    *,
    k: int = 10,
    groups: Any = None,
    head: str = "items",
    share: float = 0.2,
    discount: str = "log",
    threshold: float | None = 4.0,
    train: Any = None,
    popularity: Any = None,
    catalog: Any = None,
    seen: str = "keep",
    ties: str = "input-order",
    columns: Mapping[str, str] | None = None,
    duplicates: str = "max-score",
    output: str = "pandas",
) -> Any:
    """Exposure and parity per item group of each system's top-k lists.

    ``groups``: ``{item: group}``, a DataFrame (item, group) or a file of ``item group``
    lines (`rankscope.read.groups`); items in no group, and items outside the catalog
    (``catalog=``, default every item of the training and test data), are not counted.  Default: the
    short head and the long tail of the catalog by popularity (``head``, ``share`` as for
    LongTail; needs ``train=`` or ``popularity=``).

    Columns: run, group, items (catalog items of the group), exposure (Σ over the lists of
    1/log2(rank + 1), or 1 per appearance with ``discount="none"``), exposure_per_item,
    exposure_share (of all grouped exposure), recommended (unseen items of the group in
    the lists) and candidates (Σ over users of the group's unseen catalog items), rsp_rate
    = recommended / candidates (PopRSP's P(R@k | g)), found (relevant unseen test items of
    the group in the lists) and relevant (all of them), reo_rate = found / relevant
    (PopREO's P(R@k | g, y=1)).  With the default groups, PopRSP and PopREO are the
    relative standard deviation of rsp_rate and reo_rate over the two rows and
    ExposureRatio is min(exposure_per_item) / max(exposure_per_item).

    >>> from rankscope import recsys
    >>> test = {"u": {"a": 5}, "v": {"c": 5}}
    >>> lists = {"u": ["a", "b"], "v": ["a", "c"]}
    >>> groups = {"a": "x", "b": "y", "c": "y"}
    >>> table = recsys.group_exposure(test, lists, k=2, groups=groups, catalog=groups,
    ...                               discount="none", output="dict")
    >>> table["group"], table["exposure_per_item"]
    (['x', 'y'], [2.0, 1.0])
    """
    if discount not in ("log", "none"):
        raise UsageError(f"discount must be 'log' or 'none', not {discount!r}")
    if head not in ("items", "interactions"):
        raise UsageError(f"head must be 'items' or 'interactions', not {head!r}")
    if not share >= 0:
        raise UsageError(f"share must be >= 0 (got {shown(share)})")
    mapping = None if groups is None else read_item_groups(groups)
    names = [
        "run", "group", "items", "exposure", "exposure_per_item", "exposure_share",
        "recommended", "candidates", "rsp_rate", "found", "relevant", "reo_rate",
    ]  # fmt: skip
    cols: dict[str, list] = {name: [] for name in names}
    contexts = _contexts(
        test_log, recommendations, k=k, threshold=threshold, train=train, popularity=popularity,
        catalog=catalog, seen=seen, ties=ties, columns=columns, duplicates=duplicates,
    )  # fmt: skip
    for ctx in contexts:
        if mapping is None:
            if ctx.item_popularity is None:
                said = (
                    "{}'s default groups (short head, long tail) need item popularity: "
                    "give {}"
                )
                raise UsageError(
                    said.format("group_exposure", "train=... or popularity=..., or groups=..."),
                    cli=said.format("--table group-exposure", "--train FILE, or --groups FILE"),
                )
            codes, labels = popularity_groups(ctx, head, share), list(DEFAULT_GROUPS)
        else:
            codes, labels = group_codes(ctx, mapping)
        items, exposure, recommended, candidates, found, relevant = group_counts(
            ctx, k, codes, len(labels), discount
        )
        tell_notes(ctx.run.name, ctx.told_notes.values())
        total = exposure.sum()
        for g, label in enumerate(labels):
            cols["run"].append(ctx.run.name)
            cols["group"].append(label)
            cols["items"].append(int(items[g]))
            cols["exposure"].append(float(exposure[g]))
            cols["exposure_per_item"].append(_div(exposure[g], items[g]))
            cols["exposure_share"].append(_div(exposure[g], total))
            cols["recommended"].append(int(recommended[g]))
            cols["candidates"].append(int(candidates[g]))
            cols["rsp_rate"].append(_div(recommended[g], candidates[g]))
            cols["found"].append(int(found[g]))
            cols["relevant"].append(int(relevant[g]))
            cols["reo_rate"].append(_div(found[g], relevant[g]))
    return to_frame(cols, output)


def _div(a: float, b: float) -> float:
    return float(a / b) if b > 0 else float(np.nan)
