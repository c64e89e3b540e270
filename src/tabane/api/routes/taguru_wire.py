"""Taguru's wire under `/taguru` (decision 0023): a Taguru client whose base URL ends in
`/taguru` works unchanged. Every answer is Taguru's envelope `{result, status: "ok", time}`;
an error is Taguru's shape `{status: "error", code, error, time}` carrying tabane's stable code
(api/errors.py). Each route is one facade call, as its tabane twin at the root is; the routes
whose Taguru form is the same as tabane's are not repeated here (docs/taguru.md, the census)."""

from __future__ import annotations

import time
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Query

from tabane.api.deps import Svc, User
from tabane.errors import TabaneError
from tabane.graph.claims.parse import parse_claims
from tabane.graph.query.pattern import QueryResult
from tabane.graph.resolve.resolver import Resolution
from tabane.wire.base import ERROR_RESPONSES
from tabane.wire.contexts import ContextPut, GroupPut
from tabane.wire.graph_write import Kind
from tabane.wire.resolve import ResolveIn
from tabane.wire.taguru import (
    AliasesIn,
    AliasesRemoveIn,
    AssociationArray,
    AssociationOut,
    CitationAt,
    CitationOut,
    CrossRecallIn,
    CueRecallIn,
    EdgeRetracted,
    EdgeRetractIn,
    MatchPage,
    MatchPlan,
    Ok,
    OriginsIn,
    PassagesIn,
    PassagesStored,
    RenameTo,
    SourceIn,
    SourceRetracted,
    TaguruCrossQueryIn,
    TaguruQueryIn,
    TieredCandidate,
)

router = APIRouter(prefix="/taguru", tags=["taguru"], responses=ERROR_RESPONSES)


def _started() -> float:
    return time.perf_counter()


Started = Annotated[float, Depends(_started)]


def ok(result: Any, started: float) -> dict[str, Any]:
    return {"result": result, "status": "ok", "time": round(time.perf_counter() - started, 6)}


def page(found: QueryResult) -> MatchPage:
    matches = [AssociationOut.model_validate({**vars(e), "count": e.claims}) for e in found.edges]
    return MatchPage(
        total=found.total,
        matches=matches,
        plan=MatchPlan(contexts=list(found.contexts)),
        next=found.next,
    )


def flat(found: Resolution) -> list[TieredCandidate]:
    """Taguru's one list: the lexical tier, then the semantic tier (scores never compared)."""
    return [
        TieredCandidate(
            name=c.name,
            score=c.score,
            tier=c.tier,
            kind=c.kind if c.tier == "lexical" else None,
            gloss=c.gloss,
        )
        for c in (*found.candidates, *found.semantic)
    ]


# -- contexts and groups ---------------------------------------------------------------------------


@router.put("/contexts/{context}")
def create_context(
    context: str, svc: Svc, user: User, started: Started, body: ContextPut | None = Body(None)
) -> Ok[bool]:
    """Create the context named by the path; a name in use is 409 `name_taken` (Taguru:
    `already_exists`)."""
    fields = body.model_dump(exclude_unset=True) if body is not None else {}
    svc.create_context(user, context, **fields)
    return Ok[bool].model_validate(ok(True, started))


@router.put("/groups/{group}")
def create_group(
    group: str, svc: Svc, user: User, started: Started, body: GroupPut | None = Body(None)
) -> Ok[bool]:
    """Create the group named by the path; every member must exist."""
    fields = body.model_dump(exclude_unset=True) if body is not None else {}
    svc.create_group(user, group, **fields)
    return Ok[bool].model_validate(ok(True, started))


@router.post("/contexts/{context}/rename")
def rename_context(
    context: str, body: RenameTo, svc: Svc, user: User, started: Started
) -> Ok[bool]:
    """Rename the context to `to` (tabane: `new_name`)."""
    svc.rename_context(user, context, body.to)
    return Ok[bool].model_validate(ok(True, started))


@router.post("/groups/{group}/rename")
def rename_group(group: str, body: RenameTo, svc: Svc, user: User, started: Started) -> Ok[bool]:
    """Rename the group to `to` (tabane: `new_name`)."""
    svc.rename_group(user, group, body.to)
    return Ok[bool].model_validate(ok(True, started))


# -- graph reads -----------------------------------------------------------------------------------


@router.post("/contexts/{context}/recall")
def recall(
    context: str, body: CueRecallIn, svc: Svc, user: User, started: Started
) -> Ok[MatchPage]:
    """Every edge touching `cue` as subject or object, strongest |weight| first."""
    found = svc.query(user, contexts=[context], any=body.cue, limit=body.limit, after=body.after)
    return Ok[MatchPage].model_validate(ok(page(found), started))


@router.post("/recall")
def cross_recall(body: CrossRecallIn, svc: Svc, user: User, started: Started) -> Ok[MatchPage]:
    """Cue recall across `contexts` and every context the `groups` reach, each match tagged
    with its context (tabane's `POST /recall` is the evidence read)."""
    found = svc.query(
        user,
        contexts=body.contexts,
        groups=body.groups,
        any=body.cue,
        limit=body.limit,
        after=body.after,
    )
    return Ok[MatchPage].model_validate(ok(page(found), started))


