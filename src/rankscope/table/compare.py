"""Compare runs with evidence: per measure, each run's mean with its confidence interval and,
against a baseline run (or between every pair of runs), the difference, a paired test
corrected for the comparisons made, the effect size and the per-query wins, ties and losses.

Queries: every judged query counts, and a run that did not rank a query scores 0 on it
(trec_eval's ``-c``), so that every test pairs the same queries; ``common_queries=True``
keeps only the queries every run ranked instead.

Metrics (AP, nDCG@10, ...) compare per-query values: the differences tested are run −
baseline.  Preference methods (RPP, gRPP, ...) compare rankings directly: a run's value on a
query is its preference over the baseline in [−1, 1] (0 on a query without relevant
documents), its "mean" the mean preference over the baseline, and the test asks whether the
per-query preferences are centred on 0.

Tests: those of `rankscope.stats.procedures` that run on metrics and preference methods
alike (``choices("runs")``): ``t`` (paired t), ``wilcoxon`` (signed rank), ``sign``,
``randomization`` (also called ``permutation``; exact up to 20 queries), ``bootstrap``
(Sakai's), each corrected over the comparisons of a measure (``holm`` by default,
``bonferroni``, ``bh``, ``none``); ``randomized-tukey`` (Carterette's randomized Tukey HSD
over every pair of runs) controls the family-wise error itself, so no correction is applied
on top of it.
"""

from __future__ import annotations

import dataclasses
import math
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import numpy as np

from ..errors import RankscopeWarning, UsageError, shown
from ..judge import (
    JoinOptions,
    RelevanceTable,
    RelevantDocs,
    relevance_table,
    relevant_docs,
    warn_unranked,
)
from ..measures import Request, compute_requests, needs_rankings, parse_measures
from ..model import Qrels, Run, check_distinct_names
from ..model.frames import records_frame
from ..preference.recall import DEFAULT_MEASURES as LEVEL_MEASURES
from ..preference.recall import RecallLevels, level_measure, level_view
from ..stats.corrections import adjust, correction_named
from ..stats.intervals import mean_interval
from ..stats.procedures import StatisticalTest, named
from .evaluation import RunEvaluation, positions_table
from .formats import FORMATS, evaluate_runs, evaluation_options

#: The measures compared when none are named: the mean of average precision (recall-oriented,
#: the TREC ad hoc headline), nDCG@10 and P@10 (what a user sees on a first page, graded and
#: binary), reciprocal rank (the first relevant result) and recall at 100 (what a reranker can
#: still recover).
DEFAULT_MEASURES = ("AP", "nDCG@10", "P@10", "RR", "R@100")
#: The recall levels of the interpolated precision–recall curves (trec_eval's
#: ``iprec_at_recall``: 0.0, 0.1, ..., 1.0).
RECALL_LEVELS = tuple(i / 10 for i in range(11))


@dataclass(frozen=True)
class Procedure:
    """How the comparisons are tested: the paired test, the correction over the comparisons
    of a measure, the significance level, the confidence of the intervals, and the random
    tests' number of resamples (sign flips, bootstrap samples, permutations) and seed."""

    test: str = "t"
    correction: str = "holm"
    alpha: float = 0.05
    confidence: float = 0.95
    permutations: int = 10_000
    seed: int = 0

    @property
    def statistical_test(self) -> StatisticalTest:
        """The test of `rankscope.stats.procedures` named ``test`` (an alias too), among
        those a comparison of runs accepts; `UsageError` otherwise."""
        return named(self.test, "runs")

    def check(self) -> None:
        named(self.test, "runs")
        if correction_named(self.correction) != self.correction:
            raise UsageError(f"correction {self.correction!r}: give its canonical name "
                             f"{correction_named(self.correction)!r}")
        if not 0 < self.alpha < 1 or not 0 < self.confidence < 1:
            raise UsageError("alpha and confidence must lie strictly between 0 and 1")
        at_least("permutations", self.permutations, 1)
        at_least("seed", self.seed, 0)


