"""A PyTerrier experiment on Vaswani (NPL: 11,429 abstracts, 93 queries) computed through
rankscope, next to the same experiment computed by ir_measures' default providers.

Terrier itself needs a Java jar PyTerrier downloads on first use; to run where that download
is not possible, the two systems are small Python retrievers (BM25 and TF-IDF over the
abstracts) wrapped as PyTerrier transformers; ``pt.Experiment`` runs them on the topics and
evaluates as it always does, through ``ir_measures.iter_calc``.

    PYTHONPATH=src python bench/pyterrier_vaswani.py [--data ../shared/data/vaswani]
"""

from __future__ import annotations

import argparse
import math
import re
import time
from collections import Counter
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pyterrier as pt

from rankscope.integrations import ir_measures as rs_ir

TOKEN = re.compile(r"[a-z0-9]+")


def _read(path: Path, tag: str, key: str) -> dict[str, str]:
    text = path.read_text()
    blocks = re.findall(rf"<{tag}>(.*?)</{tag}>", text, flags=re.S)
    out = {}
    for block in blocks:
        number = re.search(rf"<{key}>\s*(\S+?)\s*</{key}>", block).group(1)
        body = re.sub(r"<[^>]+>", " ", block.replace(number, "", 1))
        out[number] = body.lower()
    return out


class Index:
    """Postings of the abstracts: term -> (document numbers, term frequencies)."""

    def __init__(self, docs: dict[str, str]) -> None:
        self.docnos = list(docs)
        postings: dict[str, list[tuple[int, int]]] = {}
        self.lengths = np.zeros(len(docs))
        for i, text in enumerate(docs.values()):
            counts = Counter(TOKEN.findall(text))
            self.lengths[i] = sum(counts.values())
            for term, tf in counts.items():
                postings.setdefault(term, []).append((i, tf))
        self.postings = {
            t: (np.array([d for d, _ in p]), np.array([f for _, f in p], dtype=float))
            for t, p in postings.items()
        }

    def retrieve(self, query: str, weight, k: int = 1000) -> list[tuple[str, float]]:
        scores = np.zeros(len(self.docnos))
        for term in TOKEN.findall(query.lower()):
            if term in self.postings:
                docs, tf = self.postings[term]
                scores[docs] += weight(tf, self.lengths[docs], len(docs))
        top = np.argsort(-scores, kind="stable")[:k]
        return [(self.docnos[i], float(scores[i])) for i in top if scores[i] > 0]


def systems(index: Index) -> dict[str, pt.Transformer]:
    n, mean_length = len(index.docnos), float(index.lengths.mean())

    def bm25(tf, length, df, k1=1.2, b=0.75):
        idf = math.log((n - df + 0.5) / (df + 0.5) + 1)
        return idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / mean_length))

    def tfidf(tf, length, df):
        return (1 + np.log(tf)) * math.log(n / df)

    def transformer(weight):
        def search(topics: pd.DataFrame) -> pd.DataFrame:
            rows = []
            for qid, query in zip(topics["qid"], topics["query"], strict=True):
                ranked = index.retrieve(query, weight)
                rows += [(qid, query, d, s, r) for r, (d, s) in enumerate(ranked)]
            return pd.DataFrame(rows, columns=["qid", "query", "docno", "score", "rank"])

        return pt.apply.generic(search)

    return {"BM25": transformer(bm25), "TF_IDF": transformer(tfidf)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(Path(__file__).parents[2] / "shared/data/vaswani"))
    folder = Path(parser.parse_args().data)
    index = Index(_read(folder / "corpus/doc-text.trec", "DOC", "DOCNO"))
    queries = _read(folder / "query-text.trec", "top", "num")
    texts = [" ".join(q.split()) for q in queries.values()]
    topics = pd.DataFrame({"qid": list(queries), "query": texts})
    qrels = pd.read_csv(folder / "qrels", sep=r"\s+", names=["qid", "iter", "docno", "label"],
                        dtype={"qid": str, "docno": str}).drop(columns="iter")  # fmt: skip
    runs = systems(index)
    results = {name: system.transform(topics) for name, system in runs.items()}
    rs_ir.baseline("BM25", results["BM25"])
    metrics = [ir_measures.AP, ir_measures.nDCG @ 10, ir_measures.P @ 10, ir_measures.RR]
    # pt.Experiment averages every measure arithmetically itself (not by the measure's
    # aggregator), so GMAP belongs in ir_measures.calc_aggregate, not here
    ours = [*metrics, rs_ir.ESL(k=3), rs_ir.RPP(baseline="BM25")]
    options = dict(names=list(runs), baseline=0, correction="holm", round=4)
    pd.set_option("display.width", 200)

    before = pt.Experiment(list(results.values()), topics, qrels, metrics, **options)
    rs_ir.register()
    after = pt.Experiment(list(results.values()), topics, qrels, ours, **options)
    shown = ["name", *map(str, ours), "AP p-value corrected", "RPP(baseline='BM25') p-value"]
    print("pt.Experiment with ir_measures' default providers (pytrec_eval):")
    print(before[["name", *map(str, metrics), "AP p-value corrected"]].to_string(index=False))
    print("pt.Experiment through rankscope (after register()):")
    print(after[shown].to_string(index=False))
    same = all(np.allclose(before[str(m)], after[str(m)], rtol=0, atol=1e-4) for m in metrics)
    print("the shared measures equal:", same)

    ir_qrels = pt.model.to_ir_measures(qrels)
    ir_runs = [pt.model.to_ir_measures(r) for r in results.values()]
    for provider in (ir_measures.pytrec_eval, rs_ir.PROVIDER):
        took = []
        for _ in range(3):
            start = time.perf_counter()
            for run in ir_runs:
                provider.calc_aggregate(metrics, ir_qrels, run)
            took.append(time.perf_counter() - start)
        print(f"{provider.NAME}: {min(took) * 1000:.0f} ms for the 4 measures on both runs")


if __name__ == "__main__":
    main()
