"""HTML reading: chrome removed, headings as sections, charsets, code and small pages."""

from __future__ import annotations

import pytest

from tabane.errors import DocumentError
from tabane.text.documents import ParsedDocument, read_document

NAV = ["Home", "Pricing", "Careers at KettleCorp", "Copyright 2024 KettleCorp", "Privacy policy"]

ARTICLE = """
<h1>Boiling water safely</h1>
<p>The kettle heats water to a rolling boil in about three minutes. Always fill it above the
minimum mark, otherwise the element may overheat and the thermal fuse will trip.</p>
<h2>Descaling</h2>
<p>Hard water leaves a white crust of limescale inside the kettle. Descale it every month with a
solution of citric acid: one tablespoon in half a litre of water, boiled once and left for an
hour before rinsing.</p>
<pre><code># descale, then rinse three times
kettle descale --acid citric

kettle rinse --times 3
</code></pre>
<h3>Replacing the filter</h3>
<p>The mesh filter in the spout should be replaced once a year, or sooner when it is visibly
clogged with scale. Pull it straight up to remove it; never use a knife.</p>
<h2>Warranty</h2>
<p>The warranty covers two years from the date of purchase. It does not cover damage caused by
boiling the kettle dry or by descaling it with vinegar stronger than five percent.</p>
"""


def page(body: str, *, head: str = "<title>Kettle manual</title>") -> bytes:
    return f"<!DOCTYPE html><html><head>{head}</head><body>{body}</body></html>".encode()


def chrome(main: str) -> str:
    return f"""
<header><div class="logo">KettleCorp</div>
<nav><ul><li><a href="/">Home</a></li><li><a href="/p">Pricing</a></li>
<li><a href="/c">Careers at KettleCorp</a></li></ul></nav></header>
<aside><h3>Related</h3><ul><li><a href="a">Careers at KettleCorp</a></li></ul></aside>
{main}
<footer><p>Copyright 2024 KettleCorp. All rights reserved.</p><p>Privacy policy</p></footer>
"""


def read(data: bytes, name: str = "page.html") -> ParsedDocument:
    return read_document(data, name=name)


def joined(doc: ParsedDocument) -> str:
    return "\n".join(b.text for b in doc.blocks)


@pytest.mark.parametrize(
    "main",
    [
        f"<main><article>{ARTICLE}</article></main>",  # landmark: the page's own structure
        f'<div id="wrap"><div class="content">{ARTICLE}</div></div>',  # no landmark: trafilatura
    ],
    ids=["landmark", "heuristic"],
)
def test_boilerplate_removed_and_headings_become_sections(main: str) -> None:
    doc = read(page(chrome(main)))
    assert doc.format == "html"
    assert doc.title == "Kettle manual"
    text = joined(doc)
    for boilerplate in NAV:
        assert boilerplate not in text
    sections = {" ".join(b.text.split()[:2]): b.section for b in doc.blocks}
    assert sections == {
        "The kettle": ("Boiling water safely",),
        "Hard water": ("Boiling water safely", "Descaling"),
        "# descale,": ("Boiling water safely", "Descaling"),
        "The mesh": ("Boiling water safely", "Descaling", "Replacing the filter"),
        "The warranty": ("Boiling water safely", "Warranty"),
    }
    # paragraphs are reflowed the way a browser shows them, code keeps its lines and blank lines
    assert "minimum mark, otherwise" in text
    code = next(b for b in doc.blocks if b.text.startswith("# descale"))
    assert code.text == "# descale, then rinse three times\nkettle descale --acid citric\n\n" + (
        "kettle rinse --times 3"
    )
    assert all(b.locator is None for b in doc.blocks)


def test_tiny_page_still_yields_its_text() -> None:
    doc = read(page("<nav><a href='/'>Home</a></nav><h1>Note</h1><p>Hello world.</p>"))
    assert [(b.text, b.section) for b in doc.blocks] == [("Hello world.", ("Note",))]


def test_tiny_page_without_landmark_keeps_its_structure() -> None:
    body = "<h1>Options</h1><p>-v<br>verbose output</p><h2>More</h2><p>quiet mode</p>"
    doc = read(page(body))
    assert [(b.text, b.section) for b in doc.blocks] == [
        ("-v\nverbose output", ("Options",)),
        ("quiet mode", ("Options", "More")),
    ]


