"""The MCP tools for sources: ingest, list, look up, retract, cite, refresh embeddings. Each
is a thin shell over the `Tabane` facade, registered with `registry.tool`."""

from __future__ import annotations

from tabane.jobs.embed_source import EmbeddingRefresh
from tabane.mcp.registry import tool as _tool
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.sources.read import Citation, SourcePage
from tabane.sources.write import RetractResult
from tabane.wire.sources import (
    CiteArgs,
    IngestArgs,
    Ingested,
    ListSourcesArgs,
    LookupArgs,
    RefreshEmbeddingsArgs,
    RetractArgs,
    SourceLookup,
)


@_tool("update")
def ingest_source(svc: Tabane, user: Principal, a: IngestArgs) -> Ingested:
    """Store one document in a context, split into paragraphs. Give `text` (Markdown with headings
    is best: each paragraph keeps its section) or `paragraphs` with section, locator and questions,
    so citations are precise. Same content again -> 'unchanged', nothing rewritten; changed content
    under the same source_id -> 'replaced'. Check `list_sources` or `lookup_source` first to reuse
    the document's existing source_id."""
    r = svc.ingest(user, a.context, a.to_document(origin="mcp"))
    return Ingested(
        r.source_id,
        r.outcome,
        r.paragraphs,
        r.sections,
        r.reindexed,
        r.claims_closed,
        r.kept,
        r.updated,
        r.warnings,
    )


@_tool("read")
def list_sources(svc: Tabane, user: Principal, a: ListSourcesArgs) -> SourcePage:
    """List a context's documents by source_id, a page at a time: pass `next_after` back as
    `after`. Read this before ingesting or retracting."""
    return svc.list_sources(user, a.context, **a.model_dump(exclude={"context"}))


@_tool("read")
def lookup_source(svc: Tabane, user: Principal, a: LookupArgs) -> SourceLookup:
    """A document's metadata and its paragraphs (index, text, section, locator, questions), a
    window at a time (offset, limit). Use a paragraph's index with `cite`."""
    info, paragraphs = svc.lookup(user, a.context, a.source_id, offset=a.offset, limit=a.limit)
    return SourceLookup(info, paragraphs)


@_tool("destroy")
def retract_source(svc: Tabane, user: Principal, a: RetractArgs) -> RetractResult:
    """Withdraw a document: its paragraphs and sections are removed, a tombstone stays. Run with
    dry_run=true first to see what would go. Retract a withdrawn, moved or renamed document (before
    re-ingesting it under its new id), so stale text stops answering."""
    return svc.retract(user, a.context, a.source_id, dry_run=a.dry_run)


@_tool("read")
def cite(svc: Tabane, user: Principal, a: CiteArgs) -> Citation:
    """The citation of one paragraph you use: its exact text, the source title, its section and
    locator. Cite every paragraph your answer relies on."""
    return svc.cite(user, a.context, a.source_id, a.paragraph)


@_tool("write")
def refresh_embeddings(svc: Tabane, user: Principal, a: RefreshEmbeddingsArgs) -> EmbeddingRefresh:
    """Queue re-embedding of a context's sources you may write, in the background: paragraphs
    lacking a vector of the configured model get one (after a model change, or sources stored
    with no embedder). Returns how many sources were queued; search says `pending_embeddings`."""
    return svc.refresh_embeddings(user, a.context)
