"""`rankscope meta`'s robustness to fewer judgments: the runs are joined once and the joins
masked (`rankscope.table.study.Joins`); the values must be those of joining every run again
with the reduced judgments (`measure_data`), number for number, for metrics and preference
methods, with judgments the runs never retrieve, unjudged pool entries (negative grades),
retrieved documents the judgments do not mention, a query a run does not rank, and runs
read with vocabularies of their own."""

from __future__ import annotations

import json
import threading
import warnings

import numpy as np
import pytest

import rankscope
from rankscope.model import native, release_memory
from rankscope.read.sources import run_sources
from rankscope.table import study as study_module
from rankscope.table.study import Joins, RunFiles, drop_judgments, measure_data, study
from tests.conftest import write_qrels, write_ranked_run

MEASURES = ["AP", "nDCG", "bpref", "infAP", "P@5", "RR", "nDCG@10", "num_nonrel_judged_ret", "RPP",
            "dcgRPP", "invRPP",
            "OI"]  # fmt: skip


def collection(tmp_path, shared: bool):
    rng = np.random.default_rng(11)
    qrels = {
        f"q{q}": {f"d{d}": int(rng.choice([-1, 0, 0, 1, 2, 3])) for d in rng.choice(40, 15, False)}
        for q in range(8)
    }
    paths = {}
    for r in range(5):
        rankings = {
            q: [f"d{d}" for d in rng.choice(45, 20, replace=False)]
            for q in qrels
            if not (r == 2 and q == "q3")  # a query the run does not rank
        }
        paths[f"r{r}"] = write_ranked_run(tmp_path / f"r{r}.txt", f"r{r}", rankings)
    judgments = rankscope.read_qrels(write_qrels(tmp_path / "qrels.txt", qrels))
    vocab = {"queries": judgments.queries, "docs": judgments.docs} if shared else {}
    runs = [rankscope.read_run(p, name=n, **vocab) for n, p in paths.items()]
    return judgments, runs


@pytest.mark.filterwarnings("ignore::rankscope.RankscopeWarning")
@pytest.mark.parametrize("shared", [True, False])
@pytest.mark.parametrize("policy", ["uniform", "pool"])
@pytest.mark.parametrize("keep", [0.1, 0.5, 1.0])
@pytest.mark.parametrize("runs_at_once", [1, 2, 16])  # a run, two (and the last alone), all
def test_masked_joins_are_the_joins_of_the_reduced_judgments(
    tmp_path, monkeypatch, shared, policy, keep, runs_at_once
):
    monkeypatch.setattr(study_module, "RUNS_AT_ONCE", runs_at_once)
    qrels, runs = collection(tmp_path, shared)
    joins = Joins.of(qrels, runs, MEASURES)
    assert joins is not None
    rng = np.random.default_rng(5)
    for _ in range(2):
        reduced = drop_judgments(qrels, runs, keep, policy=policy, rng=rng)
        assert len(reduced) < len(qrels) or keep == 1.0
        expected = measure_data(reduced, runs, MEASURES)
        got = joins.measure_data(reduced)
        assert [d.name for d in got] == [d.name for d in expected] == MEASURES
        for g, e in zip(got, expected, strict=True):
            assert g.query_ids == e.query_ids, g.name
            assert g.preference == e.preference
            assert g.data.shape == e.data.shape, g.name
            assert np.array_equal(g.data, e.data), g.name