def test_title_and_date_from_head() -> None:
    head = (
        "<title>\n  A   page\n</title>"
        '<meta name="date" content="2023-01-02">'
        '<meta property="article:published_time" content="2024-05-01T10:00:00Z">'
    )
    doc = read(page("<main><p>x</p></main>", head=head))
    assert doc.title == "A page"
    assert doc.date == "2024-05-01T10:00:00+00:00"  # the most specific declaration wins
    assert read(page("<main><p>x</p></main>", head="")).title is None
    bad = read(page("<p>x</p>", head='<meta name="date" content="last Tuesday">'))
    assert bad.date is None


def test_declared_shift_jis_decodes() -> None:
    html = (
        '<html><head><meta charset="shift_jis"><title>説明書</title></head>'
        "<body><main><h1>湯沸かし</h1><p>水を入れてからスイッチを押してください。</p></main></body></html>"
    )
    doc = read(html.encode("shift_jis"))
    assert doc.title == "説明書"
    assert [(b.text, b.section) for b in doc.blocks] == [
        ("水を入れてからスイッチを押してください。", ("湯沸かし",))
    ]


def test_http_equiv_and_xml_declared_charsets() -> None:
    meta = '<meta http-equiv="Content-Type" content="text/html; charset=EUC-JP">'
    doc = read(page("<main><p>日本語の文章。</p></main>", head=meta).decode().encode("euc_jp"))
    assert doc.blocks[0].text == "日本語の文章。"
    xhtml = (
        '<?xml version="1.0" encoding="iso-8859-1"?>\n'
        '<html xmlns="http://www.w3.org/1999/xhtml">'
        "<body><main><p>Café crème</p></main></body></html>"
    )
    doc = read(xhtml.encode("latin-1"), name="page.xhtml")
    assert doc.blocks[0].text == "Café crème"


def test_iso_2022_jp_is_not_mistaken_for_utf8() -> None:
    html = (
        '<html><head><meta charset="iso-2022-jp"></head>'
        "<body><main><p>こんにちは</p></main></body></html>"
    )
    assert read(html.encode("iso2022_jp")).blocks[0].text == "こんにちは"


def test_undeclared_legacy_encoding_is_refused() -> None:
    data = page("<p>水を入れてください。</p>").decode().encode("shift_jis")
    with pytest.raises(DocumentError) as caught:
        read(data, name="docs/kettle.html")
    assert caught.value.issues[0].path == "docs/kettle.html"
    assert "decode" in caught.value.issues[0].problem


def test_unknown_declared_charset_is_refused_not_guessed() -> None:
    data = b'<html><head><meta charset="x-klingon"></head><body><p>caf\xe9</p></body></html>'
    with pytest.raises(DocumentError) as caught:
        read(data, name="k.html")
    assert "x-klingon" in caught.value.issues[0].problem


def test_sphinx_page_shape() -> None:
    body = """
<div class="related"><ul><li><a href="index.html">index</a></li><li>next</li></ul></div>
<div class="sphinxsidebar"><h3>Table of Contents</h3><ul><li>Coroutines</li></ul></div>
<div class="body" role="main">
<section><h1>Coroutines and Tasks<a class="headerlink" href="#c">¶</a></h1>
<p>This section outlines the high-level asyncio APIs.</p>
<section><h2>Running in Threads<a class="headerlink" href="#r">¶</a></h2>
<dl class="py function"><dt id="asyncio.to_thread"><em>async</em> asyncio.to_thread(func)
<a class="headerlink" href="#t">¶</a></dt>
<dd><p>Asynchronously run function <em>func</em> in a separate thread.</p>
<div class="highlight"><pre><span class="k">def</span> <span>blocking_io</span>():
    <span class="c1"># a comment</span>

    time.sleep(1)
</pre></div>
<div class="admonition note"><p class="admonition-title">Note</p>
<p>Due to the GIL, this is for IO-bound functions.</p></div>
</dd></dl></section></section></div>
<div class="footer">© Copyright 2001, Python Software Foundation.</div>
"""
    doc = read(page(body, head="<title>Coroutines and Tasks — Python 3.11 documentation</title>"))
    assert [(b.text, b.section) for b in doc.blocks] == [
        ("This section outlines the high-level asyncio APIs.", ("Coroutines and Tasks",)),
        (
            "async asyncio.to_thread(func)\nAsynchronously run function func in a separate thread.",
            ("Coroutines and Tasks", "Running in Threads"),
        ),
        (
            "def blocking_io():\n    # a comment\n\n    time.sleep(1)",
            ("Coroutines and Tasks", "Running in Threads"),
        ),
        (
            "Note: Due to the GIL, this is for IO-bound functions.",
            ("Coroutines and Tasks", "Running in Threads"),
        ),
    ]


