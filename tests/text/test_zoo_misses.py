"""The zoo's last misses (issue 28), each on a trimmed page of tests/text/zoo: words a browser
shows that the HTML reader lost, and headings it did not see. The coverage and section checks of
every zoo page are in test_zoo.py."""

from __future__ import annotations

from pathlib import Path

from tabane.text.documents import ParsedDocument, read_document

ZOO = Path(__file__).parent / "zoo"


def read(name: str) -> ParsedDocument:
    return read_document((ZOO / name).read_bytes(), name=name)


def test_a_heading_left_open_gives_up_the_list_it_swallowed() -> None:
    """SQLite writes `<h2>…</h1>`: libxml2 keeps the `<h2>` open over the whole page."""
    blocks = read("handwritten-sqlite-doclist.html").blocks
    listing = next(b for b in blocks if "- 8+3 Filenames" in b.text.split("\n"))
    assert listing.section == ("Alphabetical List Of Documents",)
    assert all(len(section) < 60 for b in blocks for section in b.section)


def test_an_svg_syntax_diagram_is_a_paragraph_of_its_labels_after_its_lead_in() -> None:
    blocks = read("handwritten-sqlite-dropview.html").blocks
    diagram = next(b for b in blocks if b.text.startswith("drop-view-stmt:"))
    words = diagram.text.split("\n")[1].split()
    assert words[:3] == ["DROP", "VIEW", "IF"] and {"schema-name", "view-name"} <= set(words)
    assert diagram.section == ("DROP VIEW",)


def test_the_page_heading_inside_sqlite_nosearch_chrome_is_kept() -> None:
    doc = read("handwritten-sqlite-backup.html")
    assert {b.section for b in doc.blocks} == {("Online Backup API.",)}
    assert not any("Choose any three" in b.text for b in doc.blocks)  # the rest of it is chrome
    dropview = read("handwritten-sqlite-dropview.html").blocks  # div.fancy_title: a heading
    assert {b.section for b in dropview} == {("DROP VIEW",)}
    assert not any(b.text == "DROP VIEW" for b in dropview)  # the page's title: not a paragraph


def test_a_breadcrumb_styled_as_a_heading_is_no_paragraph() -> None:
    blocks = read("handwritten-sqlite-changeset-old.html").blocks
    assert blocks[0].section == ("Obtain old.* Values From A Changeset Iterator",)
    assert not any("Session Module C Interface" in b.text for b in blocks)


def test_headings_trafilatura_drops_are_walked() -> None:
    """A hand-written page of headings and paragraphs: trafilatura dropped every heading and
    paragraphs with them."""
    blocks = read("handwritten-sqlite-consortium.html").blocks
    definition = next(b for b in blocks if b.text.startswith('The "SQLite Developers" are'))
    assert definition.section[-2:] == ("1.0 Definitions", "1.1 SQLite Developers")


def test_a_last_heading_with_nothing_under_it_is_stored_as_a_paragraph() -> None:
    blocks = read("asciidoc-git-toolsforgit.html").blocks
    last = blocks[-1]
    assert last.text.startswith("https://www.kernel.org/doc/html/v4.10/process/coding-style")
    assert last.section[-1] == last.text and last.locator is not None
    assert sum(b.text == b.section[-1] for b in blocks) == 1  # headings with text under them: no


def test_a_page_of_headings_alone_is_no_document() -> None:
    html = b"<html><body><h1>Chapter 1</h1><h2>1.1 One</h2><h2>1.2 Two</h2></body></html>"
    assert read_document(html, name="bare.html").blocks == ()
