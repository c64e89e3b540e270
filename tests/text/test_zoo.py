"""Trimmed pages of ten documentation generators (tests/text/zoo): each is read whole — its main
text covered, its paragraphs under their headings with the nearest heading's anchor (issue 28).

The same checks over every page of the installed packages: bench/corpus_zoo.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tabane.evaluation.coverage import coverage, reference_text, stored_texts
from tabane.text.documents import ParsedDocument, read_document

ZOO = Path(__file__).parent / "zoo"
PAGES = sorted(p.name for p in ZOO.glob("*.html"))


def read(name: str) -> ParsedDocument:
    return read_document((ZOO / name).read_bytes(), name=name)


def test_there_are_ten_generators() -> None:
    assert len({name.split("-")[0] for name in PAGES}) >= 8 and len(PAGES) >= 10


@pytest.mark.parametrize("name", PAGES)
def test_the_main_text_is_covered(name: str) -> None:
    doc = read(name)
    assert doc.blocks
    assert coverage(stored_texts(doc), reference_text((ZOO / name).read_bytes())) >= 0.99


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


def texts(name: str) -> list[str]:
    return [b.text for b in read(name).blocks]


def test_no_paragraph_is_a_table_shred() -> None:
    """A table's cells never become paragraphs of their own (a lone `|`, a lone `Operation`)."""
    for name in PAGES:
        shreds = [t for t in texts(name) if not t.strip("| \n")]
        assert shreds == [], name
    assert "Operation" not in texts("sphinx-python-stdtypes.html")


def test_a_small_table_stays_whole_with_its_header() -> None:
    boolean = next(t for t in texts("sphinx-python-stdtypes.html") if "x or y" in t)
    assert boolean.split("\n") == [
        "Operation | Result | Notes",
        "x or y | if x is false, then y, else x | (1)",
        "x and y | if x is false, then x, else y | (2)",
        "not x | if x is false, then True, else False | (3)",
    ]


def test_a_large_table_is_split_by_rows_each_under_the_header() -> None:
    """A row is retrievable alone and still readable: a group of rows under the header row."""
    pages = texts("sphinx-python-stdtypes.html")
    numeric = [t for t in pages if t.startswith("Operation | Result | Notes | Full documentation")]
    assert len(numeric) >= 3
    assert all(len(t) <= 600 for t in numeric)
    assert any("\nabs(x) | absolute value or magnitude of x" in t for t in numeric)
    functions = [t for t in texts("gtkdoc-gtkbutton.html") if "gtk_button_new_with_label ()" in t]
    assert len(functions) == 1 and len(functions[0]) <= 600  # no header: groups of rows alone


def test_a_list_is_one_paragraph_with_its_lead_in() -> None:
    falsy = next(t for t in texts("sphinx-python-stdtypes.html") if "considered false:" in t)
    assert falsy.split("\n")[1:] == [
        "- constants defined to be false: None and False.",
        "- zero of any numeric type: 0, 0.0, 0j, Decimal(0), Fraction(0, 1)",
        "- empty sequences and collections: '', (), [], {}, set(), range(0)",
    ]


def test_admonitions_keep_their_label() -> None:
    handbook = texts("publican-handbook-apt-get.html")
    assert any(t.startswith("TIP Incremental updates: The aim of the apt update") for t in handbook)
    assert "TIP Incremental updates" not in handbook
    gtk = texts("gtkdoc-gtkbutton.html")
    assert any(t.startswith("Warning: gtk_button_new_from_stock has been deprecated") for t in gtk)
    abstract = texts("sphinx-python-annotations.html")  # an <aside> of the document, not chrome
    assert any(t.startswith("Abstract: This document is designed to encapsulate") for t in abstract)


def test_a_definition_keeps_its_term() -> None:
    pages = texts("sphinx-python-stdtypes.html")
    assert any(t.startswith("iterator.__next__()\nReturn the next item") for t in pages)


def test_pre_is_code_and_prose_is_text() -> None:
    blocks = read("publican-handbook-apt-get.html").blocks
    kinds = {b.text.split("\n")[0]: b.kind for b in blocks}
    assert kinds["## Update dpkg's database of known packages"] == "code"
    assert kinds['$ sudo apt -o "Acquire::PDiffs=false" update'] == "code"
    assert {b.kind for b in blocks if b.text.startswith("For any work with APT")} == {"text"}
