"""The MCP tools for search: passages, the catalog, and their explain twins. Each is a
thin shell over the `Tabane` facade, registered with `registry.tool`."""

from __future__ import annotations

from tabane.mcp.registry import tool as _tool
from tabane.principal import Principal
from tabane.search.catalog.catalog import CatalogResult
from tabane.search.catalog.explain import CatalogExplanation
from tabane.search.explain import Explanation
from tabane.search.search import SearchResult
from tabane.service import Tabane
from tabane.wire.search import CatalogExplainIn, CatalogIn, ExplainArgs, SearchArgs


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
