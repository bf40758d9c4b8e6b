"""The layers hold without detours: import-linter (pyproject's contracts) sees only imports at
module level, so an import of rankscope's own modules inside a function, or one by name
through `importlib`, would go around it (a cycle the checker cannot see).  Outside the command
line, whose command bodies import what they need when run (start-up time), there are none;
optional extras (pandas, polars, plotly, jinja2, dask, tqdm, ir_datasets, matplotlib) stay
lazy, as they are not rankscope's."""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from rankscope.errors import UsageError
from rankscope.interleaving import rankings_of

SRC = Path(__file__).resolve().parent.parent / "src" / "rankscope"

#: The command line: its command bodies import the layers they need when they run.
COMMAND_LINE = "cli"


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(SRC.rglob("*.py")):
        yield path.relative_to(SRC).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def _is_rankscope(node: ast.Import | ast.ImportFrom) -> bool:
    """Whether an import statement imports rankscope's own modules (relative or by name)."""
    if isinstance(node, ast.ImportFrom):
        return node.level > 0 or (node.module or "").split(".")[0] == "rankscope"
    return any(alias.name.split(".")[0] == "rankscope" for alias in node.names)


def _imports_in_functions(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    for function in ast.walk(tree):
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            for node in ast.walk(function):
                if isinstance(node, ast.Import | ast.ImportFrom) and _is_rankscope(node):
                    yield node


def _imports_by_name(tree: ast.Module) -> Iterator[ast.Call]:
    """Calls of ``importlib.import_module`` (however imported) and ``__import__``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            called = ast.unparse(node.func)
            if called.split(".")[-1] in ("import_module", "__import__"):
                yield node


def test_no_import_of_rankscope_inside_a_function_outside_the_command_line():
    found = [
        f"{name}:{node.lineno}: {ast.unparse(node)}"
        for name, tree in _modules()
        if name.split("/")[0] != COMMAND_LINE
        for node in _imports_in_functions(tree)
    ]
    assert found == []


def test_no_module_is_imported_by_name():
    found = [
        f"{name}:{node.lineno}: {ast.unparse(node)}"
        for name, tree in _modules()
        for node in _imports_by_name(tree)
    ]
    assert found == []


def test_the_walk_finds_what_it_looks_for():
    """The checks above are not vacuous: they find each form they look for."""
    code = (
        "import importlib\n"
        "from importlib import import_module\n"
        "def f():\n"
        "    from ..read import read_qrels\n"
        "    import rankscope.model\n"
        "    import numpy\n"
        "    importlib.import_module('rankscope.scale')\n"
        "    return import_module('.x', __name__)\n"
    )
    tree = ast.parse(code)
    assert [ast.unparse(n) for n in _imports_in_functions(tree)] == [
        "from ..read import read_qrels",
        "import rankscope.model",
    ]
    assert len(list(_imports_by_name(tree))) == 2
    assert len(list(_modules())) > 100


def test_nothing_below_the_front_doors_resolves_user_input():
    """The forbidden contract on `rankscope.read.sources` (the user-input resolver) holds
    with no import excused: every layer below `api/` is listed and none is ignored."""
    config = tomllib.loads((SRC.parent.parent / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    (forbidden,) = [c for c in contracts if c["type"] == "forbidden"]
    assert forbidden["forbidden_modules"] == ["rankscope.read.sources"]
    assert not forbidden.get("ignore_imports")
    (layers,) = [c for c in contracts if c["type"] == "layers"]
    below = layers["layers"][layers["layers"].index("api") + 1 :]
    listed = {m.removeprefix("rankscope.") for m in forbidden["source_modules"]}
    assert {name for layer in below for name in layer.split(" | ") if name != "read"} == listed


def test_online_interleaving_kernels_take_runs_not_paths():
    with pytest.raises(UsageError, match="rankscope.interleaved_lists"):
        rankings_of("bm25.run")
