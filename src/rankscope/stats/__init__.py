"""Statistics a reviewer trusts, and meta-evaluation.

Every procedure takes arrays — a systems × queries score matrix, per-query differences, or a
queries × systems × systems preference tensor — never files; every random one takes a seed.

* `tests`: paired t, Wilcoxon, sign, randomization and bootstrap tests; Student, Welch,
  two-proportion z and Fisher's exact tests; power and sample size.
* `effects`: Cohen's d_z and d, Hedges' g, confidence intervals.
* `multiple`: randomized and classical Tukey HSD, corrected pairwise tests, compact letters.
* `corrections`: Bonferroni, Holm, Benjamini–Hochberg.
* `latex`: a table of means with significance superscripts.
* `meta`: Kendall's τ, τ_AP, discriminative power, robustness curves (`rankscope.table.study`
  runs them all over real runs, ``rankscope meta``).
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "paired_t": "tests",
    "wilcoxon": "tests",
    "sign_test": "tests",
    "permutation_test": "tests",
    "paired_bootstrap": "tests",
    "student_t": "tests",
    "welch_t": "tests",
    "two_proportion_z": "tests",
    "fisher_exact": "tests",
    "power_paired_t": "tests",
    "sample_size_paired_t": "tests",
    "power_two_proportions": "tests",
    "sample_size_two_proportions": "tests",
    "TestResult": "tests",
    "cohens_dz": "effects",
    "cohens_d": "effects",
    "hedges_g": "effects",
    "randomized_tukey_hsd": "multiple",
    "tukey_hsd": "multiple",
    "pairwise_tests": "multiple",
    "compact_letters": "multiple",
    "PairwiseResult": "multiple",
    "bonferroni": "corrections",
    "holm": "corrections",
    "benjamini_hochberg": "corrections",
    "latex_table": "latex",
    "kendall_tau": "meta",
    "tau_ap": "meta",
    "discriminative_power": "meta",
    "robustness_curve": "meta",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'rankscope.stats' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
