"""Regenerate the example collection bundled in src/rankscope/examples (seeded, deterministic).

A synthetic ad hoc collection: 25 queries, graded judgments 0-3 for the pooled documents
each, pooled from the top 15 of every run plus 10 random documents (about 5% judged -1:
pooled but unjudged), and three runs of 100 documents per query whose
quality differs (a strong, a medium and a weak ranker), with a few tied scores.

    python tools/make_example.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent.parent / "src" / "rankscope" / "examples"


def main() -> None:
    rng = np.random.default_rng(20261121)
    n_queries, corpus, depth = 25, 5000, 100
    qrels_lines = []
    runs: dict[str, list[str]] = {"strong": [], "medium": [], "weak": []}
    noise = {"strong": 0.6, "medium": 1.1, "weak": 2.0}
    for q in range(n_queries):
        qid = f"q{101 + q}"
        docs = rng.choice(corpus, size=400, replace=False)
        true_grade = np.minimum(rng.geometric(0.8, size=400) - 1, 3)
        relevance = true_grade + rng.normal(0, 0.3, size=400)
        pool = set(rng.choice(400, size=10, replace=False).tolist())
        for name, sigma in noise.items():
            score = relevance + rng.normal(0, sigma, size=400)
            score = np.round(score, 2)  # rounding makes a few ties
            top = np.argsort(-score, kind="stable")[:depth]
            pool.update(top[:15].tolist())
            for rank, i in enumerate(top.tolist(), start=1):
                runs[name].append(f"{qid} Q0 D{docs[i]:05d} {rank} {score[i]:.2f} {name}\n")
        for i in sorted(pool, key=lambda i: int(docs[i])):
            grade = int(true_grade[i]) if rng.random() > 0.05 else -1
            qrels_lines.append(f"{qid} 0 D{docs[i]:05d} {grade}\n")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "qrels.txt").write_text("".join(qrels_lines))
    for name, lines in runs.items():
        (OUT / f"run.{name}.txt").write_text("".join(lines))


if __name__ == "__main__":
    main()