@pytest.mark.filterwarnings("ignore::rankscope.RankscopeWarning")
@pytest.mark.parametrize("block", [1, 50, 1 << 20])  # one query, two, every query a block
@pytest.mark.parametrize("measures", [MEASURES, ["RPP", "AP", "invRPP", "lexiprecision"]])
def test_scores_on_reduced_judgments_are_those_of_the_joins_of_the_reduced_judgments(
    tmp_path, monkeypatch, block, measures
):
    """`Joins.scores` (what the curves of fewer judgments compare: the preference methods
    computed a block of queries at a time, only each query's order of the runs kept) gives
    the scores of `measure_data` on the reduced judgments, joined again with every run and
    every query's preferences at once: the same numbers, NaN where no query is left."""
    monkeypatch.setattr(study_module, "BLOCK_CELLS", block)
    qrels, runs = collection(tmp_path, False)
    joins = Joins.of(qrels, runs, measures)
    assert joins is not None
    rng = np.random.default_rng(7)
    for keep, policy in [(0.1, "uniform"), (0.3, "pool"), (0.7, "uniform"), (1.0, "pool")]:
        reduced = drop_judgments(qrels, runs, keep, policy=policy, rng=rng)
        expected = [d.scores() for d in measure_data(reduced, runs, measures)]
        got = joins.scores(reduced)
        assert len(got) == len(expected) == len(measures)
        for g, e in zip(got, expected, strict=True):
            assert g.shape == e.shape == (len(runs),)
            assert np.array_equal(g, e, equal_nan=True)


@pytest.mark.filterwarnings("ignore::rankscope.RankscopeWarning")
def test_few_judgments_leave_queries_without_relevant_documents(tmp_path):
    """At 10 % a query keeps one judgment: some queries keep no relevant document, and the
    preference methods lose them, as the joins of the reduced judgments do."""
    qrels, runs = collection(tmp_path, True)
    reduced = drop_judgments(qrels, runs, 0.1, rng=np.random.default_rng(5))
    (rpp,) = Joins(qrels, runs, rankscope.measures.parse_measures(["RPP"])).measure_data(reduced)
    assert len(rpp.query_ids) < len(set(qrels.queries.strings_of(np.unique(qrels.query))))


@pytest.mark.filterwarnings("ignore::rankscope.RankscopeWarning")
def test_masking_is_left_to_joins_where_it_does_not_apply(tmp_path):
    qrels, runs = collection(tmp_path, True)
    assert Joins.of(qrels, runs, ["AP", "nDCG(judged_only=True)@10"]) is None
    result = study(qrels, runs, ["AP", "RPP"], permutations=20, samples=2)
    assert set(result.judgment_curves) == {"AP", "RPP"}


@pytest.mark.parametrize("shared", [True, False])
def test_the_whole_judgments_data_are_the_joins_unmasked_and_warned_once(tmp_path, shared):
    """With the robustness curves the study takes the whole judgments' data from its joins
    (nothing masked): the values of joining every run (`measure_data`), number for number,
    and each run's join warning (run r2 leaves a judged query out) said once, not once by
    each join."""
    qrels, runs = collection(tmp_path, shared)
    with pytest.warns(rankscope.RankscopeWarning) as plain:
        expected = measure_data(qrels, runs, MEASURES)
    with pytest.warns(rankscope.RankscopeWarning) as joined:
        got = Joins.of(qrels, runs, MEASURES).measure_data(qrels)
    for a, b in zip(got, expected, strict=True):
        assert (a.name, a.query_ids) == (b.name, b.query_ids)
        assert np.array_equal(a.data, b.data)
    with pytest.warns(rankscope.RankscopeWarning) as caught:
        study(qrels, runs, ["AP", "RPP"], permutations=20, samples=1, fractions=(0.5,))
    said = [str(w.message) for w in caught if "r2" in str(w.message)]
    assert said and len(said) == len(set(said))
    assert [str(w.message) for w in plain] == [str(w.message) for w in joined]