def at_least(name: str, value: int, minimum: int) -> None:
    """`UsageError` unless ``value`` (the keyword ``name``, the option ``--name``) is a whole
    number >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise UsageError(
            f"{name} must be a whole number >= {minimum} (got {shown(value)})",
            cli=f"--{name} must be a whole number >= {minimum} (got {shown(value)})",
        )


@dataclass(frozen=True)
class Row:
    """One run on one measure: its mean and interval, and its comparison with ``baseline``
    (None for the baseline itself, and for the per-run rows of an all-pairs comparison)."""

    run: str
    measure: str
    kind: str  # "metric" or "preference"
    mean: float  # metric: mean value; preference: mean preference over the baseline
    ci_low: float
    ci_high: float
    baseline: str | None = None
    baseline_mean: float | None = None
    difference: float | None = None  # mean − baseline_mean
    relative: float | None = None  # difference / baseline_mean (None when that is 0)
    p_value: float | None = None  # after the correction
    p_unadjusted: float | None = None
    effect_size: float | None = None  # Cohen's d_z of the per-query differences
    wins: int | None = None
    ties: int | None = None
    losses: int | None = None
    significant: bool | None = None  # p_value <= alpha


@dataclass(frozen=True)
class Writers:
    """How a comparison is shown: ``text(comparison, format)`` (`FORMATS` of
    `rankscope.report.compare`) and ``html(comparison, path, *, topics, robustness,
    title)``.  The writers sit in `rankscope.report`, a layer above this one, so the front
    door (`rankscope.compare`) hands them to the comparison it returns."""

    text: Callable[[Comparison, str], str]
    html: Callable[..., None]


@dataclass(frozen=True)
class Comparison:
    """The result of `compare_runs`: one `Row` per (run, measure) and, per measure, the
    per-query values compared (runs × queries; for a preference method, each run's
    preference over the baseline, or over every other run in ``preferences``).

    Shown as text, Markdown, LaTeX, CSV, JSON and HTML (``to_text()``, ...) through the
    ``writers`` the front door gives it (`rankscope.compare`); a comparison built below the
    API is shown by `rankscope.report.compare.format_comparison` and
    `rankscope.report.html.write_html`."""

    run_names: list[str]
    measures: list[str]
    kinds: list[str]
    query_ids: list[str]
    baseline: str | None  # None: every pair of runs
    test: str
    correction: str
    alpha: float
    confidence: float
    seed: int
    rows: list[Row]
    values: dict[str, np.ndarray]  # measure -> runs × queries
    preferences: dict[str, np.ndarray] = field(default_factory=dict)  # -> queries × runs × runs
    common_queries: bool = False
    unranked: dict[str, list[str]] = field(default_factory=dict)  # run -> judged, not ranked
    #: runs × `RECALL_LEVELS`: each run's mean interpolated precision at each recall level
    #: (trec_eval's ``iprec_at_recall``) over the compared queries (missing = 0)
    precision_recall: np.ndarray | None = None
    #: run -> its recall-level view against the baseline over the compared queries
    #: (`rankscope.recall_levels`: AP, nDCG, RBP and RR by recall level beside
    #: RPP's sign, for the HTML report); empty without a baseline or with ``judged_only``
    recall_levels: dict[str, RecallLevels] = field(default_factory=dict)
    #: the ways of showing it (`Writers`), given by the front door; not part of the value
    writers: Writers | None = field(default=None, repr=False, compare=False)

    def row(self, run: str, measure: str, against: str | None = None) -> Row:
        """The row of ``run`` on ``measure`` compared with run ``against`` (by default the
        baseline; the run's own row for the baseline itself and without a baseline)."""
        reference = self.baseline if against is None else against
        if reference == run:
            reference = None
        for r in self.rows:
            if r.run == run and r.measure == measure and r.baseline == reference:
                return r
        raise KeyError((run, measure, against))

    def records(self) -> list[dict[str, Any]]:
        """The rows as dicts (full precision; None where a field does not apply)."""
        return [asdict(r) for r in self.rows]

    def to_frame(self, output: str = "pandas") -> Any:
        """The rows as a DataFrame (pandas, polars) or a dict of columns."""
        return records_frame(self.records(), [f.name for f in fields(Row)], output)

    def to_text(self) -> str:
        """The aligned table ``rankscope compare`` prints (a block per measure)."""
        return self._writers().text(self, "table")

    def to_markdown(self) -> str:
        """A Markdown table (a column group per measure) and its legend."""
        return self._writers().text(self, "markdown")

    def to_latex(self) -> str:
        """A booktabs table with significance marks, the legend as comment lines."""
        return self._writers().text(self, "latex")

    def to_csv(self) -> str:
        """Every field of every row (`records`) as CSV, full precision."""
        return self._writers().text(self, "csv")

    def to_json(self) -> str:
        """The rows (`records`) as a JSON list (NaN as null)."""
        return self._writers().text(self, "json")

    def to_html(
        self,
        path: str | os.PathLike[str],
        *,
        topics: str | os.PathLike[str] | Mapping[str, str] | None = None,
        robustness: Any = None,
        title: str | None = None,
    ) -> None:
        """Write the comparison as one self-contained HTML page that opens offline: the
        sortable table, the per-query differences against the baseline, the
        precision–recall curves, the distributions of per-query values, the preference
        heat maps and, given a `rankscope.table.study.Study` (``robustness``), its
        robustness curves (`rankscope.report.html`; needs the ``report`` extra: plotly and
        jinja2).  ``topics``: a topics file or ``{query id: title}``, shown when hovering a
        query."""
        if self.precision_recall is None:
            raise UsageError(
                "this comparison was made without the curves the HTML report shows: compare "
                "with curves=True (the default)"
            )
        self._writers().html(self, path, topics=topics, robustness=robustness, title=title)

    def __str__(self) -> str:
        return self.to_text() if self.writers is not None else repr(self)

    def _writers(self) -> Writers:
        if self.writers is None:
            raise UsageError(
                "this comparison was built below the API and has no writers: use "
                "rankscope.compare, or rankscope.report.compare.format_comparison"
            )
        return self.writers

    def to_dict(self) -> dict[str, Any]:
        """The comparison's settings and rows (full precision, JSON-ready)."""
        return {
            "runs": list(self.run_names), "measures": list(self.measures),
            "baseline": self.baseline, "test": self.test, "correction": self.correction,
            "alpha": self.alpha, "confidence": self.confidence, "seed": self.seed,
            "queries": len(self.query_ids), "common_queries": self.common_queries,
            "rows": self.records(),
        }  # fmt: skip


def _effect_sizes(differences: np.ndarray) -> np.ndarray:
    """Cohen's d_z = mean(d) / sd(d) per row (NaN when sd is 0)."""
    mean = differences.mean(axis=1)
    sd = differences.std(axis=1, ddof=1) if differences.shape[1] > 1 else np.zeros(len(mean))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sd > 0, mean / np.where(sd > 0, sd, 1.0), math.nan)


