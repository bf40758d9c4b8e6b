"""The measure reference page (docs/measures.md): every measure of `rankscope eval` and of
`rankscope recsys`, generated from the measure objects by ``rankscope measures --markdown``."""

from __future__ import annotations


def measure_reference() -> str:
    from .measures import REGISTRY
    from .measures.registry import reference_markdown
    from .recsys import registry as recsys

    body = recsys.reference_markdown().replace("\n### ", "\n## ").removeprefix("### ")
    return (
        reference_markdown(REGISTRY)
        + "\n# Recommender measures (`rankscope recsys`, `rankscope.recsys.evaluate`)\n\n"
        + "Users play the part of queries and items of documents; docs/recsys.md gives the\n"
        + "inputs and policies.\n\n"
        + body
    )
