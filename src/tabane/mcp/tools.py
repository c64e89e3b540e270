"""The MCP tools for contexts, groups, sources and search: each a thin shell over the `Tabane`
facade, registered with `registry.tool` (see registry.py for what a tool is)."""

from __future__ import annotations

from tabane.contexts.contexts import ContextInfo
from tabane.contexts.groups import GroupInfo
from tabane.mcp.registry import tool as _tool
from tabane.search.catalog import CatalogResult
from tabane.search.catalog_explain import CatalogExplanation
from tabane.search.explain import Explanation
from tabane.search.search import SearchResult
from tabane.service import Tabane
from tabane.sources.read import Citation, SourcePage
from tabane.sources.write import RetractResult
from tabane.types import Principal
from tabane.wire.base import NoArgs
from tabane.wire.contexts import (
    ChangeGroupArgs,
    ContextCreate,
    ContextDeletedResult,
    ContextListResult,
    GroupCreate,
    GroupDeletedResult,
    GroupList,
    NameArgs,
    RenameArgs,
    UpdateContextArgs,
)
from tabane.wire.search import CatalogExplainIn, CatalogIn, ExplainArgs, SearchArgs
from tabane.wire.sources import (
    CiteArgs,
    IngestArgs,
    Ingested,
    ListSourcesArgs,
    LookupArgs,
    RetractArgs,
    SourceLookup,
)


@_tool("read")
def list_contexts(svc: Tabane, user: Principal, a: NoArgs) -> ContextListResult:
    """Start here. Lists every context you can see with its description, stats (sources,
    paragraphs, sections) and usage. Choose the context whose description fits the task; a context
    is one frame of meaning (one spelling, one referent)."""
    return ContextListResult(svc.list_contexts(user))


@_tool("read")
def get_context(svc: Tabane, user: Principal, a: NameArgs) -> ContextInfo:
    """One context's description, settings, scopes, stats and usage."""
    return svc.get_context(user, a.name)


@_tool("write")
def create_context(svc: Tabane, user: Principal, a: ContextCreate) -> ContextInfo:
    """Create a context: a frame of meaning where one spelling names one referent ('Apple' the
    fruit and the company belong in different contexts). Check `list_contexts` first; write a
    description a later reader can choose by."""
    return svc.create_context(user, a.name, **a.model_dump(exclude_unset=True, exclude={"name"}))


@_tool("update")
def update_context(svc: Tabane, user: Principal, a: UpdateContextArgs) -> ContextInfo:
    """Change a context's description or floors. Only the fields you pass change."""
    return svc.update_context(user, a.name, a.changes())


@_tool("update")
def rename_context(svc: Tabane, user: Principal, a: RenameArgs) -> ContextInfo:
    """Rename a context; everything in it stays."""
    return svc.rename_context(user, a.name, a.new_name)


@_tool("destroy")
def delete_context(svc: Tabane, user: Principal, a: NameArgs) -> ContextDeletedResult:
    """Delete a context with every source in it (irreversible: ask the user first). Returns what
    was removed."""
    return ContextDeletedResult(a.name, svc.delete_context(user, a.name))


@_tool("read")
def list_groups(svc: Tabane, user: Principal, a: NoArgs) -> GroupList:
    """List groups: named bundles of contexts and child groups, for reading several contexts at
    once."""
    return GroupList(svc.list_groups(user))


@_tool("read")
def get_group(svc: Tabane, user: Principal, a: NameArgs) -> GroupInfo:
    """One group with its member contexts and child groups."""
    return svc.get_group(user, a.name)


@_tool("write")
def create_group(svc: Tabane, user: Principal, a: GroupCreate) -> GroupInfo:
    """Create a group of existing contexts and child groups (a DAG at most 3 groups tall)."""
    return svc.create_group(user, a.name, **a.model_dump(exclude_unset=True, exclude={"name"}))


@_tool("update")
def change_group(svc: Tabane, user: Principal, a: ChangeGroupArgs) -> GroupInfo:
    """Change a group by deltas: add_contexts, remove_contexts, add_groups, remove_groups (and
    optionally its description). Members must exist; cycles are refused."""
    return svc.change_group(user, a.name, **a.model_dump(exclude={"name"}))


@_tool("destroy")
def delete_group(svc: Tabane, user: Principal, a: NameArgs) -> GroupDeletedResult:
    """Delete a group; its contexts and child groups stay."""
    svc.delete_group(user, a.name)
    return GroupDeletedResult(a.name)


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


@_tool("read")
def search_passages(svc: Tabane, user: Principal, a: SearchArgs) -> SearchResult:
    """Find paragraphs in `contexts` (or one `context`) and/or `groups`. Phrase `query` like the
    ANSWER you expect: a plausible declarative sentence the passage would contain ('The kettle
    switches off when the water boils'), not the question ('when does the kettle stop?'). Each
    hit has context,
    source_id, paragraph, text, section and locator: `cite` what you use. `via_question` marks a
    hit that matched through a question stored with it (doc2query). When hits are empty or
    wrong, read `plan` before rewording: a lane skipped and why (no_embedder, no_vectors yet,
    model_mismatch, no_query_terms), its floor, the filter's eligible_sources,
    pending_embeddings. Pass `next_after` back as `after` for more."""
    return svc.search(user, a.scoped())


@_tool("read")
def search_catalog(svc: Tabane, user: Principal, a: CatalogIn) -> CatalogResult:
    """Which documents there are about `query` in `contexts` and/or `groups`: sources, not
    passages, found by title and by their paragraphs, each once with title, area, state, date
    and a snippet. Give a few subject words ('asyncio', 'kitchen budget'); `*` or `all` lists
    every source you can see (browse). Page with `offset` = `plan.next_offset`. Then read a
    source with `lookup`, or `search_passages` inside it."""
    return svc.search_catalog(user, a.to_request())


@_tool("read")
def explain_catalog(svc: Tabane, user: Principal, a: CatalogExplainIn) -> CatalogExplanation:
    """Ask why a source you expected is not on this page of `search_catalog` (the same arguments
    plus `expected`: context, source_id). Verdicts: not_stored (also anything you cannot see),
    context_not_searched, retracted, not_found (neither its title nor its paragraphs match),
    other_page (with offset_to_reach), served."""
    context = a.expected_context()
    return svc.explain_catalog(user, a.to_request(), context, a.expected.source_id)


@_tool("read")
def explain_search(svc: Tabane, user: Principal, a: ExplainArgs) -> Explanation:
    """Ask why a passage you expected is missing (or where it ranks) instead of re-running the
    search with varied wording. Give the same arguments as `search_passages` plus `expected`
    (context, source_id, optionally paragraph). Returns the first verdict that applies:
    not_stored (also anything you cannot see), context_not_searched, retracted,
    paragraph_out_of_range, filtered_out, no_query_terms, no_term_overlap (both sides' terms
    shown), below_floor, below_cutoff (rank and a verified limit_to_reach) or served, with each
    query term's tf, df, idf and BM25 contribution and the vector cosine."""
    return svc.explain_search(
        user, a.scoped(), a.expected_context(), a.expected.source_id, a.expected.paragraph
    )
