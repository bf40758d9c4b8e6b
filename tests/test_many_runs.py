"""Many runs, one at a time and on several cores (issue 12): `rankscope.table.many` reads
the judgments once and each run into vocabularies scoped to it; the results, warnings and
errors must be those of evaluating every run at once (the path `resolve_runs` +
`evaluate_runs` took before, kept for preference measures), for every number of jobs."""

from __future__ import annotations

import gc
import os
import random
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

from rankscope import InputError, RankscopeWarning, UsageError
from rankscope.api import evaluate_many, read_judgments
from rankscope.judge import JoinOptions
from rankscope.model import Vocabulary, native, release_memory
from rankscope.read.sources import read_qrels, read_run, resolve_runs
from rankscope.report.evaluation import format_evaluations
from rankscope.table.evaluation import as_requests
from rankscope.table.formats import evaluate_runs, judgment_format

from .conftest import run_cli

MEASURES = ["official", "ndcg_cut.5,10", "P.5", "recall.10", "bpref", "RR@3", "num_ret"]


def track(folder: Path, runs: int = 7, seed: int = 5) -> tuple[Path, Path]:
    """A small track: qrels over 12 queries, ``runs`` runs drawing from a shared pool of
    documents with tied scores, one run with a query the qrels lack, one that ranks no
    judged document (a warning), two runs of one tag (renamed after their files)."""
    rng = random.Random(seed)
    pool = {q: [f"d{q}-{i}" for i in range(30)] for q in range(1, 13)}
    qrels = "".join(
        f"{q} 0 {d} {rng.choice([0, 0, 1, 2])}\n" for q, docs in pool.items() for d in docs[:15]
    )
    (folder / "qrels").write_text(qrels)
    runs_dir = folder / "runs"
    runs_dir.mkdir()
    for r in range(runs):
        lines = []
        for q, docs in pool.items():
            ranked = rng.sample(docs, 12)
            if r == 1:
                ranked = [d.upper() for d in ranked]  # nothing judged: a warning
            for i, d in enumerate(ranked):
                lines.append(f"{q} Q0 {d} {i + 1} {rng.choice([1.0, 2.0, 2.5, 3.0])} tag{r % 5}\n")
        if r == 2:
            lines.append("99 Q0 x 1 1.0 tag2\n")  # a query without judgments
        rng.shuffle(lines)
        (runs_dir / f"run{r}.txt").write_text("".join(lines))
    return folder / "qrels", runs_dir


def at_once(qrels: Path, runs: Path, measures=MEASURES, names: str = "file"):
    """Every run read and evaluated together (the path before issue 12)."""
    fmt = judgment_format("qrels")
    judgments = read_judgments(str(qrels))
    from rankscope.table import as_requests

    return evaluate_runs(judgments, resolve_runs(str(runs), judgments, names=names),
                         as_requests(measures), fmt)  # fmt: skip


