"""read_document and detect_format: formats, decoding, errors, and the value types."""

from __future__ import annotations

import codecs
import gzip

import pytest

import tabane.text
from tabane.errors import DocumentError
from tabane.text.decoding import gunzip
from tabane.text.documents import Block, Locator, ParsedDocument, detect_format, read_document


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("notes.md", "markdown"),
        ("NOTES.MARKDOWN", "markdown"),
        ("a/b/readme.txt", "text"),
        ("doc.rst", "text"),
        ("page.html", "html"),
        ("page.HTM", "html"),
        ("page.xhtml", "html"),
        ("https://example.org/docs/page.html?lang=en#top", "html"),
        ("report.pdf", "pdf"),
        ("ls.1", "man"),
        ("man3/printf.3p", "man"),
        ("Moose.3pm", "man"),
        ("find.1.gz", "man"),
        ("page.man", "man"),
        ("notes.md.gz", "markdown"),
        ("windows\\path\\file.md", "markdown"),
    ],
)
def test_detect_format_by_name(name: str, expected: str) -> None:
    assert detect_format(name, b"plain words") == expected


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"  <!DOCTYPE html><html><body>x</body></html>", "html"),
        (b"\xef\xbb\xbf<html lang='en'>", "html"),
        (b'<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml">', "html"),
        (b"<!-- generated -->\n<!doctype html>", "html"),
        (b"%PDF-1.7\n...", "pdf"),
        (b".TH LS 1\n.SH NAME\n", "man"),
        (b'.\\" comment\n.TH LS 1\n', "man"),
        (b"'\\\" t\n.TH X 1\n", "man"),
        (b"# A heading\n\nplain", "text"),
        (b"", "text"),
    ],
)
def test_detect_format_by_content(data: bytes, expected: str) -> None:
    assert detect_format("README", data) == expected
    assert detect_format("README.gz", gzip.compress(data)) == expected


def test_man_extension_with_html_content_is_html() -> None:
    assert detect_format("ls.1", b"<html><body>rendered man page</body></html>") == "html"


def test_explicit_format_wins_over_the_name() -> None:
    doc = read_document(b"# Not a heading here\n\ntext", name="x.md", format="text")
    assert doc.format == "text"
    assert [b.text for b in doc.blocks] == ["# Not a heading here", "text"]


def test_unknown_explicit_format_is_an_error() -> None:
    with pytest.raises(DocumentError) as caught:
        read_document(b"x", name="x.txt", format="docx")
    assert caught.value.issues[0].path == "format"


def test_plain_text() -> None:
    doc = read_document(b"one\ntwo\n\n\nthree   \n", name="notes.txt")
    assert doc == ParsedDocument(
        format="text",
        title=None,
        blocks=(
            Block("one\ntwo", (), Locator("line_range", 1, 2)),
            Block("three", (), Locator("line_range", 5, 5)),
        ),
    )


@pytest.mark.parametrize(
    "name", ["empty.txt", "empty.md", "empty.html", "empty.1", "empty.pdf", "empty"]
)
@pytest.mark.parametrize("data", [b"", b" \n\t\r\n  "])
def test_empty_documents_have_no_blocks(name: str, data: bytes) -> None:
    doc = read_document(data, name=name)
    assert doc.blocks == ()


def test_empty_gzip_has_no_blocks() -> None:
    assert read_document(gzip.compress(b""), name="x.1.gz").blocks == ()


@pytest.mark.parametrize("name", ["photo.txt", "photo.md", "photo", "photo.html", "photo.1"])
def test_binary_data_is_an_error_naming_the_file(name: str) -> None:
    data = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))
    with pytest.raises(DocumentError) as caught:
        read_document(data, name=name)
    assert caught.value.code == "unreadable_document"
    assert [issue.path for issue in caught.value.issues] == [name]
    assert "binary" in caught.value.issues[0].problem


def test_control_characters_without_nul_are_binary() -> None:
    data = bytes([1, 2, 3, 4, 5, 6, 7, 8, 14, 15]) * 20 + b"some text"
    with pytest.raises(DocumentError, match="binary"):
        read_document(data, name="odd.txt")


def test_undecodable_text_is_an_error_not_latin1() -> None:
    with pytest.raises(DocumentError) as caught:
        read_document("café crème brûlée".encode("latin-1"), name="menu.txt")
    assert caught.value.issues[0].path == "menu.txt"
    assert "decode" in caught.value.issues[0].problem


