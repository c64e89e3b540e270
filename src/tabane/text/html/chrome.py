"""HTML clean-up before extraction: page chrome out, code and definition lists in a shape that
survives extraction.

Known chrome of documentation generators goes (Sphinx sidebars and "¶" permalinks, DocBook,
Publican, gtk-doc and Texinfo navigation bars, AsciiDoc footers, rustdoc anchors, SQLite's menus
marked `nosearch`), every `<pre>`
becomes one `<pre><code>` (else highlighted code loses its line breaks in trafilatura), a
definition term joins the first paragraph of its definition (a signature and what it does; an
option and its meaning), and an admonition's label joins its first paragraph ("Note: …", "TIP
Incremental updates: …"): Sphinx admonitions, DocBook notes and Publican's sidebars (their title),
AsciiDoc admonition blocks (their icon's title), docutils topics ("Abstract: …") and footnotes
("[1]: …"), or a bare `div.warning` (its class).

Three repairs keep words a browser shows. A heading the parser left open over the page (SQLite's
`<h2>…</h1>`: libxml2 does not close an `<h2>` at `</h1>`, an HTML5 browser does) gives up the
blocks it swallowed, which follow it. The labels of an SVG figure (SQLite's syntax diagrams draw
their keywords as SVG text) become a paragraph of their own, joined to the line that leads into
it. The page heading SQLite writes inside chrome marked `nosearch` (`div.fancy_title`, a C
interface page's `<h2>`) stays, as the page's heading, when the rest of that chrome goes.
"""

from __future__ import annotations

from typing import Any

from lxml import etree

# Whole subtrees that are never body text.
DROP_TAGS = ("script", "style", "noscript", "template", "button", "svg")
# Chrome of documentation generators, by class token and by id.
CHROME_CLASSES = (
    "related", "sphinxsidebar", "sphinxsidebarwrapper", "footer", "mobile-nav", "menu-wrapper",
    "inline-search", "language_switcher_placeholder", "version_switcher_placeholder", "clearer",
    "headerlink", "navheader", "navfooter", "toc", "nav-panel", "doc-anchor",
    "docnav", "navigation", "header", "nosearch", "menu", "searchmenu",
)  # fmt: skip
# AsciiDoc's "Last updated" footer; Publican's "Download the ebook" banner.
CHROME_IDS = frozenset(("footer", "footer-text", "banner"))
_CHROME_CLASS_SET = frozenset(CHROME_CLASSES)
_DROP_TAG_SET = frozenset(DROP_TAGS)
# Boxes that set a paragraph apart under a label, by class token; and their title's class tokens.
ADMONITIONS = frozenset({
    "admonition", "admonitionblock", "note", "tip", "hint", "warning", "caution", "important",
    "attention", "danger", "error", "seealso", "sidebar", "topic", "footnote",
})  # fmt: skip
# Boxes whose class alone names them, when they have no title (a bare `div.warning`).
_NAMED_BY_CLASS = ADMONITIONS - {"admonition", "admonitionblock", "sidebar", "topic", "footnote"}
_TITLES = frozenset({"admonition-title", "title", "admonition_header", "topic-title", "label"})
# Where an admonition's text starts: the first of these whose content opens with words.
_PARAGRAPHS = ("p", "div", "td", "dd", "li")
_BLOCKS = frozenset({"div", "p", "ul", "ol", "dl", "table", "pre", "blockquote", "h1", "h2", "h3"})
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
# Elements a heading cannot hold: a heading that holds one was never closed.
_NOT_IN_HEADING = _BLOCKS | frozenset(_HEADINGS) | {"section", "article", "aside", "hr"}
# The mark of a paragraph made of a figure's labels (html_blocks joins it to its lead-in).
FIGURE = "data-tabane-figure"
# Chrome that holds the page's heading (SQLite: `nosearch`), and that heading's own class.
_TITLED_CHROME = "nosearch"
_TITLE_CLASS = "fancy_title"


def prepare(tree: Any) -> None:
    """Rewrite a parsed page in place (see the module docstring)."""
    _close_headings(tree)
    _figure_labels(tree)
    # One pass over the tree (a union of XPath scans was most of the time spent parsing HTML).
    chrome = [
        element
        for element in tree.iter()
        if isinstance(element.tag, str)
        and (
            element.tag in _DROP_TAG_SET
            or element.get("id") in CHROME_IDS
            or not _CHROME_CLASS_SET.isdisjoint((element.get("class") or "").split())
        )
    ]
    for element in chrome:
        if element.getparent() is not None:
            _keep_title(element)
            element.drop_tree()
    for pre in list(tree.iter("pre")):
        code = pre.text_content()
        for child in list(pre):
            pre.remove(child)
        pre.text = None
        etree.SubElement(pre, "code").text = code
    for box in [e for e in tree.iter("div", "aside", "table") if _classes(e) & ADMONITIONS]:
        _label(box)
    for term in list(tree.iter("dt")):
        _merge_into_next(
            term, None
        )  # a term or signature and the first paragraph of its definition
    for element in list(tree.iter("dl", "dt", "dd")):
        element.tag = {"dl": "div", "dt": "p", "dd": "div"}[element.tag]


