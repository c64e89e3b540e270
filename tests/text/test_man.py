"""man pages: roff requests and escapes to sectioned paragraphs."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from tabane.errors import DocumentError
from tabane.text.documents import Block, Locator, read_document
from tabane.text.man import parse_man

PAGE = r""".\" Copyright and other comments are dropped
.TH KETTLE 1 "2024-05-01" "kettle 2.1" "User Commands"
.SH NAME
kettle \- boil water from the command line
.SH SYNOPSIS
.B kettle
[\fB\-t\fR \fItemp\fR] [\fB\-\-quiet\fR]
.SH DESCRIPTION
\fBkettle\fP heats water \(em quickly.  \" an inline comment
It keeps the lid closed\(aqs seal.
.PP
A second paragraph with a backslash \e and a zero\&-width escape.
.SS "Safety rules"
Never boil the kettle dry.
.SH OPTIONS
.TP
.BR \-t ", " \-\-temperature =\fItemp\fR
Stop heating at
.I temp
degrees.
.TP
\fB\-q\fR, \fB\-\-quiet\fR
Print nothing.
.SH EXAMPLES
.nf
# boil, then keep warm

kettle -t 80
.fi
After the example.
.IP \(bu 2
First bullet.
.IP \(bu 2
Second bullet.
.RS
.IP "Long tag here" 4
Indented body.
.RE
"""


def blocks(doc_text: str) -> list[tuple[str, tuple[str, ...]]]:
    return [(b.text, b.section) for b in parse_man(doc_text).blocks]


def test_title_sections_and_escapes() -> None:
    doc = parse_man(PAGE)
    assert doc.format == "man"
    assert doc.title == "KETTLE(1)"
    assert [(b.text, b.section) for b in doc.blocks] == [
        ("kettle - boil water from the command line", ("NAME",)),
        ("kettle [-t temp] [--quiet]", ("SYNOPSIS",)),
        ("kettle heats water — quickly. It keeps the lid closed's seal.", ("DESCRIPTION",)),
        (
            "A second paragraph with a backslash \\ and a zero-width escape.",
            ("DESCRIPTION",),
        ),
        ("Never boil the kettle dry.", ("DESCRIPTION", "Safety rules")),
        ("-t, --temperature=temp\nStop heating at temp degrees.", ("OPTIONS",)),
        ("-q, --quiet\nPrint nothing.", ("OPTIONS",)),
        ("# boil, then keep warm\n\nkettle -t 80", ("EXAMPLES",)),
        ("After the example.", ("EXAMPLES",)),
        ("• First bullet.\n• Second bullet.", ("EXAMPLES",)),
        ("Long tag here\nIndented body.", ("EXAMPLES",)),
    ]


def test_locators_are_roff_source_lines() -> None:
    doc = parse_man(PAGE)
    tp = next(b for b in doc.blocks if b.text.startswith("-t,"))
    assert tp.locator == Locator("line_range", 17, 20)  # from the .BR tag line to "degrees."


def test_sh_without_arguments_takes_the_next_line() -> None:
    assert blocks(".SH\nSEE ALSO\nfoo(1)\n") == [("foo(1)", ("SEE ALSO",))]


def test_macro_definitions_and_false_conditionals_are_skipped() -> None:
    source = r""".de Vb
.ft CW
.nf
..
.ie n \{\
.ds Q "nroff-quote
.\}
.el \{\
.ds Q "troff-quote
this text is troff only
.\}
.if t .B never shown
.if n .B shown under nroff
.if !'po4a'hide' .BR \-d ", " \-\-debug
.if 'a'b' .B not equal
.SH X
quote: \*Q
.ig
ignored text
..
after
"""
    assert blocks(source) == [
        ("shown under nroff -d, --debug", ()),
        ("quote: nroff-quote after", ("X",)),
    ]


def test_docbook_style_bullets_join_across_conditionals() -> None:
    source = r""".SH LIST
.sp
.RS 4
.ie n \{\
\h'-04'\(bu\h'+03'\c
.\}
.el \{\
.sp -1
.IP \(bu 2.3
.\}
first item
.RE
"""
    assert blocks(source) == [("• first item", ("LIST",))]


def test_table() -> None:
    source = ".SH T\n.TS\nallbox tab(:);\nl l.\nName:Value\nT{\nwrapped\nT}:x\n.TE\nafter\n"
    assert blocks(source) == [("Name | Value\nwrapped\nx", ("T",)), ("after", ("T",))]


def test_special_characters_and_strings() -> None:
    source = r"\(lq\*(lq\(rq \[u00E9] \(:a \[char46] \s+2big\s0 \f(CWmono\fP \fB\fIboth\fR"
    assert blocks(source) == [("““” é ä . big mono both", ())]


def test_mdoc_pages() -> None:
    source = """.Dd March 21, 1992
.Dt REV 1
.Sh NAME
.Nm rev
.Nd reverse lines of a file
.Sh SYNOPSIS
.Nm
.Op Fl v Ar file
.Sh DESCRIPTION
The
.Nm
utility copies files, see
.Xr cat 1 .
.Bl -tag -width Ds
.It Fl v
Be verbose.
.El
"""
    doc = parse_man(source)
    assert doc.title == "REV(1)"
    assert [(b.text, b.section) for b in doc.blocks] == [
        ("rev - reverse lines of a file", ("NAME",)),
        ("rev [-v file]", ("SYNOPSIS",)),
        ("The rev utility copies files, see cat(1).", ("DESCRIPTION",)),
        ("-v\nBe verbose.", ("DESCRIPTION",)),
    ]


def test_japanese_man_page_gzipped() -> None:
    source = (
        ".TH PASSWD 1\n"
        ".SH 名前\n"
        "passwd \\- ユーザパスワードを変更する\n"
        ".SH 説明\n"
        "\\fBpasswd\\fR はユーザアカウントのパスワードを変更する。\n"
        "一般ユーザは自分のアカウントのパスワードしか変更できない。\n"
        ".SS パスワードの変更\n"
        "まず古いパスワードを入力するよう促される。\n"
    )
    data = gzip.compress(source.encode("utf-8"))
    doc = read_document(data, name="man1/passwd.1.gz")
    assert doc.format == "man"
    assert doc.title == "PASSWD(1)"
    assert doc.blocks == (
        Block("passwd - ユーザパスワードを変更する", ("名前",), Locator("line_range", 3, 3)),
        Block(
            "passwd はユーザアカウントのパスワードを変更する。"
            "一般ユーザは自分のアカウントのパスワードしか変更できない。",
            ("説明",),
            Locator("line_range", 5, 6),
        ),
        Block(
            "まず古いパスワードを入力するよう促される。",
            ("説明", "パスワードの変更"),
            Locator("line_range", 8, 8),
        ),
    )


def test_so_redirect_and_empty_pages_have_no_blocks() -> None:
    assert parse_man(".so man7/uri.7\n").blocks == ()
    assert parse_man("").blocks == ()
    assert parse_man('.\\" only a comment\n.TH X 1\n').blocks == ()


@pytest.mark.parametrize(
    "page",
    [
        ".TH X 1\n.SH A\n" + ".if n " * 2000 + "text\n",  # nested conditionals
        ".Dd Jan 1 2020\n.Dt X 1\n.Os\n.Sh NAME\n.Nm x\n.Sh SYNOPSIS\n.Op "
        + "Op " * 2000
        + "Fl a\n",  # nested mdoc enclosures
    ],
)
def test_a_page_nested_past_the_reader_is_unreadable_not_a_crash(page: str) -> None:
    with pytest.raises(DocumentError) as err:
        read_document(page.encode(), name="deep.1")
    assert err.value.issues[0].problem == "nested too deeply"


ZOO = Path(__file__).parent / "zoo"


def zoo_page(name: str) -> list[Block]:
    return list(read_document((ZOO / name).read_bytes(), name=name).blocks)


def test_filled_paragraphs_are_reflowed_into_sentences() -> None:
    """roff breaks its source lines anywhere; a filled paragraph reads as one run of text."""
    report = next(b for b in zoo_page("man-bash.1") if b.text.startswith("If you find a bug"))
    assert report.text.startswith("If you find a bug in bash, you should report it.  But first,")
    assert "\n" not in report.text
    assert report.locator == Locator("line_range", 137, 145)


def test_japanese_lines_join_without_a_space() -> None:
    first = zoo_page("man-ja-find.1")[0]
    assert "\n" not in first.text
    assert "検索開始ポイント (starting-point) を基準にして" in first.text
    assert "(「オペレーター」のセクション参照)、指定された式" in first.text


def test_a_bullet_list_is_one_paragraph_with_its_lead_in() -> None:
    """The items of a list (.IP bullets, tag-only .TP entries) are one paragraph, led by the
    sentence that introduces them: each item alone says nothing of what it lists."""
    blocks = zoo_page("man-bash.1")
    restricted = next(b for b in blocks if b.text.startswith("If bash is started with the name"))
    assert restricted.text.count("\n• ") == 14
    assert restricted.text.split("\n")[1] == "• changing directories with cd"
    include = next(b for b in blocks if b.text.startswith("ALL bug reports should include:"))
    assert include.text.split("\n")[1:] == [
        "The version number of bash",
        "The hardware and operating system",
        "The compiler used to compile",
        "A description of the bug behaviour",
        "A short script or `recipe' which exercises the bug",
    ]
    assert not any(b.text.startswith("The hardware") for b in blocks)


def test_a_tagged_entry_keeps_its_tag_on_a_line_of_its_own() -> None:
    """.TP entries with a body (options) stay one paragraph each: the tag, then its text."""
    blocks = zoo_page("man-bash.1")
    login = next(b for b in blocks if b.text.startswith("-l\n"))
    assert login.text == (
        "-l\nMake bash act as if it had been invoked as a login shell (see INVOCATION below)."
    )
    lead_in = "interprets the following options when it is invoked:"
    assert any(b.text.endswith(lead_in) for b in blocks)


def test_a_macro_appended_to_in_an_indented_block_ends_at_its_dot() -> None:
    """Asciidoctor's pages (util-linux, translated by po4a) end an `.am` with `.  .`: the page
    after it is read, not skipped as part of the macro (67 manpages-fr pages were empty)."""
    blocks = zoo_page("man-fr-chrt.1")
    assert blocks[0].text == "chrt - Manipuler les attributs temps réel d'un processus"
    assert blocks[0].section == ("NOM",)
    assert any(b.section == ("STRATÉGIES",) and b.text.startswith("-o, --other\n") for b in blocks)


def test_no_fill_text_is_code() -> None:
    kinds = {b.text: b.kind for b in parse_man(PAGE).blocks}
    assert kinds["# boil, then keep warm\n\nkettle -t 80"] == "code"
    assert kinds["After the example."] == "text"


def test_no_fill_text_ending_in_a_colon_leads_into_no_list() -> None:
    source = ".SH X\n.nf\nusage:\n.fi\n.IP \\(bu 2\nan item\n"
    assert [(b.text, b.kind) for b in parse_man(source).blocks] == [
        ("usage:", "code"),
        ("• an item", "text"),
    ]
