"""Documents as tabane reads them: typed blocks (paragraphs) with a section path and a locator.

`read_document` turns the bytes of one file into a `ParsedDocument`: it picks the format (by name,
then by content), decompresses gzip, decodes strictly and hands the text to the format's splitter.
Parsers are imported on first use, so importing this module does not load trafilatura or pypdf.
"""

from __future__ import annotations

import posixpath
import re

from tabane.errors import DocumentError, Issue, ReaderFailed, TabaneError
from tabane.text.blocks import Block as Block
from tabane.text.blocks import Locator as Locator
from tabane.text.blocks import ParsedDocument as ParsedDocument
from tabane.text.decoding import decode_text, gunzip, gunzip_head, is_gzip

FORMATS = ("text", "markdown", "html", "pdf", "man")
# What the parsers make of the same bytes. Bump it whenever any parser's output changes: a stored
# source's raw hash includes it, so the next ingest or sync parses each file again (and rewrites
# only the sources whose paragraphs came out different) instead of skipping it as unchanged.
# 2: AsciiDoc pages keep the NAME line of their header (text/html/page.py `_header_summary`).
# 3: pages of documentation generators are walked whole, with headings and anchor locators.
# 4: structure kept (docs/decisions/0003): man pages reflowed, a list one block with its lead-in,
#    HTML tables as groups of rows under their header, admonitions labelled, code blocks of kind
#    "code"; Sphinx asides, xfpt index pages, picture galleries and Asciidoctor's man pages read.
# 5: HTML words a browser shows kept (issue 28's last zoo misses): a heading left open gives up
#    the blocks it swallowed, SVG figures' labels are a paragraph, SQLite's page headings in its
#    `nosearch` chrome are kept, a page whose headings trafilatura drops is walked, a heading with
#    nothing under it is a paragraph.
# 6: Markdown front matter's `area` and `state` read (issue 34), so a file read before gets them.
PARSER_VERSION = 6

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
    cannot be decoded, corrupt gzip data and malformed PDFs, and ReaderFailed when a reader breaks
    on the file (a bug of ours): a reader never raises anything but a tabane error. An empty
    document has no blocks.
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
    try:
        return _parse(fmt, data, name)
    except TabaneError:
        raise
    except RecursionError:  # conditionals, enclosures or lists nested past what the readers walk
        raise DocumentError(
            f"{name}: nested too deeply to read", issues=[Issue(name, "nested too deeply")]
        ) from None
    except Exception as exc:  # a reader bug must cost one file, never the run
        problem = f"the {fmt} reader failed: {type(exc).__name__}: {exc}"
        raise ReaderFailed(f"{name}: {problem}", issues=[Issue(name, problem)]) from exc


def _parse(fmt: str, data: bytes, name: str) -> ParsedDocument:
    if fmt == "pdf":
        from tabane.text.pdf import parse_pdf

        return parse_pdf(data, name)
    if fmt == "html":
        from tabane.text.html.page import parse_html

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