def test_asciidoc_man_page_keeps_its_name_line() -> None:
    body = """
<div id="header"><h1>git-stash(1) Manual Page</h1><h2>NAME</h2>
<div class="sectionbody"><p>git-stash -
   Stash the changes in a dirty working directory away</p></div></div>
<div id="content">
<div class="sect1"><h2 id="_synopsis">SYNOPSIS</h2><div class="sectionbody">
<div class="verseblock"><pre class="content">git stash list [&lt;log-options&gt;]</pre></div>
</div></div>
<div class="sect1"><h2 id="_description">DESCRIPTION</h2><div class="sectionbody">
<div class="paragraph"><p>Use git stash when you want to record the current state of the working
directory and the index, but want to go back to a clean working directory.</p></div>
<div class="paragraph"><p>The modifications stashed away by this command can be listed with git
stash list, inspected with git stash show, and restored with git stash apply.</p></div>
</div></div></div>
<div id="footer"><div id="footer-text">Last updated 2023-01-01</div></div>
"""
    doc = read(page(body, head="<title>git-stash(1)</title>"))
    assert doc.title == "git-stash(1)"
    page_heading = "git-stash(1) Manual Page"  # the chain of headings starts at the page's h1
    assert (doc.blocks[0].text, doc.blocks[0].section) == (
        "git-stash - Stash the changes in a dirty working directory away",
        (page_heading, "NAME"),
    )  # the header's summary comes first
    assert [b.section for b in doc.blocks[1:]] == [
        (page_heading, "SYNOPSIS"),
        (page_heading, "DESCRIPTION"),
        (page_heading, "DESCRIPTION"),
    ]
    assert [b.locator.value if b.locator else None for b in doc.blocks] == [
        "header",  # the h1 opens div#header
        "_synopsis",
        "_description",
        "_description",
    ]
    assert not any("Last updated" in b.text or "Manual Page" in b.text for b in doc.blocks)


def test_lists_and_tables_are_one_block_each() -> None:
    body = """<main>
<ul><li>first item</li><li><p>second item</p></li></ul>
<table><tr><th>Name</th><th>Meaning</th></tr><tr><td>a</td><td>first letter</td></tr></table>
</main>"""
    doc = read(page(body))
    assert [b.text for b in doc.blocks] == [
        "- first item\n- second item",
        "Name | Meaning\na | first letter",
    ]


def test_line_breaks_between_cjk_characters_vanish() -> None:
    doc = read(page("<main><p>日本語の\n文章です。 English\ntext.</p></main>"))
    assert doc.blocks[0].text == "日本語の文章です。 English text."


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"   \n",
        b"<!-- nothing -->",
        b"<html><body></body></html>",
        page("<nav>Home</nav>"),
        # chrome alone: trafilatura's baseline kept "hdr n" (the header and the menu)
        page("<header>hdr</header><nav>n</nav><footer>f</footer>"),
    ],
)
def test_empty_pages_have_no_blocks(data: bytes) -> None:
    assert read(data).blocks == ()


def test_only_a_sentence_leads_into_a_list_not_code() -> None:
    page = (
        b"<html><body><main><h1>Loops</h1><p>Two forms are known:</p><ul><li>for</li>"
        b"<li>while</li></ul><pre>while True:</pre><ul><li>a list after code</li></ul>"
        b"</main></body></html>"
    )
    blocks = read_document(page, name="loops.html").blocks
    assert [(b.text, b.kind) for b in blocks] == [
        ("Two forms are known:\n- for\n- while", "text"),
        ("while True:", "code"),
        ("- a list after code", "text"),
    ]
