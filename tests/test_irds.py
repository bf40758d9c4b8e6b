"""ir_datasets as a source of judgments, topics and default measures (`rankscope.read.irds`).

Never the network: every dataset read here is registered by the test, over files the test
writes or the real Robust04 files of ../shared (ir_datasets' own ``trec-robust04`` reads the
same formats, `TrecQrels` and `TrecQueries`); the one real id used, TREC DL 2019's, is asked
only for its documentation, which ships with ir_datasets.  Expectations come from reading the
same files directly, from the documented measures, and from hand computations.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import pytest

import rankscope
from rankscope.errors import InputError, RankscopeWarning, UsageError
from rankscope.read.topics import read_topics
from tests.conftest import DATA, need, run_cli, write_qrels, write_ranked_run
from tests.test_report_html import figures_of, parse

ROBUST04 = DATA / "robust04"

# q1: d1 grade 2, d2 grade 1, d3 grade 0; q2: d4 grade 1.  Iterations other than 0 on purpose.
QRELS = "q1 7 d1 2\nq1 Q0 d2 1\nq1 0 d3 0\nq2 3 d4 1\n"
TOPICS = (
    "<top>\n<num> Number: q1\n<title> first topic\n<desc> Description:\nabout q1\n"
    "<narr> Narrative:\nanything\n</top>\n\n"
    "<top>\n<num> Number: q2\n<title> second topic\n<desc> Description:\nabout q2\n"
    "<narr> Narrative:\nanything\n</top>\n"
)
# run a: q1 d2, d1, d3; q2 d5 (not judged), d4.  Run b: q1 d1, d2; q2 d4.
RANKINGS = {"a": {"q1": ["d2", "d1", "d3"], "q2": ["d5", "d4"]},
            "b": {"q1": ["d1", "d2"], "q2": ["d4"]}}  # fmt: skip


@pytest.fixture(scope="module")
def irds(tmp_path_factory):
    """The ir_datasets module (skipped without it), its home in a temporary folder."""
    home = tmp_path_factory.mktemp("ir_datasets_home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("IR_DATASETS_HOME", str(home))
        yield pytest.importorskip("ir_datasets")


class _Documentation:
    """What ir_datasets' YAML documentation gives a dataset: ``documentation()``."""

    def __init__(self, measures: list[str]) -> None:
        self.measures = measures

    def documentation(self) -> dict:
        return {"official_measures": self.measures}


def register(irds, *parts) -> str:
    """A dataset of ``parts`` (handlers) registered under a new id; ``ir_datasets:ID``."""
    from ir_datasets.datasets.base import Dataset

    name = f"rankscope-test/{uuid.uuid4().hex[:12]}"
    irds.registry.register(name, Dataset(*parts))
    return "ir_datasets:" + name


def trec_qrels(path: Path, text: str = QRELS, three_columns: bool = False):
    from ir_datasets.formats import TrecQrels
    from ir_datasets.util import LocalDownload

    path.write_text(text)
    return TrecQrels(LocalDownload(path), {}, format_3col=three_columns)


