"""Regenerate the example experiment bundled in src/rankscope/examples (seeded, deterministic).

A synthetic A/B test of a new ranker on an e-commerce site: 4,000 users assigned 50/50 to
``control`` and ``treatment`` over 14 days, one row per user: whether they bought
(``converted``, 0/1), their ``revenue``, their result ``clicks`` and ``impressions`` (CTR is
the ratio clicks/impressions: its unit of analysis is not the unit of randomisation), the
revenue of the 28 days before the experiment (``pre_revenue``, CUPED's covariate), their
country (``segment``, a stratum) and when they entered (``timestamp``).  Each user orders at
their own rate (Poisson, the rates gamma-distributed, by country) and spends their own basket
per order, before and during the experiment alike, so past revenue predicts revenue; the
treatment lifts the rate of orders by 15% and the CTR by 5% relative.

    python tools/make_example_experiment.py
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent.parent / "src" / "rankscope" / "examples" / "experiment.tsv"


def main() -> None:
    rng = np.random.default_rng(20261126)
    users = 4000
    treated = rng.random(users) < 0.5
    country = rng.choice(["us", "de", "fr"], size=users, p=[0.5, 0.3, 0.2])
    base = {"us": 0.11, "de": 0.09, "fr": 0.08}
    appetite = rng.gamma(0.5, 1.0, size=users) * np.array([base[c] for c in country]) / 0.1
    basket = rng.gamma(4.0, 10.0, size=users)  # what the user spends on an order
    orders_before = rng.poisson(appetite)  # the 28 days before the experiment
    pre_revenue = np.round(orders_before * basket * rng.lognormal(0, 0.2, size=users), 2)
    orders = rng.poisson(appetite * np.where(treated, 1.15, 1.0))
    converted = orders > 0
    revenue = np.round(orders * basket * rng.lognormal(0, 0.2, size=users), 2)
    impressions = 1 + rng.poisson(9, size=users)
    ctr = rng.beta(2, 18, size=users) * np.where(treated, 1.05, 1.0)
    clicks = rng.binomial(impressions, np.minimum(ctr, 1))
    start = datetime(2026, 11, 1, tzinfo=UTC).timestamp()
    entered = np.sort(start + rng.random(users) * 14 * 86400)
    lines = ["user\tvariant\tconverted\trevenue\tclicks\timpressions\tpre_revenue\tsegment"
             "\ttimestamp"]  # fmt: skip
    for i in range(users):
        stamp = datetime.fromtimestamp(round(float(entered[i])), UTC).strftime("%Y-%m-%dT%H:%M:%S")
        lines.append(
            f"u{i + 1:04d}\t{'treatment' if treated[i] else 'control'}\t{int(converted[i])}\t"
            f"{revenue[i]:.2f}\t{clicks[i]}\t{impressions[i]}\t{pre_revenue[i]:.2f}\t"
            f"{country[i]}\t{stamp}"
        )
    OUT.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
