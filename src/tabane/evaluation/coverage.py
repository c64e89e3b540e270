"""Text coverage: how much of a page's main text the stored paragraphs hold (issue 28).

The reference is an extraction that knows nothing of tabane's readers but the chrome they declare:
lxml's text of the page's body with `script`, `style`, `head`, `nav`, `form`, `noscript`, `button`
and `template` removed, and the elements html_chrome names as chrome (`navheader`, `navfooter`,
`toc`, `docnav`, Sphinx's sidebars, …) — corpora.md's recipe — and the headings that are links to
another page (html_chrome.breadcrumb: navigation styled as a heading). A block element (a
paragraph, a heading, a list item, a table cell, …) starts and ends a line, as a browser draws it:
lxml's text alone glues the last word of one block to the first of the next (`master</p><p>Will`
is one word, `masterwill`, that no reader stores). Coverage is the share of the reference's words
(CJK: characters) that the stored text holds, counted with multiplicity, so a lost paragraph shows
however its neighbours were split.

What a page stores (stored_texts) is what the store keeps of it: the title, one heading for each
section (a distinct heading path, as sources/rows.py writes them) and the paragraphs.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

import lxml.html
from lxml import etree

from tabane.text.blocks import ParsedDocument
from tabane.text.decoding import declared_charset, decode_text
from tabane.text.html.chrome import CHROME_CLASSES, CHROME_IDS, breadcrumb

_DROP = ("script", "style", "head", "nav", "form", "noscript", "button", "template")
_WORD = re.compile(r"[^\W_]+")
_CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]")
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
# Elements a browser draws as blocks (or line breaks): their text never runs into a neighbour's.
_BLOCKS = frozenset({
    "address", "article", "aside", "blockquote", "body", "br", "caption", "dd", "details",
    "dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "h1", "h2", "h3",
    "h4", "h5", "h6", "header", "hr", "li", "main", "ol", "p", "pre", "section", "summary",
    "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
})  # fmt: skip


def stored_texts(doc: ParsedDocument) -> list[str]:
    """What the store keeps of a read page: its title, the heading of each of its sections (each
    distinct heading path and its prefixes, once) and its paragraphs."""
    paths = {b.section[:depth] for b in doc.blocks for depth in range(1, len(b.section) + 1)}
    return [doc.title or "", *(path[-1] for path in sorted(paths)), *(b.text for b in doc.blocks)]


def reference_text(data: bytes, name: str = "page.html") -> str:
    """The page's main text by the reference extraction (see the module docstring)."""
    text = _XML_DECLARATION.sub("", decode_text(data, name, declared=declared_charset(data)))
    try:
        tree = lxml.html.document_fromstring(text)
    except etree.ParserError:
        return ""
    chrome = set(CHROME_CLASSES)
    doomed = [
        e
        for e in tree.iter()
        if isinstance(e.tag, str)
        and (
            e.tag in _DROP
            or (e.tag in _HEADINGS and breadcrumb(e))
            or e.get("id") in CHROME_IDS
            or not chrome.isdisjoint((e.get("class") or "").split())
        )
    ]
    for element in doomed:
        if element.getparent() is not None:
            element.drop_tree()
    for element in tree.iter(*_BLOCKS):
        element.text = "\n" + (element.text or "")
        element.tail = "\n" + (element.tail or "")
    body = tree.find("body")
    return str((body if body is not None else tree).text_content())


def tokens(text: str) -> Counter[str]:
    """Words of `text`, case-folded; runs of CJK characters count each character."""
    out: Counter[str] = Counter()
    for word in _WORD.findall(text.casefold()):
        if _CJK.search(word):
            out.update(_CJK.findall(word))
            out.update(_WORD.findall(_CJK.sub(" ", word)))
        else:
            out[word] += 1
    return out


def coverage(stored: Iterable[str], reference: str) -> float:
    """The share of the reference's tokens found in the stored texts (1.0 for an empty
    reference: nothing to lose)."""
    want = tokens(reference)
    total = sum(want.values())
    if not total:
        return 1.0
    have = tokens("\n".join(stored))
    return sum((want & have).values()) / total
