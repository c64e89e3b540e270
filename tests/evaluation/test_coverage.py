"""The coverage measure of the corpus zoo (tabane.evaluation.coverage): what it counts as a page's
text, and what as the text stored."""

from __future__ import annotations

from tabane.evaluation.coverage import coverage, reference_text, stored_texts, tokens
from tabane.text.blocks import Block, ParsedDocument


def test_blocks_do_not_glue_their_words_together() -> None:
    """lxml's text alone reads `<h2>Branch</h2><p>Suppose…` as `branchsuppose`."""
    page = (
        b"<html><body><h2>Branch</h2><p>Suppose</p><ul><li>one</li><li>two</li></ul></body></html>"
    )
    assert tokens(reference_text(page)) == tokens("branch suppose one two")


def test_a_breadcrumb_heading_is_navigation_and_a_self_link_heading_is_not() -> None:
    page = (
        b'<html><body><a href="intro.html"><h2>Module</h2></a><a href="#x"><h2>Own</h2></a>'
        b"<p>Text</p></body></html>"
    )
    assert tokens(reference_text(page)) == tokens("own text")


def test_each_section_counts_its_heading_once_per_path() -> None:
    """The store keeps one section per heading path: `Parameters` under two functions is two."""
    doc = ParsedDocument(
        "html",
        "Page",
        (
            Block("a", ("Functions", "f ()", "Parameters")),
            Block("b", ("Functions", "g ()", "Parameters")),
            Block("c", ("Functions", "g ()", "Parameters")),
        ),
    )
    stored = stored_texts(doc)
    assert sorted(stored) == sorted(
        ["Page", "Functions", "f ()", "g ()", "Parameters", "Parameters", "a", "b", "c"]
    )
    assert coverage(stored, "Parameters Parameters f g") == 1.0
