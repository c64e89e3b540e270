"""The graph reads over HTTP (Taguru-compatible paths): query per context and across contexts and
groups, describe, activate, explore, paths, unreachable_from, labels and association citations.
Each route is one facade call."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from tabane.api.deps import Svc, User
from tabane.graph.query.concepts import LabelPage
from tabane.graph.walk.paths import UnreachableResult
from tabane.graph.walk.walk import ExploreResult
from tabane.wire.base import ERROR_RESPONSES, out
from tabane.wire.graph_read import (
    LABEL_PAGE,
    ActivateIn,
    ActivateOut,
    CitationsIn,
    CitationsOut,
    CrossQueryIn,
    DescribeIn,
    DescribeOut,
    ExploreIn,
    PathsIn,
    PathsOut,
    QueryIn,
    QueryOut,
    UnreachableIn,
)

router = APIRouter(tags=["graph"], responses=ERROR_RESPONSES)


@router.post("/contexts/{context}/query")
def query_context(context: str, body: QueryIn, svc: Svc, user: User) -> QueryOut:
    """Edges of one context matching every position given (each a spelling or an OR-list; `any`:
    touching a cue as subject or object), strongest |weight| first, with their attributions.
    "Why X?" is `label` = the causal labels and `object` = X. `total` counts every match; pass
    `next` back as `after` for the next page."""
    return out(QueryOut, svc.query(user, contexts=[context], **body.kwargs()))


@router.post("/query")
def query_across(body: CrossQueryIn, svc: Svc, user: User) -> QueryOut:
    """The same over `contexts` and every context the `groups` reach (nested groups included,
    overlaps once); edges merge on |weight| and carry their context."""
    return out(
        QueryOut,
        svc.query(user, contexts=body.contexts, groups=body.groups, **body.kwargs()),
    )


@router.post("/contexts/{context}/describe")
def describe(context: str, body: DescribeIn, svc: Svc, user: User) -> DescribeOut:
    """One concept: its label counts as subject and as object, degree, Σ|weight| and aliases.
    Breaks the tie between case twins (`Frame` and `frame`) that resolve both return."""
    return out(DescribeOut, svc.describe(user, context, body.concept))


@router.post("/contexts/{context}/activate")
def activate(context: str, body: ActivateIn, svc: Svc, user: User) -> ActivateOut:
    """Best-first spreading activation from the origins: the most activated other concepts, each
    with the path that reached it (A→B→C is shown, A→C never asserted). A hub's onward flow is
    divided by its total |weight|; reported edge weights are not."""
    result = svc.activate(
        user,
        context,
        body.origins,
        **body.options(),
    )
    return out(ActivateOut, result)


@router.post("/contexts/{context}/explore")
def explore(context: str, body: ExploreIn, svc: Svc, user: User) -> ExploreResult:
    """Concepts within `depth` hops of the origins with their hop distance (labels never bridge).
    Hop distance is not order: replay a procedure by its next-step edges with `query`."""
    result = svc.explore(
        user,
        context,
        body.origins,
        **body.options(),
    )
    return result


@router.post("/contexts/{context}/paths")
def paths(context: str, body: PathsIn, svc: Svc, user: User) -> PathsOut:
    """Simple paths from the origins to the targets, shortest first; `capped` when the expansion
    budget ran out, `truncated` when `limit` paths were found."""
    result = svc.paths(
        user,
        context,
        body.origins,
        body.targets,
        **body.options(),
    )
    return out(PathsOut, result)


@router.post("/contexts/{context}/unreachable_from")
def unreachable_from(context: str, body: UnreachableIn, svc: Svc, user: User) -> UnreachableResult:
    """The coverage audit: the context's concepts that no chain of edges joins to `origin`
    (islands a document forgot to connect to its main entity), a page at a time."""
    return svc.unreachable_from(user, context, body.origin, limit=body.limit, after=body.after)


@router.get("/contexts/{context}/labels")
def labels(
    context: str,
    svc: Svc,
    user: User,
    prefix: Annotated[str | None, Query(description="spelling or normalized prefix")] = None,
    limit: Annotated[int, Query(ge=1, le=LABEL_PAGE)] = 100,
    after: Annotated[str | None, Query(description="`next` of the previous page")] = None,
) -> LabelPage:
    """The label vocabulary with live edge counts, in spelling order. Reuse a label before
    minting a new one."""
    return svc.labels(user, context, prefix=prefix, limit=limit, after=after)


@router.post("/contexts/{context}/associations/citations")
def association_citations(context: str, body: CitationsIn, svc: Svc, user: User) -> CitationsOut:
    """The claims behind one association with the cited paragraph's text, title, section and
    locator, per perspective partition: the original sentences to verify the edge against."""
    result = svc.association_citations(
        user, context, body.subject, body.label, body.object, perspective=body.perspective
    )
    return out(CitationsOut, result)
