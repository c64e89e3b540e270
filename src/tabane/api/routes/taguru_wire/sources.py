"""Sources in Taguru's form."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from tabane.api.deps import Svc, User
from tabane.api.routes.taguru_wire.common import Started, ok
from tabane.errors import NoSource
from tabane.sources.read import MAX_PAGE
from tabane.wire.base import out
from tabane.wire.search import SearchOut
from tabane.wire.taguru import Ok
from tabane.wire.taguru.sources import (
    CitationAt,
    PassageLookupIn,
    PassageLookupOut,
    PassageSearchOut,
    PassagesIn,
    PassagesStored,
    SearchVerdict,
    SourceEntry,
    SourceIn,
    SourceRetracted,
    SourcesPage,
    TaguruCitation,
    TaguruCrossSearchIn,
    TaguruSearchExplainIn,
    TaguruSearchIn,
)

router = APIRouter()


# -- sources ---------------------------------------------------------------------------------------


@router.post("/contexts/{context}/sources")
def store_passages(
    context: str, body: PassagesIn, svc: Svc, user: User, started: Started
) -> Ok[PassagesStored]:
    """`{passages: {source: text}, questions?, sections?, locators?, tags?, dates?}`: each
    source stored whole (replacing what it had), split into paragraphs at blank lines."""
    totals = dict.fromkeys(PassagesStored.model_fields, 0)
    for doc, counts in body.documents():
        svc.ingest(user, context, doc)
        totals["stored"] += 1
        for key, n in counts.items():
            totals[key] += n
    return Ok[PassagesStored].model_validate(ok(PassagesStored(**totals), started))


@router.post("/contexts/{context}/sources/retract")
def retract_source(
    context: str,
    body: SourceIn,
    svc: Svc,
    user: User,
    started: Started,
    dry_run: Annotated[bool, Query(description="report, write nothing")] = False,
) -> Ok[SourceRetracted]:
    """Withdraw the source's passage and its claims (`{source}`; tabane: `source_id`)."""
    done = svc.retract(user, context, body.source, dry_run=dry_run)
    gone = SourceRetracted(associations_touched=done.associations, passage_removed=done.sources > 0)
    return Ok[SourceRetracted].model_validate(ok(gone, started))


@router.post("/contexts/{context}/citations")
def citation(
    context: str, body: CitationAt, svc: Svc, user: User, started: Started
) -> Ok[TaguruCitation]:
    """One paragraph verbatim by `{source, paragraph}`, with its innermost heading and its
    locator."""
    c = svc.cite(user, context, body.source, body.paragraph)
    cited = TaguruCitation(
        text=c.text,
        source=c.source_id,
        section=c.section[-1] if c.section else None,
        locator=c.locator,
    )
    return Ok[TaguruCitation].model_validate(ok(cited, started))


@router.get("/contexts/{context}/sources")
def list_sources(
    context: str,
    svc: Svc,
    user: User,
    started: Started,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE, description="sources per page")] = MAX_PAGE,
    after: Annotated[str | None, Query(description="the last id of the previous page")] = None,
) -> Ok[SourcesPage]:
    """The stored source ids with their metadata, by id."""
    total = svc.get_context(user, context).stats.sources
    found = svc.list_sources(user, context, limit=limit, after=after).sources
    entries = [
        SourceEntry(name=s.source_id, stored_at=s.stored_at, date=s.date, tags=list(s.tags))
        for s in found
    ]
    listed = SourcesPage(total=total, sources=[s.source_id for s in found], entries=entries)
    return Ok[SourcesPage].model_validate(ok(listed, started))


@router.post("/contexts/{context}/sources/lookup")
def lookup_passages(
    context: str, body: PassageLookupIn, svc: Svc, user: User, started: Started
) -> Ok[PassageLookupOut]:
    """Each source's whole text (its paragraphs joined by blank lines), and the ids not
    stored here."""
    passages: dict[str, str] = {}
    missing: list[str] = []
    for source in dict.fromkeys(body.sources):
        try:
            texts: list[str] = []
            while True:
                _, paragraphs = svc.lookup(user, context, source, offset=len(texts))
                texts += [p.text for p in paragraphs]
                if len(paragraphs) < MAX_PAGE:
                    break
        except NoSource:
            missing.append(source)
            continue
        passages[source] = "\n\n".join(texts)
    return Ok[PassageLookupOut].model_validate(
        ok(PassageLookupOut(passages=passages, missing=missing), started)
    )


@router.post("/contexts/{context}/sources/search")
def search_passages(
    context: str, body: TaguruSearchIn, svc: Svc, user: User, started: Started
) -> Ok[PassageSearchOut]:
    """Paragraphs of the context, both lanes fused, with the plan (`since`/`until` in epoch
    seconds); each hit also names its `source`."""
    found = out(SearchOut, svc.search(user, body.to_request(contexts=(context,))))
    return Ok[PassageSearchOut].model_validate(ok(PassageSearchOut.of(found), started))


@router.post("/sources/search")
def cross_search_passages(
    body: TaguruCrossSearchIn, svc: Svc, user: User, started: Started
) -> Ok[PassageSearchOut]:
    """The passage search over `contexts` and every context the `groups` reach; each hit is
    tagged with its `context`."""
    found = out(SearchOut, svc.search(user, body.to_request(body.contexts, body.groups)))
    return Ok[PassageSearchOut].model_validate(ok(PassageSearchOut.of(found), started))


@router.post("/contexts/{context}/sources/search/explain")
def explain_search(
    context: str, body: TaguruSearchExplainIn, svc: Svc, user: User, started: Started
) -> Ok[SearchVerdict]:
    """Why `source` is or is not among this search's hits: the first verdict that applies under
    Taguru's names (tabane's own in `tabane_verdict`), each query term's evidence (the BM25
    addends the search summed) and the vector lane's cosine."""
    request = body.to_request(contexts=(context,))
    found = svc.explain_search(user, request, context, body.source, body.paragraph)
    return Ok[SearchVerdict].model_validate(ok(SearchVerdict.of(found), started))