def breadcrumb(heading: Any) -> bool:
    """Whether a heading is a link to another page (SQLite's `<a href="intro.html"><h2>Session
    Module C Interface</h2></a>` above a page's own heading): navigation styled as a heading."""
    return any(
        a.tag == "a" and not (a.get("href") or "#").startswith("#") for a in heading.iterancestors()
    )


def _close_headings(tree: Any) -> None:
    """Close each heading before the first block it holds: that child, its siblings after it and
    their text follow the heading, as an HTML5 parser would have put them."""
    for heading in list(tree.iter(*_HEADINGS)):
        inner = next((c for c in heading if isinstance(c.tag, str) and _holds_block(c)), None)
        if inner is None:
            continue
        tail, heading.tail = heading.tail, None
        moved = [inner, *inner.itersiblings()]
        anchor = heading
        for child in moved:
            anchor.addnext(child)  # moves the child, with its tail
            anchor = child
        anchor.tail = (anchor.tail or "") + (tail or "")


def _holds_block(element: Any) -> bool:
    return any(isinstance(e.tag, str) and e.tag in _NOT_IN_HEADING for e in element.iter())


def _figure_labels(tree: Any) -> None:
    """Each SVG figure with text is replaced by a paragraph of its labels, in drawing order."""
    for svg in list(tree.iter("svg")):
        words: list[str] = []
        for node in svg.iter():
            if node.tag in ("style", "script") or not isinstance(node.tag, str):
                continue
            words.extend((node.text or "").split())
            if node is not svg:
                words.extend((node.tail or "").split())
        if not words or svg.getparent() is None:
            continue
        paragraph = etree.Element("p", {FIGURE: ""})
        paragraph.text, paragraph.tail = " ".join(words), svg.tail
        svg.getparent().replace(svg, paragraph)


def _keep_title(chrome: Any) -> None:
    """Keep the page heading that titled chrome holds (see the module docstring) in its place:
    its `div.fancy_title` as an `<h1>`, its headings that are not links as they are."""
    if _TITLED_CHROME not in _classes(chrome):
        return
    for element in list(chrome.iter("div", *_HEADINGS)):
        title = element.tag != "div" and not breadcrumb(element)
        if element.tag == "div" and _TITLE_CLASS in _classes(element):
            element.tag, title = "h1", True
        if title:
            element.tail = None
            for attribute in list(element.attrib):
                del element.attrib[attribute]
            chrome.addprevious(element)


def _classes(element: Any) -> frozenset[str]:
    return frozenset((element.get("class") or "").split())


def _label(box: Any) -> None:
    """Put an admonition's label (its title, else its class) in front of its first paragraph;
    the title element goes (a DocBook note's `<h3>` is no heading of the page)."""
    title = next((e for e in box.iter() if e is not box and _classes(e) & _TITLES), None)
    if title is None:
        title = next(box.iter("th"), None)
    if title is not None:
        label = " ".join(title.text_content().split())
        title.drop_tree()
    else:
        known = sorted(_classes(box) & _NAMED_BY_CLASS)
        label = known[0].capitalize() if known else ""
    target = next((e for e in box.iter(*_PARAGRAPHS) if _opens_with_words(e)), None)
    if label and target is not None:
        target.text = f"{label.rstrip(':')}: {(target.text or '').lstrip()}"


def _opens_with_words(element: Any) -> bool:
    """Whether an element's content starts with text (its own, or an inline child's)."""
    if (element.text or "").strip():
        return True
    first = element[0] if len(element) else None
    return first is not None and first.tag not in _BLOCKS and bool(first.text_content().strip())


def _merge_into_next(head: Any, separator: str | None) -> None:
    """Move `head`'s content to the start of the paragraph that follows it (the next sibling, or
    that sibling's first child paragraph), joined by `separator`, or by a line break when it is
    None."""
    target = head.getnext()
    if (
        target is not None
        and target.tag == "dd"
        and not (target.text or "").strip()
        and len(target)
    ):
        target = target[0]
    if target is None or target.tag not in ("p", "dd"):
        return
    children = list(head)
    rest = target.text or ""
    text = head.text
    if separator is None:
        joint = etree.Element("br")
        joint.tail = rest
        children.append(joint)
    elif children:
        children[-1].tail = (children[-1].tail or "").rstrip() + separator + rest.lstrip()
    else:
        text = (text or "").rstrip() + separator + rest.lstrip()
    for index, child in enumerate(children):
        target.insert(index, child)  # moves the child, with its tail, out of `head`
    target.text = text
    head.drop_tree()