def _told(call):
    """``call()``'s result and the warnings it told, in order."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [str(w.message) for w in caught]


@pytest.mark.parametrize(
    ("measures", "max_docs"),
    [(["AP", "nDCG", "bpref", "P@5", "RR", "RPP", "dcgRPP", "invRPP"], None),
     (["AP", "RPP", "invRPP"], 7),
     (["AP", "RPP", "OI"], None)],  # OI replays rankings: the runs are read whole
)  # fmt: skip
@pytest.mark.parametrize("robustness", [True, False])
def test_runs_read_one_at_a_time_give_the_study_of_the_runs_read_whole(
    tmp_path, measures, max_docs, robustness
):
    """`RunFiles` (each run read, joined, reduced to its judged entries and its ranks of the
    relevant documents, and dropped) give the study of the same runs read whole with the
    judgments' vocabularies, value for value, and the same warnings in the same order:
    every run's join warnings (run r2 leaves a judged query out), then the preference
    methods' (r2 ranks nothing for a query with relevant documents); without the
    robustness curves too."""
    qrels, runs = collection(tmp_path, True)
    # a sixth run, with tied scores, that ranks only some queries: two runs warn
    rng = np.random.default_rng(2)
    with open(tmp_path / "r5.txt", "w") as out:
        for q in ("q0", "q1", "q4", "q5"):
            for k, d in enumerate(rng.choice(45, 20, replace=False)):
                out.write(f"{q} Q0 d{d} {k + 1} {k % 3} r5\n")
    runs.append(rankscope.read_run(tmp_path / "r5.txt", queries=qrels.queries, docs=qrels.docs))
    options = dict(permutations=50, samples=2, max_docs=max_docs, seed=3, robustness=robustness)
    expected, expected_told = _told(lambda: study(qrels, runs, measures, **options))
    paths = [tmp_path / f"r{r}.txt" for r in range(6)]
    got, got_told = _told(
        lambda: study(qrels, RunFiles(run_sources(paths), check_common=True), measures, **options)
    )
    assert got.run_names == expected.run_names == [f"r{r}" for r in range(6)]
    assert json.dumps(got.to_dict()) == json.dumps(expected.to_dict())
    assert got_told == expected_told
    assert [m for m in got_told if "r2" in m] and [m for m in got_told if "r5" in m]


def test_runs_read_one_at_a_time_are_checked_as_read_whole(tmp_path):
    """A run sharing no query with the judgments is the error of reading them whole, after
    every run is read (a run that cannot be read comes first)."""
    qrels, _ = collection(tmp_path, True)
    other = write_ranked_run(tmp_path / "other.txt", "other", {"z1": ["d1", "d2"]})
    files = RunFiles(run_sources([tmp_path / "r0.txt", other]), check_common=True)
    with pytest.raises(rankscope.InputError, match="run 'other' .* no query in common"):
        study(qrels, files, ["AP", "RPP"], permutations=20, samples=1)
    broken = tmp_path / "broken.txt"
    broken.write_text("q1 Q0 d1 1\n")
    files = RunFiles(run_sources([other, broken]), check_common=True)
    with pytest.raises(rankscope.InputError, match="broken.txt"):
        study(qrels, files, ["AP", "RPP"], permutations=20, samples=1)


def test_a_reduced_set_without_relevant_documents_leaves_the_preference_methods_undefined(
    tmp_path, capsys
):
    """Two queries with one relevant document each: most reduced judgment sets keep no
    relevant document, so a preference method has no query to order the runs by; its tau is
    undefined (nan), as a metric's is, instead of MC4 failing on no orderings; a warning
    names the points without a tau."""
    from tests.conftest import run_cli

    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\nq2 0 d4 0\n")
    rankings = {"a": ("d1 d2 d5", "d3 d4 d6"), "b": ("d5 d1 d2", "d6 d4 d3"),
                "c": ("d2 d5 d1", "d4 d3 d6")}  # fmt: skip
    for name, (q1, q2) in rankings.items():
        lines = [f"{q} Q0 {d} {r + 1} {10 - r} {name}"
                 for q, docs in (("q1", q1), ("q2", q2)) for r, d in enumerate(docs.split())]
        (tmp_path / name).write_text("\n".join(lines) + "\n")
    code, out, err = run_cli(["meta", str(tmp_path / "qrels"),
                              *(str(tmp_path / n) for n in rankings)], capsys)  # fmt: skip
    assert code == 0, err
    assert "warning: robustness by judgments kept: tau is undefined (nan) for AP at " in err
    uniform = out.split("tau by fraction of judgments kept (uniform)")[1]
    rpp = next(line for line in uniform.splitlines() if line.startswith("RPP "))
    assert "nan" in rpp
    measures = measure_data(
        rankscope.read_qrels(str(tmp_path / "qrels")),
        [rankscope.read_run(str(tmp_path / n)) for n in rankings], ["RPP"],
    )  # fmt: skip
    assert np.isnan(measures[0].scores(np.zeros(0, dtype=np.int64))).all()


def test_a_study_of_run_files_leaves_no_reader_memory_behind(tmp_path):
    """A study reading its runs one at a time frees what the compiled reader keeps of each
    for the next (`rankscope.model.release_memory`, `test_many_runs`) as it goes."""
    if native() is None:
        pytest.skip("compiled reader not built")
    qrels, _ = collection(tmp_path, True)
    paths = [tmp_path / f"r{r}.txt" for r in range(5)]
    big = tmp_path / "big.txt"
    big.write_text("".join(
        f"q{q} Q0 doc-{q}-{k} {k + 1} {1000 - k} big\n" for q in range(150) for k in range(1000)
    ))  # fmt: skip
    rankscope.read_run(big)
    study(qrels, RunFiles(run_sources([big, *paths])), ["AP", "RPP"], permutations=20, samples=1,
          seed=1)  # fmt: skip
    assert release_memory() == 0  # (freed as the runs were read)


def test_a_study_of_run_files_gives_memory_back_before_its_tensors_and_before_its_powers(
    tmp_path, monkeypatch
):
    """The study's own thread gives back what was freed (`rankscope.model.release_memory`)
    once the last run is read and joined, holding no run read, before the measures' data
    (the preference tensors) are made; and again once they are made (what evaluating every
    run's join freed), before the discriminative powers make their buffers: the peak of a
    study of many runs is not what reading left plus the tensors plus the powers'."""
    import weakref

    qrels, _ = collection(tmp_path, True)
    paths = [tmp_path / f"r{r}.txt" for r in range(5)]
    read: list[weakref.ref] = []
    each = RunFiles.each

    def kept(self, judgments):
        for run in each(self, judgments):
            read.append(weakref.ref(run))
            yield run

    made = []  # the measures' data made (the tensors)
    measure = Joins.measure_data

    def measured(self, *args, **kwargs):
        made.append(1)
        return measure(self, *args, **kwargs)

    powered = []  # the discriminative powers begun
    powers = study_module._powers

    def tested(*args, **kwargs):
        powered.append(1)
        return powers(*args, **kwargs)

    given_back = []  # per call in the study's thread: runs read, held, data made, powers begun

    def release() -> int:
        if threading.current_thread() is threading.main_thread():
            held = sum(r() is not None for r in read)
            given_back.append((len(read), held, bool(made), bool(powered)))
        return 0

    monkeypatch.setattr(RunFiles, "each", kept)
    monkeypatch.setattr(Joins, "measure_data", measured)
    monkeypatch.setattr(study_module, "_powers", tested)
    monkeypatch.setattr(study_module, "release_memory", release)
    study(qrels, RunFiles(run_sources(paths)), ["AP", "RPP"], permutations=20, samples=1, seed=1,
          robustness=False)  # fmt: skip
    assert given_back == [(5, 0, False, False), (5, 0, True, False)]


def test_a_study_stopped_during_its_curves_shuts_their_threads_down(tmp_path, monkeypatch):
    """A study stopped while it draws the curves of fewer judgments (an error, Ctrl-C)
    shuts down the threads computing the next reduced sets then, in its own thread: left to
    the collector, their pool could be finalised in one of those threads, which cannot join
    itself ("cannot join current thread" printed after the user's error)."""
    qrels, runs = collection(tmp_path, True)
    reduced = []

    def stopped() -> int:  # (called as each reduced set's scores are taken)
        reduced.append(1)
        if len(reduced) == 2:
            raise KeyboardInterrupt
        return 0

    monkeypatch.setattr(study_module, "release_memory", stopped)

    def workers():
        return [t for t in threading.enumerate() if t.name.startswith("ThreadPoolExecutor")]

    before = len(workers())
    with pytest.raises(KeyboardInterrupt):
        try:
            study(qrels, runs, ["AP", "RPP"], permutations=20, samples=2)
        except KeyboardInterrupt:  # (its traceback holds the study's frames)
            assert len(workers()) <= before
            raise
    assert len(reduced) == 2
