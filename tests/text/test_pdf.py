"""PDF reading through pypdf, on small PDFs assembled here byte by byte."""

from __future__ import annotations

import pytest

from tabane.errors import DocumentError
from tabane.text.documents import Locator, detect_format, read_document


def make_pdf(pages: list[list[str]], *, title: str | None = None) -> bytes:
    """A minimal valid PDF: one Helvetica text line per string, a correct xref table."""
    objects: list[bytes] = [b"", b""]  # 1: catalog, 2: page tree (filled in below)
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")  # 3
    kids: list[int] = []
    for lines in pages:
        ops = ["BT", "/F1 12 Tf", "14 TL", "72 720 Td"]
        for line in lines:
            escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            ops.append(f"({escaped}) Tj T*")
        ops.append("ET")
        stream = "\n".join(ops).encode("latin-1")
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        content = len(objects)
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % content
        )
        kids.append(len(objects))
    objects[0] = b"<< /Type /Catalog /Pages 2 0 R >>"
    refs = b" ".join(b"%d 0 R" % kid for kid in kids)
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (refs, len(kids))
    info = None
    if title is not None:
        objects.append(b"<< /Title (%s) >>" % title.encode("latin-1"))
        info = len(objects)
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R" % (len(objects) + 1)
    if info is not None:
        out += b" /Info %d 0 R" % info
    out += b" >>\nstartxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


TWO_PAGES = make_pdf(
    [
        ["Kettle manual", "Fill the kettle above the minimum mark."],
        ["Descaling", "Use citric acid once a month."],
    ],
    title="Kettle manual",
)


def test_two_page_pdf_has_page_locators_and_title() -> None:
    doc = read_document(TWO_PAGES, name="manual.pdf")
    assert doc.format == "pdf"
    assert doc.title == "Kettle manual"
    assert [(b.text, b.locator, b.section) for b in doc.blocks] == [
        ("Kettle manual\nFill the kettle above the minimum mark.", Locator("page", 1), ()),
        ("Descaling\nUse citric acid once a month.", Locator("page", 2), ()),
    ]
    assert doc.blocks[1].locator is not None
    assert doc.blocks[1].locator.to_json() == {"kind": "page", "start": 2}


def test_untitled_pdf_and_a_page_without_text() -> None:
    doc = read_document(make_pdf([[], ["Only the second page has text."]]), name="x.pdf")
    assert doc.title is None
    assert [(b.text, b.locator) for b in doc.blocks] == [
        ("Only the second page has text.", Locator("page", 2))
    ]


def test_pdf_is_recognised_by_its_bytes_whatever_the_name() -> None:
    assert detect_format("notes.txt", TWO_PAGES) == "pdf"
    assert detect_format("download", TWO_PAGES) == "pdf"
    assert read_document(TWO_PAGES, name="download").format == "pdf"


@pytest.mark.parametrize(
    "data",
    [
        b"%PDF-1.4\nthis is not a pdf at all\n",
        TWO_PAGES[: len(TWO_PAGES) // 2],
        b"%PDF-1.7\n" + bytes(range(256)) * 4,
    ],
    ids=["garbage", "truncated", "binary-body"],
)
def test_malformed_pdf_is_a_document_error_naming_the_file(data: bytes) -> None:
    with pytest.raises(DocumentError) as caught:
        read_document(data, name="reports/broken.pdf")
    assert caught.value.code == "unreadable_document"
    assert [issue.path for issue in caught.value.issues] == ["reports/broken.pdf"]
    assert "malformed PDF" in caught.value.issues[0].problem


def test_non_pdf_bytes_with_a_pdf_name_are_an_error() -> None:
    with pytest.raises(DocumentError):
        read_document(b"just some text, named as if it were a PDF", name="fake.pdf")
