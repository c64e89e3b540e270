"""Fuzzing the readers: random and mutated HTML, Markdown, roff and PDF bytes never raise anything
but a tabane error, and every paragraph they give is stripped and non-empty (issue 28)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabane.errors import TabaneError
from tabane.text.documents import read_document
from tests.text.test_pdf import make_pdf

SEEDS: dict[str, bytes] = {
    "page.html": (
        b'<html><head><meta name="generator" content="DocBook XSL Stylesheets"><title>T</title>'
        b'</head><body><div class="navheader"><table><tr><td>Prev</td></tr></table></div>'
        b'<div class="section"><div class="titlepage"><h2 class="title"><a id="s1"></a>1. One'
        b"</h2></div><p>Text &amp; more <code>x</code></p><pre>a\n  b</pre>"
        b'<div class="note"><table><tr><td><img alt="Note"/></td><th>Note</th></tr>'
        b"<tr><td></td><td>Be careful.</td></tr></table></div>"
        b"<dl><dt>term</dt><dd><p>its meaning</p></dd></dl><ul><li>one</li><li>two</li></ul>"
        b"<table><thead><tr><th>a</th><th>b</th></tr></thead><tr><td>1</td><td>2</td></tr>"
        b"</table></div></body></html>"
    ),
    "notes.md": (
        b"---\ntitle: T\ndate: 2024-01-02\n---\n# Head\n\ntext *em*\n\n```py\ncode\n```\n\n"
        b"Setext\n------\n\n- item\n- item\n\n> quote\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    ),
    "tool.1": (
        b'.TH TOOL 1\n.\\" comment\n.SH NAME\ntool \\- does things\n.SH OPTIONS\n.TP\n'
        b"\\fB\\-a\\fR\nall of it\n.IP \\(bu 2\nitem\n.nf\nkept\n  lines\n.fi\n.TS\ntab(;);\n"
        b"l l.\na;b\n.TE\n.ie n .BR yes\n.el no\n.de XX\n..\n.SS Sub\nmore\n"
    ),
    "doc.pdf": make_pdf([["Page one", "more"], ["Page two"]], title="T"),
}
NAMES = sorted(SEEDS)


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, bytes]:
    """A seed document with random bytes replaced, inserted or deleted, or cut short."""
    name = draw(st.sampled_from(NAMES))
    data = bytearray(SEEDS[name])
    for _ in range(draw(st.integers(0, 8))):
        at = draw(st.integers(0, len(data)))
        action = draw(st.sampled_from(("replace", "insert", "delete", "cut")))
        chunk = draw(
            st.one_of(
                st.binary(max_size=6),
                st.sampled_from((b"<", b">", b"</td>", b"<pre>", b"\n.", b"\\f", b"```", b"|")),
            )
        )
        if action == "replace":
            data[at : at + len(chunk)] = chunk
        elif action == "insert":
            data[at:at] = chunk
        elif action == "delete":
            del data[at : at + draw(st.integers(1, 16))]
        else:
            del data[at:]
    return name, bytes(data)


def _check(name: str, data: bytes) -> None:
    try:
        doc = read_document(data, name=name)
    except TabaneError:
        return
    for block in doc.blocks:
        assert block.text and block.text == block.text.strip()


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_documents_give_tabane_errors_or_clean_paragraphs(doc: tuple[str, bytes]) -> None:
    _check(*doc)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(NAMES), st.binary(max_size=400))
def test_random_bytes_give_tabane_errors_or_clean_paragraphs(name: str, data: bytes) -> None:
    _check(name, data)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(NAMES), st.text(max_size=300))
def test_random_text_gives_tabane_errors_or_clean_paragraphs(name: str, text: str) -> None:
    _check(name, text.encode("utf-8", "surrogatepass"))
