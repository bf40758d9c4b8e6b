"""The committed measure reference is the one the measure objects generate."""

from __future__ import annotations

from pathlib import Path

from rankscope.measures import REGISTRY
from rankscope.report.reference import measure_reference

DOCS = Path(__file__).resolve().parent.parent / "docs" / "measures.md"


def test_measure_reference_is_up_to_date():
    assert DOCS.read_text() == measure_reference() + "\n", (
        "docs/measures.md is stale: run `rankscope measures --markdown > docs/measures.md`"
    )


def test_every_measure_documents_itself():
    for m in REGISTRY.measures:
        assert len(m.doc.strip()) > 30, m.name
        for p in m.params:
            assert p.doc, (m.name, p.name)
