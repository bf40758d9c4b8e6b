"""Each statistical test is named once, in `rankscope.stats.procedures.TESTS`: no other list
of test names remains in src/, and every consumer (``compare``, ``recsys --folds``,
pairwise tests, LaTeX, discriminative power, the report, the command line) offers exactly
the table's choices, aliases included."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import rankscope
from rankscope.errors import UsageError
from rankscope.report import latex
from rankscope.stats import meta, procedures
from rankscope.table.compare import Procedure

SRC = Path(rankscope.__file__).parent
TABLE = SRC / "stats" / "procedures.py"
EVERY_NAME = {name for test in procedures.TESTS for name in (test.name, *test.aliases)}
# names that are also ordinary words of other ideas (an interval kind, a t interval, the
# sign of a number, a z statistic): a list of them is still caught below
SHARED_WORDS = {"t", "sign", "bootstrap", "z"}


def _constants(tree: ast.AST) -> list[ast.Constant]:
    """The string constants of ``tree`` except the names listed in ``__all__`` and those
    looked up in the table (``named("t")``)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets
        ):
            skipped |= {id(c) for c in ast.walk(node.value)}
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "named":
            skipped |= {id(c) for c in ast.walk(node)}
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and id(node) not in skipped
    ]  # fmt: skip


def test_no_other_list_of_test_names_in_src():
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if path == TABLE:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        attached = path == SRC / "stats" / "__init__.py"  # function names (``wilcoxon``)
        for node in _constants(tree):
            if node.value in EVERY_NAME - SHARED_WORDS and not attached:
                found.append(f"{path.relative_to(SRC)}:{node.lineno}: {node.value!r}")
        for node in ast.walk(tree):
            items = []
            if isinstance(node, ast.Tuple | ast.List | ast.Set):
                items = node.elts
            elif isinstance(node, ast.Dict):
                items = [key for key in node.keys if key is not None]
            words = {i.value for i in items if isinstance(i, ast.Constant)}
            if len(words & EVERY_NAME) >= 2 and not attached:
                found.append(f"{path.relative_to(SRC)}:{node.lineno}: {sorted(words)}")
    assert not found, "test names outside rankscope.stats.procedures:\n" + "\n".join(found)


def test_the_table():
    assert [t.name for t in procedures.TESTS] == [
        "t", "wilcoxon", "sign", "randomization", "welch", "student", "mann-whitney",
        "bootstrap", "z", "chi-square", "chi-square-yates", "fisher", "tukey", "tukey-one-way",
        "randomized-tukey",
    ]  # fmt: skip
    aliases = sum(len(test.aliases) for test in procedures.TESTS)
    assert len(EVERY_NAME) == len(procedures.TESTS) + aliases  # names and aliases distinct
    for test in procedures.TESTS:
        assert test.label and test.null_hypothesis
        functions = (test.paired, test.all_pairs, test.unpaired, test.rates)
        assert any(f is not None for f in functions)
        assert (test.paired is None) or (test.all_pairs is None)
        assert test.family_wise == (test.all_pairs is not None)
    assert procedures.named("permutation") is procedures.named("randomization")
    assert procedures.names("paired") == ("t", "wilcoxon", "sign", "randomization", "bootstrap")
    assert procedures.names("runs") == (*procedures.names("paired"), "randomized-tukey")
    with pytest.raises(UsageError, match="unknown test 'tukey': choose t, wilcoxon"):
        procedures.named("tukey", "paired")


def _accepts(call) -> bool:
    try:
        call()
    except UsageError as error:
        if "unknown test" in str(error) or "unknown method" in str(error):
            return False
    return True


def _accepted(use, call) -> None:
    """``call(name)`` accepts exactly the names and aliases of ``choices(use)``."""
    allowed = {n for t in procedures.choices(use) for n in (t.name, *t.aliases)}
    for name in [*EVERY_NAME, "anova"]:
        assert _accepts(lambda name=name: call(name)) == (name in allowed), name


def test_every_consumer_offers_the_table_s_choices():
    scores = np.random.default_rng(1).random((3, 6))
    _accepted("runs", lambda name: Procedure(test=name).check())
    _accepted("paired", lambda name: rankscope.recsys.evaluate_folds([], {}, test=name))
    _accepted("paired", lambda name: procedures.pairwise_tests(scores, test=name, permutations=9))
    _accepted("paired", lambda name: procedures.p_values(scores, name, 9, 0))
    _accepted("pairs", lambda name: procedures.compare(scores, name, permutations=9))
    _accepted("pairs", lambda name: latex.latex_table(["a", "b", "c"], {"AP": scores},
                                                      test=name, permutations=9))  # fmt: skip
    for test, correction in meta.POWER_TESTS.values():
        assert test in procedures.TESTS and (correction is None) == test.family_wise


def test_the_command_line_offers_the_table_s_choices():
    from rankscope.cli import build_parser, options

    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    for command, use in (("compare", "runs"), ("report", "runs"), ("recsys", "paired")):
        flag = next(a for a in commands[command]._actions if "--test" in a.option_strings)
        assert isinstance(flag.choices, options.StatisticalTests)
        assert tuple(flag.choices) == procedures.names(use)
        assert "permutation" in flag.choices and "anova" not in flag.choices


def test_a_comparison_keeps_the_canonical_name_and_labels_come_from_the_table():
    from rankscope.report.marks import legend

    qrels = {f"q{i}": {"r": 1} for i in range(4)}
    runs = {
        "a": {f"q{i}": {"r": 2.0, "x": 1.0} for i in range(4)},
        "b": {f"q{i}": {"x": 2.0, "r": 1.0} for i in range(4)},
    }
    result = rankscope.compare(qrels, runs, ["AP"], test="permutation")
    assert result.test == "randomization"
    assert "(paired randomization test, Holm's correction" in legend(result)
