"""Rank fusion: several runs into one (docs/ecosystem.md, "Rank fusion").

* `methods`: the fusion methods, one declaration each (`METHODS`): reciprocal rank fusion,
  CombSUM, CombMNZ, CombMAX, CombMIN, CombMED, CombANZ, weighted sum, Borda, Condorcet;
* `normalise`: the per-query score normalisations (`NORMALISATIONS`);
* `pool`: the candidates, every (query, document) some run ranks, with each run's score and
  rank, as (runs × candidates) matrices;
* `tune`: weights tuned on training queries (grid or seeded coordinate ascent);
* `fuse`: the fusion of a pool (`fuse_pool`) and its result `Fusion`; the entry point,
  `rankscope.fuse`, reads the runs (`rankscope.api.fusion`).

Fusion sits above `table`: tuning evaluates the fused training queries.
"""

from .fuse import DEPTH, Fusion, fuse_pool, fusion_options
from .methods import METHODS, FusionMethod
from .normalise import NORMALISATIONS, Normalisation
from .tune import SEARCHES, Tuning

__all__ = [
    "DEPTH",
    "METHODS",
    "NORMALISATIONS",
    "SEARCHES",
    "Fusion",
    "FusionMethod",
    "Normalisation",
    "Tuning",
    "fuse_pool",
    "fusion_options",
]
