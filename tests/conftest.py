"""Shared fixtures: the location of ../shared (conformance material and real data)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("RANKSCOPE_SHARED", ROOT.parent / "shared"))
CONFORMANCE = SHARED / "conformance"
DATA = SHARED / "data"


def need(path: Path) -> Path:
    """Skip the calling test, with the reason, when ``path`` (under ../shared) is absent."""
    if not path.exists():
        pytest.skip(f"{path} not available (the ../shared folder is absent)")
    return path


def run_cli(args: list[str], capsys) -> tuple[int, str, str]:
    from rankscope.cli import main

    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(params=["native", "python"])
def reader(request, monkeypatch):
    """Run a test with the compiled reader (when built) and with the pure-Python one."""
    from rankscope.model._native import native

    if request.param == "python":
        monkeypatch.setenv("RANKSCOPE_PURE_PYTHON", "1")
    elif native() is None:
        pytest.skip("compiled reader not built")
    return request.param


def write_qrels(path, qrels: dict) -> str:
    """``{qid: {docno: grade}}`` as a TREC qrels file; its path as a string."""
    path.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    )
    return str(path)


def write_ranked_run(path, name: str, rankings: dict) -> str:
    """``{qid: [docno, ...]}`` (best first) as a TREC run tagged ``name``, scores falling
    with rank; its path as a string."""
    path.write_text(
        "".join(
            f"{q} Q0 {d} {i + 1} {len(docs) - i} {name}\n"
            for q, docs in rankings.items()
            for i, d in enumerate(docs)
        )
    )
    return str(path)
