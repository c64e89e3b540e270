"""A concept's neighbourhood laid out for an SVG drawing: the concept in the middle, the concepts
its strongest edges reach on a circle around it, in a fixed order (strongest first, then by
name), so the same graph always draws the same picture. Pure: no storage, no randomness."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from tabane.graph.edges import Edge

WIDTH, HEIGHT = 720, 520
RADIUS = 200
CENTRE_R, NODE_R = 34, 26  # the circles' radii: an edge runs from rim to rim
LABEL_AT = 0.62  # an edge's label sits this far towards its neighbour: apart from the others
MAX_NEIGHBOURS = 24  # more would crowd the circle; the page lists every edge below the drawing


@dataclass(frozen=True)
class Node:
    name: str
    x: float
    y: float
    centre: bool = False


@dataclass(frozen=True)
class Link:
    """One edge between the centre and a neighbour; `outgoing`: the centre is its subject."""

    neighbour: str
    label: str
    weight: float
    outgoing: bool
    x1: float
    y1: float
    x2: float
    y2: float
    label_x: float
    label_y: float


@dataclass(frozen=True)
class Drawing:
    width: int
    height: int
    nodes: tuple[Node, ...]
    links: tuple[Link, ...]
    left_out: int  # neighbours past MAX_NEIGHBOURS, not drawn


def layout(concept: str, edges: Sequence[Edge]) -> Drawing:
    cx, cy = WIDTH / 2, HEIGHT / 2
    strength: dict[str, float] = {}
    for e in edges:
        other = e.object if e.subject == concept else e.subject
        strength[other] = strength.get(other, 0.0) + abs(e.weight)
    ranked = sorted(strength, key=lambda n: (-strength[n], n))
    drawn = ranked[:MAX_NEIGHBOURS]
    place: dict[str, tuple[float, float]] = {}
    for i, name in enumerate(drawn):
        angle = -math.pi / 2 + 2 * math.pi * i / max(1, len(drawn))
        place[name] = (cx + RADIUS * math.cos(angle), cy + RADIUS * math.sin(angle))
    nodes = [Node(concept, cx, cy, centre=True)]
    nodes += [Node(name, *place[name]) for name in drawn if name != concept]
    links: list[Link] = []
    stacked: dict[str, int] = {}
    ordered = sorted(edges, key=lambda e: (-abs(e.weight), e.subject, e.label, e.object))
    for e in ordered:
        other = e.object if e.subject == concept else e.subject
        if other not in place:
            continue
        x, y = (cx, cy - 60 - CENTRE_R) if other == concept else place[other]  # a self-loop
        (x1, y1), (x2, y2) = _rims(cx, cy, x, y, other == concept)
        n = stacked.get(other, 0)
        stacked[other] = n + 1
        mid = (cx + LABEL_AT * (x - cx), cy + LABEL_AT * (y - cy) + 14 * n)
        links.append(Link(other, e.label, e.weight, e.subject == concept, x1, y1, x2, y2, *mid))
    return Drawing(WIDTH, HEIGHT, tuple(nodes), tuple(links), len(ranked) - len(drawn))


def _rims(
    cx: float, cy: float, x: float, y: float, loop: bool
) -> tuple[tuple[float, float], tuple[float, float]]:
    """The ends of the line from the centre's rim to the neighbour's, so an arrow head at
    either end shows outside both circles."""
    dx, dy = x - cx, y - cy
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    end = 0.0 if loop else NODE_R
    return (cx + CENTRE_R * ux, cy + CENTRE_R * uy), (x - end * ux, y - end * uy)