def _plain(x: Any) -> float | None:
    return None if x is None else float(x)


def compare_runs(
    qrels: Qrels,
    runs: Sequence[Run] | Sequence[RunEvaluation],
    requests: Sequence[Request],
    *,
    baseline: str | None = None,
    all_pairs: bool = False,
    procedure: Procedure | None = None,
    common_queries: bool = False,
    options: JoinOptions | None = None,
    curves: bool = True,
) -> Comparison:
    """Compare ``runs`` on each request (see the module); ``baseline`` names the run the
    others are compared with (default: the first), ``all_pairs`` compares every pair.
    ``runs``: the runs read whole, or each run's evaluation on the metrics of ``requests``
    made one run at a time (`rankscope.table.many.evaluate_many_runs` with ``complete=True``
    and these ``options``; the streamed path, its numbers the same, for metrics without
    ``curves``: memory flat in the number of runs).  ``curves``: also each run's
    precision–recall curve and recall-level view (what only the HTML report shows, about
    40% of the work on many runs); without them the comparison's ``precision_recall`` is
    None and its ``recall_levels`` empty.  Evaluations compared with ``curves`` bring the
    curves' ``iprec_at_recall`` among their requests and, for the recall levels, their
    runs' ``positions`` of the `level_docs` (evaluated with them, in the same pass);
    compared on preference methods (but offline interleaving, which replays whole
    rankings), their positions of the relevant documents at ``options``' relevance level
    (`rankscope.judge.relevant_docs`; at level 1 the recall levels' too)."""
    evaluated = [r for r in runs if isinstance(r, RunEvaluation)]
    whole = [r for r in runs if isinstance(r, Run)]
    names = [r.run_name for r in evaluated] or [r.name for r in whole]
    if len(runs) < 2:
        raise UsageError("a comparison needs at least two runs")
    check_distinct_names(whole)  # (evaluations are named distinct by evaluate_many_runs)
    procedure = Procedure() if procedure is None else procedure
    procedure.check()
    # the test's canonical name (``permutation`` is the randomization test)
    procedure = dataclasses.replace(procedure, test=procedure.statistical_test.name)
    if not requests:
        raise UsageError("name at least one measure to compare")
    base = None
    if not all_pairs:
        base = names[0] if baseline is None else baseline
        if base not in names:
            raise UsageError(f"baseline {base!r} is not one of the runs ({', '.join(names)})")
    # every judged query counts, a missing one scoring 0 (trec_eval -c)
    options = dataclasses.replace(options or JoinOptions(), complete=True)

    query_ids = list(qrels.query_ids)
    ranked = {run.name: set(run.query_ids) for run in whole} | {
        res.run_name: {q for q, m in zip(res.query_ids, res.missing.tolist(), strict=True) if not m}
        for res in evaluated
    }
    unranked = {n: [q for q in query_ids if q not in ranked[n]] for n in names}
    if common_queries:
        query_ids = [q for q in query_ids if all(q in ranked[n] for n in names)]
    if not query_ids:
        raise UsageError("no query is both judged and ranked by every run: nothing to compare")
    if len(query_ids) < 2:
        raise UsageError("a comparison needs at least 2 queries")

    metrics = [r for r in requests if r.measure.family != "preference"]
    methods = [r for r in requests if r.measure.family == "preference"]
    values: dict[str, np.ndarray] = {}
    kinds: dict[str, str] = {}
    # the precision–recall curves (for the HTML report) come with the metrics, in one pass
    curve_requests = parse_measures(["iprec_at_recall"]) if curves else []
    wanted = set(metrics)
    extra = [r for r in curve_requests if r not in wanted]
    if evaluated and methods and needs_rankings(methods):
        raise UsageError("offline interleaving compares runs read whole, not evaluated")
    if evaluated and not set(curve_requests) <= set(evaluated[0].requests):
        raise UsageError("evaluations compared with curves need iprec_at_recall's values")
    results: Sequence[RunEvaluation] = evaluated
    if whole and metrics + extra:
        results = evaluate_runs(qrels, whole, metrics + extra, FORMATS["qrels"], options)
    elif whole:  # only preference methods, no curves: the evaluation's checks and warnings alone
        evaluation_options(qrels, [], FORMATS["qrels"], options)
    by_key: dict[Request, np.ndarray] = {}
    # each run's values placed by the compared queries' columns, found once per run (a query
    # the run has no value for stays 0, one not compared is left out)
    query_column = {q: c for c, q in enumerate(query_ids)}
    placed = []
    for res in results:
        cols = np.array([query_column.get(q, -1) for q in res.query_ids], dtype=np.int64)
        placed.append((np.flatnonzero(cols >= 0), cols[cols >= 0]))
    for k, req in enumerate(results[0].requests if results else []):
        matrix = np.zeros((len(runs), len(query_ids)))
        for r, res in enumerate(results):
            value_rows, value_columns = placed[r]
            matrix[r, value_columns] = np.asarray(res.values[k], dtype=np.float64)[value_rows]
        by_key[req] = matrix
        if req in wanted:
            values[req.label], kinds[req.label] = matrix, "metric"
    precision_recall = None
    if curves:  # runs × recall levels
        precision_recall = np.array([by_key[r].mean(axis=1) for r in curve_requests]).T
    preferences: dict[str, np.ndarray] = {}
    table = None
    if methods and evaluated:  # their positions at the relevance level, as the table's
        docs = relevant_docs(qrels, options.relevance_level)
        table = positions_table(docs, evaluated, "preference methods")
        for res in evaluated:  # (what the table of runs read whole warns)
            warn_unranked(docs, res.run_name, res.query_ids, res.missing)
    elif methods:
        table = relevance_table(
            qrels, whole, relevance_level=options.relevance_level,
            ties=options.ties or "docno-desc", max_docs=options.max_docs,
            keep_rankings=needs_rankings(methods),
        )  # fmt: skip
    reference = names.index(base) if base is not None else None
    found_all = []
    if methods:  # (the binary RPPs at one level computed together)
        assert table is not None
        found_all = compute_requests(table, methods)
    for req, found in zip(methods, found_all, strict=True):
        tensor = np.zeros((len(query_ids), len(runs), len(runs)))
        for i, q in enumerate(found.query_ids):
            if q in query_column:
                tensor[query_column[q]] = found.prefs[i]
        preferences[req.label], kinds[req.label] = tensor, "preference"
        if reference is not None:
            values[req.label] = tensor[:, :, reference].T  # each run over the baseline
    levels = {}
    if curves and base is not None and not options.judged_only:
        levels = _recall_levels(
            qrels, whole, evaluated, names.index(base), query_ids, options, table
        )
    order = [r.label for r in requests if r.label in kinds]
    rows: list[Row] = []
    for label in order:
        if base is not None:
            rows += _against_baseline(
                label, kinds[label], values[label], preferences.get(label), names,
                names.index(base), procedure,
            )  # fmt: skip
        else:
            rows += _all_pairs(
                label, kinds[label], values.get(label), preferences.get(label), names, procedure
            )
    return Comparison(
        names, order, [kinds[m] for m in order], query_ids, base, procedure.test,
        procedure.correction, procedure.alpha, procedure.confidence, procedure.seed, rows,
        values, preferences, common_queries,
        {n: qs for n, qs in unranked.items() if qs}, precision_recall, levels,
    )  # fmt: skip


