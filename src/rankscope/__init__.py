"""rankscope: offline evaluation of search and recommendation systems.

>>> import rankscope
>>> qrels = rankscope.read_qrels("qrels.txt")            # doctest: +SKIP
>>> table = rankscope.evaluate(qrels, ["run1.txt", "run2.txt"], ["AP", "nDCG@10"])  # doctest: +SKIP

Names are imported on first use, so that ``import rankscope`` (and the command line) stay
quick.
"""

from __future__ import annotations

import lazy_loader

# (`typing.TYPE_CHECKING`, which type checkers read as true, without importing typing here:
# the command line imports it later, with the collector paused, as numpy does)
TYPE_CHECKING = False

__version__ = "0.1.0"

#: Public names, imported from their module on first use, and the subpackages, reachable as
#: attributes (``rankscope.recsys.splits``) and imported on first use too.
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    # the subpackage rankscope.judge is reached by import; the attribute is the function
    submodules=[
        "model", "read", "measures", "preference", "table", "stats", "recsys", "report",
        "fusion", "clicks", "interleaving", "experiment",
    ],
    submod_attrs={
        "api": ["agreement"],  # the module of agreement's front doors
        "api.evaluation": ["evaluate", "evaluate_many", "read_judgments", "dataset_measures"],
        "api.comparison": ["compare"],
        "api.preference": ["preferences"],
        "api.reproduction": ["reproduce"],
        "api.explanation": ["recall_levels"],
        "read.sources": ["read_qrels", "read_run"],
        "errors": ["InputError", "RankscopeError", "RankscopeWarning", "UsageError"],
        "judge": ["Judged", "Ranked", "judge"],
        "model": ["Qrels", "Run", "Vocabulary"],
        "table": ["RunEvaluation", "evaluate_judged"],
        "api.aggregation": ["aggregate"],
        "report.trec": ["format_trec"],
        "report.splits": ["write_splits"],
        "measures": ["MEASURES", "REGISTRY", "parse_measures"],
        "api.fusion": ["fuse"],
        "api.clicks": ["simulate_clicks"],
        "api.interleaving": ["interleaved_lists", "interleaving_outcomes"],
        "api.recsys": ["evaluate_recsys", "evaluate_recsys_systems"],
        "api.experiments": ["analyse_experiment"],
    },
)  # fmt: skip

if TYPE_CHECKING:  # pragma: no cover
    from .api import agreement  # noqa: F401
    from .api.aggregation import aggregate  # noqa: F401
    from .api.clicks import simulate_clicks  # noqa: F401
    from .api.comparison import compare  # noqa: F401
    from .api.evaluation import (  # noqa: F401
        dataset_measures,
        evaluate,
        evaluate_many,
        read_judgments,
    )
    from .api.experiments import analyse_experiment  # noqa: F401
    from .api.explanation import recall_levels  # noqa: F401
    from .api.fusion import fuse  # noqa: F401
    from .api.interleaving import interleaved_lists, interleaving_outcomes  # noqa: F401
    from .api.preference import preferences  # noqa: F401
    from .api.recsys import evaluate_recsys, evaluate_recsys_systems  # noqa: F401
    from .api.reproduction import reproduce  # noqa: F401
    from .errors import InputError, RankscopeError, RankscopeWarning, UsageError  # noqa: F401
    from .judge import Judged, Ranked, judge  # noqa: F401
    from .measures import MEASURES, REGISTRY, parse_measures  # noqa: F401
    from .model import Qrels, Run, Vocabulary  # noqa: F401
    from .read.sources import read_qrels, read_run  # noqa: F401
    from .report.splits import write_splits  # noqa: F401
    from .report.trec import format_trec  # noqa: F401
    from .table import RunEvaluation, evaluate_judged  # noqa: F401
