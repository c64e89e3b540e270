"""HTML to blocks, two ways: from trafilatura's XML, and by a plain walk over an element.

Both follow HTML's whitespace rules (runs of spaces and newlines collapse; `<br>` breaks a line),
give one block per paragraph, list and `<pre>`, and turn headings into the section path. A list,
or a figure's labels (html_chrome), joins the paragraph that leads into it with a colon (its items
alone do not say what they list);
a data table becomes paragraphs of rows under its header (tables.py); a layout table (one row, or
holding headings or tables: admonition boxes, title blocks) is walked as the blocks it holds.
"""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

from tabane.text.blocks import Block, BlockKind, Locator
from tabane.text.html.anchors import heading_anchor
from tabane.text.html.chrome import ADMONITIONS, FIGURE, breadcrumb
from tabane.text.markdown import Outline, clean_heading
from tabane.text.reflow import CJK
from tabane.text.tables import CELL, row_text, table_paragraphs

# Page chrome by element name, for the plain walk (a <header> in <main> holds the article's title).
_WALK_DROP = frozenset({"nav", "header", "footer", "aside", "form", "head", "iframe", "select"})
_BLOCK_TAGS = frozenset({
    "address", "article", "aside", "blockquote", "body", "caption", "details", "dialog", "div",
    "dl", "fieldset", "figcaption", "figure", "footer", "form", "header", "hr", "main", "nav", "ol",
    "p", "section", "summary", "table", "tbody", "tfoot", "thead", "ul",
})  # fmt: skip
# Elements on a line of their own inside a block (a list is one block, a table row one line).
_LINE_TAGS = frozenset({"li", "tr", "dt", "dd"})
_ITEM_LINES = frozenset({"p", "div", "ul", "ol", "dl", "section", "blockquote"})
_HEADING = re.compile(r"^h([1-6])$")
# Elements of trafilatura's XML that break the line when nested inside another one.
_XML_BLOCKS = frozenset({"p", "list", "item", "quote", "head", "row", "table"})
_CJK_BREAK = re.compile(f"(?<=[{CJK}])[ \t\r]*\n\\s*(?=[{CJK}])")
_WHITESPACE = re.compile(r"\s+")
# Permalink marks generators append to a heading (Node.js "#", Sphinx "¶" when its class is lost).
_PERMALINK = re.compile(r"\s*[#¶§]+$")
# A cell boundary of a walked layout table (" | "), to drop the empty cells around it.
_CELL_EDGE = re.compile(r"(?:^| )\|(?= |$)")
_LEAD_IN = (":", "：")
_LAYOUT = ".//table | .//h1 | .//h2 | .//h3 | .//h4 | .//h5 | .//h6"


def from_trafilatura(xml: str) -> list[Block]:
    root = etree.fromstring(xml)
    main = root.find("main")
    if main is None:
        return []
    outline = Outline()
    blocks: list[Block] = []
    for element in main:
        tag = element.tag
        if tag == "head":
            rend = _HEADING.match(element.get("rend") or "")
            outline.enter(int(rend.group(1)) if rend else 2, clean_heading(_inline(element)))
            continue
        if tag == "code":
            code = _verbatim("".join(element.itertext()))
            if code:
                blocks.append(Block(code, outline.path, kind="code"))
            continue
        if tag == "list":
            text = "\n".join(_list_lines(element, 0))
            if text.strip() and _leads_in(blocks, outline.path):
                last = blocks.pop()
                text = f"{last.text}\n{text}"
        elif tag == "table":
            blocks.extend(Block(t, outline.path) for t in _table_paragraphs(element))
            continue
        elif tag == "graphic":
            continue
        else:
            text = _inline(element)
        if text.strip():
            blocks.append(Block(text.strip(), outline.path))
    return blocks


def _leads_in(blocks: list[Block], section: tuple[str, ...]) -> bool:
    """Whether the last block leads into what follows it (a list): text ending with a colon."""
    last = blocks[-1] if blocks else None
    return (
        last is not None
        and last.section == section
        and last.kind == "text"
        and last.text.endswith(_LEAD_IN)
    )