def told(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [str(w.message) for w in caught if issubclass(w.category, RankscopeWarning)]


@pytest.mark.parametrize("names", ["tag", "file"])
def test_one_at_a_time_equals_all_at_once_for_every_jobs(tmp_path, names):
    qrels, runs = track(tmp_path)
    expected, expected_warnings = told(lambda: at_once(qrels, runs, names=names))
    text = format_evaluations(expected, None, per_query=True)
    if names == "tag":  # tags that collide (tag0, tag1) renamed after their files
        assert "tag2" in text and "run0" in text and "run5" in text and "tag0" not in text
    for jobs in (1, 2, 3):
        got, got_warnings = told(
            lambda j=jobs: evaluate_many(str(qrels), str(runs), MEASURES, names=names, jobs=j)
        )
        assert format_evaluations(got, None, per_query=True) == text
        assert [r.run_name for r in got] == [r.run_name for r in expected]
        assert got_warnings == expected_warnings
        for a, b in zip(got, expected, strict=True):
            for x, y in zip(a.values, b.values, strict=True):
                assert np.array_equal(x, y)  # bit for bit


def test_the_command_line_output_is_identical_for_every_jobs(tmp_path, capsys):
    qrels, runs = track(tmp_path)
    outputs = {}
    for jobs in (1, 2):
        with warnings.catch_warnings():
            warnings.simplefilter("always")  # each call tells its warnings, as a process does
            args = ["eval", "-q", "-m", "all_trec", "--jobs", str(jobs), str(qrels), str(runs)]
            outputs[jobs] = run_cli(args, capsys)
    assert outputs[1][0] == 0 and "warning" in outputs[1][2]
    assert outputs[1] == outputs[2]


def test_jobs_through_a_real_process(tmp_path):
    qrels, runs = track(tmp_path)
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).parents[1] / "src"))
    done = [
        subprocess.run(
            [
                sys.executable,
                "-m",
                "rankscope",
                "eval",
                "--jobs",
                j,
                "-m",
                "P.5",
                str(qrels),
                str(runs),
            ],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )  # fmt: skip
        for j in ("1", "2")
    ]
    assert done[0].returncode == 0 and done[0].stdout.count("P_5") == 7
    assert (done[0].stdout, done[0].stderr) == (done[1].stdout, done[1].stderr)


def test_the_first_bad_run_in_order_is_reported_whatever_the_jobs(tmp_path):
    qrels, runs = track(tmp_path)
    (runs / "run3.txt").write_text("1 Q0 d1-1 1 1.5 tag3\n1 Q0 d1-2 2 x tag3\n")
    (runs / "run5.txt").write_text("1 Q0 d1-1 1 1.5 tag5\n1 Q0 d1-2\n")
    for jobs in (1, 2):
        with pytest.raises(InputError, match=r"run3\.txt:2: .*'x'"):
            evaluate_many(str(qrels), str(runs), "P.5", jobs=jobs)


def test_a_run_sharing_no_query_is_an_error_in_order(tmp_path):
    """... and the worker processes are gone when the error is raised: their pool is shut
    down by the thread that evaluates, not left to the collector, which could finalise it
    in the pool's own thread ("cannot join current thread")."""
    qrels, runs = track(tmp_path, runs=3)
    (runs / "run1.txt").write_text("77 Q0 a 1 1.0 t\n")
    for jobs in (1, 2):
        with pytest.raises(InputError, match="have no query in common"):
            try:
                evaluate_many(str(qrels), str(runs), "P.5", jobs=jobs, no_common_query="error")
            except InputError:  # (its traceback holds the evaluation's frame)
                assert not [t for t in threading.enumerate() if "Manager" in type(t).__name__]
                raise


def test_preference_measures_still_see_every_run(tmp_path):
    qrels, runs = track(tmp_path, runs=3)
    measures = ["P.5", "RPP"]
    expected = at_once(qrels, runs, measures)
    got = evaluate_many(str(qrels), str(runs), measures, jobs=2)
    assert format_evaluations(got, None, per_query=True) == format_evaluations(
        expected, None, per_query=True
    )


@pytest.mark.parametrize("jobs", [0, -1, 1.5, True, "2"])
def test_jobs_must_be_a_whole_number_from_one(tmp_path, jobs):
    qrels, runs = track(tmp_path, runs=2)
    with pytest.raises(UsageError, match="jobs must be a whole number >= 1"):
        evaluate_many(str(qrels), str(runs), "P.5", jobs=jobs)


def test_jobs_option_is_checked(tmp_path, capsys):
    qrels, runs = track(tmp_path, runs=2)
    with pytest.raises(SystemExit) as stopped:
        run_cli(["eval", "--jobs", "0", str(qrels), str(runs)], capsys)
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and "argument --jobs: must be at least 1" in err


# -- scoped vocabularies ---------------------------------------------------------------------


