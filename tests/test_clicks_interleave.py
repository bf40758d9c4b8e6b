"""Interleaving from clicks (rankscope.interleaving.online): hand-computed outcomes of each
method, the sign test against scipy, the power analysis against brute force, statsmodels and
simulation, the uniform-p(k) variant by hand, seeded determinism, the log reader, the CLI."""

from __future__ import annotations

import doctest
import importlib
import itertools
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binom, binomtest, norm

from rankscope import interleaved_lists, interleaving_outcomes, read_run
from rankscope.errors import InputError, UsageError
from rankscope.interleaving import (
    assignment_posteriors,
    balanced_credit,
    impressions_needed,
    interleaved_list,
    probabilistic_outcome,
    rankings_of,
    read_interleaving_log,
    sign_test_power,
    team_draft_credit,
    uniform_depth,
)

from .conftest import DATA, need

MODULES = [
    importlib.import_module(f"rankscope.interleaving.{name}")
    for name in ("methods", "online", "outcomes", "power")
]


def two_runs() -> list[Path]:
    """Two real CLEF eHealth 2016 runs (skipped, with the reason, without ../shared)."""
    return sorted(need(DATA / "clef_ehealth2016" / "runs").glob("*.txt.gz"))[:2]

SRC = str(Path(__file__).resolve().parent.parent / "src")


def write(tmp_path: Path, text: str, name: str = "log.tsv") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def log_text(rows: list[tuple]) -> str:
    header = "impression\tquery\tposition\tdoc\tclicked\tteam\n"
    return header + "".join("\t".join(map(str, r)) + "\n" for r in rows)


# -- team draft ------------------------------------------------------------------------------


def test_team_draft_credit_by_hand() -> None:
    # teams a b b a, clicks at positions 1, 3, 4: a's picks 1 and 4, b's pick 3
    assert team_draft_credit([1, -1, -1, 1], [True, False, True, True]) == (2, 1)
    assert team_draft_credit([1, -1], [False, False]) == (0, 0)


def test_team_draft_log_by_hand(tmp_path: Path) -> None:
    rows = [
        # i1: a wins 2-1
        ("i1", "q1", 1, "d1", 1, "a"), ("i1", "q1", 2, "d2", 0, "b"),
        ("i1", "q1", 3, "d3", 1, "b"), ("i1", "q1", 4, "d4", 1, "a"),
        # i2: no click, a tie
        ("i2", "q1", 1, "d2", 0, "b"), ("i2", "q1", 2, "d1", 0, "a"),
        # i3: b wins 1-0 (rows out of order in the file)
        ("i3", "q2", 2, "d9", 1, "b"), ("i3", "q2", 1, "d8", 0, "a"),
        # i4: one click each: a tie
        ("i4", "q2", 1, "d8", 1, "a"), ("i4", "q2", 2, "d9", 1, "b"),
    ]  # fmt: skip
    result = interleaving_outcomes(write(tmp_path, log_text(rows)))
    assert result.impressions == ("i1", "i2", "i3", "i4")
    assert result.outcome.tolist() == [1, 0, -1, 0]
    assert result.credit_a.tolist() == [2, 0, 0, 1]
    assert result.credit_b.tolist() == [1, 0, 1, 1]
    assert result.last_click.tolist() == [4, 0, 2, 2]
    assert (result.wins, result.ties, result.losses) == (1, 2, 1)
    assert result.win_rate == 0.5
    assert result.preference == 0.0
    assert result.p_value == 1.0


# -- balanced --------------------------------------------------------------------------------

A = ["d1", "d2", "d3"]
B = ["d4", "d1", "d5"]
# balanced, a first: d1 (a1), d4 (b1), d2 (a2), b2 = d1 is shown, d3 (a3), d5 (b3)
SHOWN = ["d1", "d4", "d2", "d3", "d5"]


def test_balanced_list_is_joachims() -> None:
    made = interleaved_list(A, B, method="balanced", seed=_seed_where_a_starts())
    assert list(made.docs) == SHOWN


def _seed_where_a_starts() -> int:
    for seed in range(50):
        if np.random.default_rng(seed).integers(0, 2):
            return seed
    raise AssertionError


