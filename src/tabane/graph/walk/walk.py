"""`activate` (best-first spreading activation) and `explore` (breadth-first hop distances),
per context. Neighbours are fetched a batch at a time (graph/walk/fetch.py), never the whole graph.

Activation. Each origin starts at 1.0. Along an edge e from u to a neighbour v flows
a(u) · decay · |w_e| / max(1, W(u)), where W(u) = Σ|w| over u's edges: a hub passes little along
each of its many edges, while each edge's reported weight stays its own net weight. Edges are
followed in both directions; a negative edge ("not") carries |w| and is reported with its sign.
A concept's activation is that of its best path (max over paths, like a shortest-path search:
every factor is at most 1, so the first time a concept is taken off the queue its activation is
final). The walk stops below `min_activation` or once `limit` concepts are final. Each result
carries the path that reached it: a caller sees A→B→C; tabane never asserts A→C.

Hubs are fetched by rank: a node's CHUNK strongest edges first, and the rest only when the bound
on what they could still pass (a(u) · decay · |w_last| / W(u)) reaches the front of the queue.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass

from tabane.errors import Issue
from tabane.graph.edges import Edge
from tabane.graph.query.pattern import check_int, raise_if
from tabane.graph.walk.fetch import Chunk, Graph, Hop, bare

MAX_ACTIVATE = 1000
MAX_DEPTH = 10
MAX_EXPLORE = 10_000
CHUNK = 50  # edges fetched per node at first; a typical node has fewer, a hub many more
# Nodes fetched per statement at most: the next-best queued nodes ride along, never more than
# the walk can still report. 1M edges, limit 20 (80 origins): 8 fixed took 4 statements, 24.8
# nodes and 11.5 ms; 10 fixed 3.15, 21.9 and 8.8 ms; up to 16 and no more than still wanted
# 3.0, 21.1 and 8.4 ms (up to 24: 2.75, 21.1, 9.0 ms).
PREFETCH = 16


@dataclass(frozen=True)
class Activated:
    concept: str
    activation: float
    depth: int  # edges on its path
    via: tuple[str, ...]  # the concepts of its path, origin first, itself last
    path: tuple[Edge, ...]  # the path's edges (attributions: see the result's `edges`)


@dataclass(frozen=True)
class ActivationResult:
    context: str
    origins: tuple[str, ...]
    concepts: tuple[Activated, ...]
    edges: tuple[Edge, ...]  # every edge on a path, with attributions
    expanded: int  # nodes whose edges were read
    statements: int


def check_activate(decay: object, limit: object, min_activation: object) -> None:
    issues: list[Issue] = []
    for name, value, lo, lo_open in (
        ("decay", decay, 0.0, True),
        ("min_activation", min_activation, 0.0, True),
    ):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
            issues.append(Issue(name, "not a number"))
        elif not (lo < value <= 1.0 if lo_open else lo <= value <= 1.0):
            issues.append(Issue(name, f"{value} not in (0, 1]"))
    check_int(limit, "limit", 1, MAX_ACTIVATE, issues)
    raise_if(issues, "activation")


_NODE, _REST = 1, 0  # at equal activation a hub's remaining edges are read first


def activate(
    graph: Graph,
    origins: Sequence[str],
    *,
    decay: float = 0.5,
    limit: int = 20,
    min_activation: float = 1e-6,
) -> ActivationResult:
    """`origins` are canonical concepts of the graph's context (the service checks)."""
    act: dict[str, float] = dict.fromkeys(origins, 1.0)
    depth: dict[str, int] = dict.fromkeys(origins, 0)
    parent: dict[str, tuple[str, Hop]] = {}
    heap = [(-1.0, _NODE, 0, o) for o in origins]  # (-activation, kind, depth, concept)
    heapq.heapify(heap)
    done: set[str] = set()
    cache: dict[str, Chunk] = {}
    found: list[str] = []
    expanded = 0

    def relax(u: str, hops: Sequence[Hop], strength: float) -> None:
        share = act[u] * decay / max(1.0, strength)
        for hop in hops:
            flow = share * abs(hop.weight)
            if flow < min_activation:
                break  # hops are strongest first
            v = hop.other
            if v in done or flow <= act.get(v, 0.0):
                continue
            act[v], depth[v], parent[v] = flow, depth[u] + 1, (u, hop)
            heapq.heappush(heap, (-flow, _NODE, depth[v], v))

    while heap and len(found) < limit:
        neg, kind, _, u = heapq.heappop(heap)
        if -neg < min_activation:
            break
        if kind == _REST:
            expanded += 1
            rest = graph.chunks([u], CHUNK, None)[u]
            relax(u, rest.hops, rest.strength)
            continue
        if u in done or -neg < act[u]:
            continue  # a stale entry
        done.add(u)
        if u not in origins:
            found.append(u)
            if len(found) >= limit:
                break
        if u not in cache:
            size = min(PREFETCH, limit - len(found) + 1)  # no more than can still be found
            batch = [u, *_next_best(heap, done, cache, size - 1)]
            cache.update(graph.chunks(batch, 0, CHUNK))
        chunk = cache.pop(u)
        expanded += 1
        relax(u, chunk.hops, chunk.strength)
        if chunk.degree > len(chunk.hops) and chunk.hops:
            bound = act[u] * decay * abs(chunk.hops[-1].weight) / max(1.0, chunk.strength)
            if bound >= min_activation:
                heapq.heappush(heap, (-bound, _REST, depth[u] + 1, u))

    return _activated(graph, origins, found, act, depth, parent, expanded)


