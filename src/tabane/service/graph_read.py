"""The service's graph reads: query (across contexts and groups), describe, activate, explore,
paths, unreachable_from, labels and association citations. Every read runs under the caller's
row-level security and counts a read (and a miss when it found nothing) on its contexts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from tabane.contexts import contexts as contexts_mod
from tabane.contexts import groups as groups_mod
from tabane.errors import InvalidInput, Issue
from tabane.graph import vocabulary
from tabane.graph.edges import Window
from tabane.graph.query import cite as query_cite
from tabane.graph.query import concepts as query_concepts
from tabane.graph.query import pattern as query_mod
from tabane.graph.query.cite import AssociationCitations
from tabane.graph.query.concepts import ConceptDescription, LabelPage
from tabane.graph.query.pattern import EdgeQuery, QueryResult
from tabane.graph.walk import paths as walk_paths
from tabane.graph.walk import walk
from tabane.graph.walk.fetch import Graph
from tabane.graph.walk.paths import PathsResult, UnreachableResult
from tabane.graph.walk.walk import ActivationResult, ExploredEdges, ExploreResult
from tabane.principal import Principal
from tabane.service.base import ServiceBase

R = TypeVar("R")


@dataclass(frozen=True)
class _Walk:
    """What every walk shares: the labels it may follow, one perspective, a valid-time window."""

    labels: Sequence[str] | None
    perspective: str | None
    since: datetime | None
    until: datetime | None


class GraphReadService(ServiceBase):
    def query(
        self,
        user: Principal,
        *,
        contexts: Sequence[str] = (),
        groups: Sequence[str] = (),
        subject: str | Sequence[str] | None = None,
        label: str | Sequence[str] | None = None,
        object: str | Sequence[str] | None = None,
        any: str | Sequence[str] | None = None,
        perspective: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int = query_mod.DEFAULT_LIMIT,
        after: str | None = None,
        include_retracted: bool = True,
    ) -> QueryResult:
        """Edges matching each given position (a spelling or an OR-list; `any`: touching a cue
        as subject or object) over `contexts` and every context the `groups` reach, strongest
        |weight| first, tagged with their context; `total` counts them all, `next` pages on.
        Edges whose claims all closed follow at weight 0 with their history, unless
        `include_retracted` is False."""
        q = EdgeQuery.build(
            subject=subject,
            label=label,
            object=object,
            any=any,
            perspective=perspective,
            since=since,
            until=until,
            limit=limit,
            after=after,
            include_retracted=include_retracted,
        )
        if not contexts and not groups:
            raise InvalidInput(
                "name at least one context or group",
                issues=[Issue("contexts", "empty, and no groups either")],
            )
        with self.store.session(user) as session:
            reached = groups_mod.expand(session, list(contexts), list(groups))
            result = query_mod.query(session, reached, q)
            hit = {e.context for e in result.edges}
            for ctx in reached:
                found = ctx.name in hit or (result.total > 0 and result.next is not None)
                contexts_mod.bump(session, ctx.id, reads=1, misses=0 if found else 1)
            return result

    def describe(self, user: Principal, context: str, concept: str) -> ConceptDescription:
        """One concept: label counts per role (as subject, as object), degree, Σ|weight|, and
        its aliases."""
        with self.store.session(user) as session:
            ctx = contexts_mod.resolve(session, context)
            (name,) = query_mod.concepts_named(session, ctx, concept, "concept")
            result = query_concepts.describe(session, ctx, name)
            contexts_mod.bump(session, ctx.id, reads=1, misses=0 if result.degree else 1)
            return result

    def activate(
        self,
        user: Principal,
        context: str,
        origins: str | Sequence[str],
        *,
        decay: float = 0.5,
        limit: int = 20,
        min_activation: float = 1e-6,
        labels: Sequence[str] | None = None,
        perspective: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> ActivationResult:
        """Best-first spreading activation from `origins` (each at 1.0): the `limit` most
        activated other concepts, each with the path that reached it."""
        walk.check_activate(decay, limit, min_activation)
        return self._walk(
            user,
            context,
            origins,
            _Walk(labels, perspective, since, until),
            lambda graph, start: walk.activate(
                graph, start, decay=decay, limit=limit, min_activation=min_activation
            ),
            lambda result: bool(result.concepts),
        )

    def explore(
        self,
        user: Principal,
        context: str,
        origins: str | Sequence[str],
        *,
        depth: int = 2,
        labels: Sequence[str] | None = None,
        limit: int = 1000,
        perspective: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> ExploreResult:
        """Every concept within `depth` hops of the origins, with its hop distance."""
        walk.check_explore(depth, limit)
        return self._walk(
            user,
            context,
            origins,
            _Walk(labels, perspective, since, until),
            lambda graph, start: walk.explore(graph, start, depth=depth, limit=limit),
            lambda result: bool(result.concepts),
        )

    def explore_edges(
        self,
        user: Principal,
        context: str,
        origins: str | Sequence[str],
        *,
        depth: int = walk.MAX_DEPTH,
        limit: int = 1000,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> ExploredEdges:
        """Every edge within `depth` hops of the origins, nearest first, each with the path
        that reached it (Taguru's explore); the nearest `limit` are kept."""
        walk.check_explore(depth, limit)
        return self._walk(
            user,
            context,
            origins,
            _Walk(None, None, since, until),
            lambda graph, start: walk.explore_edges(graph, start, depth=depth, limit=limit),
            lambda result: bool(result.matches),
        )

    def paths(
        self,
        user: Principal,
        context: str,
        origins: str | Sequence[str],
        targets: str | Sequence[str],
        *,
        max_depth: int = 4,
        budget: int = 1000,
        limit: int = 10,
        labels: Sequence[str] | None = None,
        perspective: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> PathsResult:
        """Simple paths from any origin to any target, shortest first; `capped` when the
        expansion budget ran out before the search was complete."""
        walk_paths.check_paths(max_depth, budget, limit)
        return self._walk(
            user,
            context,
            origins,
            _Walk(labels, perspective, since, until),
            lambda graph, start: walk_paths.paths(
                graph,
                start,
                query_mod.concepts_named(graph.session, graph.ctx, targets, "targets"),
                max_depth=max_depth,
                budget=budget,
                limit=limit,
            ),
            lambda result: bool(result.paths),
        )

    def _walk(
        self,
        user: Principal,
        context: str,
        origins: str | Sequence[str],
        how: _Walk,
        run: Callable[[Graph, tuple[str, ...]], R],
        found: Callable[[R], bool],
    ) -> R:
        """One walk in one transaction: resolve the origins, build the caller's view of the
        graph (labels, perspective, window), run, and count the read (a miss when nothing was
        found)."""
        with self.store.session(user) as session:
            ctx = contexts_mod.resolve(session, context)
            start = query_mod.concepts_named(session, ctx, origins, "origins")
            graph = Graph(
                session,
                ctx,
                labels=query_mod.labels_named(session, ctx, how.labels),
                perspective=how.perspective,
                window=window(how.since, how.until),
            )
            result = run(graph, start)
            contexts_mod.bump(session, ctx.id, reads=1, misses=0 if found(result) else 1)
            return result

    def unreachable_from(
        self,
        user: Principal,
        context: str,
        origin: str,
        *,
        limit: int = 100,
        after: str | None = None,
    ) -> UnreachableResult:
        """The coverage audit: the context's concepts no chain of edges joins to `origin`."""
        walk_paths.check_page(limit)
        with self.store.session(user) as session:
            ctx = contexts_mod.resolve(session, context)
            (start,) = query_mod.concepts_named(session, ctx, origin, "origin")
            result = walk_paths.unreachable_from(
                Graph(session, ctx), start, limit=limit, after=after
            )
            contexts_mod.bump(session, ctx.id, reads=1)
            return result

    def unreachable_edges(
        self,
        user: Principal,
        context: str,
        origins: str | Sequence[str],
        *,
        limit: int = 100,
        after: str | None = None,
    ) -> QueryResult:
        """Taguru's coverage audit: the context's edges that no chain of edges joins to any of
        `origins`, strongest |weight| first (query's order and cursor)."""
        walk_paths.check_page(limit)
        with self.store.session(user) as session:
            ctx = contexts_mod.resolve(session, context)
            starts = query_mod.concepts_named(session, ctx, origins, "origins")
            _, islands = walk_paths.cut_off(Graph(session, ctx), starts)
            contexts_mod.bump(session, ctx.id, reads=1)
            if not islands:
                return QueryResult((), 0, None, (ctx.name,))
            q = EdgeQuery.build(subject=islands, limit=limit, after=after)
            return query_mod.query(session, [ctx], q)

    def labels(
        self,
        user: Principal,
        context: str,
        *,
        prefix: str | None = None,
        limit: int = 100,
        after: str | None = None,
    ) -> LabelPage:
        """The label vocabulary (canonical spellings) with live edge counts, a page at a time."""
        with self.store.session(user) as session:
            ctx = contexts_mod.resolve(session, context)
            page = query_concepts.labels(session, ctx, prefix=prefix, limit=limit, after=after)
            contexts_mod.bump(session, ctx.id, reads=1, misses=0 if page.labels else 1)
            return page

    def association_citations(
        self,
        user: Principal,
        context: str,
        subject: str,
        label: str,
        object: str,
        *,
        perspective: str | None = None,
    ) -> AssociationCitations:
        """The claims behind one association with the cited paragraphs' text, section and
        locator, per perspective partition."""
        issues: list[Issue] = []
        spelled = [
            vocabulary.check_spelling(v, p, issues)
            for v, p in ((subject, "subject"), (label, "label"), (object, "object"))
        ]
        query_mod.raise_if(issues, "association")
        s, lab, o = (x or "" for x in spelled)
        with self.store.session(user) as session:
            ctx = contexts_mod.resolve(session, context)
            s, o = query_mod.require_concepts(session, ctx, [s, o], ["subject", "object"])
            (lab,), _ = query_mod.canonical_of(session, ctx.id, "label", [lab])
            result = query_cite.citations(session, ctx, s, lab, o, perspective)
            contexts_mod.bump(session, ctx.id, reads=1)
            return result


def window(since: datetime | None, until: datetime | None) -> Window | None:
    """The valid-time window of a walk: weights from the claims valid in [since, until)."""
    if since is None and until is None:
        return None
    if since is not None and until is not None and since >= until:
        raise InvalidInput("until must be after since", issues=[Issue("until", "not after since")])
    return Window(since, until)
