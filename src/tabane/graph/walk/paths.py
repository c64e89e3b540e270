"""`paths` (simple paths between origins and targets under an expansion budget) and
`unreachable_from` (the coverage audit: concepts an origin cannot reach)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select

from tabane.errors import Issue
from tabane.graph.edges import Edge
from tabane.graph.query.pattern import check_int, decode_cursor, encode_cursor, raise_if
from tabane.graph.walk.fetch import Graph, Hop
from tabane.graph.walk.walk import MAX_DEPTH
from tabane.storage.schema import VocabEntry

MAX_BUDGET = 100_000
MAX_PATHS = 1000
MAX_PARTIAL = 200_000  # partial paths held at once; beyond it the search is capped too
MAX_UNREACHABLE_PAGE = 10_000


@dataclass(frozen=True)
class Path:
    concepts: tuple[str, ...]  # origin first, target last
    edges: tuple[Edge, ...]  # one per hop: the strongest edge between the two concepts


@dataclass(frozen=True)
class PathsResult:
    context: str
    origins: tuple[str, ...]
    targets: tuple[str, ...]
    paths: tuple[Path, ...]  # shortest first, then by their concepts
    expanded: int  # concepts whose edges were read
    capped: bool  # the budget ran out (or too many partial paths): more paths may exist
    truncated: bool  # `limit` paths were found; more may exist


def check_paths(max_depth: object, budget: object, limit: object) -> None:
    issues: list[Issue] = []
    check_int(max_depth, "max_depth", 1, MAX_DEPTH, issues)
    check_int(budget, "budget", 1, MAX_BUDGET, issues)
    check_int(limit, "limit", 1, MAX_PATHS, issues)
    raise_if(issues, "paths request")


def paths(
    graph: Graph,
    origins: Sequence[str],
    targets: Sequence[str],
    *,
    max_depth: int = 4,
    budget: int = 1000,
    limit: int = 10,
) -> PathsResult:
    """Breadth-first over simple paths (no concept twice); a path ends at its first target.
    `budget` counts concepts whose edges are read; when it runs out `capped` is true."""
    goal = set(targets)
    best: dict[str, dict[str, Hop]] = {}  # node -> neighbour -> strongest hop between them
    level: list[tuple[str, ...]] = [(o,) for o in sorted(set(origins))]
    found: list[tuple[str, ...]] = []
    capped = truncated = False
    for _ in range(max_depth):
        ends = sorted({p[-1] for p in level} - set(best))
        if len(ends) > budget - len(best):
            ends, capped = ends[: max(0, budget - len(best))], True
        if ends:
            for node, hops in graph.hops(ends).items():
                strongest: dict[str, Hop] = {}
                for hop in hops:  # strongest first
                    strongest.setdefault(hop.other, hop)
                best[node] = strongest
        nxt: list[tuple[str, ...]] = []
        for p in level:
            for v in sorted(best.get(p[-1], {})):
                if v in p:
                    continue
                q = (*p, v)
                if v in goal:
                    found.append(q)
                else:
                    nxt.append(q)
        if len(nxt) > MAX_PARTIAL:
            nxt, capped = nxt[:MAX_PARTIAL], True
        level = nxt
        if len(found) >= limit or not level:
            break
    found.sort(key=lambda p: (len(p), p))
    if len(found) > limit:
        found, truncated = found[:limit], True
    elif len(found) == limit and level:
        truncated = True
    used = {best[p[i]][p[i + 1]].id: best[p[i]][p[i + 1]] for p in found for i in range(len(p) - 1)}
    full = graph.edges(list(used.values()))
    out = tuple(
        Path(p, tuple(full[best[p[i]][p[i + 1]].id] for i in range(len(p) - 1))) for p in found
    )
    return PathsResult(
        graph.ctx.name, tuple(origins), tuple(targets), out, len(best), capped, truncated
    )


@dataclass(frozen=True)
class UnreachableResult:
    context: str
    origin: str
    reachable: int  # concepts connected to the origin, itself included
    total: int  # concepts it cannot reach
    concepts: tuple[str, ...]  # one page of them, in spelling order
    next: str | None


def check_page(limit: object) -> None:
    issues: list[Issue] = []
    check_int(limit, "limit", 1, MAX_UNREACHABLE_PAGE, issues)
    raise_if(issues, "unreachable_from request")


def unreachable_from(
    graph: Graph, origin: str, *, limit: int = 100, after: str | None = None
) -> UnreachableResult:
    """Every concept of the context the caller can see that no chain of live edges (followed
    in either direction) joins to `origin`: the islands a document forgot to connect."""
    start = decode_cursor(after, "u", (str,))
    seen, islands = cut_off(graph, (origin,))
    page = [n for n in islands if start is None or n > start[0]][: limit + 1]
    more = len(page) > limit
    page = page[:limit]
    return UnreachableResult(
        graph.ctx.name,
        origin,
        len(seen),
        len(islands),
        tuple(page),
        encode_cursor("u", [page[-1]]) if more and page else None,
    )


def cut_off(graph: Graph, origins: Sequence[str]) -> tuple[set[str], list[str]]:
    """The concepts some chain of live edges (either direction) joins to an origin, origins
    included, and the rest of the context's concepts the caller can see, in code point order."""
    seen = set(origins)
    frontier = sorted(seen)
    while frontier:
        frontier = sorted(graph.neighbours(frontier) - seen)
        seen.update(frontier)
    v = VocabEntry
    names = graph.session.scalars(
        select(v.name).where(
            v.context_id == graph.ctx.id, v.kind == "concept", v.alias_of.is_(None)
        )
    )
    return seen, sorted(set(names) - seen)
