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
    """docs/measures.md: the measures of `rankscope eval`, then the recommender measures, one
    heading each (a recommender measure's heading says so: ``P`` is trec_eval's precision,
    ``P (recommender)`` the recommender one)."""
    return (
        registry_reference(REGISTRY)
        + "\n# Recommender measures\n\n"
        + "The measures of `rankscope recsys` and `rankscope.evaluate_recsys`: users play the\n"
        + "part of queries and items of documents; docs/recsys.md gives the inputs and\n"
        + "policies.\n\n"
        + _recsys_sections()
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


#: The recommender measures' kinds (`RecsysMeasure.kind`), as the reference names them.
_KINDS = dict(
    rating="Rating prediction", topn="Top-N accuracy", list="Beyond accuracy: per list",
    catalog="Beyond accuracy: over the catalog", confidence="Confidence",
)


def _recsys_heading(m: Any) -> str:
    return f"{m.name} (recommender)"


def _anchor(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading: lower case, punctuation dropped, spaces as
    hyphens."""
    kept = "".join(c for c in heading.lower() if c.isalnum() or c in " -_")
    return kept.replace(" ", "-")


def recsys_reference() -> str:
    """The measure index of docs/recsys.md: each recommender measure, its names and kind, the
    first sentence of its documentation, and a link to its section of docs/measures.md (the
    one reference page)."""
    lines = ["| measure | names | kind | what it measures |", "|---|---|---|---|"]
    for m in recsys.MEASURES:
        link = f"[{m.name}](measures.md#{_anchor(_recsys_heading(m))})"
        names = ", ".join(f"`{n}`" for n in recsys.spellings(m))
        first = m.doc.strip().split("\n")[0].split(". ")[0].rstrip(".").replace("|", "\\|")
        lines.append(f"| {link} | {names} | {_KINDS[m.kind]} | {first}. |")
    return "\n".join(lines) + "\n"


def _recsys_sections() -> str:
    """The recommender measures' sections of docs/measures.md."""
    lines = []
    for m in recsys.MEASURES:
        lines += [f"## {_recsys_heading(m)}", ""]
        names = ", ".join(f"`{n}`" for n in recsys.spellings(m))
        lines.append(f"Names: {names} ({_KINDS[m.kind]})")
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