def _inline(element: Any) -> str:
    """Text of an element by HTML whitespace rules; `<lb/>` and nested blocks break the line."""
    parts: list[str] = []

    def walk(node: Any) -> None:
        if node.text:
            parts.append(_spaces(node.text))
        for child in node:
            if child.tag == "lb":
                parts.append("\n")
            elif child.tag in _XML_BLOCKS:
                parts.append("\n")
                walk(child)
                parts.append("\n")
            else:
                walk(child)
            if child.tail:
                parts.append(_spaces(child.tail))

    walk(element)
    return _collapse("".join(parts))


def _spaces(text: str) -> str:
    """Source text with HTML whitespace rules: a line break between two CJK characters vanishes (CSS
    segment break transformation), any other run of whitespace becomes one space."""
    return _WHITESPACE.sub(" ", _CJK_BREAK.sub("", text))


def _collapse(text: str) -> str:
    """Tidy text whose newlines are real breaks (`<br>`, nested blocks), spaces collapsed."""
    lines = (" ".join(line.split()) for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def _verbatim(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.split("\n")).strip()


def _list_lines(element: Any, depth: int) -> list[str]:
    lines: list[str] = []
    ordered = element.get("rend") == "ol"
    for number, item in enumerate(element.findall("item"), start=1):
        nested = [child for child in item if child.tag == "list"]
        for child in nested:
            _remove_keeping_tail(child)  # rendered below, indented
        text = _inline(item).replace("\n", "\n" + "  " * (depth + 1))
        marker = f"{number}. " if ordered else "- "
        if text:
            lines.append("  " * depth + marker + text)
        for child in nested:
            lines.extend(_list_lines(child, depth + 1))
    return lines


def _remove_keeping_tail(element: Any) -> None:
    """Remove an element (rendered elsewhere) but keep the text that follows it."""
    parent, tail = element.getparent(), element.tail
    previous = element.getprevious()
    if tail:
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(element)


def _table_paragraphs(element: Any) -> list[str]:
    """A trafilatura table's paragraphs: its leading rows of head cells are its header."""
    header: list[str] = []
    rows: list[str] = []
    for row in element.iter("row"):
        cells = row.findall("cell")
        line = row_text([_inline(cell) for cell in cells])
        head = not rows and bool(cells) and all(c.get("role") == "head" for c in cells)
        (header if head else rows).append(line)
    return table_paragraphs(header, rows)


class Walker:
    """A plain walk over the main element, or over the body when trafilatura finds no main text:
    page chrome elements dropped, one block per block-level element, headings as sections, `<pre>`
    verbatim. A heading with nothing under it (the next heading is at its level or above, or the
    walk ends) is a paragraph of its own, under its own path, so that its words are stored (a
    section is stored only with a paragraph) — unless it repeats the page's title (stored as the
    title) or is a link to another page (html_chrome.breadcrumb: navigation); a walk that finds
    nothing else finds nothing."""

    def __init__(self, *, keep_header: bool, title: str | None = None) -> None:
        self._title = title
        self.outline = Outline()
        self.blocks: list[Block] = []
        self._buffer: list[str] = []
        self._marker = ""
        self._items = 0  # depth of <li> elements around the current one
        self._drop = _WALK_DROP - {"header"} if keep_header else _WALK_DROP
        self._bare: tuple[int, Block] | None = None  # the last heading, while nothing is under it
        self._headings = 0  # how many of the blocks are bare headings

    def run(self, root: Any) -> list[Block]:
        self._walk(root)
        self._flush()
        self._close_section(1)
        if self._headings == len(self.blocks):
            self.blocks, self._headings = [], 0
        return self.blocks

    def _enter(self, level: int, text: str, anchor: str | None, *, bare: bool) -> None:
        """Enter a heading; `bare`: whether it is stored as a paragraph if nothing is under it."""
        self._close_section(level)
        self.outline.enter(level, text, anchor)
        anchor = self.outline.anchor
        locator = Locator("anchor", value=anchor) if anchor else None
        keep = bare and text and text != self._title
        self._bare = (level, Block(text, self.outline.path, locator)) if keep else None

    def _close_section(self, level: int) -> None:
        """Store the last heading as a paragraph when nothing was under it and the heading that
        ends its section (at `level`) comes."""
        if self._bare is not None and level <= self._bare[0]:
            self.blocks.append(self._bare[1])
            self._headings += 1
        self._bare = None

    def _walk(self, element: Any) -> None:
        tag = element.tag if isinstance(element.tag, str) else ""  # comments have no str tag
        heading = _HEADING.match(tag)
        if not tag or (tag in self._drop and not _boxed(element)):
            pass
        elif heading:
            self._flush()
            text = _PERMALINK.sub("", clean_heading(" ".join(element.text_content().split())))
            bare = not breadcrumb(element)
            self._enter(int(heading.group(1)), text, heading_anchor(element), bare=bare)
        elif tag == "pre":
            self._flush()
            self._add(_verbatim(element.text_content()), kind="code")
        elif tag == "br":
            self._buffer.append("\n")
        elif tag == "table" and not self._items and _data_table(element):
            self._flush()
            for text in _data_table_paragraphs(element):
                self._add(text)
        else:
            # inside a list item, paragraphs and nested lists are lines of the list's one block
            block = tag in _BLOCK_TAGS and not (self._items and tag in _ITEM_LINES)
            line = not block and (tag in _LINE_TAGS or tag in _ITEM_LINES)
            if block:
                self._flush()
            if tag in ("td", "th"):
                self._buffer.append(" | ")
            elif line:
                self._buffer.append("\n")
            item = int(tag == "li")
            if item:
                self._marker = "- "
            self._items += item
            if element.text:
                self._text(element.text)
            for child in element:
                self._walk(child)
            self._items -= item
            if item:
                self._marker = ""  # an item with no words of its own (only code, say) gets no dash
            if block:
                self._flush(listed=tag in ("ul", "ol") or element.get(FIGURE) is not None)
            elif line:
                self._buffer.append("\n")
        if element.tail:
            self._text(element.tail)

    def _text(self, raw: str) -> None:
        text = _spaces(raw)
        if self._marker and text.strip():
            self._buffer.append(self._marker)  # a list item's dash goes before its first words
            self._marker = ""
            text = text.lstrip()
        self._buffer.append(text)

    def _flush(self, *, listed: bool = False) -> None:
        """The buffer as a block; a list joins the paragraph that leads into it."""
        lines = _collapse("".join(self._buffer)).split("\n")
        self._buffer = []
        text = "\n".join(filter(None, (_drop_empty_cells(line) for line in lines)))
        if text and listed and _leads_in(self.blocks, self.outline.path):
            text = f"{self.blocks.pop().text}\n{text}"
        self._add(text)

    def _add(self, text: str, kind: BlockKind = "text") -> None:
        if text:
            self._bare = None
            anchor = self.outline.anchor
            locator = Locator("anchor", value=anchor) if anchor else None
            self.blocks.append(Block(text, self.outline.path, locator, kind))


def _boxed(element: Any) -> bool:
    """An `<aside>` of the document (Sphinx writes topics, sidebars, admonitions and footnotes
    as such), not of the page: kept by the walk, which drops other asides as chrome."""
    classes = element.get("class", "").split()
    return element.tag == "aside" and not (ADMONITIONS | {"footnote-list"}).isdisjoint(classes)


def _drop_empty_cells(line: str) -> str:
    """A line of a walked layout table without its empty cells (`| | Note: …` is `Note: …`)."""
    return CELL.join(p.strip() for p in _CELL_EDGE.split(line) if p.strip())


def _data_table(table: Any) -> bool:
    """A table of data: two rows or more, no heading and no table inside (else it is layout)."""
    return len(table.xpath(".//tr")) >= 2 and not table.xpath(_LAYOUT)


def _data_table_paragraphs(table: Any) -> list[str]:
    """A data table's paragraphs: rows in `<thead>`, or leading rows of `<th>` cells only, and
    the caption make the header repeated over each group of rows (tables.py)."""
    header = [" ".join(table.findtext("caption", "").split())]
    rows: list[str] = []
    for tr in table.iter("tr"):
        cells = [c for c in tr if c.tag in ("td", "th")]
        line = row_text([_cell_text(c) for c in cells])
        head = tr.getparent().tag == "thead" or (bool(cells) and all(c.tag == "th" for c in cells))
        (header if head and not rows else rows).append(line)
    return table_paragraphs(header, rows)


def _cell_text(cell: Any) -> str:
    """A cell's text on one line: the blocks a walk over it finds, joined by spaces."""
    return " ".join(b.text for b in Walker(keep_header=True).run(cell))