def test_balanced_credit_by_hand() -> None:
    # clicks on d4 (pos 2) and d2 (pos 3): the lowest click d2 has rank 2 in a, none in b,
    # so j = 2: a's top 2 {d1, d2} hold d2, b's top 2 {d4, d1} hold d4: 1-1, a tie
    assert balanced_credit(SHOWN, A, B, [False, True, True, False, False]) == (1, 1)
    # a click on d5 only: rank 3 in b, so j = 3: a's top 3 hold no click, b's hold d5
    assert balanced_credit(SHOWN, A, B, [False, False, False, False, True]) == (0, 1)
    # clicks on d1 and d3: lowest d3 (a3) so j = 3; a's top 3 {d1,d2,d3}: both; b's top 3
    # {d4, d1, d5}: d1 — 2-1, a wins
    assert balanced_credit(SHOWN, A, B, [True, False, False, True, False]) == (2, 1)


def test_balanced_log_needs_and_uses_rankings(tmp_path: Path) -> None:
    clicks = [[0, 1, 1, 0, 0], [0, 0, 0, 0, 1], [1, 0, 0, 1, 0]]
    rows = [
        (f"i{n}", "q", p + 1, doc, c[p], "a")
        for n, c in enumerate(clicks)
        for p, doc in enumerate(SHOWN)
    ]
    path = write(tmp_path, log_text(rows))
    with pytest.raises(UsageError, match="needs the two rankings"):
        interleaving_outcomes(path, method="balanced")
    result = interleaving_outcomes(path, method="balanced", a={"q": A}, b={"q": B})
    assert result.outcome.tolist() == [0, -1, 1]
    with pytest.raises(InputError, match=r"log.tsv:2: impression 'i0' .*'d4' is in neither"):
        interleaving_outcomes(path, method="balanced", a={"q": A}, b={"q": ["d1", "d5"]})
    with pytest.raises(InputError, match="query 'q' has no ranking in b"):
        interleaving_outcomes(path, method="balanced", a={"q": A}, b={"x": B})


# -- probabilistic ---------------------------------------------------------------------------


def test_probabilistic_outcome_by_hand() -> None:
    a, b = ["d1", "d2"], ["d2", "d1"]
    # position 1, d1: P_a = 1/(1 + 1/8) = 8/9, P_b = (1/8)/(9/8) = 1/9, so P(a_1 = a) = 8/9;
    # position 2, d2: each ranking has only d2 left, P = 1 each: P(a_2 = a) = 1/2
    assert assignment_posteriors(["d1", "d2"], a, b) == pytest.approx([8 / 9, 1 / 2])
    # both clicked: P(+2) = 8/9 · 1/2, P(-2) = 1/9 · 1/2, so E = 4/9 − 1/18 = 7/18
    assert probabilistic_outcome(["d1", "d2"], a, b, [True, True]) == pytest.approx(7 / 18)
    assert probabilistic_outcome(["d1", "d2"], a, b, [True, False]) == pytest.approx(7 / 9)
    assert probabilistic_outcome(["d1", "d2"], a, b, [False, True]) == 0.0
    assert probabilistic_outcome(["d1", "d2"], a, b, [False, False]) == 0.0
    # a document only b holds is b's for certain; then d1 is all either ranking has left
    assert assignment_posteriors(["x", "d1"], ["d1"], ["x", "d1"], tau=1) == pytest.approx(
        [0.0, 0.5]
    )
    # tau = 1, a = (d1, d2), b = (d2, d1), d2 first: P_a = (1/2)/(3/2) = 1/3, P_b = 1/(3/2)
    assert assignment_posteriors(["d2"], a, b, tau=1) == pytest.approx([(1 / 3) / (1 / 3 + 2 / 3)])
    with pytest.raises(InputError, match="'z' at position 1 is in neither ranking"):
        assignment_posteriors(["z"], a, b)


def test_probabilistic_with_a_large_tau_by_hand() -> None:
    # tau = 1000: 2**1000 overflows and 3**-1000 underflows, so the weights live in log space.
    # a = (d1, d2, d3), b = (d1, d3, d2), shown (d1, d3).  Position 2, d3: a's pool is
    # {d2 (rank 2), d3 (rank 3)}: P_a = 3^-τ / (2^-τ + 3^-τ) = 1 / (1 + 1.5^τ); b's pool is
    # {d3 (rank 2), d2 (rank 3)}: P_b = 1.5^τ / (1 + 1.5^τ); so P(a_2 = a) = 1 / (1 + 1.5^τ)
    # (taking d1 first cancelled a sum of 1 + 2^-τ + 3^-τ to 0 before).
    a, b = ["d1", "d2", "d3"], ["d1", "d3", "d2"]
    posterior = assignment_posteriors(["d1", "d3"], a, b, tau=1000)
    assert posterior[0] == pytest.approx(0.5)
    assert posterior[1] == pytest.approx(1 / (1 + 1.5**1000), rel=1e-9)
    # rank 2 of a against rank 1 of b, both pools {ranks 1, 2}: 2^-τ / (2^-τ + 1)
    assert assignment_posteriors(["d2"], ["d1", "d2"], ["d2", "d1"], tau=1000)[0] == (
        pytest.approx(2.0**-1000, rel=1e-9)
    )
    made = interleaved_list(a, b, method="probabilistic", seed=3, tau=1000)
    assert sorted(made.docs) == sorted(a)


