"""The front doors: every public entry point that resolves what a user gives (paths, frames,
ir_datasets ids, run names) and picks a backend, one module each, at the top of the layers;
the kernels below take model objects.

Names are imported on first use (as in `rankscope`), so that ``rankscope eval`` loads the
evaluation's path and not the comparison's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submodules=["agreement"],
    submod_attrs={
        "evaluation": [
            "EvaluateOptions", "dataset_measures", "evaluate", "evaluate_many",
            "measure_specs", "read_judgments", "read_qrels_for",
        ],
        "aggregation": ["aggregate"],
        "comparison": ["compare"],
        "preference": ["preferences"],
        "reproduction": ["reproduce"],
        "explanation": ["recall_levels"],
        "fusion": ["fuse"],
        "clicks": ["simulate_clicks"],
        "recsys": ["RecsysOptions", "evaluate_recsys", "evaluate_recsys_systems"],
        "experiments": ["analyse_experiment"],
    },
)  # fmt: skip

if TYPE_CHECKING:  # pragma: no cover
    from . import agreement  # noqa: F401
    from .aggregation import aggregate  # noqa: F401
    from .clicks import simulate_clicks  # noqa: F401
    from .comparison import compare  # noqa: F401
    from .evaluation import (  # noqa: F401
        EvaluateOptions,
        dataset_measures,
        evaluate,
        evaluate_many,
        measure_specs,
        read_judgments,
        read_qrels_for,
    )
    from .experiments import analyse_experiment  # noqa: F401
    from .explanation import recall_levels  # noqa: F401
    from .fusion import fuse  # noqa: F401
    from .preference import preferences  # noqa: F401
    from .recsys import RecsysOptions, evaluate_recsys, evaluate_recsys_systems  # noqa: F401
    from .reproduction import reproduce  # noqa: F401