def level_docs(qrels: Qrels) -> RelevantDocs | None:
    """The relevant documents of the recall levels (grade >= 1, their definition), whose
    ranks runs compared one at a time keep (`evaluate_many_runs`' ``positions``); None when
    no judged document is relevant."""
    return relevant_docs(qrels, 1) if (qrels.grade >= 1).any() else None


def _recall_levels(
    qrels: Qrels,
    runs: Sequence[Run],
    evaluated: Sequence[RunEvaluation],
    base: int,
    query_ids: list[str],
    options: JoinOptions,
    table: RelevanceTable | None,
) -> dict[str, RecallLevels]:
    """Each run's recall-level view against run ``base`` over ``query_ids`` (relevant: grade
    >= 1, the levels' definition), reusing the preference methods' table when it is one, or
    the ``positions`` the ``evaluated`` runs kept."""
    docs = level_docs(qrels)
    if docs is None:
        return {}
    if (table is None or table.relevance_level != 1) and evaluated:
        table = positions_table(docs, evaluated, "the recall levels")
    elif table is None or table.relevance_level != 1:
        with warnings.catch_warnings():  # the comparison reports unranked queries itself
            warnings.simplefilter("ignore", RankscopeWarning)
            table = relevance_table(
                qrels, list(runs), ties=options.ties or "docno-desc", max_docs=options.max_docs
            )
    measures = [level_measure(name) for name in LEVEL_MEASURES]
    return {
        name: level_view(table, r, base, query_ids, measures)
        for r, name in enumerate(table.run_names)
        if r != base
    }


