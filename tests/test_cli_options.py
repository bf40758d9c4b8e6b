"""The glossary of shared options (`rankscope.cli.options`): every command, the ``clicks``
subcommands included, declares each shared option from it (the same destination, type,
choices and default), and no option string means two things in two commands."""

from __future__ import annotations

import argparse
from collections import defaultdict

import pytest

from rankscope.cli import build_parser, options


def _parsers() -> dict[str, argparse.ArgumentParser]:
    """Every command's parser by its name (``clicks fit`` for a subcommand)."""
    found: dict[str, argparse.ArgumentParser] = {}

    def walk(name: str, parser: argparse.ArgumentParser) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, subparser in action.choices.items():
                    walk(f"{name} {sub}".strip(), subparser)
                return
        found[name] = parser

    walk("", build_parser())
    return found


PARSERS = _parsers()

#: Options naming one of the command's own procedures (its fusion methods, its splits, its
#: estimators, its click models): one meaning -- which of them -- with choices and value
#: syntax of each command.
PROCEDURES = {"--method", "--estimator", "--model"}


def _options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if a.option_strings and a.dest != "help"]


def _kind(action: argparse.Action) -> str | None:
    """The kind of value an option takes: its type's name (``whole number`` for every range
    of `options.whole`), None for text."""
    return None if action.type is None else action.type.__name__


def test_every_command_is_inspected():
    assert {"eval", "compare", "recsys", "sampled", "fuse", "clicks fit", "clicks learn"} <= set(
        PARSERS
    )


def test_every_shared_option_comes_from_the_glossary():
    glossary = {flag: option for option in options.GLOSSARY.values() for flag in option.flags}
    used: set[str] = set()
    exceptions_used: set[tuple[str, str]] = set()
    for command, parser in PARSERS.items():
        for action in _options(parser):
            for flag in action.option_strings:
                option = glossary.get(flag)
                if option is None:
                    continue
                used.add(flag)
                where = (command, flag)
                assert set(option.flags) <= set(action.option_strings), where
                assert action.dest == option.dest, where
                assert action.type is option.type, where
                if option.subsets:
                    assert set(action.choices) <= set(option.choices), where
                else:
                    assert action.choices == option.choices, where
                if where in options.DEFAULTS_BY_COMMAND:
                    exceptions_used.add(where)
                    assert action.default == options.DEFAULTS_BY_COMMAND[where][0], where
                else:
                    assert action.default == option.default, where
    assert used == set(glossary), set(glossary) - used  # no glossary entry unused
    assert exceptions_used == set(options.DEFAULTS_BY_COMMAND)  # no stale exception


def test_no_option_string_means_two_things():
    glossary = {flag: option for option in options.GLOSSARY.values() for flag in option.flags}
    meanings: dict[str, dict[tuple, list[str]]] = defaultdict(lambda: defaultdict(list))
    for command, parser in PARSERS.items():
        for action in _options(parser):
            for flag in action.option_strings:
                if flag in PROCEDURES:
                    meaning: tuple = (action.dest,)
                elif flag in glossary and glossary[flag].subsets:
                    meaning = (action.dest, _kind(action), glossary[flag].choices)
                else:
                    choices = tuple(sorted(action.choices)) if action.choices else None
                    meaning = (action.dest, _kind(action), choices, action.nargs, action.const)
                meanings[flag][meaning].append(command)
    clashes = {flag: dict(found) for flag, found in meanings.items() if len(found) > 1}
    assert not clashes


@pytest.mark.parametrize(
    "args",
    [
        ["prefer", "--aggregate", "borda", "q", "a", "b"],  # now --ordering
        ["explain", "-q", "1", "q", "a", "b"],  # now --query
        ["sampled", "-n", "3", "t", "s"],  # now --negatives
        ["sampled", "--ties", "optimistic", "t", "s"],  # now --tie-breaking
        ["fuse", "-k", "10", "a", "b"],  # now --rrf-k
        ["fuse", "--weights", "1,2", "a", "b"],  # now --run-weights
        ["agree", "--weights", "linear", "l"],  # now --kappa-weights
        ["split", "-k", "3", "log", "-o", "d"],  # now --num-folds
        ["recsys", "--duplicates", "first", "t", "r"],  # now --repeated-items
        ["ndeval", "--alpha", "0.3", "q", "r"],  # now -alpha or --redundancy
        ["clicks", "fit", "-m", "pbm", "log"],  # now --model
        ["clicks", "fit", "--test", "other.tsv", "log"],  # now --test-log
        ["clicks", "simulate", "-n", "5", "q", "r"],  # now --sessions
        ["clicks", "learn", "--folds", "3", "--labels", "x", "q", "a", "b"],  # now --num-folds
    ],
)
def test_an_old_spelling_that_now_means_something_else_is_refused(args, capsys):
    with pytest.raises(SystemExit) as stopped:
        build_parser().parse_args(args)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments" in err or "ambiguous option" in err

