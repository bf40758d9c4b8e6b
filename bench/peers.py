"""Evaluate a TREC qrels file and run file with one peer toolkit, the way its users do.

    python bench/peers.py TOOL SET QRELS RUN
    python bench/peers.py pytrec_eval SET QRELS RUNS_FOLDER

TOOL is ``pytrec_eval``, ``ir_measures`` or ``ranx``; SET is ``small`` (AP, nDCG, P@10, RR,
nDCG@10) or ``all_trec`` (the closest each toolkit offers to ``trec_eval -m all_trec``), or
for pytrec_eval also ``official`` (trec_eval's default measures, those of ``rankscope eval``
without ``-m``).  Each driver reads both files with the toolkit's own reader, evaluates, and
prints one summary line per measure in trec_eval's layout (``name<TAB>all<TAB>value``) so
that `run.py` can time whole processes and compare the values.  Only the chosen toolkit is
imported.

With a folder of runs (pytrec_eval only; `scale.py`), the driver reads the qrels once,
builds one evaluator, then reads and evaluates each run in turn (sorted by file name),
printing ``run<TAB>all<TAB>name<TAB>value`` lines, the run named as ``rankscope eval`` names
it (the file name without ``.gz`` and ``.txt``/``.run``/``.trec``/``.tsv``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path

CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)  # trec_eval's default cutoffs
RECALL_LEVELS = tuple(level / 10 for level in range(11))  # iprec_at_recall_0.00 .. 1.00
OFFICIAL = {  # trec_eval's default measures (its runid line aside), default parameters
    "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P",
}  # fmt: skip
RUN_SUFFIXES = (".txt", ".run", ".trec", ".tsv")


def emit(values: Iterable[tuple[str, float]]) -> None:
    sys.stdout.write("".join(f"{name}\tall\t{value:.4f}\n" for name, value in values))


def pytrec_eval_measures(measure_set: str) -> set[str]:
    import pytrec_eval

    if measure_set == "all_trec":
        return set(pytrec_eval.supported_measures)
    if measure_set == "official":
        return set(OFFICIAL)
    return {"map", "ndcg", "P.10", "recip_rank", "ndcg_cut.10"}


def pytrec_eval_summary(per_query: dict[str, dict[str, float]]) -> list[tuple[str, float]]:
    import pytrec_eval

    names = sorted(next(iter(per_query.values())))
    return [
        (name, pytrec_eval.compute_aggregated_measure(name, [q[name] for q in per_query.values()]))
        for name in names
    ]


def pytrec_eval_driver(measure_set: str, qrels_path: str, run_path: str) -> None:
    """pytrec-eval-terrier: trec_eval's C code behind dicts of dicts.

    all_trec is ``pytrec_eval.supported_measures`` (every trec_eval measure with its default
    parameters); summaries use ``compute_aggregated_measure`` (sums for num_*, geometric means
    for gm_*), as trec_eval does.  A folder of runs goes to `pytrec_eval_loop`.
    """
    import pytrec_eval

    if Path(run_path).is_dir():
        pytrec_eval_loop(measure_set, qrels_path, run_path)
        return
    with open(qrels_path) as lines:
        qrels = pytrec_eval.parse_qrel(lines)
    with open(run_path) as lines:
        run = pytrec_eval.parse_run(lines)
    measures = pytrec_eval_measures(measure_set)
    emit(pytrec_eval_summary(pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)))


def run_name(path: Path) -> str:
    name = path.name.removesuffix(".gz")
    return next((name.removesuffix(s) for s in RUN_SUFFIXES if name.endswith(s)), name)


def pytrec_eval_loop(measure_set: str, qrels_path: str, folder: str) -> None:
    """Every run of ``folder`` against one qrels: read once, one evaluator, a run at a time."""
    import pytrec_eval

    with open(qrels_path) as lines:
        qrels = pytrec_eval.parse_qrel(lines)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, pytrec_eval_measures(measure_set))
    for path in sorted(p for p in Path(folder).iterdir() if p.is_file()):
        with open(path) as lines:
            run = pytrec_eval.parse_run(lines)
        summary = pytrec_eval_summary(evaluator.evaluate(run))
        name = run_name(path)
        sys.stdout.write("".join(f"{name}\tall\t{m}\t{value:.4f}\n" for m, value in summary))
        del run  # one run in memory at a time


def ir_measures_measures(measure_set: str) -> list:
    """ir_measures' measures; for all_trec, those of trec_eval's all_trec that it can name.

    Not expressible in ir_measures (so not computed): gm_map, gm_bpref, Rprec_mult,
    utility, 11pt_avg, binG, G, ndcg_rel, Rndcg, relative_P, num_nonrel_judged_ret.
    """
    import ir_measures as irm

    if measure_set == "small":
        return [irm.AP, irm.nDCG, irm.P @ 10, irm.RR, irm.nDCG @ 10]
    fixed = [irm.AP, irm.nDCG, irm.RR, irm.Rprec, irm.Bpref, irm.infAP]
    fixed += [irm.NumQ, irm.NumRet, irm.NumRel, irm.NumRet(rel=1)]  # the last is num_rel_ret
    fixed += [irm.SetP, irm.SetR, irm.SetF, irm.SetAP, irm.SetP(relative=True)]
    per_cutoff = [m @ k for m in (irm.P, irm.R, irm.nDCG, irm.AP) for k in CUTOFFS]
    recall_levels = [irm.IPrec @ level for level in RECALL_LEVELS]
    return fixed + per_cutoff + recall_levels + [irm.Success @ k for k in (1, 5, 10)]


def ir_measures_driver(measure_set: str, qrels_path: str, run_path: str) -> None:
    import ir_measures

    qrels = ir_measures.read_trec_qrels(qrels_path)
    run = ir_measures.read_trec_run(run_path)
    results = ir_measures.calc_aggregate(ir_measures_measures(measure_set), qrels, run)
    emit((str(measure), value) for measure, value in results.items())


def ranx_metrics(measure_set: str) -> list[str]:
    """ranx's metrics; for all_trec, those of trec_eval's all_trec that ranx has.

    ``precision``, ``recall`` and ``f1`` without a cutoff are trec_eval's set_P, set_recall
    and set_F; ``hits`` is num_rel_ret; ``hit_rate@k`` is success_k.
    """
    if measure_set == "small":
        return ["map", "ndcg", "precision@10", "mrr", "ndcg@10"]
    fixed = ["map", "ndcg", "mrr", "r-precision", "bpref", "hits", "precision", "recall", "f1"]
    per_cutoff = [f"{m}@{k}" for m in ("precision", "recall", "ndcg", "map") for k in CUTOFFS]
    return fixed + per_cutoff + [f"hit_rate@{k}" for k in (1, 5, 10)]


def ranx_driver(measure_set: str, qrels_path: str, run_path: str) -> None:
    """ranx: numba kernels, compiled on first use and cached on disk (NUMBA_CACHE_DIR)."""
    from ranx import Qrels, Run, evaluate

    qrels = Qrels.from_file(qrels_path, kind="trec")
    run = Run.from_file(run_path, kind="trec")
    metrics = ranx_metrics(measure_set)
    results = evaluate(qrels, run, metrics)
    emit((metric, float(results[metric])) for metric in metrics)


DRIVERS: dict[str, Callable[[str, str, str], None]] = {
    "pytrec_eval": pytrec_eval_driver,
    "ir_measures": ir_measures_driver,
    "ranx": ranx_driver,
}


def main(argv: list[str]) -> None:
    sets = ("small", "all_trec", "official")
    if len(argv) != 4 or argv[0] not in DRIVERS or argv[1] not in sets:
        sys.exit(f"usage: peers.py {{{','.join(DRIVERS)}}} {{{','.join(sets)}}} QRELS RUN")
    tool, measure_set, qrels_path, run_path = argv
    if tool != "pytrec_eval" and (measure_set == "official" or Path(run_path).is_dir()):
        sys.exit("peers.py: the official set and a folder of runs are for pytrec_eval only")
    DRIVERS[tool](measure_set, qrels_path, run_path)


if __name__ == "__main__":
    main(sys.argv[1:])