def test_utf8_bom_utf16_and_utf32_with_bom_decode() -> None:
    text = "Grüße\n\n日本語"
    expected = ["Grüße", "日本語"]
    for data in (
        codecs.BOM_UTF8 + text.encode("utf-8"),
        codecs.BOM_UTF16_LE + text.encode("utf-16-le"),
        codecs.BOM_UTF16_BE + text.encode("utf-16-be"),
        codecs.BOM_UTF32_LE + text.encode("utf-32-le"),
    ):
        assert [b.text for b in read_document(data, name="t.txt").blocks] == expected


def test_utf16_without_bom_is_refused() -> None:
    with pytest.raises(DocumentError):
        read_document("plain words".encode("utf-16-le"), name="t.txt")


def test_escape_sequences_in_text_are_not_binary() -> None:
    doc = read_document(b"\x1b[1mbold\x1b[0m output\n\fnext page\n", name="log.txt")
    assert len(doc.blocks) == 1


def test_corrupt_gzip_is_an_error() -> None:
    data = gzip.compress(b".TH X 1\n.SH NAME\nx \\- y\n")
    for broken in (data[:-12], data[:10] + b"\xff" * 20 + data[30:]):
        with pytest.raises(DocumentError) as caught:
            read_document(broken, name="x.1.gz")
        assert caught.value.issues[0].path == "x.1.gz"


def test_gzip_bomb_is_refused() -> None:
    with pytest.raises(DocumentError, match="more than 1000 bytes"):
        gunzip(gzip.compress(b"a" * 5000), "big.gz", limit=1000)


def test_locator_json_round_trip_and_validation() -> None:
    page = Locator("page", 3)
    lines = Locator("line_range", 2, 9)
    assert page.to_json() == {"kind": "page", "start": 3}
    assert lines.to_json() == {"kind": "line_range", "start": 2, "end": 9}
    assert Locator.from_json(lines.to_json()) == lines
    assert Locator.from_json(page.to_json()) == page
    with pytest.raises(ValueError):
        Locator("page", 0)
    with pytest.raises(ValueError):
        Locator("line_range", 5, 4)
    with pytest.raises(ValueError):
        Locator("chapter", 1)  # an open kind has a value, never a start
    with pytest.raises(ValueError):
        Locator.from_json({"kind": "page", "start": "1"})


def test_open_locators_are_a_kind_and_a_value_served_back_unchanged() -> None:
    """Taguru's locator is an open `{kind, value}` pair (decision 0023); the typed kinds stay
    specialisations, and a numbered kind may take the open form too."""
    sheet = {"kind": "sheet", "value": "Q3!A1:C4"}
    assert Locator.from_json(sheet).to_json() == sheet
    minute = {"kind": "timestamp", "value": "00:12:30"}
    assert Locator.from_json(minute).to_json() == minute
    assert Locator.from_json({"kind": "sheet", "start": 2}).to_json() == {
        "kind": "sheet",
        "start": 2,
    }
    for bad in (
        {"kind": "sheet", "value": "A1", "start": 1},  # both forms at once
        {"kind": "", "value": "x"},
        {"kind": "k" * 65, "value": "x"},
        {"kind": "sheet", "value": " "},
        {"kind": "sheet", "value": "v" * 1025},
        {"kind": "sheet", "value": 3},
        {"kind": 7, "value": "x"},
        {"kind": "page", "start": True},
    ):
        with pytest.raises(ValueError):
            Locator.from_json(bad)


def test_block_text_must_be_stripped_and_non_empty() -> None:
    with pytest.raises(ValueError):
        Block("", ())
    with pytest.raises(ValueError):
        Block(" padded ", ())


def test_public_api() -> None:
    assert set(tabane.text.__all__) == {
        "FORMATS",
        "Block",
        "Locator",
        "LocatorKind",
        "ParsedDocument",
        "detect_format",
        "read_document",
    }


@pytest.mark.parametrize("name", ["late.txt", "late.md", "late.html", "late.1"])
def test_a_nul_byte_anywhere_is_refused_with_its_offset(name: str) -> None:
    data = b"<p>" + b"plain words " * 1000 + b"\x00 and more</p>"  # past the 8 KiB sniffed
    with pytest.raises(DocumentError) as caught:
        read_document(data, name=name)
    assert caught.value.code == "unreadable_document"
    assert caught.value.issues[0].path == name
    assert f"NUL byte at offset {data.index(0)}" in caught.value.issues[0].problem


def test_an_undecodable_byte_is_named_with_its_offset() -> None:
    data = "caf\xe9 au lait".encode("latin-1")
    with pytest.raises(DocumentError) as caught:
        read_document(data, name="menu.txt")
    assert "offset 3" in caught.value.issues[0].problem
