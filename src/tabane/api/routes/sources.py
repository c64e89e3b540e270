"""Sources of a context: list, ingest, look up, retract, cite (Taguru-compatible paths)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from tabane.api.deps import Svc, User
from tabane.jobs.embed_source import EmbeddingRefresh
from tabane.sources.read import MAX_PAGE
from tabane.wire.base import ERROR_RESPONSES, out
from tabane.wire.sources import (
    CitationOut,
    CiteIn,
    IngestIn,
    IngestOut,
    LookupIn,
    LookupOut,
    ParagraphOut,
    RetractIn,
    RetractOut,
    SourceOut,
    SourcePageOut,
)

router = APIRouter(prefix="/contexts/{context}", tags=["sources"], responses=ERROR_RESPONSES)


@router.get("/sources")
def list_sources(
    context: str,
    svc: Svc,
    user: User,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
    after: Annotated[str | None, Query(description="`next_after` of the previous page")] = None,
    include_retracted: bool = False,
) -> SourcePageOut:
    """Sources ordered by id, one page at a time."""
    page = svc.list_sources(
        user, context, limit=limit, after=after, include_retracted=include_retracted
    )
    return out(SourcePageOut, page)


@router.post("/sources", status_code=201)
def ingest(context: str, body: IngestIn, svc: Svc, user: User) -> IngestOut:
    """Store one document, given as `text` (parsed by format) or as `paragraphs`. Idempotent:
    the same content again is `unchanged`; changed content is `replaced`. A source id held in
    the context by a source you cannot see is 409 `source_taken`. A document with no paragraphs
    (empty, or only whitespace and markup) is 422 `empty_document` and stores nothing: to empty
    a source, retract it."""
    return out(IngestOut, svc.ingest(user, context, body.to_document()))


@router.post("/sources/lookup")
def lookup(context: str, body: LookupIn, svc: Svc, user: User) -> LookupOut:
    """A source's metadata and a window of its paragraphs."""
    source, paragraphs = svc.lookup(
        user, context, body.source_id, offset=body.offset, limit=body.limit
    )
    return LookupOut(
        source=out(SourceOut, source), paragraphs=[out(ParagraphOut, p) for p in paragraphs]
    )


@router.post("/sources/retract")
def retract(context: str, body: RetractIn, svc: Svc, user: User) -> RetractOut:
    """Remove a source's paragraphs (a tombstone stays); `dry_run` counts and writes nothing."""
    return out(RetractOut, svc.retract(user, context, body.source_id, dry_run=body.dry_run))


@router.post("/embeddings/refresh", status_code=202)
def refresh_embeddings(context: str, svc: Svc, user: User) -> EmbeddingRefresh:
    """Queue the embedding of the context's sources you may write: the background worker embeds
    each paragraph lacking a vector of the configured model (after a model change, or sources
    stored with no embedder). 409 `conflict` when none is configured."""
    return svc.refresh_embeddings(user, context)


@router.post("/citations")
def cite(context: str, body: CiteIn, svc: Svc, user: User) -> CitationOut:
    """One paragraph with its source title, section and locator."""
    return out(CitationOut, svc.cite(user, context, body.source_id, body.paragraph))


@router.get("/citations")
def cite_get(context: str, source_id: str, paragraph: int, svc: Svc, user: User) -> CitationOut:
    """The same as `POST …/citations`, with the fields in the query."""
    return out(CitationOut, svc.cite(user, context, source_id, paragraph))
