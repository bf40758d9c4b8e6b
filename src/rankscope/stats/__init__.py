"""Statistics a reviewer trusts, and meta-evaluation.

Every procedure takes arrays — a systems × queries score matrix, per-query differences, or a
queries × systems × systems preference tensor — never files; every random one takes a seed.
Every module imports scipy inside the functions that use it, so importing any of them stays
cheap.

* `tests`: the paired t, Wilcoxon, sign, randomization and bootstrap tests;
  `unpaired`: Student's and Welch's t-tests, Mann–Whitney U, the two-sample
  bootstrap, Welch's one-way ANOVA and Dunnett's many-to-one test; `proportions`: the
  two-proportion z and Fisher's exact tests; `contingency`: χ² tests of r×c tables and
  of a planned split (sample-ratio mismatch); `power`: power and sample size; each returns
  a `result.TestResult`.
* `delta`: the delta method (ratio metrics whose unit of analysis is not the unit of
  randomisation, relative lift) and variance reduction (CUPED, post-stratification).
* `sequential`: safe peeking at an experiment — always-valid p-values and confidence
  sequences, group-sequential α-spending boundaries.
* `intervals`: every confidence interval (t, percentile bootstrap, Wald, Newcombe/Wilson),
  used by the tests, ``compare``, aggregation, counterfactual estimators and Bradley–Terry.
* `paired`: each paired test written once, vectorised over many comparisons; `tests`,
  `procedures.pairwise_tests`, `meta` and `rankscope.interleaving.power.sign_test` call
  it, so every path gives the same p-value on the same data.
* `effects`: Cohen's d_z and d, Hedges' g, the interval of a mean difference.
* `procedures`: the one table of tests (`TESTS`: name, aliases, null hypothesis, label,
  p-value functions) that ``compare``, ``recsys --folds``, discriminative power, LaTeX and
  the report read; ``pairwise_tests`` (a paired test on every pair, corrected) over it.
* `multiple`: randomized and classical Tukey HSD; `letters`: the compact letter display.
* `corrections`: Bonferroni, Holm, Benjamini–Hochberg.
* `agreement`: agreement between assessors (percent agreement, Cohen's and Fleiss' kappa,
  Krippendorff's alpha); ``rankscope.agreement`` applies them to labels files.
* `rbo`: rank-biased overlap (RBO_min, RBO_res, RBO_ext; uneven lengths; tie treatments).
* `reproducibility`: KTU, RMSE, effect ratio, ΔRI and the t-tests of a reproduction
  (Breuer et al. 2020); ``rankscope.reproduce`` runs them over real runs.
* `meta`: Kendall's τ, τ_AP, discriminative power, robustness curves (`rankscope.table.study`
  runs them all over real runs, ``rankscope meta``).

Conventions of the paired tests (t, Wilcoxon signed-rank, sign, randomization, bootstrap),
the same on every path — ``paired_t`` and friends, ``pairwise_tests``/``compare``/
``latex_table``, ``discriminative_power``, the interleaving sign test:

* **No difference at all** (identical systems, all differences 0): p = 1 for every test and
  alternative.  The t statistic is 0 (0/0 taken as "no difference"; scipy's ``ttest_rel``
  gives NaN), the bootstrap's t too; Cohen's d_z stays NaN (0/0).  Constant non-zero
  differences give t = ±inf (p = 0 for the two-sided t-test).
* **Fewer than 2 queries**: `rankscope.errors.UsageError` ("needs at least 2 queries"), as
  for every invalid request in this package (it is a ``ValueError``).  The interleaving
  sign test takes counts instead (wins, losses), and 0 decided impressions give p = 1.
* **Floating-point ties**: when a re-computed statistic (a sign-flipped sum, a permuted
  range of means) is compared with the observed one, values within ``TIE_TOLERANCE``
  = 1e-9 times the mean absolute value of the numbers it averages count as equal: 1e-9 ·
  mean|d| for the randomization test (1e-9 · Σ|d| on its sums), 1e-9 · mean|score| for
  randomized Tukey HSD.  Rank and sign tests compare differences with 0 and with each other
  exactly, as scipy.stats does (y − x is 0 exactly when y = x).
* **Randomization test**: all 2^n sign flips up to 20 queries (p = count / 2^n, the
  identity included), else ``permutations`` random flips from
  ``numpy.random.default_rng(seed)`` with p = (count + 1) / (permutations + 1); the same
  seed gives the same p-value for a pair tested alone or among thousands.  (Randomized
  Tukey HSD, a different test, keeps Carterette's count / B.)
* **Wilcoxon**: ``wilcoxon`` reports W+, ``pairwise_tests`` min(W+, W−) as scipy does; the
  p-value is the same.
"""

from __future__ import annotations

import lazy_loader

#: Public names, imported from their module on first use (``import rankscope`` stays quick).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "tests": ["paired_t", "wilcoxon", "sign_test", "permutation_test", "paired_bootstrap"],
        "unpaired": [
            "student_t", "welch_t", "mann_whitney", "two_sample_bootstrap", "welch_anova",
            "dunnett",
        ],
        "proportions": ["two_proportion_z", "fisher_exact"],
        "contingency": ["chi_square", "goodness_of_fit"],
        "sequential": ["always_valid", "group_sequential"],
        "delta": ["ratio_estimate", "relative_lift", "cuped", "post_stratified", "estimate_z"],
        "power": [
            "power_paired_t", "sample_size_paired_t", "power_unpaired_t",
            "sample_size_unpaired_t", "power_two_proportions", "sample_size_two_proportions",
            "mde_unpaired_t", "mde_two_proportions", "ratio_unit_sd",
        ],
        "result": ["TestResult"],
        "effects": ["cohens_dz", "cohens_d", "hedges_g"],
        "multiple": ["randomized_tukey_hsd", "tukey_hsd", "PairwiseResult"],
        "letters": ["compact_letters"],
        "procedures": ["TESTS", "StatisticalTest", "pairwise_tests"],
        "corrections": ["bonferroni", "holm", "benjamini_hochberg"],
        "meta": [
            "kendall_tau", "tau_ap", "discriminative_power", "discriminative_powers",
            "robustness_curve",
        ],
        "rbo": ["rbo", "RBO"],
        "reproducibility": [
            "ktu", "rmse", "effect_ratio", "relative_improvement", "delta_relative_improvement",
            "reproduction_p_value",
        ],
        "agreement": ["percent_agreement", "cohen_kappa", "fleiss_kappa", "krippendorff_alpha"],
    },
)
