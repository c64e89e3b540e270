"""The graph read tools: query, describe, activate, explore, paths, unreachable_from, labels,
citations. Each is a thin shell over the `Tabane` facade."""

from __future__ import annotations

from tabane.derive.communities.communities import CommunitySearch
from tabane.graph.query.cite import AssociationCitations
from tabane.graph.query.concepts import ConceptDescription, LabelPage
from tabane.graph.query.pattern import QueryResult
from tabane.graph.walk.paths import PathsResult, UnreachableResult
from tabane.graph.walk.walk import ActivationResult, ExploreResult
from tabane.mcp.registry import tool
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.wire.derive import CommunitySearchArgs
from tabane.wire.graph_read import (
    ActivateArgs,
    CiteAssociationArgs,
    DescribeArgs,
    ExploreArgs,
    FindPathsArgs,
    ListLabelsArgs,
    QueryGraphArgs,
    UnreachableArgs,
)


@tool("read")
def query_graph(svc: Tabane, user: Principal, a: QueryGraphArgs) -> QueryResult:
    """Edges (subject, label, object, weight) of `contexts` and/or `groups`, strongest |weight|
    first, each with its context and attributions (source, paragraph, section). Resolve every cue
    first (`resolve`, `resolve_label`) and pass the canonical spelling. Each position takes one
    spelling or a list (OR); `any` returns every edge touching a concept as subject or object.
    "Why X?": label = the causal labels (e.g. ['causes', 'increases']) and object = X. A negative
    weight means "not" ("does not cause"); a small net weight with split attributions is a
    disputed edge: say so. Replay a procedure by query: the first_step edge from it, then
    label='next_step' for every pair, lined up — never by explore's hop distance. `total` counts
    every match; pass `next` back as `after` for more. Weights drop, edges stay: an edge whose
    claims were all retracted comes last at weight 0, its attributions its closed claims (pass
    include_retracted=false for live edges only)."""
    return svc.query(user, contexts=a.contexts, groups=a.groups, **a.kwargs())


@tool("read")
def describe_concept(svc: Tabane, user: Principal, a: DescribeArgs) -> ConceptDescription:
    """One concept of a context: how many edges carry each label with it as subject and as
    object, its degree, its total |weight| and its aliases. Use it to tell case twins apart
    (`Frame` the type, `frame` the accessor) when `resolve` returns both at 1.0."""
    return svc.describe(user, a.context, a.concept)


@tool("read")
def activate(svc: Tabane, user: Principal, a: ActivateArgs) -> ActivationResult:
    """Spreading activation from resolved origin concepts: the concepts most strongly associated
    with them, each with the path of edges that reached it. A hub passes little along each of its
    many edges (its flow is divided by its total |weight|); reported edge weights are the real
    ones. A chain A→B→C is shown, never asserted as A→C: transitivity is your judgment. Read
    `edges` for their attributions before relying on one."""
    return svc.activate(user, a.context, a.origins, **a.options())


@tool("read")
def explore(svc: Tabane, user: Principal, a: ExploreArgs) -> ExploreResult:
    """Concepts within `depth` hops of resolved origins, with their hop distance (edges in either
    direction; a shared label never connects two edges). Hop distance is not order: membership
    edges through a procedure's hub make shortcuts, so replay steps with `query_graph` on
    next_step edges instead."""
    return svc.explore(user, a.context, a.origins, **a.options())


@tool("read")
def find_paths(svc: Tabane, user: Principal, a: FindPathsArgs) -> PathsResult:
    """Simple paths between resolved origins and targets, shortest first, each hop the strongest
    edge between its two concepts. `capped: true` means the expansion budget ran out before the
    search finished (raise `budget` or narrow `labels`); `truncated: true` means `limit` paths
    were found and more may exist."""
    return svc.paths(
        user,
        a.context,
        a.origins,
        a.targets,
        **a.options(),
    )


@tool("read")
def unreachable_from(svc: Tabane, user: Principal, a: UnreachableArgs) -> UnreachableResult:
    """The coverage audit after ingesting a document: concepts of the context that no chain of
    edges joins to `origin` (its main entity). Each is an island you probably forgot to connect
    (implicit membership: whose master brewer?). Write the missing edge rather than ignore it."""
    return svc.unreachable_from(user, a.context, a.origin, limit=a.limit, after=a.after)


@tool("read")
def list_labels(svc: Tabane, user: Principal, a: ListLabelsArgs) -> LabelPage:
    """The label vocabulary of a context with how many edges use each. Read it before writing
    edges and reuse an existing label instead of minting a near-synonym."""
    return svc.labels(user, a.context, prefix=a.prefix, limit=a.limit, after=a.after)


@tool("read")
def cite_association(svc: Tabane, user: Principal, a: CiteAssociationArgs) -> AssociationCitations:
    """The claims behind one edge with the original sentences: each cited paragraph's text,
    source title, section and locator, per perspective partition. Verify an edge against its
    text before you rely on it, and cite what you use."""
    return svc.association_citations(
        user, a.context, a.subject, a.label, a.object, perspective=a.perspective
    )


@tool("read")
def search_communities(svc: Tabane, user: Principal, a: CommunitySearchArgs) -> CommunitySearch:
    """Communities (clusters of the context's concept graph, built offline) whose member names or
    summary share terms with `query`, by the share of its terms found: the topic a concept belongs
    to, or which topics a context covers. `stale` says the graph changed after the build; `built`
    false means none was built yet. An overview: check facts with `query_graph` or
    `describe_concept`."""
    return svc.search_communities(user, a.context, a.query, a.limit)
