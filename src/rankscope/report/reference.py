"""The measure reference, generated from the measure objects: the lists of ``rankscope
measures`` and ``rankscope recsys --list``, docs/measures.md (every measure of `rankscope eval`
and of `rankscope recsys`, ``rankscope measures --markdown``) and the reference section of
docs/recsys.md."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..measures import REGISTRY
from ..measures.registry import Registry
from ..recsys import registry as recsys


def measure_list() -> str:
    """``rankscope measures``: every measure's names and the first line of its documentation,
    the recommender measures last."""
    return (
        _listing(REGISTRY.measures, REGISTRY.spellings)
        + "\nrecommender measures (rankscope recsys):\n"
        + _listing(recsys.MEASURES, recsys.spellings)
    )


def recsys_measure_list() -> str:
    """``rankscope recsys --list``: the recommender measures and the registry's nicknames."""
    nicknames = ", ".join(recsys.REGISTRY.nicknames)
    return _listing(recsys.MEASURES, recsys.spellings) + f"nicknames: {nicknames}\n"


def _listing(measures: Sequence[Any], spellings: Callable[[Any], list[str]]) -> str:
    """Per measure, its names on one line and the first line of its documentation indented."""
    lines = []
    for m in measures:
        lines += [" | ".join(spellings(m)), "    " + m.doc.strip().split("\n")[0]]
    return "".join(line + "\n" for line in lines)


def measure_reference() -> str:
    """docs/measures.md."""
    body = recsys_reference().replace("\n### ", "\n## ").removeprefix("### ")
    return (
        registry_reference(REGISTRY)
        + "\n# Recommender measures (`rankscope recsys`, `rankscope.recsys.evaluate`)\n\n"
        + "Users play the part of queries and items of documents; docs/recsys.md gives the\n"
        + "inputs and policies.\n\n"
        + body
    )


def registry_reference(registry: Registry) -> str:
    """The measure reference: every measure with its names, parameters, formula and citation."""
    lines = [
        "# Measure reference",
        "",
        "Generated from the measure objects by `rankscope measures --markdown`; do not edit.",
        "",
    ]
    for m in registry.measures:
        lines += [f"## {m.name}", ""]
        lines.append("Names: " + ", ".join(f"`{n}`" for n in registry.spellings(m)))
        lines.append("")
        lines += [m.doc.strip(), ""]
        lines += _parameter_table(m)
        summary = {
            "mean": "mean over queries",
            "sum": "sum over queries",
            "gmean": "geometric mean over queries (values floored at 1e-5)",
            "count": "number of queries",
            "num_rel": "sum over queries",
            "runid": "the run's name",
            "none": "none (per query only)",
        }[m.aggregate]
        lines += [f"Summary: {summary}.", ""]
        if m.reference:
            lines += [f"Reference: {m.reference}", ""]
    return "\n".join(lines)


def recsys_reference() -> str:
    """The reference section of docs/recsys.md, generated from the measure objects."""
    lines = []
    kinds = {
        "rating": "Rating prediction",
        "topn": "Top-N accuracy",
        "list": "Beyond accuracy: per list",
        "catalog": "Beyond accuracy: over the catalog",
    }
    for m in recsys.MEASURES:
        lines += [f"### {m.name}", ""]
        names = ", ".join(f"`{n}`" for n in recsys.spellings(m))
        lines.append(f"Names: {names} ({kinds[m.kind]})")
        lines += ["", m.doc.strip(), ""]
        lines += _parameter_table(m)
        summary = m.summary_doc
        if m.relevance:
            summary += " (users without relevant test items: see `no_relevant`)"
        lines += [f"Summary: {summary}.", ""]
        needs = [n for n in m.needs if n != "ratings"]
        if "ratings" in m.needs:
            lines += ["Needs: ratings in the test data, predicted ratings as scores.", ""]
        if needs:
            what = {
                "popularity": "item popularity (`train=` or `popularity=`)",
                "features": "item features (`features=`)",
                "baseline": "the popularity baseline (`train=`) or `baseline=`",
            }
            lines += ["Needs: " + "; ".join(what[n] for n in needs) + ".", ""]
        lines += [f"Reference: {m.reference}", ""]
    return "\n".join(lines)


def _parameter_table(m: Any) -> list[str]:
    """The Markdown table of a measure's parameters (no lines for a measure without any)."""
    if not m.params:
        return []
    lines = ["| parameter | type | default | meaning |", "|---|---|---|---|"]
    for p in m.params:
        lines.append(f"| `{p.name}` | {p.type.__name__} | {p.default!r} | {p.doc} |")
    return [*lines, ""]
