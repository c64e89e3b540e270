"""Community detection over a netted concept graph, and its deterministic summaries (pure).

The graph is undirected: an edge {a, b} weighs the sum over labels and directions of |net
weight| (see derive/communities/communities.py for how edges are netted). Louvain through networkx
with a
fixed seed; networkx's result depends on the order nodes and edges were added, so both are
added sorted. Communities are ordered by size (descending), then by their smallest member name,
and numbered from 0 in that order.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import networkx as nx

SEED = 0
RESOLUTION = 1.0  # networkx's default modularity resolution
# A level 1 is built over the level-0 communities when there are more than this many: a choice
# (a one-screen overview of about this many topics), not a measurement.
LEVEL_UP_AFTER = 24
# The deterministic summary below (v2: a negative edge reads "not"); a build by another version
# reads as stale.
SUMMARIZER = "edges-v2"
TOP_CONCEPTS = 8  # concepts named in a summary
TOP_EDGES = 5  # edges rendered in a summary

Pair = tuple[str, str]  # an undirected edge, the smaller name first
Triple = tuple[str, str, str]  # subject, label, object
N = TypeVar("N", str, int)  # a node: a concept name, or a community ordinal


@dataclass(frozen=True)
class Group:
    """One community: its members (heaviest first, then by name) and, above level 0, the
    ordinals of the level-below communities it joins."""

    level: int
    ordinal: int
    members: tuple[tuple[str, float], ...]
    children: tuple[int, ...] = ()
    parent: int | None = None


def pair(a: str, b: str) -> Pair:
    return (a, b) if a <= b else (b, a)


def undirected(triples: Mapping[Triple, float]) -> dict[Pair, float]:
    """Undirected edge weights: per pair, the sum of |weight| over its triples (self-loops and
    zero weights dropped)."""
    edges: dict[Pair, float] = defaultdict(float)
    for (s, _label, o), w in sorted(triples.items()):
        if s != o and w != 0:
            edges[pair(s, o)] += abs(w)
    return dict(edges)


def degrees(edges: Mapping[Pair, float]) -> dict[str, float]:
    """Weighted degree of every node (the sum of its edges' weights)."""
    out: dict[str, float] = defaultdict(float)
    for (a, b), w in sorted(edges.items()):
        out[a] += w
        out[b] += w
    return dict(out)


def _louvain(nodes: Sequence[N], edges: Sequence[tuple[N, N, float]]) -> list[set[N]]:
    graph = nx.Graph()
    graph.add_nodes_from(nodes)
    graph.add_weighted_edges_from(edges)
    return list(
        nx.community.louvain_communities(graph, weight="weight", seed=SEED, resolution=RESOLUTION)
    )


def level0(edges: Mapping[Pair, float]) -> list[tuple[str, ...]]:
    """Louvain communities of the concept graph, each sorted by name, in ordinal order."""
    nodes = sorted({n for p in edges for n in p})
    found = _louvain(nodes, [(a, b, w) for (a, b), w in sorted(edges.items())])
    groups = [tuple(sorted(c)) for c in found]
    return sorted(groups, key=lambda g: (-len(g), g[0]))


def level_up(
    edges: Mapping[Pair, float], below: Sequence[tuple[str, ...]]
) -> list[tuple[int, ...]] | None:
    """Louvain over the community graph (a node per community below, edges summing the weights
    between them): groups of level-below ordinals, in ordinal order; None when it merges
    nothing (every group would hold one community)."""
    where = {n: i for i, members in enumerate(below) for n in members}
    between: dict[tuple[int, int], float] = defaultdict(float)
    for (a, b), w in sorted(edges.items()):
        i, j = sorted((where[a], where[b]))
        if i != j:
            between[(i, j)] += w
    found = _louvain(list(range(len(below))), [(i, j, w) for (i, j), w in sorted(between.items())])
    if len(found) == len(below):
        return None
    groups = [tuple(sorted(c)) for c in found]

    def key(g: tuple[int, ...]) -> tuple[int, str]:
        return (-sum(len(below[i]) for i in g), min(below[i][0] for i in g))

    return sorted(groups, key=key)


def ranked(members: Sequence[str], degree: Mapping[str, float]) -> tuple[tuple[str, float], ...]:
    """Members with their weighted degree, heaviest first, then by name."""
    return tuple(sorted(((m, degree[m]) for m in members), key=lambda m: (-m[1], m[0])))


def partition(edges: Mapping[Pair, float], *, level_up_after: int = LEVEL_UP_AFTER) -> list[Group]:
    """Level 0, and level 1 when level 0 has more than `level_up_after` communities and the
    community graph merges some of them."""
    degree = degrees(edges)
    zero = level0(edges)
    groups = [Group(0, i, ranked(m, degree)) for i, m in enumerate(zero)]
    if len(zero) <= level_up_after:
        return groups
    upper = level_up(edges, zero)
    if upper is None:
        return groups
    parent = {child: k for k, children in enumerate(upper) for child in children}
    groups = [Group(0, g.ordinal, g.members, parent=parent[g.ordinal]) for g in groups]
    for k, children in enumerate(upper):
        members = [n for i in children for n in zero[i]]
        groups.append(Group(1, k, ranked(members, degree), children=children))
    return groups


def _number(w: float) -> str:
    return f"{w:.3g}"


def inside(
    groups: Sequence[Group], triples: Mapping[Triple, float]
) -> list[list[tuple[Triple, float]]]:
    """Per group (in the order given), the non-zero triples with both ends among its members."""
    out: list[list[tuple[Triple, float]]] = [[] for _ in groups]
    where: dict[tuple[int, str], int] = {
        (g.level, m): i for i, g in enumerate(groups) for m, _ in g.members
    }
    levels = sorted({g.level for g in groups})
    for t, w in sorted(triples.items()):
        s, _label, o = t
        if s == o or w == 0:
            continue
        for level in levels:
            i = where.get((level, s))
            if i is not None and i == where.get((level, o)):
                out[i].append((t, w))
    return out


def summarize(group: Group, edges_inside: Sequence[tuple[Triple, float]]) -> str:
    """The `edges-v2` summary: the top concepts by weighted degree, then the heaviest edges
    with both ends inside the community (by |weight|, then by triple), rendered as text; a
    negative edge reads "not" before its label with its |weight|, as profiles read it."""
    top = ", ".join(f"{m} ({_number(w)})" for m, w in group.members[:TOP_CONCEPTS])
    more = len(group.members) - TOP_CONCEPTS
    text = f"{len(group.members)} concepts: {top}" + (f" and {more} more." if more > 0 else ".")
    heavy = sorted(edges_inside, key=lambda tw: (-abs(tw[1]), tw[0]))[:TOP_EDGES]
    if heavy:
        text += " Heaviest edges: " + "; ".join(
            f"{s} {'not ' if w < 0 else ''}{label} {o} ({_number(abs(w))})"
            for (s, label, o), w in heavy
        )
        text += "."
    return text
