"""The public API: read judgments and runs from anything, evaluate, get a tidy table."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .data import Qrels, Run, Vocabulary, warn
from .evaluation import RunEvaluation, as_requests, evaluate_run, format_trec
from .io import frames
from .io import trec as trec_io

QrelsLike = Qrels | str | os.PathLike | Mapping | Any
RunLike = Run | str | os.PathLike | Mapping | Any


def _is_parquet(path: str | os.PathLike) -> bool:
    return str(path).endswith((".parquet", ".pq"))


def read_qrels(
    source: QrelsLike,
    *,
    query_col: str = "query_id",
    doc_col: str = "doc_id",
    relevance_col: str = "relevance",
    queries: Vocabulary | None = None,
    docs: Vocabulary | None = None,
    diversity: bool = False,
) -> Qrels:
    """Judgments from a TREC qrels file (``.gz``, ``-``), a Parquet file, a pandas/polars
    DataFrame or Arrow table, or a ``{query_id: {doc_id: grade}}`` dict.

    ``diversity=True`` reads a TREC file as diversity judgments, ``qid subtopic docno grade``.
    """
    if isinstance(source, Qrels):
        return source
    if diversity:
        if not isinstance(source, str | os.PathLike):
            raise TypeError("diversity judgments are read from TREC files (a path)")
        return trec_io.read_diversity_qrels(source, queries, docs)
    if isinstance(source, Mapping):
        return frames.qrels_from_dict(source, queries, docs)
    if frames.is_frame(source):
        return frames.qrels_from_frame(source, query_col, doc_col, relevance_col, queries, docs)
    if _is_parquet(source):
        return frames.qrels_from_frame(
            frames.read_parquet(source), query_col, doc_col, relevance_col, queries, docs,
            source=str(source),
        )  # fmt: skip
    return trec_io.read_qrels(source, queries, docs)


def read_run(
    source: RunLike,
    *,
    name: str | None = None,
    query_col: str = "query_id",
    doc_col: str = "doc_id",
    score_col: str = "score",
    duplicates: str = "error",
    queries: Vocabulary | None = None,
    docs: Vocabulary | None = None,
    order: str = "score",
) -> Run:
    """A run from a TREC run file (``.gz``, ``-``), a Parquet file, a DataFrame or Arrow
    table, or a ``{query_id: {doc_id: score}}`` dict.

    ``duplicates`` decides what a document listed twice for one query does: ``error``
    (default), ``first`` or ``max-score``.  ``order="rank"`` ranks a TREC file by its rank
    column instead of its scores (ndeval's default).
    """
    if isinstance(source, Run):
        return source if duplicates == "error" else trec_io.resolve_duplicates(source, duplicates)
    if isinstance(source, Mapping):
        return trec_io.resolve_duplicates(
            frames.run_from_dict(source, name or "run", queries, docs), duplicates
        )
    if frames.is_frame(source):
        return frames.run_from_frame(
            source, query_col, doc_col, score_col, name or "run", queries, docs, duplicates
        )
    if _is_parquet(source):
        return frames.run_from_frame(
            frames.read_parquet(source), query_col, doc_col, score_col,
            name or Path(source).stem, queries, docs, duplicates, source=str(source),
        )  # fmt: skip
    if order != "score" and not isinstance(source, str | os.PathLike):
        raise TypeError("order='rank' needs a TREC run file (the rank column)")
    return trec_io.read_run(source, queries, docs, name, duplicates, order)


def _runs(runs: Any, qrels: Qrels, duplicates: str, order: str = "score") -> list[Run]:
    if isinstance(runs, Run | str | os.PathLike) or frames.is_frame(runs):
        runs = [runs]
    elif isinstance(runs, Mapping):
        first = next(iter(runs.values()), None)
        if (
            isinstance(first, Mapping)
            and first
            and not isinstance(next(iter(first.values())), Mapping)
        ):
            # {qid: {docno: score}}: a single run as a dict
            runs = [runs]
        else:
            return [
                read_run(
                    v,
                    name=str(k),
                    duplicates=duplicates,
                    queries=qrels.queries,
                    docs=qrels.docs,
                    order=order,
                )  # fmt: skip
                for k, v in runs.items()
            ]
    out: list[Run] = []
    for r in runs:
        if isinstance(r, str | os.PathLike) and str(r) != "-" and Path(r).is_dir():
            out.extend(_runs(trec_io.run_files([r]), qrels, duplicates, order))
        else:
            out.append(
                read_run(
                    r, duplicates=duplicates, queries=qrels.queries, docs=qrels.docs, order=order
                )
            )
    return unique_run_names(out)


def _file_stem(source: str) -> str:
    name = Path(source).name
    for suffix in (".gz", ".txt", ".run", ".trec", ".tsv"):
        name = name.removesuffix(suffix)
    return name


def unique_run_names(runs: list[Run]) -> list[Run]:
    """Runs whose tags collide are named after their files instead (and said so)."""
    names = [r.name for r in runs]
    clash = {n for n in names if names.count(n) > 1}
    if not clash:
        return runs
    out = []
    for r in runs:
        if r.name in clash and not r.source.startswith("<"):
            r = dataclasses.replace(r, name=_file_stem(r.source))
        out.append(r)
    renamed = [r.name for r in out]
    if len(set(renamed)) != len(renamed):
        dup = sorted({n for n in renamed if renamed.count(n) > 1})
        warn(f"several runs share a name ({', '.join(dup)}); rows are told apart by position")
    else:
        warn(
            f"runs tagged {', '.join(sorted(clash))} come from several files; "
            "they are named after their files"
        )
    return out


#: Judgment formats (trec_eval's ``-R``) and the measures computed when none are named.
REL_FORMATS = {
    "qrels": "official",
    "prefs": "prefs",
    "qrels_prefs": "prefs",
    "qrels_jg": "qrels_jg",
}
#: The measure family each non-qrels format computes (besides runid and num_q).
_FORMAT_FAMILY = {"prefs": "trec_prefs", "qrels_prefs": "trec_prefs", "qrels_jg": "judgment_groups"}


def read_judgments(source: Any, rel_format: str = "qrels") -> Any:
    """Judgments in one of trec_eval's formats (``-R``): ``qrels`` (anything `read_qrels`
    accepts), ``prefs``, ``qrels_prefs`` (`rankscope.trec_prefs.Prefs`) or ``qrels_jg``
    (`rankscope.judgment_groups.GroupedQrels`), from a file or already read."""
    if rel_format not in REL_FORMATS:
        raise ValueError(
            f"unknown judgments format {rel_format!r}; choose one of {', '.join(REL_FORMATS)}"
        )
    if rel_format == "qrels":
        return read_qrels(source)
    from .io import prefs as prefs_io
    from .judgment_groups import GroupedQrels
    from .trec_prefs import Prefs

    wanted = GroupedQrels if rel_format == "qrels_jg" else Prefs
    if isinstance(source, wanted):
        return source
    if isinstance(source, Qrels | Prefs | GroupedQrels) or not isinstance(
        source, str | os.PathLike
    ):
        raise ValueError(
            f"judgments for rel_format={rel_format!r} must be a file or a {wanted.__name__}"
        )
    reader = {
        "prefs": prefs_io.read_prefs,
        "qrels_prefs": prefs_io.read_qrels_prefs,
        "qrels_jg": prefs_io.read_qrels_jg,
    }[rel_format]
    return reader(source)


def _check_formats(requests, rel_format: str) -> None:
    """Each measure reads one judgments format: say which when it is not the one given."""
    family = _FORMAT_FAMILY.get(rel_format)
    for r in requests:
        if r.measure.aggregate in ("runid", "count"):
            continue
        own = r.measure.family
        if family is None and own in _FORMAT_FAMILY.values():
            needs = "-R qrels_jg" if own == "judgment_groups" else "-R prefs or -R qrels_prefs"
            raise ValueError(f"measure '{r.label}' needs other judgments: {needs}")
        if family is not None and own != family:
            names = "all_prefs" if family == "trec_prefs" else "qrels_jg"
            raise ValueError(
                f"measure '{r.label}' needs qrels (-R qrels); with -R {rel_format} the measures "
                f"are those of -m {names}"
            )


def evaluate_many(
    qrels: QrelsLike,
    runs: Any,
    measures: str | Sequence[str] | None = None,
    *,
    relevance_level: int = 1,
    ties: str | None = None,
    max_docs: int | None = None,
    judged_only: bool = False,
    complete: bool = False,
    num_docs: int = 0,
    duplicates: str = "error",
    order: str = "score",
    diversity: bool | None = None,
    doc_lengths: Any = None,
    rel_format: str = "qrels",
    zscores: Any = None,
) -> list[RunEvaluation]:
    """Evaluate each run; one `RunEvaluation` per run, in input order.

    ``rel_format`` is the judgments' format (trec_eval's ``-R``): ``qrels``, ``prefs``,
    ``qrels_prefs`` or ``qrels_jg``.  ``ties`` defaults to trec_eval's order: document ids
    descending, ascending for preference judgments.  ``zscores`` (a file of ``qid measure
    mean stddev``, or a `rankscope.zscores.ZScores`) turns every per-query value into a
    z-score before the summary (trec_eval's ``-Z``).  ``diversity`` reads a qrels file as
    diversity judgments (``qid subtopic docno grade``); by default it does when a diversity
    measure is requested.  ``order="rank"`` ranks TREC run files by their rank column.
    """
    requests = as_requests(REL_FORMATS[rel_format] if measures is None else measures)
    if diversity is None:
        diversity = any(r.measure.family == "diversity" for r in requests)
    if diversity and rel_format == "qrels":
        judgments = read_qrels(qrels, diversity=True)
    else:
        judgments = read_judgments(qrels, rel_format)
    _check_formats(requests, rel_format)
    if ties is None:
        ties = "docno-asc" if rel_format in ("prefs", "qrels_prefs") else "docno-desc"
    run_list = _runs(runs, judgments, duplicates, order)
    if rel_format == "qrels":
        results = _evaluate_qrels(
            judgments, run_list, requests, relevance_level=relevance_level, ties=ties,
            max_docs=max_docs, judged_only=judged_only, complete=complete, num_docs=num_docs,
            doc_lengths=_doc_lengths(doc_lengths),
        )  # fmt: skip
    elif rel_format == "qrels_jg":
        from .judgment_groups import evaluate_judgment_groups

        results = [
            evaluate_judgment_groups(
                judgments,
                run,
                requests,
                relevance_level=relevance_level,
                ties=ties,
                max_docs=max_docs,
                judged_only=judged_only,
                complete=complete,
            )
            for run in run_list
        ]
    else:
        from .trec_prefs import evaluate_prefs

        results = [
            evaluate_prefs(
                judgments, run, requests, ties=ties, max_docs=max_docs, complete=complete
            )
            for run in run_list
        ]
    if zscores is not None:
        from .io.prefs import read_zscores
        from .zscores import ZScores, to_zscores

        table = zscores if isinstance(zscores, ZScores) else read_zscores(zscores)
        results = [to_zscores(r, table) for r in results]
    return results


def _evaluate_qrels(
    qrels,
    run_list,
    requests,
    *,
    relevance_level,
    ties,
    max_docs,
    judged_only,
    complete,
    num_docs,
    doc_lengths=None,
) -> list[RunEvaluation]:
    per_run = [r for r in requests if r.measure.family != "preference"]
    results = [
        evaluate_run(
            qrels,
            run,
            per_run,
            relevance_level=relevance_level,
            ties=ties,
            max_docs=max_docs,
            judged_only=judged_only,
            complete=complete,
            num_docs=num_docs,
            doc_lengths=doc_lengths,
        )
        for run in run_list
    ]
    _add_preferences(results, requests, qrels, run_list, relevance_level, ties, max_docs)
    return results


def _add_preferences(results, requests, qrels, runs, relevance_level, ties, max_docs) -> None:
    """Append, for each preference request, every run's per-query win rate (eq. 7 of Diaz &
    Ferraro 2022) and its mean; queries without relevant documents count as indifference."""
    wanted = [r for r in requests if r.measure.family == "preference"]
    if not wanted:
        return
    from .measures.preferences import method_spec
    from .preference import preferences, relevance_table

    table = relevance_table(
        qrels, runs, relevance_level=relevance_level, ties=ties, max_docs=max_docs
    )
    for req in wanted:
        spec = method_spec(req.measure.name, req.kwargs)
        found = preferences(qrels, None, spec, relevance_level=relevance_level, table=table)
        position = {qid: i for i, qid in enumerate(found.query_ids)}
        wins = found.win_rate
        for r, res in enumerate(results):
            column = np.array(
                [wins[position[q], r] if q in position else 0.0 for q in res.query_ids]
            )
            res.requests.append(req)
            res.values.append(column)
            res.summary.append(float(np.cumsum(column)[-1] / len(column)) if len(column) else 0.0)


def evaluate(
    qrels: QrelsLike,
    runs: Any,
    measures: str | Sequence[str] | None = None,
    per_query: bool = True,
    *,
    relevance_level: int = 1,
    ties: str | None = None,
    max_docs: int | None = None,
    judged_only: bool = False,
    complete: bool = False,
    num_docs: int = 0,
    duplicates: str = "error",
    order: str = "score",
    diversity: bool | None = None,
    doc_lengths: Any = None,
    rel_format: str = "qrels",
    zscores: Any = None,
    output: str = "pandas",
) -> Any:
    """Evaluate runs against judgments; a tidy table with columns run, query, measure, value.

    Parameters
    ----------
    qrels, runs:
        Anything `read_qrels` / `read_run` accept; ``runs`` may be one run, a list, a
        ``{name: run}`` dict or a directory of run files.
    measures:
        Measure names in either spelling (``"nDCG@10"``, ``"ndcg_cut.10"``, ``"all_trec"``).
    per_query:
        One row per (run, query, measure); otherwise one summary row per (run, measure),
        with query ``"all"``.
    relevance_level, ties, max_docs, judged_only, complete, num_docs:
        trec_eval's ``-l``, tie order, ``-M``, ``-J``, ``-c``, ``-N``.
    order:
        ``score`` (default) or ``rank``: rank TREC run files by their rank column.
    diversity:
        Read a qrels file as diversity judgments (``qid subtopic docno grade``); by default
        when a diversity measure (α-nDCG, ERR-IA, ...) is requested.
    doc_lengths:
        Document lengths in words, ``{docno: words}`` or a file of ``docno words`` lines,
        for time-biased gain.
    rel_format, zscores:
        trec_eval's ``-R`` (``qrels``, ``prefs``, ``qrels_prefs``, ``qrels_jg``) and ``-Z``
        (see `evaluate_many`).
    output:
        ``pandas`` (default), ``polars`` or ``dict`` (of columns).

    Examples
    --------
    >>> import rankscope
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}}
    >>> table = rankscope.evaluate(qrels, {"bm25": run}, ["AP", "P@2"], output="dict")
    >>> [round(v, 4) for v in table["value"]]
    [0.8333, 0.5]
    """
    results = evaluate_many(
        qrels,
        runs,
        measures,
        relevance_level=relevance_level,
        ties=ties,
        max_docs=max_docs,
        judged_only=judged_only,
        complete=complete,
        num_docs=num_docs,
        duplicates=duplicates,
        order=order,
        diversity=diversity,
        doc_lengths=doc_lengths,
        rel_format=rel_format,
        zscores=zscores,
    )
    return frames.to_frame(_tidy(results, per_query), output)


def _doc_lengths(source: Any) -> dict[str, float] | None:
    if source is None or isinstance(source, Mapping):
        return source
    return trec_io.read_doc_lengths(source)


def _tidy(results: list[RunEvaluation], per_query: bool) -> dict[str, list]:
    cols: dict[str, list] = {"run": [], "query": [], "measure": [], "value": []}
    for res in results:
        if per_query:
            for req, col in zip(res.requests, res.values, strict=True):
                if req.measure.aggregate == "runid":
                    continue
                for qid, v in zip(res.query_ids, col.tolist(), strict=True):
                    cols["run"].append(res.run_name)
                    cols["query"].append(qid)
                    cols["measure"].append(req.label)
                    cols["value"].append(v)
        else:
            for req, v in zip(res.requests, res.summary, strict=True):
                if v is None or req.measure.aggregate == "runid":
                    continue
                cols["run"].append(res.run_name)
                cols["query"].append("all")
                cols["measure"].append(req.label)
                cols["value"].append(v)
    return cols


# -- the CLI's evaluation -----------------------------------------------------------------


def evaluate_files(args: Any) -> int:
    """Run ``rankscope eval`` (arguments as parsed by the CLI)."""
    paths = trec_io.run_files(args.runs)
    fmt = args.format or ("trec" if len(paths) == 1 else "table")
    results = evaluate_many(
        args.qrels,
        paths,
        args.measures or None,
        relevance_level=args.level,
        ties=args.ties,
        max_docs=args.max_docs,
        judged_only=args.judged_only,
        complete=args.complete,
        num_docs=args.num_docs,
        duplicates=args.duplicates,
        order=getattr(args, "order", "score"),
        diversity=getattr(args, "diversity", None) or None,
        doc_lengths=getattr(args, "doc_lengths", None),
        rel_format=getattr(args, "rel_format", "qrels"),
        zscores=getattr(args, "zscores", None),
    )
    out = sys.stdout
    if fmt == "trec":
        for res in results:
            out.write(format_trec(res, per_query=args.per_query, summary=not args.no_summary))
    elif fmt == "json":
        json.dump(_json(results, args.per_query), out, indent=1)
        out.write("\n")
    else:
        rows = _rows(results, args.per_query, getattr(args, "wide", False))
        if fmt == "csv":
            out.write("".join(",".join(_csv(c) for c in row) + "\n" for row in rows))
        else:
            out.write(_table(rows))
    out.flush()
    return 0


def _json(results: list[RunEvaluation], per_query: bool) -> list[dict]:
    out = []
    for res in results:
        entry: dict[str, Any] = {
            "run": res.run_name,
            "summary": {
                r.label: v
                for r, v in zip(res.requests, res.summary, strict=True)
                if v is not None and r.measure.aggregate != "runid"
            },
        }
        if per_query:
            entry["queries"] = {
                qid: {
                    r.label: col[i].item() if hasattr(col[i], "item") else col[i]
                    for r, col in zip(res.requests, res.values, strict=True)
                    if r.measure.per_query
                }
                for i, qid in enumerate(res.query_ids)
            }
        out.append(entry)
    return out


def _display(value: Any, kind: str) -> str:
    if isinstance(value, str):
        return value
    if kind == "int":
        return str(int(value))
    return f"{float(value):.4f}"


def _rows(results: list[RunEvaluation], per_query: bool, wide: bool) -> list[list[str]]:
    if wide:
        labels: list[str] = []
        kinds: dict[str, str] = {}
        for res in results:
            for r, v in zip(res.requests, res.summary, strict=True):
                if v is not None and r.measure.aggregate != "runid" and r.label not in kinds:
                    labels.append(r.label)
                    kinds[r.label] = r.measure.value
        rows = [["run", *labels]]
        for res in results:
            s = {r.label: v for r, v in zip(res.requests, res.summary, strict=True)}
            rows.append(
                [res.run_name]
                + [_display(s[lab], kinds[lab]) if lab in s else "" for lab in labels]
            )
        return rows
    rows = [["run", "query", "measure", "value"]]
    for res in results:
        if per_query:
            for r, col in zip(res.requests, res.values, strict=True):
                if not r.measure.per_query:
                    continue
                for qid, v in zip(res.query_ids, col.tolist(), strict=True):
                    rows.append([res.run_name, qid, r.label, _display(v, r.measure.value)])
        for r, v in zip(res.requests, res.summary, strict=True):
            if v is not None and r.measure.aggregate != "runid":
                rows.append([res.run_name, "all", r.label, _display(v, r.measure.value)])
    return rows


def _csv(cell: str) -> str:
    return f'"{cell.replace(chr(34), chr(34) * 2)}"' if any(c in cell for c in ',"\n') else cell


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        lines.append(
            "  ".join(
                c.ljust(w) if i == 0 else c.rjust(w)
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            ).rstrip()
        )
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"