@pytest.mark.parametrize("pure", [True, False])
def test_a_scoped_vocabulary_keeps_the_codes_and_leaves_its_base_alone(pure):
    if not pure and native() is None:
        pytest.skip("compiled reader not built")
    base = Vocabulary(["a", "b", "c"], pure=pure)
    scoped = base.scoped()
    assert scoped.intern_many(["c", "x", "a", "y"]).tolist() == [2, 3, 0, 4]
    assert len(base) == 3 and "x" not in base
    assert base.translate(scoped).tolist() == [0, 1, 2, -1, -1]
    base.intern("x")  # the base grew since: codes looked up by id, not assumed
    assert base.translate(scoped).tolist() == [0, 1, 2, 3, -1]


@pytest.mark.parametrize("pure", [True, False])
def test_a_scoped_vocabulary_with_room_is_the_same_vocabulary(pure):
    if not pure and native() is None:
        pytest.skip("compiled reader not built")
    base = Vocabulary([f"d{i}" for i in range(1000)], pure=pure)
    # (the first 5000 takes the table made for it, the second makes the one kept, the third
    # copies that one)
    for room in (1, 3, 1000, 5000, 5000, 5000):
        scoped = base.scoped(room=room)
        assert len(scoped) == 1000 and scoped.strings == base.strings
        new = [f"n{i}" for i in range(2 * room)]
        assert scoped.intern_many(new).tolist() == list(range(1000, 1000 + 2 * room))
        assert scoped.intern_many(["d7", "n0"]).tolist() == [7, 1000]
        assert len(base) == 1000 and "n0" not in base
        assert base.translate(scoped).tolist()[:1000] == list(range(1000))
    base.intern("late")  # a table kept from before would miss it: made again
    scoped = base.scoped(room=5000)
    assert scoped.code("late") == 1000 and scoped.intern("n0") == 1001


def test_a_run_read_into_scoped_vocabularies_is_judged_as_a_shared_one(tmp_path):
    qrels_path, runs = track(tmp_path, runs=2)
    fmt = judgment_format("qrels")
    from rankscope.table import as_requests

    requests = as_requests(MEASURES)
    shared = read_qrels(str(qrels_path))
    run = read_run(str(runs / "run0.txt"), queries=shared.queries, docs=shared.docs)
    scoped = read_qrels(str(qrels_path))
    alone = read_run(str(runs / "run0.txt"), queries=scoped.queries.scoped(),
                     docs=scoped.docs.scoped())  # fmt: skip
    a = evaluate_runs(shared, [run], requests, fmt)[0]
    b = evaluate_runs(scoped, [alone], requests, fmt)[0]
    assert len(scoped.docs) < len(shared.docs)
    for x, y in zip(a.values, b.values, strict=True):
        assert np.array_equal(x, y)


def test_reading_a_run_frees_its_memory(tmp_path):
    """The compiled parser freed its scan buffer with it (it did not: 15 MB kept for every
    250,000-line run read, 1.2 GB for a 40-run track)."""
    if native() is None:
        pytest.skip("compiled reader not built")
    lines = "".join(f"{q} Q0 doc{q}-{i} {i} {1000 - i}.5 t\n" for q in range(100)
                    for i in range(1000))  # fmt: skip
    path = tmp_path / "run"
    path.write_text(lines)

    def resident() -> int:
        return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    if not Path("/proc/self/statm").exists():
        pytest.skip("no /proc here")
    if "libasan" in Path("/proc/self/maps").read_text():
        pytest.skip("AddressSanitizer holds freed memory back (its quarantine)")
    for _ in range(3):  # warm up the allocator
        read_run(str(path))
    gc.collect()
    before = resident()
    for _ in range(20):
        read_run(str(path))
    gc.collect()
    grown = resident() - before
    assert grown < 40 << 20, f"{grown >> 20} MB kept after 20 reads of a 100,000-line run"