def _tested(
    differences: np.ndarray, procedure: Procedure, tukey: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """(corrected, unadjusted) p-values of rows of differences; ``tukey`` gives the
    p-values of a family-wise test instead (randomized Tukey HSD: no correction)."""
    test = procedure.statistical_test
    if test.paired is None:
        assert tukey is not None
        return tukey, np.full(len(tukey), math.nan)
    p = test.paired(differences, procedure.permutations, procedure.seed).p_value
    return adjust(p, procedure.correction), p


def _rows(
    label: str,
    kind: str,
    runs: list[str],
    references: list[str],
    means: np.ndarray,
    intervals: tuple[np.ndarray, np.ndarray],
    reference_means: np.ndarray,
    differences: np.ndarray,
    p_values: tuple[np.ndarray, np.ndarray],
    alpha: float,
) -> list[Row]:
    corrected, unadjusted = p_values
    effect = _effect_sizes(differences)
    out = []
    for i, run in enumerate(runs):
        d = differences[i]
        difference = float(means[i] - reference_means[i])
        relative = difference / reference_means[i] if reference_means[i] != 0 else None
        p_unadjusted = None if math.isnan(unadjusted[i]) else float(unadjusted[i])
        out.append(Row(
            run, label, kind, float(means[i]), float(intervals[0][i]), float(intervals[1][i]),
            references[i], float(reference_means[i]), difference, _plain(relative),
            float(corrected[i]), p_unadjusted, float(effect[i]), int((d > 0).sum()),
            int((d == 0).sum()), int((d < 0).sum()), bool(corrected[i] <= alpha),
        ))  # fmt: skip
    return out


def _against_baseline(
    label: str,
    kind: str,
    matrix: np.ndarray,
    tensor: np.ndarray | None,
    names: list[str],
    base: int,
    procedure: Procedure,
) -> list[Row]:
    """Rows of every run against run ``base``: the baseline's own row first (no test)."""
    others = [i for i in range(len(names)) if i != base]
    low, high = mean_interval(matrix, procedure.confidence)
    means = matrix.mean(axis=1)
    if kind == "metric":
        differences = matrix[others] - matrix[base]
        reference_means = np.full(len(others), means[base])
    else:  # the run's preference over the baseline, tested against 0
        differences = matrix[others]
        reference_means = np.zeros(len(others))
    tukey = None
    if procedure.statistical_test.family_wise:
        tukey = _tukey_pairs(kind, matrix, tensor, [(i, base) for i in others], procedure)
    own = Row(names[base], label, kind, float(means[base]), float(low[base]), float(high[base]))
    return [own] + _rows(
        label, kind, [names[i] for i in others], [names[base]] * len(others), means[others],
        (low[others], high[others]), reference_means, differences,
        _tested(differences, procedure, tukey), procedure.alpha,
    )  # fmt: skip


def _all_pairs(
    label: str,
    kind: str,
    matrix: np.ndarray | None,
    tensor: np.ndarray | None,
    names: list[str],
    procedure: Procedure,
) -> list[Row]:
    """Each run's own row (metrics), then every pair a < b: run a against run b."""
    pairs = [(a, b) for a in range(len(names)) for b in range(a + 1, len(names))]
    rows: list[Row] = []
    if kind == "metric":
        assert matrix is not None
        low, high = mean_interval(matrix, procedure.confidence)
        means = matrix.mean(axis=1)
        rows += [
            Row(n, label, kind, float(means[i]), float(low[i]), float(high[i]))
            for i, n in enumerate(names)
        ]
        differences = np.array([matrix[a] - matrix[b] for a, b in pairs])
        pair_means = np.array([means[a] for a, _ in pairs])
        reference_means = np.array([means[b] for _, b in pairs])
        pair_low, pair_high = low[[a for a, _ in pairs]], high[[a for a, _ in pairs]]
    else:
        assert tensor is not None
        differences = np.array([tensor[:, a, b] for a, b in pairs])
        pair_means = differences.mean(axis=1)
        reference_means = np.zeros(len(pairs))
        pair_low, pair_high = mean_interval(differences, procedure.confidence)
    tukey = None
    if procedure.statistical_test.family_wise:
        tukey = _tukey_pairs(kind, matrix, tensor, pairs, procedure)
    return rows + _rows(
        label, kind, [names[a] for a, _ in pairs], [names[b] for _, b in pairs], pair_means,
        (pair_low, pair_high), reference_means, differences,
        _tested(differences, procedure, tukey), procedure.alpha,
    )  # fmt: skip


def _tukey_pairs(
    kind: str,
    matrix: np.ndarray | None,
    tensor: np.ndarray | None,
    pairs: list[tuple[int, int]],
    procedure: Procedure,
) -> np.ndarray:
    """The family-wise test's (randomized Tukey HSD's) p-values of ``pairs`` (runs a, b):
    over the runs' per-query values for a metric, over the preference tensor (labels
    permuted per query) for a preference method."""
    test = procedure.statistical_test
    if kind == "metric":
        assert matrix is not None and test.all_pairs is not None
        result = test.all_pairs(
            matrix, None, procedure.alpha, procedure.permutations, procedure.seed
        )
        p = {
            (int(a), int(b)): float(v)
            for a, b, v in zip(result.first, result.second, result.p_value, strict=True)
        }
        return np.array([p[(min(a, b), max(a, b))] for a, b in pairs])
    assert tensor is not None and test.preferences is not None
    matrix_p = test.preferences(tensor, procedure.permutations, procedure.seed)
    return np.array([matrix_p[a, b] for a, b in pairs])
