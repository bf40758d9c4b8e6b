"""Is the uniform-p(k) variant of online interleaving more sensitive than the standard one?

    python bench/interleave_sensitivity.py [--data ../shared/data/clef_ehealth2016]
        [--pairs 8] [--replications 200] [--seed 0]

Diaz & Ferraro (SIGIR 2022, §7) suggest that because users' p(k) (the depth of the last
click) is skewed to the top, a more uniform p(k) could make interleaving more sensitive.
`rankscope.interleaving.uniform_depth` re-weights impressions so that last-click depths
are uniform.  This script simulates team-draft interleaving experiments between CLEF
eHealth 2016 runs (the top 10 of each run per query, judged by task2.qrels: grades 0, 1, 2)
with three seeded click models written here with numpy:

* ``pbm-steep``: position-based, examination 1/k, attractiveness 0.05 / 0.5 / 0.95 by grade;
* ``pbm-mild``: position-based, examination 0.9^(k−1), same attractiveness;
* ``cascade``: the cascade model (Craswell et al. 2008): the user reads down, clicks with
  the attractiveness above and stops at the first click.

Each impression draws a query uniformly among the queries both runs rank and a team-draft
interleaving (a coin per round) of the two top-10 lists; the shown list is 10 long.  Pairs:
``--pairs`` distinct seeded random pairs of the 16 runs, plus two pairs made from the best run
(``best~deep``: its top 10 against the same list with ranks 6–10 reversed;
``best~top``: against the same list with ranks 1 and 2 swapped).

For each pair, model and test, ``--replications`` independent experiments are run and the
test applied after n = 25, 35, 50, 71, 100, ..., 25,600 impressions (a factor √2 apart);
*impressions needed* is the first n at which at least 80% of the experiments reach
p < 0.05 in the direction of the variant's own large-sample preference (estimated from
400,000 impressions), ">25600" when none does.  Tests: the standard exact sign test, the
standard test by the normal approximation (z = (wins − losses)/sqrt(wins + losses), what
the variant's test reduces to with equal weights, so that the comparison is not one of
approximations), and the uniform-depth sign-flip test (normal approximation).  Prints the
table; asserts nothing.
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

import numpy as np
from scipy.special import ndtr
from scipy.stats import binom

import rankscope
from rankscope.interleaving import rankings_of, team_draft

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "shared" / "data" / "clef_ehealth2016"
DEPTH = 10
ATTRACTIVENESS = np.array([0.05, 0.5, 0.95])
GRID = [int(round(25 * 2 ** (j / 2))) for j in range(21)]  # 25, 35, 50, 71, ..., 25,600
TRUTH = 400_000


def lists_of_pair(a: dict, b: dict, grades: dict) -> tuple[np.ndarray, np.ndarray]:
    """Every team-draft list of the two top-10 rankings per shared query: grades (queries ×
    32 × 10, −1 past a list's end) and teams (+1 a, −1 b, 0 past the end)."""
    shared = sorted(set(a) & set(b) & set(grades))
    rounds = DEPTH // 2
    grade_lists = np.full((len(shared), 2**rounds, DEPTH), -1, dtype=np.int8)
    team_lists = np.zeros((len(shared), 2**rounds, DEPTH), dtype=np.int8)
    for q, query in enumerate(shared):
        top_a, top_b = a[query][:DEPTH], b[query][:DEPTH]
        for f, flips in enumerate(itertools.product((True, False), repeat=rounds)):
            made = team_draft(top_a, top_b, [*flips, *([True] * DEPTH)])
            docs, teams = made.docs[:DEPTH], made.team[:DEPTH]
            grade_lists[q, f, : len(docs)] = [max(0, grades[query].get(d, 0)) for d in docs]
            team_lists[q, f, : len(docs)] = teams
    return grade_lists, team_lists


def clicks(model: str, grades: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Simulated clicks (boolean, same shape as ``grades``; −1 grades are never clicked)."""
    attract = np.where(grades >= 0, ATTRACTIVENESS[np.clip(grades, 0, 2)], 0.0)
    k = np.arange(1, DEPTH + 1)
    if model == "pbm-steep":
        return rng.random(grades.shape) < attract / k
    if model == "pbm-mild":
        return rng.random(grades.shape) < attract * 0.9 ** (k - 1)
    # cascade: the first position whose draw succeeds is the only click
    hit = rng.random(grades.shape) < attract
    first = np.where(hit.any(axis=-1), hit.argmax(axis=-1), -1)
    return (k - 1 == first[..., None]) & (first[..., None] >= 0)


def experiments(grade_lists, team_lists, model, n, replications, rng, chunk=10):
    """Outcomes (replications × n) and last-click depths (0: no click), int8."""
    parts = [
        _experiments(grade_lists, team_lists, model, n, min(chunk, replications - start), rng)
        for start in range(0, replications, chunk)
    ]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def _experiments(grade_lists, team_lists, model, n, replications, rng):
    q = rng.integers(0, grade_lists.shape[0], size=(replications, n))
    f = rng.integers(0, grade_lists.shape[1], size=(replications, n))
    grades, teams = grade_lists[q, f], team_lists[q, f]
    clicked = clicks(model, grades, rng)
    credit = (clicked * teams).sum(axis=-1)
    outcome = np.sign(credit).astype(np.int8)
    deepest = np.where(clicked.any(axis=-1), DEPTH - clicked[..., ::-1].argmax(axis=-1), 0)
    return outcome, deepest.astype(np.int8)


def tests_at(outcome: np.ndarray, deepest: np.ndarray, n: int):
    """p-values (replications,) of the three tests on the first n impressions, and the signs
    of the standard and uniform statistics."""
    o, d = outcome[:, :n], deepest[:, :n]
    wins, losses = (o > 0).sum(axis=1), (o < 0).sum(axis=1)
    decided = wins + losses
    exact = np.minimum(1.0, 2.0 * binom.cdf(np.minimum(wins, losses), decided, 0.5))
    exact = np.where(decided > 0, exact, 1.0)
    z_standard = (wins - losses) / np.sqrt(np.maximum(decided, 1))
    normal = 2.0 * ndtr(-np.abs(z_standard))
    statistic = np.zeros(o.shape[0])
    variance = np.zeros(o.shape[0])
    counts = np.stack([(d == k).sum(axis=1) for k in range(1, DEPTH + 1)], axis=1)
    observed = (counts > 0).sum(axis=1)
    clicked = counts.sum(axis=1)
    for k in range(1, DEPTH + 1):
        at = d == k
        with np.errstate(divide="ignore", invalid="ignore"):
            weight = np.where(counts[:, k - 1] > 0, clicked / observed / counts[:, k - 1], 0.0)
        statistic += weight * (o * at).sum(axis=1)
        variance += weight**2 * ((o != 0) & at).sum(axis=1)
    z_uniform = np.where(variance > 0, statistic / np.sqrt(np.maximum(variance, 1e-300)), 0.0)
    uniform = 2.0 * ndtr(-np.abs(z_uniform))
    return exact, normal, uniform, np.sign(wins - losses), np.sign(statistic)


def truth(grade_lists, team_lists, model, rng) -> tuple[float, float]:
    """Large-sample standard and uniform-depth preferences."""
    outcome, deepest = experiments(grade_lists, team_lists, model, TRUTH // 10, 10, rng)
    o, d = outcome.ravel(), deepest.ravel()
    standard = float(o.mean())
    depths = [k for k in range(1, DEPTH + 1) if np.any(d == k)]
    uniform = float(np.mean([o[d == k].mean() for k in depths]))
    return standard, uniform


def needed(pvalues: np.ndarray, signs: np.ndarray, direction: float) -> str:
    for n, p, s in zip(GRID, pvalues, signs, strict=True):
        if np.mean((p < 0.05) & (s == direction)) >= 0.8:
            return str(n)
    return f">{GRID[-1]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--pairs", type=int, default=8)
    parser.add_argument("--replications", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    started = time.perf_counter()
    rng = np.random.default_rng(args.seed)
    grades = rankscope.read_qrels(args.data / "task2.qrels").to_dict()
    paths = sorted((args.data / "runs").glob("*.txt.gz"))
    runs = {p.name.removesuffix(".txt.gz"): rankings_of(rankscope.read_run(p)) for p in paths}
    names = sorted(runs)
    table = rankscope.evaluate(args.data / "task2.qrels", paths, ["nDCG@10"], per_query=False,
                               output="dict", names="file")  # fmt: skip
    best = max(zip(table["value"], table["run"], strict=True))[1]
    every = list(itertools.combinations(names, 2))
    pairs = [every[i] for i in rng.choice(len(every), args.pairs, replace=False)]
    rankings = dict(runs)
    top = {q: r[:DEPTH] for q, r in runs[best].items()}
    rankings["best~deep"] = {q: r[:5] + r[5:][::-1] for q, r in top.items()}
    rankings["best~top"] = {q: r[1:2] + r[:1] + r[2:] for q, r in top.items()}
    pairs += [(best, "best~deep"), (best, "best~top")]
    header = ("pair", "model", "I", "I_u", "sign exact", "sign normal", "uniform")
    print(f"{args.replications} experiments per cell; impressions needed for 80% of them to "
          "reach p < 0.05 in the direction of the variant's large-sample preference\n")  # fmt: skip
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for a, b in pairs:
        grade_lists, team_lists = lists_of_pair(rankings[a], rankings[b], grades)
        for model in ("pbm-steep", "pbm-mild", "cascade"):
            standard, uniform = truth(grade_lists, team_lists, model, rng)
            outcome, deepest = experiments(
                grade_lists, team_lists, model, GRID[-1], args.replications, rng
            )
            results = [tests_at(outcome, deepest, n) for n in GRID]
            exact, normal, flip = (np.array([r[i] for r in results]) for i in range(3))
            s_standard = np.array([r[3] for r in results])
            s_uniform = np.array([r[4] for r in results])
            row = (
                f"{a} vs {b}", model, f"{standard:+.4f}", f"{uniform:+.4f}",
                needed(exact, s_standard, np.sign(standard)),
                needed(normal, s_standard, np.sign(standard)),
                needed(flip, s_uniform, np.sign(uniform)),
            )  # fmt: skip
            print("| " + " | ".join(row) + " |", flush=True)
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
