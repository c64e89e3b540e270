"""Trimmed pages of ten documentation generators (tests/text/zoo): each is read whole — its main
text covered, its paragraphs under their headings with the nearest heading's anchor (issue 28).

The same checks over every page of the installed packages: bench/corpus_zoo.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tabane.evaluation.coverage import coverage, reference_text
from tabane.text.documents import ParsedDocument, read_document

ZOO = Path(__file__).parent / "zoo"
PAGES = sorted(p.name for p in ZOO.glob("*.html"))


def read(name: str) -> ParsedDocument:
    return read_document((ZOO / name).read_bytes(), name=name)


def stored(doc: ParsedDocument) -> list[str]:
    headings = {h for b in doc.blocks for h in b.section}
    return [doc.title or "", *headings, *(b.text for b in doc.blocks)]


def test_there_are_ten_generators() -> None:
    assert len({name.split("-")[0] for name in PAGES}) >= 8 and len(PAGES) >= 10


@pytest.mark.parametrize("name", PAGES)
def test_the_main_text_is_covered(name: str) -> None:
    doc = read(name)
    assert doc.blocks
    assert coverage(stored(doc), reference_text((ZOO / name).read_bytes())) >= 0.99


@pytest.mark.parametrize("name", PAGES)
def test_paragraphs_sit_under_their_headings_with_an_anchor(name: str) -> None:
    blocks = read(name).blocks
    with_section = sum(1 for b in blocks if b.section) / len(blocks)
    anchored = sum(1 for b in blocks if b.locator and b.locator.kind == "anchor") / len(blocks)
    assert with_section >= 0.9
    if not name.startswith("handwritten"):  # SQLite's headings carry no id to link to
        assert anchored >= 0.5


def test_a_docbook_section_heading_gives_path_and_anchor() -> None:
    blocks = read("publican-handbook-apt-get.html").blocks
    update = next(b for b in blocks if b.text.startswith("For any work with APT"))
    assert update.section == ("6.2. aptitude, apt-get, and apt Commands", "6.2.1. Initialization")
    assert update.locator is not None and update.locator.to_json() == {
        "kind": "anchor",
        "value": "sect.apt-update",
    }


def test_japanese_docbook_keeps_sections() -> None:
    blocks = read("docbook-maint-guide-ja-dreq.html").blocks
    assert any(b.section[-1:] == ("4.1. control",) for b in blocks)
    assert {b.locator.value for b in blocks if b.locator} >= {"dreq", "control"}


def test_code_keeps_its_line_breaks() -> None:
    blocks = read("publican-handbook-apt-get.html").blocks
    assert any(("\n" in b.text and b.text.startswith("$ ")) or "# apt" in b.text for b in blocks)
