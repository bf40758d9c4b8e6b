"""Every file rankscope writes is written whole or not at all (`rankscope.atomic`), and no
command overwrites a file without ``--force`` or writes over one of its inputs.

The kill test: each file-writing command is run as a process over an older output, with
``--force``, and stopped in the middle of its write (the test-only pause,
``RANKSCOPE_WRITE_PAUSE``, holds it there once its temporary file exists) by Ctrl-C
(SIGINT), SIGTERM or SIGKILL, and, for ``fuse``, at random moments too: afterwards the
target is the old file, byte for byte, or the complete new one, and no temporary file is
left where the process could clean up (SIGKILL leaves it no chance)."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rankscope.atomic import PAUSE, atomic_directory, atomic_path, write_atomically
from tests.conftest import run_cli

EXAMPLES = Path(__file__).resolve().parent.parent / "src" / "rankscope" / "examples"


def _leftovers(directory) -> list[str]:
    return sorted(name for name in os.listdir(directory) if name.startswith("."))


def test_a_text_replaces_the_old_file_whole(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    write_atomically(target, "new " * 50_000)
    assert target.read_text() == "new " * 50_000
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("stop", [KeyboardInterrupt, OSError])
def test_a_writer_stopped_leaves_the_old_file_and_no_temporary_file(tmp_path, stop):
    target = tmp_path / "out.parquet"
    target.write_text("old\n")
    with pytest.raises(stop):
        with atomic_path(target) as temporary:
            assert os.path.dirname(temporary) == str(tmp_path)  # beside: the rename is atomic
            assert temporary.endswith(".parquet")  # the writer sees the target's suffix
            with open(temporary, "w") as part:
                part.write("a part")
            raise stop()
    assert target.read_text() == "old\n"
    assert _leftovers(tmp_path) == []


def test_a_directory_is_swapped_in_whole(tmp_path):
    target = tmp_path / "folds"
    target.mkdir()
    for name in ("u1.base", "u1.test", "u2.base", "u2.test", "u3.base", "u3.test"):
        (target / name).write_text("old\n")
    with atomic_directory(target) as built:
        (built / "u1.base").write_text("new\n")
        (built / "u1.test").write_text("new\n")
        assert sorted(os.listdir(target)) != ["u1.base", "u1.test"]  # not yet in place
    # the older split's third and second folds are gone: never mixed with the new one
    assert sorted(os.listdir(target)) == ["u1.base", "u1.test"]
    assert (target / "u1.base").read_text() == "new\n"
    assert _leftovers(tmp_path) == []


def test_a_directory_stopped_leaves_the_old_one(tmp_path):
    target = tmp_path / "folds"
    target.mkdir()
    (target / "u1.base").write_text("old\n")
    with pytest.raises(KeyboardInterrupt):
        with atomic_directory(target) as built:
            (built / "u1.base").write_text("new\n")
            raise KeyboardInterrupt
    assert os.listdir(target) == ["u1.base"] and (target / "u1.base").read_text() == "old\n"
    assert _leftovers(tmp_path) == []


# -- the commands that write files ---------------------------------------------------------------

OLD = b"an older output\n"


def _inputs(tmp: Path) -> None:
    """The files the commands read: the example judgments and runs, assessors' labels, a
    click log and an interaction log."""
    for name in ("qrels.txt", "run.weak.txt", "run.medium.txt", "run.strong.txt"):
        shutil.copy(EXAMPLES / name, tmp / name)
    judged = [line.split() for line in (tmp / "qrels.txt").read_text().splitlines()][:300]
    (tmp / "labels.txt").write_text(
        "".join(f"{q} {who} {d} {int(g) if who == 'a' else min(int(g) + i % 2, 3)}\n"
                for i, (q, _, d, g) in enumerate(judged) for who in ("a", "b"))
    )  # fmt: skip
    (tmp / "log.tsv").write_text(
        "".join(f"u{u}\ti{(u * 7 + k) % 40}\t{1 + k % 5}\t{1000 + k}\n"
                for u in range(30) for k in range(8))
    )  # fmt: skip
    code = subprocess.run(
        [sys.executable, "-m", "rankscope", "clicks", "simulate", "qrels.txt", "run.weak.txt",
         "--sessions", "300", "-o", "clicks.tsv"], cwd=tmp, capture_output=True,
    ).returncode  # fmt: skip
    assert code == 0


#: Each writing command: its arguments (without --force) and the output it writes.
WRITERS = {
    "fuse": (["fuse", "run.weak.txt", "run.strong.txt", "-o", "out.run"], "out.run"),
    "report": (["report", "-m", "AP", "qrels.txt", "run.weak.txt", "run.strong.txt",
                "-o", "out.html"], "out.html"),
    "compare --html": (["compare", "-m", "AP", "qrels.txt", "run.weak.txt", "run.strong.txt",
                        "--html", "out.html"], "out.html"),
    "meta --plot": (["meta", "-m", "AP", "--permutations", "50", "qrels.txt", "run.weak.txt",
                     "run.medium.txt", "run.strong.txt", "--plot", "out.png"], "out.png"),
    "agree --to-qrels": (["agree", "labels.txt", "--to-qrels", "majority", "-o", "out.qrels"],
                         "out.qrels"),
    "clicks simulate": (["clicks", "simulate", "qrels.txt", "run.strong.txt", "--sessions",
                         "300", "-o", "out.tsv"], "out.tsv"),
    "clicks simulate parquet": (["clicks", "simulate", "qrels.txt", "run.strong.txt",
                                 "--sessions", "300", "-o", "out.parquet"], "out.parquet"),
    "clicks fit": (["clicks", "fit", "clicks.tsv", "-o", "out.json"], "out.json"),
    "clicks interleave --lists": (["clicks", "interleave", "--lists", "run.weak.txt",
                                   "run.strong.txt", "-o", "out.tsv"], "out.tsv"),
    "clicks learn --save": (["clicks", "learn", "--from", "AP", "--no-assess", "--alphas", "1",
                             "qrels.txt", "run.weak.txt", "run.medium.txt", "run.strong.txt",
                             "--save", "out.json"], "out.json"),
    "split": (["split", "log.tsv", "--num-folds", "3", "-o", "folds"], "folds"),
}  # fmt: skip


def _old(target: Path) -> None:
    """An older output at ``target``: a file, or for ``split`` an older split of five folds
    (more than the new one's three, so that a mix would show)."""
    if target.name == "folds":
        target.mkdir()
        for i in range(1, 6):
            for part in ("base", "test"):
                (target / f"u{i}.{part}").write_bytes(OLD)
    else:
        target.write_bytes(OLD)


def _contents(target: Path) -> dict[str, bytes]:
    if target.is_dir():
        return {p.name: p.read_bytes() for p in sorted(target.iterdir())}
    return {target.name: target.read_bytes()}


def _temporary(target: Path) -> list[str]:
    prefix = f".{target.name}."
    return [p.name for p in target.parent.iterdir() if p.name.startswith(prefix)]


def _begun(target: Path) -> bool:
    """A temporary file beside ``target`` holds a part of the output (a temporary directory,
    a file): the writer is in its pause, past the file's creation."""
    for name in _temporary(target):
        path = target.parent / name
        try:
            if (path.is_dir() and any(path.iterdir())) or path.stat().st_size > 0:
                return True
        except FileNotFoundError:  # (renamed or removed meanwhile)
            continue
    return False


def _start(tmp: Path, args: list[str], pause: float | None) -> subprocess.Popen:
    env = dict(os.environ)
    env.pop(PAUSE, None)
    if pause is not None:
        env[PAUSE] = str(pause)
    return subprocess.Popen(
        [sys.executable, "-m", "rankscope", *args, "--force"], cwd=tmp, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("inputs")
    _inputs(tmp)
    return tmp


def _prepared(inputs: Path, tmp_path: Path, monkeypatch, writer: str) -> tuple[list[str], Path]:
    """``writer``'s arguments and target, in ``tmp_path`` (the working directory) holding
    the inputs and an older output at the target."""
    for child in inputs.iterdir():
        shutil.copy(child, tmp_path / child.name)
    monkeypatch.chdir(tmp_path)
    args, name = WRITERS[writer]
    _old(tmp_path / name)
    return args, tmp_path / name


#: The signal each command is stopped with mid-write (every signal for several commands).
SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGKILL]


@pytest.mark.parametrize(
    ("writer", "stop"),
    [(w, SIGNALS[i % 3]) for i, w in enumerate(WRITERS)] + [
        # the other signals: each writer is stopped once above, by default
        pytest.param(w, s, marks=pytest.mark.slow)
        for w, s in [("fuse", signal.SIGKILL), ("fuse", signal.SIGTERM), ("split", signal.SIGINT),
                     ("clicks simulate parquet", signal.SIGKILL)]
    ],
    ids=lambda v: v.name if isinstance(v, signal.Signals) else v.replace(" ", "_"),
)  # fmt: skip
def test_a_command_stopped_mid_write_leaves_the_old_output(
    inputs, tmp_path, capsys, monkeypatch, writer, stop
):
    args, target = _prepared(inputs, tmp_path, monkeypatch, writer)
    tmp, name, before = tmp_path, target.name, _contents(target)
    process = _start(tmp, args, pause=60)
    deadline = time.monotonic() + 240
    while not _begun(target):  # a part is in the temporary file: the writer's pause
        assert process.poll() is None, process.stderr.read().decode()
        assert time.monotonic() < deadline
        time.sleep(0.02)
    process.send_signal(stop)
    process.wait(timeout=60)
    process.stderr.close()
    assert process.returncode == {signal.SIGINT: 130, signal.SIGTERM: 143}.get(stop, -stop)
    assert _contents(target) == before  # the old output, whole
    if stop != signal.SIGKILL:  # the process could clean up: it did
        assert _temporary(target) == []
    # the same command to the end replaces it with the complete new output
    code, _, err = run_cli([*args, "--force"], capsys)
    assert code == 0, err
    fresh = tmp / "fresh"
    fresh.mkdir()
    code, _, err = run_cli(
        [a if a != name else str(fresh / name) for a in args], capsys
    )  # (the same output, written where there was nothing)
    assert code == 0, err
    assert _contents(target) == _contents(fresh / name) != before
    if stop != signal.SIGKILL:
        assert not any(p.name.startswith(".") for p in tmp.iterdir())


@pytest.mark.parametrize("delay", [0.0, 0.3, 0.6, 0.9, 1.2, 1.5])
def test_fuse_killed_at_any_moment_leaves_the_old_run_or_the_new_one(
    inputs, tmp_path, capsys, monkeypatch, delay
):
    args, target = _prepared(inputs, tmp_path, monkeypatch, "fuse")
    code, new, _ = run_cli(["fuse", "run.weak.txt", "run.strong.txt"], capsys)
    assert code == 0
    process = _start(tmp_path, args, pause=None)
    time.sleep(delay + random.random() * 0.1)
    process.kill()
    process.wait(timeout=60)
    process.stderr.close()
    assert target.read_bytes() in (OLD, new.encode())


@pytest.mark.parametrize("writer", list(WRITERS))
def test_an_existing_output_is_refused_without_force(
    inputs, tmp_path, capsys, monkeypatch, writer
):
    args, target = _prepared(inputs, tmp_path, monkeypatch, writer)
    before = _contents(target)
    code, _, err = run_cli(args, capsys)
    assert code == 2 and "already exist" in err and "--force" in err, err
    assert _contents(target) == before


def test_no_writer_opens_its_target():
    """Every file is written through `rankscope.atomic`: no module but it opens a file for
    writing (``split`` fills the directory `atomic_directory` gives it; a Parquet or image
    writer writes the temporary path `atomic_path` gives it)."""
    import re

    src = Path(__file__).resolve().parent.parent / "src" / "rankscope"
    opened = re.compile(r"open\([^)]*['\"][wax]b?\+?['\"]|\.write_bytes\(")
    found = [
        f"{path.relative_to(src)}:{number}"
        for path in sorted(src.rglob("*.py")) if path.name != "atomic.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if opened.search(line)
    ]  # fmt: skip
    assert found == []
