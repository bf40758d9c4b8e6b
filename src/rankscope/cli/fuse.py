"""fuse runs into one: reciprocal rank fusion, CombSUM and its family, Borda, Condorcet

Fuses RUNS into one run and writes it (-o, default stdout) as a TREC run file that
trec_eval reads: ranks 1..n per query, scores descending, equal scores ordered by document
id descending (trec_eval's order, so that the rank column is the order trec_eval uses),
--depth documents per query, the tag column --tag (default the method's name).

Methods (--method): rrf (reciprocal rank fusion, -k), sum, mnz, max, min, med, anz (Fox &
Shaw's CombSUM ... CombANZ), wsum (weighted sum: --run-weights or --optimize), borda, condorcet.
The score-based methods normalise each run's scores per query first (--norm, min-max by
default); rrf, borda and condorcet read the runs' ranks only.  Definitions, normalisations
and citations: the section "Rank fusion" of rankscope's ecosystem.md.

--optimize MEASURE tunes the weights of rrf, sum, wsum or borda to maximise the mean of
MEASURE over training queries judged in --qrels (--train FILE of query ids, or a seeded
random --train-fraction of the queries), by a grid over the weights summing to 1 (--step)
or seeded coordinate ascent (--search coordinate), and fuses the held-out queries with the
tuned weights; the weights and the training scores are printed on stderr.
"""

from __future__ import annotations

import argparse
import sys

from . import options

EXAMPLES = """\
examples:
  rankscope fuse bm25.run dense.run splade.run -o rrf.run
  rankscope fuse --method wsum --run-weights 0.7,0.3 bm25.run dense.run -o wsum.run
  rankscope fuse --method wsum --optimize nDCG@10 --qrels qrels.txt --seed 1 a.run b.run -o w.run
"""

#: `rankscope.fusion.METHODS`, `NORMALISATIONS` and `SEARCHES`, repeated so that building the
#: parser imports nothing (a test checks they agree).
METHODS = ("rrf", "sum", "wsum", "mnz", "max", "min", "med", "anz", "borda", "condorcet")
NORMS = ("min-max", "max", "sum", "zscore", "rank", "none")
SEARCHES = ("grid", "coordinate")


def add_arguments(p: argparse.ArgumentParser) -> None:
    Option = options.Option
    p.add_argument("runs", nargs="+", help="TREC run files or directories (two runs or more)")
    options.add_all(p, (
        options.OUTPUT.worded("the fused run file (default: standard output)", metavar="RUN"),
        options.FORCE,
        Option(("--method",), "method", "the fusion method (default rrf)", choices=METHODS,
               default=METHODS[0]),
        Option(("--norm",), "norm", "per-query score normalisation of the score-based methods "
               "(default min-max); rrf, borda and condorcet read ranks and take none",
               choices=NORMS),
        Option(("--rrf-k",), "rrf_k", "reciprocal rank fusion's constant: a document at rank r "
               "gets 1/(k + r) (default 60)", type=_non_negative, default=60.0, metavar="K"),
        Option(("--run-weights",), "run_weights", "one weight per run, in order (rrf, sum, wsum, "
               "borda), e.g. 0.7,0.3", metavar="W,W,..."),
        options.DEPTH.worded("documents written per query (default 1000)"),
        Option(("--tag",), "tag", "the fused run's tag column (default: the method's name)"),
        options.TIE.worded("the order of a run's equally scored documents, which decides their "
                           "ranks for rrf, borda and condorcet (default docno-desc, trec_eval's)"),
        options.DUPLICATE,
        options.NAMES,
    ))  # fmt: skip
    tuning = p.add_argument_group("weights tuned on training queries")
    options.add_all(tuning, (
        Option(("--optimize",), "optimize", "tune the weights to maximise this measure (nDCG@10, "
               "AP, ...) on training queries", metavar="MEASURE"),
        Option(("--qrels",), "qrels", "the judgments of the training queries (TREC qrels)"),
        Option(("--train",), "train", "the training query ids, one per line (default: a random "
               "--train-fraction)", metavar="FILE"),
        Option(("--train-fraction",), "train_fraction", "the share of the queries drawn (--seed) "
               "for training (default 0.5)", type=options.probability, default=0.5, metavar="F"),
        Option(("--search",), "search", "grid (default) or coordinate ascent", choices=SEARCHES,
               default="grid"),
        Option(("--step",), "step", "the weights' grid: multiples of this summing to 1 (default "
               "0.1)", type=options.real, default=0.1),
        options.SEED.worded("seed of the training split and of coordinate ascent's starts (default "
                            "0)"),
        Option(("--restarts",), "restarts", "coordinate ascent's random starts besides equal "
               "weights (default 3)", type=options.whole(0, 1000), default=3, metavar="N"),
    ))  # fmt: skip

def _non_negative(text: str) -> float:
    value = options.real(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {text}")
    return value


def _weights(text: str | None) -> list[float] | None:
    from ..errors import UsageError

    if text is None:
        return None
    out = []
    for part in text.split(","):
        try:
            out.append(options.real(part.strip()))
        except argparse.ArgumentTypeError:
            raise UsageError(f"--run-weights {text!r}: {part.strip()!r} is not a number") from None
    return out


def _train_ids(path: str | None) -> list[str] | None:
    """The first field of each non-blank line of ``path``."""
    if path is None:
        return None
    with open(path, encoding="utf-8") as lines:
        return [line.split()[0] for line in lines if line.strip()]


def run(args: argparse.Namespace) -> int:
    from ..errors import UsageError

    options.check_outputs(args, {"--output": args.output})
    if args.optimize is None:
        for flag, given in (("--qrels", args.qrels), ("--train", args.train)):
            if given is not None:
                raise UsageError(f"{flag} is for tuning weights: it needs --optimize MEASURE")
    from ..api.fusion import fuse

    fusion = fuse(
        args.runs, args.method, norm=args.norm, run_weights=_weights(args.run_weights),
        rrf_k=args.rrf_k,
        depth=args.depth, tag=args.tag, ties=args.ties, duplicates=args.duplicates,
        names=args.names, optimize=args.optimize, qrels=args.qrels,
        train=_train_ids(args.train), train_fraction=args.train_fraction, search=args.search,
        step=args.step, seed=args.seed, restarts=args.restarts,
    )  # fmt: skip
    if fusion.tuning is not None:
        _tell_tuning(fusion)
    if args.output in (None, "-"):
        sys.stdout.write(fusion.to_trec())
    else:
        fusion.write(args.output)
    return 0


def _tell_tuning(fusion) -> None:
    from ..report.tables import clean

    t = fusion.tuning
    weights = ", ".join(f"{clean(n)} {w:.4g}" for n, w in fusion.weights.items())
    how = f"grid of step {t.step:g}" if t.search == "grid" else f"coordinate ascent, seed {t.seed}"
    print(
        f"rankscope: tuned weights ({t.measure} on {len(t.train_queries)} training queries: "
        f"{t.score:.4f}, equal weights {t.equal_weights_score:.4f}; {how}, {t.evaluated} "
        f"settings tried): {weights}\n"
        f"rankscope: the fused run holds the {len(t.test_queries)} held-out queries",
        file=sys.stderr,
    )
