"""Documents as tabane reads them: typed blocks (paragraphs) with a section path and a locator.

`read_document` turns the bytes of one file into a `ParsedDocument`: it picks the format (by name,
then by content), decompresses gzip, decodes strictly and hands the text to the format's splitter.
Parsers are imported on first use, so importing this module does not load trafilatura or pypdf.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Literal, cast, get_args

from tabane.errors import DocumentError, Issue
from tabane.text.decoding import decode_text, gunzip, gunzip_head, is_gzip

LocatorKind = Literal["page", "line_range", "slide", "sheet", "table"]
FORMATS = ("text", "markdown", "html", "pdf", "man")

_EXTENSIONS = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdown": "markdown",
    ".mkd": "markdown",
    ".txt": "text",
    ".text": "text",
    ".rst": "text",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".pdf": "pdf",
    ".man": "man",
}
# man page sections: .1 … .9, optionally with a suffix (.1p, .3pm, .3ssl, .8posix)
_MAN_EXTENSION = re.compile(r"\.[1-9][a-z]{0,6}$")
_HTML_START = (b"<!doctype html", b"<html")
_ROFF_START = (b".th ", b'.\\"', b"'\\\"")


@dataclass(frozen=True)
class Locator:
    """Where a block sits in its document: a page, or a 1-based inclusive range of lines, …"""

    kind: LocatorKind
    start: int  # 1-based (page number, first line)
    end: int | None = None  # inclusive (last line); None for a single page

    def __post_init__(self) -> None:
        if self.kind not in get_args(LocatorKind):
            raise ValueError(f"unknown locator kind {self.kind!r}")
        if self.start < 1 or (self.end is not None and self.end < self.start):
            raise ValueError(f"invalid locator range {self.start}..{self.end}")

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"kind": self.kind, "start": self.start}
        if self.end is not None:
            out["end"] = self.end
        return out

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Locator:
        kind, start, end = data["kind"], data["start"], data.get("end")
        if kind not in get_args(LocatorKind) or not isinstance(start, int):
            raise ValueError(f"invalid locator {data!r}")
        if end is not None and not isinstance(end, int):
            raise ValueError(f"invalid locator {data!r}")
        return cls(cast(LocatorKind, kind), start, end)


@dataclass(frozen=True)
class Block:
    """One paragraph of a document."""

    text: str  # stripped, never empty
    section: tuple[str, ...]  # heading path, outermost first; () before any heading
    locator: Locator | None = None

    def __post_init__(self) -> None:
        if not self.text or self.text != self.text.strip():
            raise ValueError("block text must be non-empty and stripped")


@dataclass(frozen=True)
class ParsedDocument:
    format: str  # "text" | "markdown" | "html" | "pdf" | "man"
    title: str | None
    blocks: tuple[Block, ...]  # may be empty => the caller treats the document as empty
    date: str | None = None  # ISO date (or date-time) from front matter or HTML meta
    tags: tuple[str, ...] = ()  # from front matter `tags:`


def detect_format(name: str, data: bytes) -> str:
    """The format of a document: by file extension, else by its first bytes, else "text".

    A `.gz` suffix is looked through. Bytes starting with `%PDF-` are a PDF whatever the name says.
    """
    base = _basename(name)
    if base.endswith(".gz"):
        base = base[:-3]
    head = gunzip_head(data) if is_gzip(data) else data[:4096]
    if b"%PDF-" in head[:1024]:
        return "pdf"
    extension = posixpath.splitext(base)[1]
    if extension in _EXTENSIONS:
        return _EXTENSIONS[extension]
    sniffed = _sniff(head)
    if _MAN_EXTENSION.search(base) and sniffed != "html":
        return "man"
    return sniffed


def read_document(data: bytes, *, name: str, format: str | None = None) -> ParsedDocument:
    """Parse one document; `name` (a path or URI) picks the format unless `format` is given.

    Raises DocumentError (with an issue naming `name`) for binary data that is not a PDF, text that
    cannot be decoded, corrupt gzip data and malformed PDFs. An empty document has no blocks.
    """
    if format is not None and format not in FORMATS:
        raise DocumentError(
            f"unknown document format {format!r}",
            issues=[
                Issue("format", f"unknown format {format!r}; expected one of {', '.join(FORMATS)}")
            ],
        )
    fmt = format or detect_format(name, data)
    if is_gzip(data):
        data = gunzip(data, name)
    if not data.strip():
        return ParsedDocument(format=fmt, title=None, blocks=())  # empty is not an error
    if fmt == "pdf":
        from tabane.text.pdf import parse_pdf

        return parse_pdf(data, name)
    if fmt == "html":
        from tabane.text.html import parse_html

        return parse_html(data, name)
    text = decode_text(data, name)
    if fmt == "markdown":
        from tabane.text.markdown import parse_markdown

        return parse_markdown(text)
    if fmt == "man":
        from tabane.text.man import parse_man

        return parse_man(text)
    from tabane.text.plain import parse_text

    return parse_text(text)


def _basename(name: str) -> str:
    if "://" in name:
        name = re.split(r"[?#]", name, maxsplit=1)[0]
    return posixpath.basename(name.replace("\\", "/")).lower()


def _sniff(head: bytes) -> str:
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if start.startswith(_HTML_START):
        return "html"
    if start.startswith(b"<?xml") and b"<html" in start:
        return "html"
    if start.startswith(b"<!--") and any(marker in start for marker in _HTML_START):
        return "html"
    if start.startswith(_ROFF_START):
        return "man"
    return "text"
