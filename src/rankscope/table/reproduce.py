"""Has a reproduction reproduced?  `reproduce_runs` (``rankscope.reproduce``, ``rankscope
reproduce``) measures an original experiment — a baseline run and an advanced run — against
its reproduction (the same topics and judgments) or replication (other ones), as Breuer et
al. (SIGIR 2020) propose, with the arrays-in functions of `rankscope.stats.reproducibility`
and `rankscope.stats.rbo`; `rank_similarity` compares the rankings of two runs topic by
topic (KTU, RBO).

Topics.  Scores: every judged topic counts, a run that did not rank it scoring 0 (as in
``rankscope compare``), so that the original and reproduced runs pair the same topics.
Rankings (KTU, RBO): the topics both runs ranked, each ranking cut at ``depth`` (1000) and
ordered as everywhere in rankscope (score, then the tie policy ``ties``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import UsageError, warn
from ..judge import order_run
from ..measures import parse_measures
from ..model import Qrels, Run
from ..model.frames import plain, records_frame
from ..stats.rbo import RBO, TIE_VARIANTS, FlatRanking, check_persistence, rbo_flat
from ..stats.reproducibility import (
    delta_relative_improvement,
    effect_ratio,
    ktu,
    reproduction_p_value,
    rmse,
)
from .compare import at_least
from .study import measure_data

#: The measures of a reproduction when none are named (those of ``rankscope compare``).
DEFAULT_MEASURES = ("AP", "nDCG@10", "P@10", "RR", "R@100")
#: RBO's persistence in a reproduction (repro_eval's default).
DEFAULT_P = 0.95
#: How deep rankings are compared (repro_eval's default).
DEFAULT_DEPTH = 1000


def _rankings(
    run: Run, ties: str, depth: int, grouped: bool
) -> dict[str, tuple[list[str], np.ndarray]]:
    """Each query's ranked documents (ids, cut at ``depth``) and, when ``grouped``, the
    sizes of its groups of equal scores (else one per document)."""
    order = order_run(run, ties)
    query, doc, score = run.query[order], run.doc[order], run.score[order]
    starts = np.flatnonzero(np.concatenate(([True], query[1:] != query[:-1])))
    stops = np.append(starts[1:], len(query))
    strings, names = run.docs.strings, run.queries.strings
    out: dict[str, tuple[list[str], np.ndarray]] = {}
    for a, b in zip(starts.tolist(), stops.tolist(), strict=True):
        b = min(b, a + depth)
        ids = [strings[c] for c in doc[a:b].tolist()]
        if grouped:
            s = score[a:b]
            cut = np.flatnonzero(np.concatenate(([True], s[1:] != s[:-1], [True])))
            sizes = np.diff(cut)
        else:
            sizes = np.ones(len(ids), dtype=np.int64)
        out[names[int(query[a])]] = (ids, sizes)
    return out


@dataclass(frozen=True)
class RankSimilarity:
    """Per-topic similarity of two runs' rankings: KTU and RBO (``rbo``: one `RBO` per topic,
    min, res, ext and max), for the topics both ranked (``query_ids``, sorted)."""

    query_ids: list[str]
    ktu: np.ndarray
    rbo: list[RBO]
    p: float
    depth: int
    rbo_ties: str | None

    def rbo_ext(self) -> np.ndarray:
        """RBO_ext of each topic."""
        return np.array([r.ext for r in self.rbo])


def rank_similarity(
    first: Run,
    second: Run,
    *,
    p: float = DEFAULT_P,
    depth: int = DEFAULT_DEPTH,
    ties: str = "docno-desc",
    rbo_ties: str | None = None,
) -> RankSimilarity:
    """KTU and RBO between the rankings of two runs, topic by topic.

    Each run is ordered by score, then ``ties`` (rankscope's tie policies), and cut at
    ``depth``.  ``rbo_ties`` = ``a``, ``b`` or ``w`` treats documents of equal score as tied
    in RBO (Corsi & Urbano 2024) instead of ordering them by the tie policy.
    """
    p = check_persistence(p)
    at_least("depth", depth, 1)
    if rbo_ties is not None and rbo_ties not in TIE_VARIANTS:
        raise UsageError(
            f"unknown tie treatment {rbo_ties!r}: one of {', '.join(TIE_VARIANTS)}",
            cli=f"--rbo-ties: one of {', '.join(TIE_VARIANTS)} (got {rbo_ties!r})",
        )
    a = _rankings(first, ties, depth, rbo_ties is not None)
    b = _rankings(second, ties, depth, rbo_ties is not None)
    queries = sorted(set(a) & set(b))
    if not queries:
        raise UsageError(
            f"runs '{first.name}' and '{second.name}' rank no topic in common: "
            "their rankings cannot be compared"
        )
    taus, rbos = [], []
    for q in queries:
        (ids_a, sizes_a), (ids_b, sizes_b) = a[q], b[q]
        taus.append(ktu(ids_a, ids_b))
        codes: dict[str, int] = {}
        flat_a = FlatRanking.from_groups(
            np.array([codes.setdefault(d, len(codes)) for d in ids_a], dtype=np.int64), sizes_a
        )
        flat_b = FlatRanking.from_groups(
            np.array([codes.setdefault(d, len(codes)) for d in ids_b], dtype=np.int64), sizes_b
        )
        rbos.append(rbo_flat(flat_a, flat_b, p, ties=rbo_ties or "a"))
    return RankSimilarity(queries, np.array(taus), rbos, p, depth, rbo_ties)


@dataclass(frozen=True)
class MeasureReproduction:
    """One measure of a reproduction: the means of the four runs, and the measures of
    Breuer et al. (RMSE only for a reproduction, which pairs the topics)."""

    measure: str
    original_baseline: float
    original_advanced: float
    reproduced_baseline: float
    reproduced_advanced: float
    effect_ratio: float
    delta_ri: float
    p_baseline: float  # t-test, original vs reproduced baseline
    p_advanced: float
    rmse_baseline: float | None = None
    rmse_advanced: float | None = None


@dataclass(frozen=True)
class Reproduction:
    """The result of `reproduce_runs`: ``kind`` (``reproduction`` or ``replication``), the
    run names (original and reproduced, each baseline then advanced), one
    `MeasureReproduction` per measure, the topics scored on each side, and for a
    reproduction the per-topic rankings' similarity of each pair (``baseline``,
    ``advanced``)."""

    kind: str
    original: tuple[str, str]
    reproduced: tuple[str, str]
    measures: list[MeasureReproduction]
    original_topics: list[str]
    reproduced_topics: list[str]
    rankings: dict[str, RankSimilarity] = field(default_factory=dict)

    def records(self) -> list[dict[str, Any]]:
        """One row per (measure, quantity): ``measure``, ``quantity``, ``baseline``,
        ``advanced`` (a quantity of the pair, ER and ΔRI, fills ``baseline`` only)."""
        out: list[dict[str, Any]] = []
        for m in self.measures:
            out.append(_row(m.measure, "original mean", m.original_baseline, m.original_advanced))
            out.append(
                _row(m.measure, "reproduced mean", m.reproduced_baseline, m.reproduced_advanced)
            )
            if m.rmse_baseline is not None:
                out.append(_row(m.measure, "RMSE", m.rmse_baseline, m.rmse_advanced))
            test = "paired" if self.kind == "reproduction" else "unpaired"
            out.append(_row(m.measure, f"p ({test} t-test)", m.p_baseline, m.p_advanced))
            out.append(_row(m.measure, "ER", m.effect_ratio, None))
            out.append(_row(m.measure, "delta RI", m.delta_ri, None))
        if self.rankings:
            base, adv = self.rankings["baseline"], self.rankings["advanced"]
            out.append(_row("rankings", "KTU", _nanmean(base.ktu), _nanmean(adv.ktu)))
            label = f"RBO_ext (p={base.p:g})"
            out.append(_row("rankings", label, _nanmean(base.rbo_ext()), _nanmean(adv.rbo_ext())))
        return out

    def to_frame(self, output: str = "pandas") -> Any:
        """`records` as a DataFrame (pandas, polars) or a dict of columns."""
        names = ("measure", "quantity", "baseline", "advanced")
        return records_frame(self.records(), names, output)

    def to_dict(self) -> dict[str, Any]:
        """The kind, the runs, the rows (`records`) and, for a reproduction, each pair's
        per-topic KTU and RBO (full precision, JSON-ready)."""
        return {
            "kind": self.kind, "original": list(self.original),
            "reproduced": list(self.reproduced), "rows": self.records(),
            "topics": {
                role: {
                    "query_ids": list(s.query_ids), "ktu": plain(s.ktu),
                    "rbo_min": [r.min for r in s.rbo], "rbo_res": [r.res for r in s.rbo],
                    "rbo_ext": [r.ext for r in s.rbo],
                }
                for role, s in self.rankings.items()
            },
        }  # fmt: skip


def _nanmean(values: np.ndarray) -> float:
    finite = values[~np.isnan(values)]
    return float(finite.mean()) if len(finite) else float("nan")


def _row(measure: str, quantity: str, baseline: float, advanced: float | None) -> dict[str, Any]:
    return {"measure": measure, "quantity": quantity, "baseline": baseline, "advanced": advanced}


def _scores(qrels: Qrels, runs: Sequence[Run], measures: Sequence[str], options: dict):
    for request in parse_measures(list(measures)):
        if request.measure.family == "preference":
            raise UsageError(
                f"{request.label} compares runs with each other; a reproduction needs a "
                "metric that scores each run (AP, nDCG@10, ...)"
            )
    return measure_data(qrels, runs, measures, complete=True, **options)


def _warn_no_original_effect(original: tuple[Run, Run], results: list[MeasureReproduction]) -> None:
    """Warn, once, of the measures whose effect ratio is undefined: the original advanced
    run improves on its baseline by exactly 0 (identical runs, typically), and ER divides
    by that improvement."""
    flat = [m for m in results if not np.isfinite(m.effect_ratio)]
    if not flat:
        return
    names = ", ".join(m.measure for m in flat)
    same = "the same run twice? " if original[0].name == original[1].name else ""
    warn(
        f"the effect ratio of {names} is undefined: the original advanced run "
        f"{original[1].name!r} improves on the baseline {original[0].name!r} by 0 on average "
        f"({same}ER divides by the original improvement: it is nan when the reproduced "
        "improvement is 0 too, ±inf otherwise)"
    )


def reproduce_runs(
    qrels: Qrels,
    original: tuple[Run, Run],
    reproduced: tuple[Run, Run],
    measures: Sequence[str] = DEFAULT_MEASURES,
    *,
    replication_qrels: Qrels | None = None,
    p: float = DEFAULT_P,
    depth: int = DEFAULT_DEPTH,
    ties: str = "docno-desc",
    rbo_ties: str | None = None,
    relevance_level: int = 1,
) -> Reproduction:
    """Measure ``reproduced`` = (baseline′, advanced′) against ``original`` = (baseline,
    advanced): per measure the means, effect ratio, ΔRI and t-tests, and for a reproduction
    (``replication_qrels`` None: the same topics) the RMSE of the per-topic scores and the
    per-topic KTU and RBO of the rankings.  With ``replication_qrels`` the reproduced runs
    are scored on those judgments (a replication: other topics; unpaired t-tests)."""
    if not measures:
        raise UsageError("a reproduction needs at least one measure")
    options = {"relevance_level": relevance_level, "ties": ties}
    replication = replication_qrels is not None
    if not replication:
        datas = _scores(qrels, [*original, *reproduced], measures, options)
        orig = [(d.name, d.data[0], d.data[1]) for d in datas]
        rep = [(d.data[2], d.data[3]) for d in datas]
        topics = topics2 = datas[0].query_ids
    else:
        assert replication_qrels is not None
        datas = _scores(qrels, list(original), measures, options)
        datas2 = _scores(replication_qrels, list(reproduced), measures, options)
        orig = [(d.name, d.data[0], d.data[1]) for d in datas]
        rep = [(d.data[0], d.data[1]) for d in datas2]
        topics, topics2 = datas[0].query_ids, datas2[0].query_ids
    results = []
    for (name, base, adv), (base2, adv2) in zip(orig, rep, strict=True):
        results.append(
            MeasureReproduction(
                name, float(base.mean()), float(adv.mean()), float(base2.mean()),
                float(adv2.mean()), effect_ratio(base, adv, base2, adv2),
                delta_relative_improvement(base, adv, base2, adv2),
                reproduction_p_value(base, base2, paired=not replication),
                reproduction_p_value(adv, adv2, paired=not replication),
                None if replication else rmse(base, base2),
                None if replication else rmse(adv, adv2),
            )
        )  # fmt: skip
    _warn_no_original_effect(original, results)
    rankings = {}
    if not replication:
        for role, i in (("baseline", 0), ("advanced", 1)):
            rankings[role] = rank_similarity(
                original[i], reproduced[i], p=p, depth=depth, ties=ties, rbo_ties=rbo_ties
            )
    return Reproduction(
        "replication" if replication else "reproduction",
        (original[0].name, original[1].name), (reproduced[0].name, reproduced[1].name),
        results, list(topics), list(topics2), rankings,
    )  # fmt: skip