def test_probabilistic_lists_with_tau_1000_on_the_command_line(tmp_path: Path) -> None:
    run_a, run_b = tmp_path / "a.run", tmp_path / "b.run"
    run_a.write_text("".join(f"q1 Q0 d{i} {i} {10 - i} a\n" for i in range(1, 6)))
    run_b.write_text("".join(f"q1 Q0 d{i} {6 - i} {i} b\n" for i in range(1, 6)))
    lists = tmp_path / "lists.tsv"
    made = subprocess.run(
        [sys.executable, "-m", "rankscope", "clicks", "interleave", "--lists", str(run_a),
         str(run_b), "--method", "probabilistic", "--tau", "1000", "-o", str(lists)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert "Traceback" not in made.stderr
    assert len(lists.read_text().splitlines()) >= 5


def _brute_force_outcome(shown, a, b, clicked, tau) -> float:
    """E[sgn] by enumerating every assignment sequence with P(L | assignment) computed
    directly as the product of the softmax draws (no factorisation assumed)."""

    def draw(ranking, placed, doc):
        left = [d for d in ranking if d not in placed]
        if doc not in left:
            return 0.0
        weights = {d: 1 / (ranking.index(d) + 1) ** tau for d in left}
        return weights[doc] / sum(weights.values())

    total = value = 0.0
    for assignment in itertools.product((1, -1), repeat=len(shown)):
        likelihood = 1.0
        for i, (doc, side) in enumerate(zip(shown, assignment, strict=True)):
            placed = set(shown[:i])
            mine, other = (a, b) if side == 1 else (b, a)
            has_mine = any(d not in placed for d in mine)
            has_other = any(d not in placed for d in other)
            if has_mine:
                likelihood *= (
                    0.5 * draw(mine, placed, doc) if has_other else draw(mine, placed, doc)
                )
            else:  # a ranking with nothing left yields: this assignment cannot be drawn
                likelihood = 0.0
        difference = sum(s for s, c in zip(assignment, clicked, strict=True) if c)
        total += likelihood
        value += likelihood * np.sign(difference)
    return value / total


@pytest.mark.parametrize("seed", range(6))
def test_probabilistic_outcome_against_enumeration(seed: int) -> None:
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(6)]
    a = list(rng.permutation(docs)[:5])
    b = list(rng.permutation(docs)[:4])
    made = interleaved_list(a, b, method="probabilistic", seed=seed, length=5)
    clicked = rng.random(len(made)) < 0.5
    tau = float(rng.choice([1.0, 2.0, 3.0]))
    expected = _brute_force_outcome(list(made.docs), a, b, clicked.tolist(), tau)
    got = probabilistic_outcome(made.docs, a, b, clicked, tau=tau)
    assert got == pytest.approx(expected, abs=1e-12)


def test_probabilistic_posterior_matches_the_generator() -> None:
    # among lists drawn by the generator, the share of position-1 draws from a, given the
    # document shown there, is the posterior (Bayes' rule on the generating process)
    a, b = ["d1", "d2", "d3"], ["d3", "d1", "d2"]
    rng = np.random.default_rng(7)
    from_a = {"d1": [0, 0], "d3": [0, 0]}
    for _ in range(4000):
        made = interleaved_list(a, b, method="probabilistic", seed=rng)
        first = made.docs[0]
        if first in from_a:
            from_a[first][0] += int(made.team[0] > 0)
            from_a[first][1] += 1
    for doc, (hits, count) in from_a.items():
        q = assignment_posteriors([doc], a, b)[0]
        assert abs(hits / count - q) < 4 * math.sqrt(q * (1 - q) / count)


def test_probabilistic_log_with_and_without_marginalisation(tmp_path: Path) -> None:
    rows = [
        ("i1", "q", 1, "d1", 1, "b"), ("i1", "q", 2, "d2", 1, "a"),
        ("i2", "q", 1, "d2", 0, "b"), ("i2", "q", 2, "d1", 1, "a"),
    ]  # fmt: skip
    path = write(tmp_path, log_text(rows))
    rankings = {"a": {"q": ["d1", "d2"]}, "b": {"q": ["d2", "d1"]}}
    result = interleaving_outcomes(path, method="probabilistic", **rankings)
    # i2: d2 first: P(a_1 = a) = 1/9, d1 second: 1/2; only position 2 clicked: E = 0
    assert result.outcome == pytest.approx([7 / 18, 0.0])
    assert result.credit_a == pytest.approx([8 / 9 + 1 / 2, 1 / 2])
    assert (result.wins, result.ties, result.losses) == (1, 1, 0)
    observed = interleaving_outcomes(path, method="probabilistic", marginalise=False)
    assert observed.outcome.tolist() == [0, 1]


# -- sign test and power ---------------------------------------------------------------------


@pytest.mark.parametrize("wins,losses", [(0, 0), (3, 1), (10, 2), (25, 31), (60, 40)])
def test_sign_test_against_scipy(tmp_path: Path, wins: int, losses: int) -> None:
    rows = []
    for n in range(wins + losses + 3):  # three ties
        team = "a" if n < wins else "b"
        rows.append((f"i{n}", "q", 1, "d", int(n < wins + losses), team))
    result = interleaving_outcomes(write(tmp_path, log_text(rows)))
    assert (result.wins, result.losses, result.ties) == (wins, losses, 3)
    expected = binomtest(wins, wins + losses, 0.5).pvalue if wins + losses else 1.0
    assert result.p_value == pytest.approx(expected, rel=1e-12)


def _power_by_scipy(n: int, w: float, alpha: float) -> float:
    return sum(binom.pmf(x, n, w) for x in range(n + 1) if binomtest(x, n, 0.5).pvalue <= alpha)


@pytest.mark.parametrize("n,w,alpha", [(1, 0.9, 0.05), (20, 0.7, 0.05), (57, 0.35, 0.01),
                                       (100, 0.65, 0.05), (150, 0.55, 0.1)])  # fmt: skip
def test_power_against_scipy_binomtest(n: int, w: float, alpha: float) -> None:
    assert sign_test_power(n, w, alpha=alpha) == pytest.approx(_power_by_scipy(n, w, alpha))


def test_power_with_ties_against_simulation() -> None:
    rng = np.random.default_rng(11)
    n, w, t, runs = 120, 0.62, 0.4, 4000
    decided = rng.binomial(n, 1 - t, size=runs)
    wins = rng.binomial(decided, w)
    verdicts: dict[tuple[int, int], bool] = {}
    for k, m in set(zip(wins.tolist(), decided.tolist(), strict=True)):
        verdicts[k, m] = bool(m) and binomtest(k, m, 0.5).pvalue <= 0.05
    rejected = [verdicts[k, m] for k, m in zip(wins.tolist(), decided.tolist(), strict=True)]
    exact = sign_test_power(n, w, tie_rate=t)
    assert abs(np.mean(rejected) - exact) < 4 * math.sqrt(exact * (1 - exact) / runs)


def test_impressions_needed_is_the_first_n_reaching_the_power() -> None:
    for w in (0.6, 0.7, 0.3):
        n = impressions_needed(w)
        assert _power_by_scipy(n, w, 0.05) >= 0.8
        assert all(_power_by_scipy(m, w, 0.05) < 0.8 for m in range(max(1, n - 3), n))
    n = impressions_needed(0.6, tie_rate=0.5)
    assert sign_test_power(n, 0.6, tie_rate=0.5) >= 0.8 > sign_test_power(n - 1, 0.6, tie_rate=0.5)


def test_impressions_needed_near_statsmodels() -> None:
    statsmodels_power = pytest.importorskip("statsmodels.stats.power")
    proportion = pytest.importorskip("statsmodels.stats.proportion")
    for w in (0.55, 0.6, 0.7):
        effect = proportion.proportion_effectsize(w, 0.5)
        approx = statsmodels_power.NormalIndPower().solve_power(
            effect_size=effect, alpha=0.05, power=0.8, ratio=0
        )
        # the exact binomial test needs a few more than the (continuity-free) normal test
        assert approx <= impressions_needed(w) <= approx * 1.08 + 5


def test_impressions_needed_beyond_the_cap_says_the_estimate_and_the_cap() -> None:
    # normal approximation for w = 0.5001: ((1.95996 · 0.5 + 0.84162 · √(0.5001 · 0.4999))
    # / 0.0001)² ≈ 196.2 million, above the default cap of 10 million: refused before any
    # exact computation (this ran for minutes over every n up to the cap before)
    with pytest.raises(UsageError, match=r"about 196,2\d\d,\d{3} impressions .* cap of 10,000,000"):
        impressions_needed(0.5001)
    with pytest.raises(UsageError, match="cap of 1,000"):
        impressions_needed(0.51, limit=1000)  # about 19,600
    # below the scanned window's size the answer is the first n of all, as before; above it
    # the first n within the window still reaches the target and n − 1 does not
    assert impressions_needed(0.51) == 19648
    assert sign_test_power(19648, 0.51) >= 0.8 > sign_test_power(19647, 0.51)


def test_power_options_are_checked() -> None:
    with pytest.raises(UsageError, match="no effect"):
        impressions_needed(0.5)
    with pytest.raises(UsageError, match="win_rate"):
        sign_test_power(10, 1.0)
    with pytest.raises(UsageError, match="tie_rate"):
        sign_test_power(10, 0.6, tie_rate=1.0)
    with pytest.raises(UsageError, match="would be needed"):
        impressions_needed(0.5001, limit=1000)


# -- the uniform-p(k) variant ----------------------------------------------------------------


def _outcomes(tmp_path: Path, depths: list[int], signs: list[int]):
    rows = []
    for n, (depth, sign) in enumerate(zip(depths, signs, strict=True)):
        for p in range(1, depth + 1):
            clicked = int(p == depth)
            team = "a" if sign > 0 else "b"
            rows.append((f"i{n}", "q", p, f"d{p}", clicked, team))
    return interleaving_outcomes(write(tmp_path, log_text(rows)))


def test_uniform_depth_by_hand(tmp_path: Path) -> None:
    # last clicks at depths 1, 1, 1, 2 with outcomes +, +, −, −: p̂(1) = 3/4, p̂(2) = 1/4,
    # weights (1/2)/(3/4) = 2/3 and (1/2)/(1/4) = 2; T = 2/3 − 2 = −4/3;
    # I_u = T / 4 = −1/3 = (ō_1 + ō_2)/2 = (1/3 − 1)/2
    result = uniform_depth(_outcomes(tmp_path, [1, 1, 1, 2], [1, 1, -1, -1]))
    assert result.depths == (1, 2)
    assert result.weight == pytest.approx([2 / 3, 2 / 3, 2 / 3, 2])
    assert result.statistic == pytest.approx(-4 / 3)
    assert result.preference == pytest.approx(-1 / 3)
    # sign flips: 2·s4 + (2/3)(s1+s2+s3); |S| >= 4/3 unless s4 and the sum of three disagree
    # fully (S = 0): P = 1 − 2 · (1/2 · 1/8) = 7/8
    assert result.exact and result.p_value == pytest.approx(7 / 8)
    assert result.z == pytest.approx((-4 / 3) / math.sqrt(3 * 4 / 9 + 4))


def test_uniform_depth_with_one_depth_is_the_sign_test(tmp_path: Path) -> None:
    standard = _outcomes(tmp_path, [2] * 12, [1] * 10 + [-1] * 2)
    variant = uniform_depth(standard)
    assert variant.exact
    assert variant.p_value == pytest.approx(standard.p_value)
    assert variant.preference == pytest.approx(standard.preference)
    # beyond EXACT_FLIPS: the normal approximation of the same sign test
    large = uniform_depth(_outcomes(tmp_path, [1] * 400, [1] * 220 + [-1] * 180))
    assert not large.exact
    assert large.z == pytest.approx(40 / math.sqrt(400))
    assert large.p_value == pytest.approx(2 * norm.sf(2.0))
    # (no continuity correction: a little below the exact sign test's 0.0510)
    assert large.p_value < binomtest(220, 400).pvalue < large.p_value * 1.15


def test_uniform_depth_without_clicks(tmp_path: Path) -> None:
    rows = [("i1", "q", 1, "d", 0, "a")]
    result = uniform_depth(interleaving_outcomes(write(tmp_path, log_text(rows))))
    assert (result.preference, result.p_value, result.depths) == (0.0, 1.0, ())


# -- generation, determinism -----------------------------------------------------------------


@pytest.mark.parametrize("method", ["team-draft", "balanced", "probabilistic"])
def test_interleaved_lists_are_seeded(method: str) -> None:
    runs = two_runs()
    first = interleaved_lists(*runs, method=method, impressions=2, depth=5, seed=4)
    again = interleaved_lists(*runs, method=method, impressions=2, depth=5, seed=4)
    other = interleaved_lists(*runs, method=method, impressions=2, depth=5, seed=5)
    assert first == again
    assert first["team"] != other["team"] or first["doc"] != other["doc"]
    rankings = [rankings_of(read_run(r)) for r in runs]
    shown: dict[str, list[str]] = {}
    for impression, query, doc in zip(first["impression"], first["query"], first["doc"],
                                      strict=True):  # fmt: skip
        shown.setdefault(impression, []).append(doc)
        assert doc in rankings[0][query] or doc in rankings[1][query]
    assert all(len(docs) == 5 == len(set(docs)) for docs in shown.values())


def test_team_draft_lists_credit_their_picks() -> None:
    a, b = [f"a{i}" for i in range(6)], [f"b{i}" for i in range(6)]
    made = interleaved_list(a, b, method="team-draft", seed=1)
    assert all((doc in a) == (team > 0) for doc, team in zip(made.docs, made.team, strict=True))
    # each round of two picks gives one document to each team
    assert all(made.team[i] + made.team[i + 1] == 0 for i in range(0, len(made), 2))


def test_lists_become_a_log(tmp_path: Path) -> None:
    runs = two_runs()
    table = interleaved_lists(*runs, method="balanced", impressions=1, depth=6, seed=2)
    rng = np.random.default_rng(0)
    table["clicked"] = (rng.random(len(table["doc"])) < 0.3).astype(int).tolist()
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(table)
    from_frame = interleaving_outcomes(frame, method="balanced", a=runs[0], b=runs[1])
    frame.to_csv(tmp_path / "log.csv", index=False)
    from_csv = interleaving_outcomes(tmp_path / "log.csv", method="balanced", a=runs[0], b=runs[1])
    assert np.array_equal(from_frame.outcome, from_csv.outcome)
    assert len(from_frame) == len(set(table["query"]))
    # the balanced credit of each list is its ranks' rule (computed again from the runs)
    ra, rb = rankings_of(read_run(runs[0])), rankings_of(read_run(runs[1]))
    for i, key in enumerate(from_frame.impressions):
        rows = frame[frame["impression"] == key]
        query = rows["query"].iloc[0]
        h = balanced_credit(list(rows["doc"]), ra[query], rb[query], rows["clicked"].astype(bool))
        assert from_frame.outcome[i] == (h[0] > h[1]) - (h[0] < h[1])


def test_clicks_simulated_on_interleaved_lists_round_trip(tmp_path: Path) -> None:
    """lists -> clicks -> outcomes, on the command line.  A cascade model with attractiveness
    1 for grade 1 and 0 for grade 0 clicks exactly the first relevant document of a list, so
    each impression is won by that document's team: counted here from the lists file."""
    import csv
    import json

    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d1 0\n1 0 d2 0\n1 0 d3 1\n2 0 d4 1\n2 0 d5 0\n")
    run_a, run_b = tmp_path / "a.run", tmp_path / "b.run"
    run_a.write_text("1 Q0 d1 1 3 A\n1 Q0 d2 2 2 A\n1 Q0 d3 3 1 A\n2 Q0 d4 1 3 A\n"
                     "2 Q0 d5 2 2 A\n")  # fmt: skip
    run_b.write_text("1 Q0 d3 1 3 B\n1 Q0 d1 2 2 B\n1 Q0 d2 3 1 B\n2 Q0 d5 1 3 B\n"
                     "2 Q0 d4 2 2 B\n")  # fmt: skip
    lists, log = tmp_path / "lists.tsv", tmp_path / "clicks.tsv"

    def cli(*args: str) -> subprocess.CompletedProcess:
        done = subprocess.run([sys.executable, "-m", "rankscope", *args], capture_output=True,
                              text=True, check=False)  # fmt: skip
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        return done

    cli("clicks", "interleave", "--lists", str(run_a), str(run_b), "--impressions", "4",
        "--seed", "3", "-o", str(lists))  # fmt: skip
    rows = list(csv.DictReader(lists.open(), delimiter="\t"))
    winner: dict[str, str] = {}
    for row in rows:  # the team of each list's first relevant document (d3 or d4)
        if row["doc"] in ("d3", "d4"):
            winner.setdefault(row["impression"], row["team"])
    assert len(winner) == 8  # 2 queries × 4 lists, each holding its query's relevant document
    # 3 sessions per list: session i shows list i mod 8
    cli("clicks", "simulate", "--model", "cm", "--attractiveness", "0:0,1:1", "--sessions",
        "24", str(qrels), str(lists), "-o", str(log))  # fmt: skip
    simulated = list(csv.DictReader(log.open(), delimiter="\t"))
    assert len(simulated) == 3 * len(rows)
    assert {r["team"] for r in simulated} == {"a", "b"}
    out = cli("clicks", "interleave", str(log), "--format", "json").stdout
    totals = json.loads(out)
    wins = 3 * sum(team == "a" for team in winner.values())
    assert (totals["wins"], totals["losses"], totals["ties"]) == (wins, 24 - wins, 0)


# -- the reader ------------------------------------------------------------------------------


def test_reader_aliases_and_frames(tmp_path: Path) -> None:
    text = "session_id,qid,rank,docno,click,side\ns1,q,1,d1,true,A\ns1,q,2,d2,false,b\n"
    log = read_interleaving_log(write(tmp_path, text, "log.csv"))
    assert log.sessions.strings_of(log.session) == ["s1", "s1"]
    assert log.queries.strings_of(log.query) == ["q", "q"]
    assert log.clicked.tolist() == [True, False] and log.team.tolist() == [1, -1]
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame({"impression": [1, 1], "position": [2, 1], "doc": ["x", "y"],
                          "clicked": [0, 1], "team": ["a", "b"]})  # fmt: skip
    result = interleaving_outcomes(frame)
    assert result.outcome.tolist() == [-1]
    frame.write_parquet(tmp_path / "log.parquet")
    assert interleaving_outcomes(tmp_path / "log.parquet").outcome.tolist() == [-1]


@pytest.mark.parametrize(
    "body,message",
    [
        ("i\t1\td\tyes\ta\n", r"log.tsv:2: clicked 'yes' is not 0, 1"),
        ("i\t1\td\t1\tc\n", r"log.tsv:2: team 'c' is not 'a' or 'b'"),
        ("i\t0\td\t1\ta\n", r"log.tsv:2: position 0 is not 1 or more"),
        ("i\tx\td\t1\ta\n", r"log.tsv:2: position 'x' is not an integer"),
        ("i\t1\td\t1\ta\ni\t1\te\t0\tb\n", r"log.tsv:3: position 1 is listed twice in session 'i'"),
        ("i\t1\td\t1\ta\ni\t3\te\t0\tb\n", r"log.tsv:3: session 'i' has no position 2"),
        ("i\t1\td\t1\ta\ni\t2\td\t0\tb\n",
         r"log.tsv:3: document 'd' is shown twice in session 'i'"),
        ("i\t1\td\t1\n", r"log.tsv:2: expected 5 fields, as the header has, found 4"),
        ("", r"log.tsv: no clicks found after the header"),
    ],
)
def test_reader_errors_name_file_and_line(tmp_path: Path, body: str, message: str) -> None:
    """The one reader of shown results (`rankscope.read.impressions`), in its words."""
    path = write(tmp_path, "impression\tposition\tdoc\tclicked\tteam\n" + body)
    with pytest.raises(InputError, match=message):
        read_interleaving_log(path)


def test_empty_team_cells(tmp_path: Path) -> None:
    text = "impression\tquery\tposition\tdoc\tclicked\tteam\ni\tq\t1\td1\t1\t\ni\tq\t2\td2\t0\ta\n"
    path = write(tmp_path, text)
    assert read_interleaving_log(path).team.tolist() == [0, 1]
    with pytest.raises(InputError, match=r"log.tsv:2: team is missing"):
        interleaving_outcomes(path)
    balanced = interleaving_outcomes(path, method="balanced", a={"q": ["d1"]}, b={"q": ["d2"]})
    assert balanced.outcome.tolist() == [1]


def test_reader_needs_its_columns(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no clicked column"):
        read_interleaving_log(write(tmp_path, "impression\tposition\tdoc\ni\t1\td\n"))
    path = write(tmp_path, "impression\tposition\tdoc\tclicked\ni\t1\td\t1\n")
    with pytest.raises(InputError, match="no team column"):
        interleaving_outcomes(path)
    with pytest.raises(InputError, match="no query column"):
        interleaving_outcomes(path, method="balanced", a={"q": ["d"]}, b={"q": ["d"]})


def test_doctests() -> None:
    for module in MODULES:
        assert doctest.testmod(module).failed == 0


# -- the command line ------------------------------------------------------------------------


def cli(*args: str) -> subprocess.CompletedProcess:
    env = {"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [sys.executable, "-m", "rankscope", "clicks", "interleave", *args],
        capture_output=True, text=True, env=env,
    )  # fmt: skip


def test_cli(tmp_path: Path) -> None:
    runs = [str(r) for r in two_runs()]
    lists = tmp_path / "lists.tsv"
    made = cli("--lists", *runs, "--impressions", "2", "--depth", "4", "--seed", "9", "-o",
               str(lists))  # fmt: skip
    assert made.returncode == 0, made.stderr
    lines = lists.read_text().splitlines()
    assert lines[0] == "impression\tquery\tposition\tdoc\tteam"
    # click the first position of every list: team draft credits its team
    log = tmp_path / "log.tsv"
    log.write_text(
        lines[0] + "\tclicked\n"
        + "".join(f"{line}\t{int(line.split(chr(9))[2] == '1')}\n" for line in lines[1:])
    )  # fmt: skip
    firsts = [line.split("\t")[4] for line in lines[1:] if line.split("\t")[2] == "1"]
    done = cli(str(log), "--format", "json", "--uniform-depth")
    assert done.returncode == 0, done.stderr
    import json

    totals = json.loads(done.stdout)
    assert totals["wins"] == firsts.count("a") and totals["losses"] == firsts.count("b")
    assert totals["p_value"] == pytest.approx(binomtest(firsts.count("a"), len(firsts)).pvalue)
    assert totals["uniform_depth_preference"] == pytest.approx(totals["preference"])
    table = cli(str(log), "--method", "balanced", "--a", runs[0], "--b", runs[1])
    assert table.returncode == 0 and "balanced" in table.stdout
    power = cli("--win-rate", "0.6")
    assert power.returncode == 0 and power.stdout.startswith("199 impressions")


@pytest.mark.parametrize(
    "args,message",
    [
        ((), "give a LOG, or --lists"),
        (("missing.tsv",), "missing.tsv"),
        (("LOG", "--method", "balanced"), "needs the two rankings"),
        (("--win-rate", "1.5"), "--win-rate"),
    ],
)
def test_cli_user_errors(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    log = write(tmp_path, "impression\tposition\tdoc\tclicked\ni\t1\td\t1\n")
    done = cli(*[str(log) if a == "LOG" else a for a in args])
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr


def _all_wins(tmp_path: Path) -> Path:
    """20 impressions, each one click on a's document: the sign test's p = 2 / 2^20."""
    rows = "".join(f"i{i}\t1\td\t1\ta\n" for i in range(20))
    return write(tmp_path, "impression\tposition\tdoc\tclicked\tteam\n" + rows)


def test_cli_prints_p_values_as_every_command(tmp_path: Path) -> None:
    """The table prints p-values as `compare` does (`rankscope.report.marks.p_value`)."""
    done = cli(str(_all_wins(tmp_path)), "--uniform-depth")
    assert done.returncode == 0, done.stderr
    lines = {line.rsplit("  ", 1)[0].strip(): line.split()[-1] for line in done.stdout.splitlines()}
    assert lines["p-value (sign test)"] == "<0.0001"
    assert lines["uniform-depth p-value"] == "<0.0001"
    assert "0.0000" not in done.stdout


def test_cli_csv_keeps_every_digit(tmp_path: Path) -> None:
    done = cli(str(_all_wins(tmp_path)), "--format", "csv")
    assert done.returncode == 0, done.stderr
    values = dict(line.split(",", 1) for line in done.stdout.splitlines()[1:])
    assert float(values["p-value (sign test)"]) == 2 / 2**20
    assert values["wins (a)"] == "20"


def test_one_table_of_methods() -> None:
    """`rankscope.interleaving.METHODS` is the one declaration: the command's choices, the OI
    measure's choices and every alias come from it, and no other module spells an alias (a
    function's name, such as ``team_draft``, aside); its names are those of
    `rankscope.interleaving.names.NAMES`, which says which methods are computed offline
    without importing their rules: exactly those with an offline rule."""
    import rankscope.interleaving
    from rankscope.cli.clicks.interleave import METHOD_CHOICES
    from rankscope.interleaving import METHODS, method_named
    from rankscope.interleaving.names import NAMES
    from rankscope.preference.methods import INTERLEAVING

    assert tuple(METHOD_CHOICES) == tuple(METHODS) == ("team-draft", "balanced", "probabilistic")
    assert tuple(NAMES) == tuple(METHODS)
    assert [offline for _, offline in NAMES.values()] == [True, True, False]
    assert [m.offline is not None for m in METHODS.values()] == [True, True, False]
    assert set(INTERLEAVING.choices) == {
        name for m in METHODS.values() if m.offline is not None for name in m.names
    }
    assert METHODS["team-draft"].names == ("team-draft", "team_draft", "teamdraft", "td")
    assert METHODS["probabilistic"].aliases == ("pi",) and METHODS["balanced"].aliases == ()
    for method in METHODS.values():
        assert all(method_named(name) is method for name in method.names)
    src = Path(SRC) / "rankscope"
    spelled = [
        str(path.relative_to(src)) for path in src.rglob("*.py")
        if any(f'"{alias}"' in path.read_text() for m in METHODS.values() for alias in m.aliases
               if alias not in rankscope.interleaving.__all__)
    ]  # fmt: skip
    assert spelled == ["interleaving/names.py"]