def test_a_lone_run_is_evaluated_in_this_process_with_up_to_two_jobs(tmp_path, monkeypatch):
    """One run read in blocks keeps two cores busy in one process (each block parsed beside
    the judging of the one before): with ``jobs=2``, or by default on two cores, it is
    evaluated there; with more jobs, or with more runs, workers are forked."""
    from rankscope.read.cuts import in_this_process
    from rankscope.read.sources import run_sources
    from rankscope.table import many

    assert in_this_process(1, 1) and in_this_process(5, 1)
    assert in_this_process(1, 2) and not in_this_process(2, 2) and not in_this_process(1, 3)
    qrels, runs = track(tmp_path, runs=3)
    judgments = read_qrels(str(qrels))

    def workers(paths, jobs):
        task = many._Task(
            judgments, run_sources(paths), as_requests(MEASURES), judgment_format("qrels"),
            JoinOptions(), 0, None, "error", "score", False,
        )  # fmt: skip
        planned, count = many._plan(task, jobs, 100)
        assert planned.blocked == frozenset(range(len(planned.sources)))  # (in blocks)
        return count

    one, three = str(runs / "run0.txt"), [str(runs / f"run{r}.txt") for r in range(3)]
    assert workers(one, 2) == 1 and workers(one, 3) == 3
    assert workers(three, 2) == 2
    monkeypatch.setattr(many, "PARALLEL_BYTES", 0)
    monkeypatch.setattr(many.threading, "active_count", lambda: 1)
    monkeypatch.setattr(many, "available_cores", lambda: 2)
    assert workers(one, None) == 1 and workers(three, None) == 2


def test_the_default_pool_is_for_big_runs_and_single_threaded_callers(tmp_path, monkeypatch):
    from rankscope.read.sources import run_sources
    from rankscope.table import many

    qrels, runs = track(tmp_path, runs=3)
    sources = run_sources(str(runs))
    judgments = read_qrels(str(qrels))
    task = many._Task(
        judgments, sources, as_requests(MEASURES), judgment_format("qrels"), JoinOptions(), 0,
        None, "error", "score", False,
    )  # fmt: skip

    def workers(jobs):
        return many._plan(task, jobs, None)[1]

    threads = [1]  # what threading.active_count() says (other tests may leave threads)
    monkeypatch.setattr(many.threading, "active_count", lambda: threads[0])
    assert workers(None) == 1  # small files: this process
    assert workers(2) == 2 and workers(8) == 3
    monkeypatch.setattr(many, "PARALLEL_BYTES", 0)
    cores = min(many.available_cores(), 3)
    assert workers(None) == cores
    expected = format_evaluations(at_once(qrels, runs), None, per_query=True)
    got = evaluate_many(str(qrels), str(runs), MEASURES)
    assert format_evaluations(got, None, per_query=True) == expected
    threads[0] = 2
    assert workers(None) == 1  # another thread runs: no fork by default
    assert workers(2) == 2  # unless asked for


def test_the_readers_kept_buffers_are_freed_on_request(tmp_path):
    """The compiled reader keeps a run's buffers for the next run's parser (a 9 MB run leaves
    more than 4 MB; a 5 MB one no longer does, its scan ring a few hundred KB where its scan
    buffer was 10 MB): `release_memory` frees them (the second call finds nothing), and the
    next run is read as before, into fresh ones."""
    if native() is None:
        pytest.skip("compiled reader not built")
    big = tmp_path / "big.txt"
    big.write_text("".join(
        f"q{q} Q0 doc-{q}-{k} {k + 1} {1000 - k} big\n" for q in range(300) for k in range(1000)
    ))  # fmt: skip
    first = read_run(str(big))
    assert release_memory() > 4 << 20
    assert release_memory() == 0
    again = read_run(str(big))
    assert again.doc.tolist() == first.doc.tolist() and again.score.tolist() == first.score.tolist()
    assert release_memory() > 4 << 20
