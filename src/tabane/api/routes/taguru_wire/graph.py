"""Graph reads and writes in Taguru's form."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Query

from tabane.api.deps import Svc, User
from tabane.api.routes.taguru_wire.common import Started, ok, page
from tabane.errors import NoConcept, TabaneError
from tabane.graph.claims.parse import parse_claims
from tabane.graph.edges import Edge
from tabane.graph.query.concepts import MAX_LABEL_PAGE
from tabane.graph.resolve.resolver import Resolution
from tabane.wire.graph_read import DescribeIn
from tabane.wire.graph_write import Kind
from tabane.wire.resolve import ResolveExplainIn, ResolveIn, ResolveLabelExplainIn
from tabane.wire.taguru import (
    ActivationMatch,
    ActivationPage,
    AliasesIn,
    AliasesPage,
    AliasesRemoveIn,
    AssociationArray,
    CrossRecallIn,
    CueRecallIn,
    EdgeRetracted,
    EdgeRetractIn,
    LabelsPage,
    MatchPage,
    Ok,
    OriginsIn,
    Outline,
    PathMatch,
    PathsPage,
    TaguruActivateIn,
    TaguruCrossQueryIn,
    TaguruPathsIn,
    TaguruQueryIn,
    TieredCandidate,
    Verdict,
    association,
    keyset,
)
from tabane.wire.taguru.sources import epoch
from tabane.wire.taguru.upkeep import ExploreMatch, ExplorePage, TaguruExploreIn

router = APIRouter()


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


@router.get("/contexts/{context}/labels")
def labels(
    context: str,
    svc: Svc,
    user: User,
    started: Started,
    limit: Annotated[int, Query(ge=1, le=1000, description="labels per page")] = 1000,
    after: Annotated[str | None, Query(description="the last label of the previous page")] = None,
) -> Ok[LabelsPage]:
    """The relation vocabulary (canonical labels), by spelling."""
    names: list[str] = []
    cursor: str | None = None
    while True:
        found = svc.labels(user, context, limit=MAX_LABEL_PAGE, after=cursor)
        names += [u.label for u in found.labels]
        if (cursor := found.next) is None:
            break
    listed = LabelsPage(total=len(names), labels=keyset(names, limit, after))
    return Ok[LabelsPage].model_validate(ok(listed, started))


@router.get("/contexts/{context}/aliases")
def list_aliases(
    context: str,
    svc: Svc,
    user: User,
    started: Started,
    limit: Annotated[int, Query(ge=1, le=1000, description="aliases per page")] = 1000,
    after: Annotated[
        str | None, Query(description="the last entry shown: `concept:ALIAS` or `label:ALIAS`")
    ] = None,
) -> Ok[AliasesPage]:
    """Both namespaces' aliases, concepts first, one page (`after` names the last entry)."""
    found = {f"{a.kind}:{a.alias}": a for a in svc.list_aliases(user, context)}

    def place(key: str) -> tuple[bool, str]:
        return (not key.startswith("concept:"), key)

    order = [k for k in sorted(found, key=place) if after is None or place(k) > place(after)]
    shown = [found[k] for k in order[:limit]]
    listed = AliasesPage(
        total=len(found),
        concepts={a.alias: a.target for a in shown if a.kind == "concept"},
        labels={a.alias: a.target for a in shown if a.kind == "label"},
    )
    return Ok[AliasesPage].model_validate(ok(listed, started))


@router.post("/contexts/{context}/activate")
def activate(
    context: str, body: TaguruActivateIn, svc: Svc, user: User, started: Started
) -> Ok[ActivationPage]:
    """Spreading activation from the origins: per reached concept, the edge that carried the
    activation there, with its strength and path (strongest first; never compare calls)."""
    found = svc.activate(
        user,
        context,
        body.origins,
        decay=body.decay,
        limit=body.limit,
        since=epoch(body.since),
        until=epoch(body.until),
    )
    full = {(e.subject, e.label, e.object, e.perspective): e for e in found.edges}
    matches = [
        ActivationMatch(
            strength=a.activation,
            path=list(a.via),
            association=association(full.get(_key(a.path[-1]), a.path[-1])),
        )
        for a in found.concepts
        if a.path
    ]
    done = ActivationPage(total=len(matches), matches=matches)
    return Ok[ActivationPage].model_validate(ok(done, started))


def _key(edge: Edge) -> tuple[str, str, str, str | None]:
    return (edge.subject, edge.label, edge.object, edge.perspective)


@router.post("/contexts/{context}/explore")
def explore(
    context: str, body: TaguruExploreIn, svc: Svc, user: User, started: Started
) -> Ok[ExplorePage]:
    """Every association within `max_depth` hops of the origins, nearest first, each with its
    hop `distance` and the `path` of concepts that reached its near end. Distance is not
    order: replay a procedure by its next-step edges with `query`."""
    found = svc.explore_edges(
        user,
        context,
        body.origins,
        depth=body.max_depth,
        limit=body.limit,
        since=epoch(body.since),
        until=epoch(body.until),
    )
    matches = [
        ExploreMatch(distance=m.distance, path=list(m.via), association=association(m.edge))
        for m in found.matches
    ]
    return Ok[ExplorePage].model_validate(
        ok(ExplorePage(total=len(matches), matches=matches), started)
    )


@router.post("/contexts/{context}/paths")
def paths(
    context: str, body: TaguruPathsIn, svc: Svc, user: User, started: Started
) -> Ok[PathsPage]:
    """Every simple path from an origin to a target, shortest first, each hop an association."""
    found = svc.paths(
        user, context, body.origins, body.targets, max_depth=body.max_depth, limit=body.limit
    )
    matches = [
        PathMatch(
            distance=len(p.edges),
            path=list(p.concepts),
            strength=min(abs(e.weight) for e in p.edges),
            associations=[association(e) for e in p.edges],
        )
        for p in found.paths
        if p.edges
    ]
    done = PathsPage(total=len(matches), capped=found.capped, matches=matches)
    return Ok[PathsPage].model_validate(ok(done, started))


@router.post("/contexts/{context}/describe")
def describe(
    context: str, body: DescribeIn, svc: Svc, user: User, started: Started
) -> Ok[Outline | None]:
    """One concept's outline: its labels per role with their counts; `null` for a concept the
    context does not have (tabane's root route answers 404 `no_concept`)."""
    try:
        found: Outline | None = Outline.of(svc.describe(user, context, body.concept))
    except NoConcept:
        found = None
    return Ok[Outline | None].model_validate(ok(found, started))


@router.post("/contexts/{context}/resolve/explain")
def explain_resolve(
    context: str, body: ResolveExplainIn, svc: Svc, user: User, started: Started
) -> Ok[Verdict]:
    """Why `expected` is or is not among resolve's candidates for `cue`: the first verdict
    that applies, under Taguru's names (`cue_resolved_exactly`, `below_cutoff`,
    `semantic_not_run`; tabane's evidence beside)."""
    found = svc.explain_resolve(
        user, context, body.cue, body.expected, kind="concept", **body.options()
    )
    return Ok[Verdict].model_validate(ok(Verdict.of(found), started))


@router.post("/contexts/{context}/resolve_label/explain")
def explain_resolve_label(
    context: str, body: ResolveLabelExplainIn, svc: Svc, user: User, started: Started
) -> Ok[Verdict]:
    """The explain twin of `resolve_label`, under Taguru's verdict names."""
    found = svc.explain_resolve(
        user, context, body.cue, body.expected, kind="label", **body.options()
    )
    return Ok[Verdict].model_validate(ok(Verdict.of(found), started))