@router.post("/contexts/{context}/query")
def query(
    context: str, body: TaguruQueryIn, svc: Svc, user: User, started: Started
) -> Ok[MatchPage]:
    """Edges matching every position given, as `{total, matches, plan}`."""
    found = svc.query(user, contexts=[context], **body.model_dump(exclude_none=True))
    return Ok[MatchPage].model_validate(ok(page(found), started))


@router.post("/query")
def cross_query(body: TaguruCrossQueryIn, svc: Svc, user: User, started: Started) -> Ok[MatchPage]:
    """The query across `contexts` and every context the `groups` reach."""
    found = svc.query(user, **body.model_dump(exclude_none=True))
    return Ok[MatchPage].model_validate(ok(page(found), started))


@router.post("/contexts/{context}/resolve")
def resolve(
    context: str, body: ResolveIn, svc: Svc, user: User, started: Started
) -> Ok[list[TieredCandidate]]:
    """Concept candidates as one array: the lexical tier, then the semantic one."""
    found = svc.resolve(user, context, body.cue, **body.model_dump(exclude={"cue"}))
    return Ok[list[TieredCandidate]].model_validate(ok(flat(found), started))


@router.post("/contexts/{context}/resolve_label")
def resolve_label(
    context: str, body: ResolveIn, svc: Svc, user: User, started: Started
) -> Ok[list[TieredCandidate]]:
    """Label candidates as one array: the lexical tier, then the semantic one."""
    found = svc.resolve_label(user, context, body.cue, **body.model_dump(exclude={"cue"}))
    return Ok[list[TieredCandidate]].model_validate(ok(flat(found), started))


@router.post("/contexts/{context}/unreachable_from")
def unreachable_from(
    context: str, body: OriginsIn, svc: Svc, user: User, started: Started
) -> Ok[MatchPage]:
    """The associations no chain of edges joins to any of `origins` (tabane's own route takes
    one `origin` and answers concepts)."""
    found = svc.unreachable_edges(user, context, body.origins, limit=body.limit, after=body.after)
    return Ok[MatchPage].model_validate(ok(page(found), started))


# -- graph writes ----------------------------------------------------------------------------------


@router.post("/contexts/{context}/associations")
def add_associations(
    context: str,
    svc: Svc,
    user: User,
    started: Started,
    associations: AssociationArray = Body(),
) -> Ok[int]:
    """A bare array of associations, written all or nothing → how many were applied."""
    report = svc.add_claims(user, context, parse_claims(associations, "body"))
    return Ok[int].model_validate(ok(len(report.claims), started))


@router.post("/contexts/{context}/associations/retract")
def retract_association(
    context: str, body: EdgeRetractIn, svc: Svc, user: User, started: Started
) -> Ok[EdgeRetracted]:
    """Withdraw one association outright: every source's claims on it close; the edge stays
    at weight 0 with its history."""
    edge = (body.subject, body.label, body.object, None, None)
    report = svc.retract_associations(user, context, [edge])
    done = EdgeRetracted(retracted=report.associations > 0, attributions_removed=report.claims)
    return Ok[EdgeRetracted].model_validate(ok(done, started))


@router.post("/contexts/{context}/aliases")
def add_aliases(context: str, body: AliasesIn, svc: Svc, user: User, started: Started) -> Ok[int]:
    """Register `{concepts: {alias: canonical}, labels: {…}}` → how many were new."""
    pairs: list[tuple[Kind, str, str]] = [("concept", a, t) for a, t in body.concepts.items()]
    pairs += [("label", a, t) for a, t in body.labels.items()]
    added = 0
    for kind, alias, target in pairs:
        try:
            _, created = svc.add_alias(user, context, alias, target, kind=kind)
        except TabaneError as exc:
            exc.written = f"{added} alias(es) before this one" if added else exc.written
            raise
        added += int(created)
    return Ok[int].model_validate(ok(added, started))


@router.delete("/contexts/{context}/aliases")
def remove_aliases(
    context: str, body: AliasesRemoveIn, svc: Svc, user: User, started: Started
) -> Ok[int]:
    """Withdraw `{concepts: [alias], labels: [alias]}` → how many alias rows went."""
    removed = sum(svc.remove_alias(user, context, a, kind="concept") for a in body.concepts)
    removed += sum(svc.remove_alias(user, context, a, kind="label") for a in body.labels)
    return Ok[int].model_validate(ok(removed, started))


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
) -> Ok[CitationOut]:
    """One paragraph verbatim by `{source, paragraph}`, with its innermost heading and its
    locator."""
    c = svc.cite(user, context, body.source, body.paragraph)
    cited = CitationOut(
        text=c.text,
        source=c.source_id,
        section=c.section[-1] if c.section else None,
        locator=c.locator,
    )
    return Ok[CitationOut].model_validate(ok(cited, started))