def _activated(
    graph: Graph,
    origins: Sequence[str],
    found: list[str],
    act: dict[str, float],
    depth: dict[str, int],
    parent: dict[str, tuple[str, Hop]],
    expanded: int,
) -> ActivationResult:
    """The concepts found, each with the path that activated it (followed back through
    `parent`), and every edge of those paths, strongest first."""
    used: dict[tuple[str, ...], Hop] = {}
    paths: dict[str, list[tuple[str, Hop]]] = {}
    for v in found:
        steps: list[tuple[str, Hop]] = []
        node = v
        while node in parent:
            prev, hop = parent[node]
            steps.append((prev, hop))
            used.setdefault(hop.id, hop)
            node = prev
        paths[v] = steps[::-1]
    full = graph.edges(list(used.values()))
    concepts = tuple(
        Activated(
            concept=v,
            activation=act[v],
            depth=depth[v],
            via=(*(prev for prev, _ in paths[v]), v),
            path=tuple(bare(full[hop.id]) for _, hop in paths[v]),
        )
        for v in found
    )
    ordered = sorted(
        full.values(),
        key=lambda e: (-abs(e.weight), e.subject, e.label, e.object, e.perspective or ""),
    )
    return ActivationResult(
        graph.ctx.name, tuple(origins), concepts, tuple(ordered), expanded, graph.statements
    )


def _next_best(
    heap: list[tuple[float, int, int, str]], done: set[str], cache: dict[str, Chunk], n: int
) -> list[str]:
    """Up to n queued concepts most likely to be expanded next (fetched along, speculatively)."""
    out: list[str] = []
    for _, kind, _, v in heapq.nsmallest(4 * n, heap):
        if kind == _NODE and v not in done and v not in cache and v not in out:
            out.append(v)
            if len(out) == n:
                break
    return out


@dataclass(frozen=True)
class Reached:
    concept: str
    distance: int


@dataclass(frozen=True)
class ExploreResult:
    context: str
    origins: tuple[str, ...]
    depth: int
    concepts: tuple[Reached, ...]  # by distance, then spelling; origins not included
    capped: bool  # more concepts were within reach than `limit`


def check_explore(depth: object, limit: object) -> None:
    issues: list[Issue] = []
    check_int(depth, "depth", 1, MAX_DEPTH, issues)
    check_int(limit, "limit", 1, MAX_EXPLORE, issues)
    raise_if(issues, "explore request")


def explore(
    graph: Graph, origins: Sequence[str], *, depth: int = 2, limit: int = 1000
) -> ExploreResult:
    """Breadth-first: every concept within `depth` hops of an origin, with its distance. Hop
    distance is not order: never replay a procedure by it (use its next-step edges)."""
    seen = set(origins)
    frontier = sorted(seen)
    reached: list[Reached] = []
    capped = False
    for d in range(1, depth + 1):
        new = sorted(graph.neighbours(frontier) - seen)
        if not new:
            break
        if len(reached) + len(new) > limit:
            new = new[: limit - len(reached)]
            capped = True
        reached.extend(Reached(v, d) for v in new)
        seen.update(new)
        frontier = new
        if capped:
            break
    return ExploreResult(graph.ctx.name, tuple(origins), depth, tuple(reached), capped)


@dataclass(frozen=True)
class Explored:
    """One edge a breadth-first walk met: `distance` hops from an origin to its far end,
    `via` the concepts from that origin to its near end."""

    distance: int
    via: tuple[str, ...]
    edge: Edge


@dataclass(frozen=True)
class ExploredEdges:
    context: str
    matches: tuple[Explored, ...]  # nearest first, each node's strongest edges first
    capped: bool  # more edges were within reach than `limit`: the nearest were kept


def explore_edges(
    graph: Graph, origins: Sequence[str], *, depth: int = MAX_DEPTH, limit: int = 1000
) -> ExploredEdges:
    """Breadth-first, by edge (Taguru's explore): every edge met within `depth` hops, once, with
    the path that first reached its near end. Hop distance is not order."""
    via: dict[str, tuple[str, ...]] = {o: (o,) for o in origins}
    frontier, met, found = sorted(via), set(), []
    for d in range(1, depth + 1):
        arrived: list[str] = []
        for node, hops in sorted(graph.hops(frontier).items()):
            for h in hops:
                if h.id not in met:
                    met.add(h.id)
                    found.append((d, via[node], h))
                if h.other not in via:
                    via[h.other] = (*via[node], h.other)
                    arrived.append(h.other)
        frontier = sorted(set(arrived))
        if len(found) >= limit or not frontier:
            break
    capped = len(found) > limit or (
        len(found) == limit and d < depth and _unmet(graph, frontier, met)
    )
    kept = found[:limit]
    edges = graph.edges([h for _, _, h in kept])
    matches = tuple(Explored(d, path, edges[h.id]) for d, path, h in kept)
    return ExploredEdges(graph.ctx.name, matches, capped)


def _unmet(graph: Graph, nodes: Sequence[str], met: set[tuple[str, str, str, str]]) -> bool:
    """Whether the next hop would meet an edge not met yet (a walk cut exactly at `limit`)."""
    return bool(nodes) and any(h.id not in met for hops in graph.hops(nodes).values() for h in hops)
