"""HTML: the main text without page chrome, as heading-aware blocks.

A page whose author marked its main content (`<main>`, `role="main"`, a single `<article>`: Sphinx,
rustdoc, mdBook and most current generators do) is read by a plain walk over that element: the
author's own structure beats a heuristic, and the walk keeps every heading, list, table and code
block. A page made by a documentation generator (html_generators: DocBook, Publican, Texinfo,
AsciiDoc, gtk-doc, javadoc, …) is walked over its whole body once its known chrome is gone: such a
page is all document, and trafilatura drops its headings and whole sections of it (issue 28). Any
other page goes through trafilatura, which finds the main text among navigation, headers,
footers and sidebars; where it finds nothing, or falls back to its one-paragraph baseline (tiny
pages), or where it drops the headings of a page that has them (a hand-written page of headings
and paragraphs: it lost paragraphs with them), the walk over the body without its chrome elements
is used instead. A summary that lives
in the page's header (AsciiDoc's NAME line) is kept ahead of what trafilatura finds. Both paths
see the page after html_chrome.prepare.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import lxml.html
import trafilatura
from lxml import etree

from tabane.errors import Issue
from tabane.text.blocks import Block, ParsedDocument
from tabane.text.decoding import declared_charset, decode_text
from tabane.text.html.blocks import Walker, from_trafilatura
from tabane.text.html.chrome import prepare
from tabane.text.html.generators import generated
from tabane.text.metadata import UNREAD_DATE, iso_date

# Where a page's publication date may be declared, most specific first.
_DATE_META = (
    "article:published_time",
    "datepublished",
    "dc.date.issued",
    "dcterms.date",
    "dc.date",
    "date",
)
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
# The tables of contents of generated pages (outermost only: a toc nests per level).
_TOC = (
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' toc ')]"
    "[not(ancestor::*[contains(concat(' ', normalize-space(@class), ' '), ' toc ')])]"
)


def parse_html(data: bytes, name: str) -> ParsedDocument:
    text = decode_text(data, name, declared=declared_charset(data))
    text = _XML_DECLARATION.sub("", text, count=1)
    if not text.strip():
        return ParsedDocument(format="html", title=None, blocks=())
    try:
        tree = lxml.html.document_fromstring(text)
    except etree.ParserError:  # "Document is empty": nothing but comments or a bare doctype
        return ParsedDocument(format="html", title=None, blocks=())
    title = _title(tree)
    date, warnings = _date(tree)
    documentation = generated(tree)  # before prepare, which removes some of the marks it reads
    tocs = [copy.deepcopy(toc) for toc in tree.xpath(_TOC)] if documentation else []
    prepare(tree)
    landmark = _landmark(tree)
    if landmark is not None:
        blocks = Walker(keep_header=True, title=title).run(landmark)
    elif documentation:
        blocks = _walk_generated(tree, tocs, title)
    else:
        blocks = _extract(tree)
        # nothing, or trafilatura's baseline (the whole page as one paragraph), or text without
        # the headings the page has (trafilatura dropped them, and paragraphs with them)
        if len(blocks) <= 1 or (not any(b.section for b in blocks) and _has_headings(tree)):
            body = tree.find("body")
            # the body without its chrome; nothing left is a page of chrome alone (no document),
            # not trafilatura's baseline, which keeps the header and the menu
            blocks = Walker(keep_header=False, title=title).run(body if body is not None else tree)
        else:
            blocks = _header_summary(tree, blocks) + blocks
    return ParsedDocument("html", title, tuple(blocks), date, warnings=warnings)


def _walk_generated(tree: Any, tocs: list[Any], title: str | None) -> list[Block]:
    """A generated page's body; a page that is only a table of contents (a DocBook part or
    chapter page, once its toc is removed as chrome, holds nothing but its title) is stored as
    that table of contents, under the page's headings, never as an empty document; so is a page
    of links named only by their titles or pictures."""
    body = tree.find("body")
    walker = Walker(keep_header=False, title=title)
    blocks = walker.run(body if body is not None else tree)
    for toc in tocs if not blocks else []:
        blocks = walker.run(toc)
    if not blocks and _name_links(body if body is not None else tree):
        blocks = Walker(keep_header=False, title=title).run(body if body is not None else tree)
    return blocks


def _has_headings(tree: Any) -> bool:
    return any(h.text_content().strip() for h in tree.iter(*_HEADINGS))


def _name_links(root: Any) -> bool:
    """Give each link without text its accessible name (its title, else its image's alt), as
    a text browser shows it: a gallery page (gtk-doc's widget gallery) is a table of contents
    of pictures. Whether any link was named."""
    named = False
    for link in root.iter("a"):
        if link.text_content().strip():
            continue
        images = [img.get("alt") or "" for img in link.iter("img")]
        name = " ".join((link.get("title") or next(filter(None, images), "")).split())
        if name:
            link.text, named = name, True
    return named


def _landmark(tree: Any) -> Any:
    """The element the author marked as the main content (`<main>`, `role="main"`, a single
    `<article>`), or None; such a page's own structure is trusted over content heuristics."""
    for path in ("//main", "//*[@role='main']"):
        found = tree.xpath(path)
        if found:
            return found[0]
    articles = tree.xpath("//article")
    return articles[0] if len(articles) == 1 else None


def _header_summary(tree: Any, extracted: list[Block]) -> list[Block]:
    """The paragraphs under a heading inside the page's `div#header` that the extraction dropped
    with the header: AsciiDoc man pages (git's) keep their NAME section there, the one line that
    says what the page is (`git-stash - Stash the changes in a dirty working directory away`).
    Each keeps its own heading as its section; the page title above it is the source's title."""
    have = {b.text for b in extracted}
    out: list[Block] = []
    for header in tree.xpath("//div[@id='header']"):
        for block in Walker(keep_header=True).run(header):
            if block.section and block.text not in have:
                out.append(Block(text=block.text, section=block.section[-1:]))
    return out


def _extract(tree: Any) -> list[Block]:
    extracted = trafilatura.extract(
        copy.deepcopy(tree),
        output_format="xml",
        include_formatting=True,
        include_comments=False,
        include_tables=True,
        include_images=False,
        include_links=False,
        favor_recall=True,
        deduplicate=False,
    )
    return from_trafilatura(extracted) if extracted else []


def _title(tree: Any) -> str | None:
    title = tree.findtext(".//title")
    text = " ".join(str(title).split()) if title else ""
    return text or None


def _date(tree: Any) -> tuple[str | None, tuple[Issue, ...]]:
    """The page's date from its most specific date meta that holds one; when some declare a date
    and none can be read, the first of them is a warning (the page is stored without a date)."""
    found: dict[str, str] = {}
    for meta in tree.iter("meta"):
        key = (
            (meta.get("property") or meta.get("name") or meta.get("itemprop") or "").strip().lower()
        )
        if key in _DATE_META and key not in found:
            found[key] = str(meta.get("content") or "")
    for key in _DATE_META:
        value = iso_date(found.get(key, ""))
        if value:
            return value, ()
    declared = [(key, found[key]) for key in _DATE_META if found.get(key, "").strip()]
    if not declared:
        return None, ()
    key, content = declared[0]
    return None, (Issue(f"meta[{key}]", f"{content.strip()[:60]!r} {UNREAD_DATE}"),)
