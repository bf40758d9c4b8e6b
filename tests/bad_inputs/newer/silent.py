"""Bad-input cases of issue 22's "never silent, never a traceback" for clicks, fusion,
interleaving and degenerate results (engineer ``silent``): the support check and policy
files of ``clicks estimate``, ``fuse --norm max`` on negative scores, huge ``--weights``,
probabilistic interleaving with a large tau, the power search's cap, and degenerate results
of ``clicks fit``, ``clicks simulate``, ``split``, ``clicks learn``, ``reproduce``, ``agree``.
"""

from __future__ import annotations

from typing import Any

# A log of two sessions of query q showing (a, b) and (b, a), propensities 1/2.
LOG = (
    b"session\tquery\tposition\tdoc\tclick\tpropensity\tslate_propensity\n"
    b"1\tq\t1\ta\t1\t0.5\t0.5\n1\tq\t2\tb\t0\t0.5\t0.5\n"
    b"2\tq\t1\tb\t0\t0.5\t0.5\n2\tq\t2\ta\t1\t0.5\t0.5\n"
)
POLICY = b"query\tposition\tdoc\tprobability\nq\t1\ta\t0.5\nq\t1\tb\t0.5\nq\t2\tb\t1\n"
NO_CLICKS = (
    b"session\tquery\tposition\tdoc\tclicked\n"
    b"1\tq\t1\ta\t0\n1\tq\t2\tb\t0\n2\tq\t1\tb\t0\n2\tq\t2\ta\t0\n"
)
RUN_A = b"q1 Q0 d1 1 3 a\nq1 Q0 d2 2 2 a\nq1 Q0 d3 3 1 a\n"
RUN_B = b"q1 Q0 d3 1 3 b\nq1 Q0 d1 2 2 b\nq1 Q0 d4 3 1 b\n"
QL = b"q1 Q0 d1 1 -3.5 ql\nq1 Q0 d2 2 -4.0 ql\nq1 Q0 d3 3 -9 ql\n"
LABELS = b"q1 A d1 1\nq1 B d2 0\nq2 A d3 2\n"


