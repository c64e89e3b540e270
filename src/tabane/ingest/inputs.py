"""What one document to ingest is, and its parse: light enough for a parsing worker
(ingest/parsing.py) to import without the database layers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from tabane.errors import InvalidInput, Issue, LimitExceeded
from tabane.text.documents import Block, ParsedDocument, read_document

MAX_SOURCE_ID = 1024
# Paragraphs one document may make (TABANE_MAX_PARAGRAPHS): twice the largest page of the corpus
# zoo (Node.js's whole manual on one page, api/all.html: 20,608).
MAX_PARAGRAPHS = 50_000


@dataclass(frozen=True)
class DocumentInput:
    """One document to ingest: raw bytes to parse, or paragraphs given one by one."""

    source_id: str
    data: bytes | None = None
    paragraphs: Sequence[Block] | None = None
    format: str | None = None
    title: str | None = None
    date: str | None = None
    tags: Sequence[str] | None = None
    area: str | None = None  # None: the file's front matter's, if any
    state: str | None = None  # None: the front matter's, else not stated (no project)
    scopes: Sequence[str] | None = None
    questions: Sequence[Sequence[str]] = field(default_factory=tuple)
    origin: str | None = None


def parse(doc: DocumentInput, max_paragraphs: int = MAX_PARAGRAPHS) -> ParsedDocument:
    """The document's paragraphs (as given, or read from its bytes), at most `max_paragraphs`:
    past that it is refused before anything is written."""
    parsed = _parse(doc)
    if len(parsed.blocks) > max_paragraphs:
        raise LimitExceeded(
            f"the document makes {len(parsed.blocks)} paragraphs, more than one document may",
            issues=[
                Issue(
                    "TABANE_MAX_PARAGRAPHS",
                    f"{len(parsed.blocks)} paragraphs, at most {max_paragraphs}",
                )
            ],
        )
    return parsed


def _parse(doc: DocumentInput) -> ParsedDocument:
    check_source_id(doc.source_id)
    if doc.paragraphs is not None:
        if len(doc.questions) > len(doc.paragraphs):
            raise InvalidInput(
                "more question lists than paragraphs",
                issues=[Issue("questions", f"{len(doc.questions)} > {len(doc.paragraphs)}")],
            )
        return ParsedDocument(
            format=doc.format or "paragraphs", title=None, blocks=tuple(doc.paragraphs)
        )
    if doc.data is None:
        raise InvalidInput("a document needs text or paragraphs", issues=[Issue("text", "missing")])
    return read_document(doc.data, name=doc.source_id, format=doc.format)


def check_source_id(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput("source_id is empty", issues=[Issue("source_id", "empty")])
    if len(value) > MAX_SOURCE_ID:
        raise InvalidInput(
            "source_id is too long", issues=[Issue("source_id", f"{len(value)} > {MAX_SOURCE_ID}")]
        )
    if any(ord(c) < 32 for c in value):
        raise InvalidInput(
            "source_id has control characters", issues=[Issue("source_id", "control")]
        )
    return value
