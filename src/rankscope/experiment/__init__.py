"""Online experiments: A/B and multi-arm tests of the units of an `rankscope.model.Experiment`
(`analyse`), with the sample-ratio check first, the tests of `rankscope.stats.TESTS`, CUPED
and post-stratification, and sequential looks; the results in `results`."""

from .analysis import analyse
from .results import (
    BETTER,
    NO_DIFFERENCE,
    WITHHELD,
    WORSE,
    Arm,
    Effect,
    ExperimentResult,
    Look,
    Omnibus,
    SampleRatio,
)

__all__ = [
    "BETTER", "NO_DIFFERENCE", "WITHHELD", "WORSE", "Arm", "Effect", "ExperimentResult", "Look",
    "Omnibus", "SampleRatio", "analyse",
]  # fmt: skip