def declare(make: Any) -> None:
    case, RUN, QRELS = make.case, make.RUN, make.QRELS

    # -- clicks estimate: support ---------------------------------------------------------
    case("estimate-policy-never-logged", "structure", "click log",
         {"log": LOG, "run": b"q Q0 c 1 2 r\nq Q0 d 2 1 r\n"},
         ["clicks", "estimate", "@log", "--policy", "@run", "--samples", "0"], "error",
         ["iips:", "never shows any of the documents at their positions", "100%",
          "meaningless 0", "--reward-model"])  # fmt: skip
    case("estimate-ips-ranking-never-logged", "structure", "click log",
         {"log": LOG, "run": b"q Q0 a 1 2 r\nq Q0 c 2 1 r\n"},
         ["clicks", "estimate", "@log", "--policy", "@run", "--estimator", "ips",
          "--samples", "0"], "error", ["ips:", "never shows any of the rankings"])  # fmt: skip
    case("estimate-policy-half-unsupported", "structure", "click log",
         {"log": LOG, "run": b"q Q0 a 1 2 r\nq Q0 c 2 1 r\n"},
         ["clicks", "estimate", "@log", "--policy", "@run", "--samples", "0"], "warning",
         ["iips: 50.0% of the probability of 'r' is on", "support check warns above 5%"])
    case("estimate-dr-unsupported-rests-on-model", "structure", "click log",
         {"log": LOG, "run": b"q Q0 c 1 2 r\nq Q0 d 2 1 r\n"},
         ["clicks", "estimate", "@log", "--policy", "@run", "--estimator", "dr",
          "--reward-model", "empirical", "--samples", "0"], "warning",
         ["dr: 100.0%", "rests on the reward model"])  # fmt: skip

    # -- clicks estimate: policy files ----------------------------------------------------
    case("policy-file-runs", "structure", "policy probabilities", {"log": LOG, "policy": POLICY},
         ["clicks", "estimate", "@log", "--policy", "@policy", "--samples", "0",
          "--format", "csv"], "output", ["iips,policy,0.5,"])  # fmt: skip
    def bad_policy(name: str, family: str, policy: bytes, expect: list[str]) -> None:
        """``clicks estimate @log --policy @policy`` on a bad policy file: an error."""
        case(name, family, "policy probabilities", {"log": LOG, "policy": policy},
             ["clicks", "estimate", "@log", "--policy", "@policy"], "error", expect)  # fmt: skip

    bad_policy("policy-probabilities-do-not-sum-to-1", "numbers",
               POLICY.replace(b"\ta\t0.5", b"\ta\t0.4"),
               ["policy:2", "the probabilities of query 'q' at position 1 sum to 0.9, not 1"])
    bad_policy("policy-probability-above-1", "numbers",
               POLICY.replace(b"\tb\t1\n", b"\tb\t1.5\n"),
               ["policy:4", "probability 1.5 is not in [0, 1]"])
    bad_policy("policy-probability-not-a-number", "numbers",
               POLICY.replace(b"\tb\t1\n", b"\tb\tone\n"), ["policy:4", "probability 'one'"])
    bad_policy("policy-row-listed-twice", "structure", POLICY + b"q\t2\tb\t0\n",
               ["policy:5", "document 'b' at position 2 of query 'q' is listed twice (line 4 "
                "first)"])  # fmt: skip
    bad_policy("policy-short-line", "fields", POLICY.replace(b"q\t2\tb\t1\n", b"q\t2\tb\n"),
               ["policy:4", "expected 4 fields, as the header has, found 3"])
    case("policy-file-ips-needs-slates", "options", "policy probabilities",
         {"log": LOG, "policy": POLICY},
         ["clicks", "estimate", "@log", "--policy", "@policy", "--estimator", "ips"], "error",
         ["ips needs the evaluation policy's slate probabilities", "use iips, pbm, dm or dr"])

    # -- fuse: max normalisation of negative scores ---------------------------------------
    case("fuse-max-norm-negative-scores", "numbers", "run", {"ql": QL, "run": RUN},
         ["fuse", "--method", "sum", "--norm", "max", "@ql", "@run"], "error",
         ["run 'ql' has negative scores (3, e.g. -3.5 in query 'q1')", "--norm min-max"])

    # -- aggregation weights ----------------------------------------------------------------
    case("weights-near-the-largest-float", "numbers", "weights",
         {"qrels": QRELS, "run": RUN, "weights": b"1 1e308\n2 1e308\n"},
         ["eval", "-m", "P@2", "--weights", "@weights", "@qrels", "@run"], "output",
         ["weighted mean"], forbid=["nan", "overflow"])  # fmt: skip

    # -- interleaving -----------------------------------------------------------------------
    case("interleave-probabilistic-tau-1000", "numbers", "run", {"a": RUN_A, "b": RUN_B},
         ["clicks", "interleave", "--lists", "@a", "@b", "--method", "probabilistic",
          "--tau", "1000"], "output", ["impression\tquery\tposition\tdoc\tteam"])  # fmt: skip
    case("interleave-power-beyond-the-cap", "options", "options", {},
         ["clicks", "interleave", "--win-rate", "0.5001"], "error",
         ["about 196,2", "more than the cap of 10,000,000"])  # fmt: skip

    # -- degenerate results -----------------------------------------------------------------
    case("fit-a-log-without-clicks", "structure", "click log", {"log": NO_CLICKS},
         ["clicks", "fit", "@log", "--model", "cm"], "warning",
         ["has no clicks: a cm model fitted to it learns only that nothing is clicked"])
    case("simulate-every-grade-0", "structure", "qrels",
         {"qrels": b"q1 0 d1 0\nq1 0 d2 0\n", "run": b"q1 Q0 d1 1 2 r\nq1 Q0 d2 2 1 r\n"},
         ["clicks", "simulate", "@qrels", "@run", "--sessions", "5"], "warning",
         ["none of the 5 simulated sessions has a click (pbm)", "every grade"])  # fmt: skip
    case("split-leave-one-out-single-interactions", "structure", "interaction log",
         {"log": b"u1\ta\t5\t100\nu2\tb\t3\t300\nu3\tc\t4\t200\n"},
         ["split", "@log", "--method", "leave-one-out", "-o", "folds"], "error",
         ["every user (3) has a single interaction", "the test data would be empty"])  # fmt: skip
    case("learn-more-folds-than-queries", "options", "labels",
         {"qrels": QRELS, "a": RUN, "b": make.RUN_B,
          "labels": b"1 A B 1\n2 A B 1\n3 B A -1\n"},
         ["clicks", "learn", "--labels", "@labels", "--num-folds", "10", "@qrels", "@a", "@b"],
         "error", ["--num-folds 10", "at least 10 labelled queries, the labels have 3"])
    case("reproduce-identical-original-runs", "structure", "run",
         {"qrels": QRELS, "base": RUN, "twin": RUN.replace(b" A\n", b" B\n")},
         ["reproduce", "@qrels", "--original", "@base", "@twin", "--reproduced", "@base",
          "@twin", "-m", "P@2"], "warning",
         ["the effect ratio of P@2 is undefined", "improves on the baseline"])  # fmt: skip
    case("agree-no-item-labelled-twice", "structure", "labels", {"labels": LABELS},
         ["agree", "@labels"], "warning",
         ["no item has labels by two assessors, so agreement is undefined"])  # fmt: skip

    # -- clicks simulate on interleaved lists ----------------------------------------------
    lists = (b"impression\tquery\tposition\tdoc\tteam\n1/1\t1\t1\td1\ta\n1/1\t1\t2\td3\tb\n"
             b"2/1\t2\t1\td4\ta\n2/1\t2\t2\td5\tb\n")  # fmt: skip
    case("simulate-lists-output", "structure", "interleaved lists",
         {"qrels": QRELS, "lists": lists},
         ["clicks", "simulate", "@qrels", "@lists", "--sessions", "4"], "output",
         ["session\tquery\tposition\tdoc\tclicked\tranking\tteam", "\t1/1\ta\n"])  # fmt: skip
    case("simulate-lists-position-gap", "structure", "interleaved lists",
         {"qrels": QRELS, "lists": lists.replace(b"1/1\t1\t2\td3", b"1/1\t1\t3\td3")},
         ["clicks", "simulate", "@qrels", "@lists"], "error",
         ["lists:3", "session '1/1' has no position 2"])  # fmt: skip
