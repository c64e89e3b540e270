"""PDF: the text of each page through pypdf, split at blank lines, each block located by its page.

pypdf seldom emits blank lines, so most pages come out as one block.
"""

from __future__ import annotations

import io

import pypdf

from tabane.errors import DocumentError, Issue
from tabane.text.blocks import Block, Locator, ParsedDocument
from tabane.text.decoding import split_lines


def parse_pdf(data: bytes, name: str) -> ParsedDocument:
    try:
        reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise DocumentError(
                f"{name}: encrypted PDF",
                issues=[Issue(name, "the PDF is encrypted with a password")],
            )
        title = _title(reader)
        pages = [page.extract_text() for page in reader.pages]
    except DocumentError:
        raise
    except Exception as exc:
        # pypdf raises its PdfReadError for most damage, but malformed input also reaches plain
        # ValueError, KeyError, TypeError, AttributeError … inside it: all of them mean "malformed".
        problem = f"malformed PDF: {type(exc).__name__}: {exc}"
        raise DocumentError(f"{name}: {problem}", issues=[Issue(name, problem)]) from exc
    blocks: list[Block] = []
    for number, text in enumerate(pages, start=1):
        for paragraph in _paragraphs(text):
            blocks.append(Block(paragraph, (), Locator("page", number)))
    return ParsedDocument(format="pdf", title=title, blocks=tuple(blocks))


def _title(reader: pypdf.PdfReader) -> str | None:
    metadata = reader.metadata
    title = metadata.title if metadata is not None else None
    text = " ".join(str(title).split()) if title else ""
    return text or None


def _paragraphs(text: str) -> list[str]:
    out: list[str] = []
    current: list[str] = []
    for line in [*split_lines(text), ""]:
        if line.strip():
            current.append(line.rstrip())
        elif current:
            out.append("\n".join(current).strip())
            current = []
    return out
