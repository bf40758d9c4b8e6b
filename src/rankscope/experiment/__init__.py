"""Online experiments: A/B and multi-arm tests of the units of an `rankscope.model.Experiment`
(`analyse`), with the sample-ratio check first, the tests of `rankscope.stats.TESTS`, CUPED
and post-stratification, and sequential looks; the results in `results`."""

from .analysis import analyse
from .results import Arm, Effect, ExperimentResult, Look, Omnibus, SampleRatio

__all__ = ["Arm", "Effect", "ExperimentResult", "Look", "Omnibus", "SampleRatio", "analyse"]
