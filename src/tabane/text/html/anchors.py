"""The anchor of an HTML heading: the fragment id a link to that heading's section uses.

Generators put it in different places, all of which are looked at, nearest first:
the heading's own `id` (AsciiDoc, hand-written pages); an `<a id>`/`<a name>` inside it (DocBook
XSL and Publican: `<h2 class="title"><a id="sect.apt-update"></a>…`; Node.js); an empty anchor
element just before it (gtk-doc's `<a name="GtkButton.functions"></a><h2>`, Texinfo's
`<span id="…"></span><h3>`); the `id` of the element the heading opens (Sphinx's and HTML5's
`<section id="json">`, DocBook's `<div class="section" id="…">`).
"""

from __future__ import annotations

from typing import Any

# How many ancestors up a heading may sit inside the element it opens (DocBook XSL nests a section
# title in div.titlepage > div > div; three is what it uses, five leaves room).
_OPENER_DEPTH = 5


def heading_anchor(heading: Any) -> str | None:
    """The fragment id that names the section `heading` starts, or None."""
    own = _id(heading)
    if own:
        return own
    for inner in heading.iter("a", "span"):
        if inner is not heading and _id(inner):
            return _id(inner)
    before = heading.getprevious()
    if before is not None and _id(before) and not before.text_content().strip():
        return _id(before)
    return _opener_id(heading)


def _opener_id(heading: Any) -> str | None:
    """The id of the nearest ancestor that this heading opens: the heading is the first heading
    inside it, and no text comes before the heading within it."""
    node = heading
    for _ in range(_OPENER_DEPTH):
        parent = node.getparent()
        if parent is None or parent.tag in ("body", "html"):
            return None
        if _text_before(parent, heading):
            return None
        if _id(parent):
            return _id(parent)
        node = parent
    return None


def _text_before(container: Any, heading: Any) -> bool:
    """Whether `container` has words before `heading` (then the heading does not open it)."""
    for node in container.iter():
        if node is heading:
            return False
        if (node.text or "").strip():
            return True
        if node is not container and (node.tail or "").strip():
            return True
    return False


def _id(element: Any) -> str | None:
    if not isinstance(element.tag, str):
        return None
    value = (element.get("id") or element.get("name") or "").strip()
    return value or None