def write_qrels_text(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


def trec_topics(path: Path, text: str = TOPICS):
    from ir_datasets.formats import TrecQueries
    from ir_datasets.util import LocalDownload

    path.write_text(text)
    return TrecQueries(LocalDownload(path))


@pytest.fixture
def small(irds, tmp_path):
    """The small dataset (qrels, topics, official measures RR(rel=2) and P@2), the same
    qrels as a file, and the two runs."""
    source = register(
        irds, trec_qrels(tmp_path / "ds-qrels"), trec_topics(tmp_path / "ds-topics"),
        _Documentation(["RR(rel=2)", "P@2"]),
    )  # fmt: skip
    runs = [write_ranked_run(tmp_path / f"{n}.run", n, r) for n, r in RANKINGS.items()]
    return source, str(tmp_path / "ds-qrels"), runs


# --- judgments ------------------------------------------------------------------------------


def test_qrels_equal_the_file_read_directly(irds, reader):
    qrels_file = need(ROBUST04 / "qrels.robust2004.txt")
    topics_file = ROBUST04 / "topics.robust04.301-450.601-700.txt"
    from ir_datasets.formats import TrecQrels, TrecQueries
    from ir_datasets.util import LocalDownload

    source = register(irds, TrecQrels(LocalDownload(qrels_file), {}),
                      TrecQueries(LocalDownload(topics_file)))  # fmt: skip
    from_dataset = rankscope.read_qrels(source)
    direct = rankscope.read_qrels(str(qrels_file))
    assert from_dataset.source == source
    assert len(from_dataset.grade) == len(direct.grade) == 311_410
    assert from_dataset.to_dict() == direct.to_dict()
    # and the topics are those rankscope's own TREC topics reader finds in the same file
    assert read_topics(source) == read_topics(topics_file)


def test_iteration_ignored_and_grades_kept(irds, tmp_path):
    four = register(irds, trec_qrels(tmp_path / "four"))
    three = register(irds, trec_qrels(tmp_path / "three", "q1 d1 2\nq1 d2 1\nq2 d4 1\n", True))
    expected = {"q1": {"d1": 2, "d2": 1, "d3": 0}, "q2": {"d4": 1}}
    assert rankscope.read_qrels(four).to_dict() == expected
    del expected["q1"]["d3"]
    assert rankscope.read_qrels(three).to_dict() == expected


def test_a_document_judged_twice_is_the_error_a_file_gives(irds, tmp_path):
    twice = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d1 2\n"
    source = register(irds, trec_qrels(tmp_path / "twice", twice))
    run = {"q1": {"d1": 2.0, "d2": 1.0}}
    with pytest.raises(InputError, match="judged twice") as from_file:
        rankscope.evaluate(write_qrels_text(tmp_path / "file", twice), {"r": run}, ["P@1"])
    with pytest.raises(InputError, match="judged twice") as from_dataset:
        rankscope.evaluate(source, {"r": run}, ["P@1"])
    assert str(from_dataset.value).startswith(f"{source}: document 'd1' is judged twice")
    assert str(from_file.value).endswith("is judged twice for query 'q1' (lines 1 and 3)")


def test_ids_interned_into_the_vocabularies_given(irds, tmp_path):
    from rankscope.model import Vocabulary

    queries, docs = Vocabulary(), Vocabulary()
    docs.intern_many(["d9", "d4"])
    qrels = rankscope.read_qrels(register(irds, trec_qrels(tmp_path / "q")), queries=queries,
                                 docs=docs)  # fmt: skip
    assert qrels.docs is docs and list(docs.strings_of(qrels.doc)) == ["d1", "d2", "d3", "d4"]
    assert int(qrels.doc[-1]) == 1  # d4 kept its code


def test_relevance_must_be_whole(irds):
    from ir_datasets.formats import GenericQrel
    from ir_datasets.formats.base import BaseQrels

    class Fractional(BaseQrels):
        def qrels_iter(self):
            yield GenericQrel("q1", "d1", 1)
            yield GenericQrel("q1", "d2", 1.5)

    source = register(irds, Fractional())
    with pytest.raises(InputError, match=r"ir_datasets:.*row 1: relevance 1\.5"):
        rankscope.read_qrels(source)


def test_what_ir_datasets_cannot_read_is_an_input_error(irds, tmp_path):
    source = register(irds, trec_qrels(tmp_path / "bad", "q1 0 d1 x\n"))
    with pytest.raises(InputError, match="could not read its qrels: ValueError"):
        rankscope.read_qrels(source)
    gone = trec_qrels(tmp_path / "gone")
    (tmp_path / "gone").unlink()
    with pytest.raises(InputError, match="could not read its qrels: FileNotFoundError"):
        rankscope.read_qrels(register(irds, gone))


def test_unknown_dataset_and_dataset_without_qrels(irds, tmp_path):
    with pytest.raises(UsageError, match="ir_datasets has no dataset 'rankscope-test/nothing'"):
        rankscope.read_qrels("ir_datasets:rankscope-test/nothing")
    with pytest.raises(UsageError, match="did you mean msmarco-passage/trec-dl-2019/judged"):
        rankscope.read_qrels("ir_datasets:msmarco-passage/trec-dl-2019/judge")
    topics_only = register(irds, trec_topics(tmp_path / "t"))
    with pytest.raises(UsageError, match="has no qrels \\(it provides queries\\)"):
        rankscope.read_qrels(topics_only)


def test_other_judgment_formats_and_diversity_are_refused(small):
    source, _, runs = small
    with pytest.raises(UsageError, match="judgments from ir_datasets are qrels"):
        rankscope.evaluate(source, runs, ["P@2"], rel_format="qrels_prefs")
    with pytest.raises(UsageError, match="diversity judgments are read from TREC files"):
        rankscope.evaluate(source, runs, ["alpha-nDCG@2"])


def test_missing_ir_datasets_names_the_extra(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # import ir_datasets fails
    with pytest.raises(UsageError, match=r"needs the ir_datasets package.*rankscope\[irds\]"):
        rankscope.read_qrels("ir_datasets:msmarco-passage/trec-dl-2019/judged")
    run = write_ranked_run(tmp_path / "a.run", "a", RANKINGS["a"])
    code, _, err = run_cli(["eval", "ir_datasets:msmarco-passage/dev", run], capsys)
    assert code == 2 and "pip install 'rankscope[irds]'" in err
    # a bare name that is no file stays a missing file
    code, _, err = run_cli(["eval", "msmarco-passage/dev", run], capsys)
    assert code == 2 and "msmarco-passage/dev: No such file or directory" in err


# --- topics ---------------------------------------------------------------------------------


def test_topics_are_the_queries_default_text(irds, tmp_path):
    from ir_datasets.formats import TsvQueries
    from ir_datasets.util import LocalDownload

    assert read_topics(register(irds, trec_topics(tmp_path / "t"))) == {
        "q1": "first topic", "q2": "second topic",
    }  # fmt: skip
    (tmp_path / "q.tsv").write_text("7\twhat is  a dog \n8\tcats\n")  # blanks collapsed
    assert read_topics(register(irds, TsvQueries(LocalDownload(tmp_path / "q.tsv")))) == {
        "7": "what is a dog", "8": "cats",
    }  # fmt: skip
    with pytest.raises(UsageError, match="has no queries"):
        read_topics(register(irds, trec_qrels(tmp_path / "qrels")))


def _shown(page) -> str:
    """A report's text with its figures' data unpacked (the page stores them compressed)."""
    text = page.read_text("utf-8")
    return text + json.dumps(figures_of(parse(text)))


def test_report_shows_the_dataset_topics(irds, small, tmp_path, capsys):
    pytest.importorskip("plotly")
    pytest.importorskip("jinja2")
    source, _, runs = small
    page = tmp_path / "report.html"
    code, _, err = run_cli(["report", source, *runs, "-o", str(page)], capsys)
    assert code == 0, err
    text = _shown(page)
    assert "first topic" in text and "second topic" in text
    compared = tmp_path / "compare.html"
    code, _, err = run_cli(["compare", source, *runs, "--html", str(compared)], capsys)
    assert code == 0, err
    assert "second topic" in _shown(compared)
    # a dataset without queries: a page without titles, as without --topics
    no_queries = register(irds, trec_qrels(tmp_path / "q"))
    code, _, err = run_cli(["compare", no_queries, *runs, "--html", str(compared), "--force"],
                           capsys)  # fmt: skip
    assert code == 0, err
    assert "second topic" not in _shown(compared)
    # --topics still wins
    mine = tmp_path / "mine.tsv"
    mine.write_text("q1\tmy own title\n")
    code, _, err = run_cli(["report", source, *runs, "--topics", str(mine), "-o", str(page),
                            "--force"], capsys)  # fmt: skip
    assert code == 0, err
    text = _shown(page)
    assert "my own title" in text and "first topic" not in text


def labels(requests) -> list[str]:
    return [r.label for r in requests]


# --- official measures ----------------------------------------------------------------------


def test_documented_measures_of_a_real_dataset(irds):
    # ir_datasets documents TREC DL 2019 passages with ['nDCG@10', 'RR(rel=2)', 'AP(rel=2)']
    found = rankscope.dataset_measures("ir_datasets:msmarco-passage/trec-dl-2019/judged")
    assert labels(found) == ["nDCG@10", "RR(rel=2)", "AP(rel=2)"]  # in the documented order


def test_official_measures_are_the_default(small):
    source, qrels_file, runs = small
    table = rankscope.evaluate(source, runs, per_query=False, output="dict")
    assert table["run"] == ["a", "a", "b", "b"]
    assert table["measure"] == ["RR(rel=2)", "P@2"] * 2
    # by hand: run a finds q1's grade-2 document at rank 2 and q2 has none (RR(rel=2) 0.5, 0);
    # at 2 it holds 2 of 2 and 1 of 2 relevant documents (P@2 1, 0.5).  Run b: d1 first (1, 0);
    # P@2 counts the missing second document of q2 as not relevant: 1, 0.5.
    assert table["value"] == pytest.approx([0.25, 0.75, 0.5, 0.75])
    # the same as naming them, over the same qrels read from the file
    named = rankscope.evaluate(qrels_file, runs, ["RR(rel=2)", "P@2"], per_query=False,
                               output="dict")  # fmt: skip
    assert named["value"] == table["value"]
    # judgments already read keep their dataset's default; measures named win
    assert rankscope.evaluate(rankscope.read_qrels(source), runs, per_query=False,
                              output="dict")["value"] == table["value"]  # fmt: skip
    assert rankscope.evaluate(source, runs, ["P@1"], per_query=False, output="dict")[
        "measure"
    ] == ["P@1", "P@1"]


def test_compare_defaults_to_the_official_measures(small):
    source, _, runs = small
    result = rankscope.compare(source, runs)
    assert result.measures == ["RR(rel=2)", "P@2"]
    assert result.row("b", result.measures[0], "a").difference == pytest.approx(0.25)


def test_without_official_measures_the_usual_defaults(irds, tmp_path):
    source = register(irds, trec_qrels(tmp_path / "q"))
    qrels_file = str(tmp_path / "q")
    runs = [write_ranked_run(tmp_path / "a.run", "a", RANKINGS["a"])]
    assert rankscope.dataset_measures(source) is None
    plain = rankscope.evaluate(qrels_file, runs, per_query=False, output="dict")
    assert rankscope.evaluate(source, runs, per_query=False, output="dict") == plain
    assert rankscope.dataset_measures(qrels_file) is None


def test_an_unknown_official_measure_is_left_out_with_a_warning(irds, tmp_path):
    source = register(irds, trec_qrels(tmp_path / "q"), _Documentation(["P@2", "Judged@x"]))
    with pytest.warns(RankscopeWarning, match="official measure 'Judged@x' is left out"):
        assert labels(rankscope.dataset_measures(source)) == ["P@2"]


# --- the command line -----------------------------------------------------------------------


def test_cli_eval_with_a_dataset_id(small, capsys):
    source, qrels_file, runs = small
    code, by_id, err = run_cli(["eval", "-q", source, runs[0]], capsys)
    assert code == 0, err
    code, by_file, err = run_cli(["eval", "-q", "-m", "RR(rel=2)", "-m", "P@2", qrels_file,
                                  runs[0]], capsys)  # fmt: skip
    assert code == 0, err
    assert by_id == by_file and by_id.count("\n") == 6  # 2 measures × (2 queries + all)


def test_cli_bare_id_and_the_rule_for_files(small, tmp_path, monkeypatch, capsys):
    source, _, runs = small
    bare = source.removeprefix("ir_datasets:")
    code, by_id, err = run_cli(["eval", source, runs[0]], capsys)
    assert code == 0, err
    code, by_bare, err = run_cli(["eval", bare, runs[0]], capsys)
    assert code == 0, err
    assert by_bare == by_id
    # a file of that name is read as the file (here: one judgment, d2 in q1)
    monkeypatch.chdir(tmp_path)
    Path(bare).parent.mkdir(parents=True)
    write_qrels(Path(bare), {"q1": {"d2": 1}})
    code, by_file, err = run_cli(["eval", "-m", "P@2", bare, runs[0]], capsys)
    assert code == 0, err
    assert "P@2                   \tall\t0.5000" in by_file  # q1 alone: 1 of 2
    # a name neither a file nor a dataset is a missing file
    code, _, err = run_cli(["eval", "rankscope-test/nothing-here", runs[0]], capsys)
    assert code == 2 and "rankscope-test/nothing-here: No such file or directory" in err
    # and after --measures, the dataset id ends the list of measures
    code, spilled, err = run_cli(["meta", "--measures", "RR(rel=2)", "P@2", source, *runs,
                                  "--no-robustness"], capsys)  # fmt: skip
    assert code == 0, err


def test_cli_prefer_and_meta_read_datasets(small, capsys):
    source, qrels_file, runs = small
    for command in (["prefer"], ["meta", "-m", "AP", "-m", "RR", "--no-robustness"]):
        code, by_id, err = run_cli([*command, source.removeprefix("ir_datasets:"), *runs], capsys)
        assert code == 0, err
        code, by_file, err = run_cli([*command, qrels_file, *runs], capsys)
        assert code == 0, err
        assert by_id == by_file
