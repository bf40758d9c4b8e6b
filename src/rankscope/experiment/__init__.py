"""Online experiments: A/B and multi-arm tests of the units of an `rankscope.model.Experiment`
(`analyse`), with the sample-ratio check first, the tests of `rankscope.stats.TESTS`, CUPED
and post-stratification, and sequential looks; the results in `results`; and the planning
of one before it runs (`plan`: units, minimum detectable effect or power)."""

from .analysis import analyse
from .plan import Plan, plan
from .results import Arm, Effect, ExperimentResult, Look, Omnibus, SampleRatio

__all__ = [
    "Arm", "Effect", "ExperimentResult", "Look", "Omnibus", "Plan", "SampleRatio", "analyse",
    "plan",
]  # fmt: skip
