"""Neighbour fetches for the walks (activate, explore, paths, unreachable_from).

One statement per batch of nodes, never the whole graph: the live net edges touching the batch,
found through ix_associations_subject / ix_associations_object ((context_id, subject) and
(context_id, object)); a node's edges are followed in both directions. A label is an edge's
name, never a node, so two edges that share a label are not connected through it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ARRAY, Text, any_, bindparam, func, select, true, union_all
from sqlalchemy.orm import Session

from tabane.graph import edges as edges_mod
from tabane.graph.edges import Edge, Window
from tabane.storage.schema import Context


@dataclass(frozen=True)
class Hop:
    """A live edge seen from one of its ends: `other` is the far end."""

    other: str
    perspective: str
    subject: str
    label: str
    object: str
    weight: float
    claims: int

    @property
    def id(self) -> tuple[str, str, str, str]:
        return (self.perspective, self.subject, self.label, self.object)

    def key(self) -> tuple[float, str, str, str, str]:
        """The deterministic order of a node's edges: strongest first."""
        return (-abs(self.weight), self.other, self.label, self.perspective, self.subject)


@dataclass(frozen=True)
class Chunk:
    """Ranks (lo, hi] of a node's edges in `Hop.key` order, with the node's total Σ|weight| and
    degree over ALL its edges (so a partial fetch still normalizes correctly)."""

    hops: tuple[Hop, ...]
    strength: float
    degree: int


class Graph:
    """The live edges of one context as seen by the caller, optionally only some labels, one
    perspective partition or a time window; counts the statements it sends."""

    def __init__(
        self,
        session: Session,
        ctx: Context,
        *,
        labels: Sequence[str] | None = None,
        perspective: str | None = None,
        window: Window | None = None,
    ) -> None:
        self.session = session
        self.ctx = ctx
        self.labels = None if labels is None else tuple(labels)
        self.perspective = perspective
        self.window = window
        self.statements = 0

    def _touching(self, nodes: Sequence[str]) -> Any:
        e = edges_mod.net([self.ctx.id], self.window)
        wanted = bindparam("nodes", list(nodes), type_=ARRAY(Text))
        filters: list[Any] = [e.c.claims > 0]
        if self.labels is not None:
            filters.append(e.c.label.in_(self.labels))
        if self.perspective is not None:
            filters.append(e.c.perspective == self.perspective)

        def side(node: Any, other: Any, extra: Any) -> Any:
            return select(
                node.label("node"),
                other.label("other"),
                e.c.perspective,
                e.c.subject,
                e.c.label,
                e.c.object,
                e.c.weight,
                e.c.claims,
            ).where(node == any_(wanted), extra, *filters)

        return union_all(
            side(e.c.subject, e.c.object, true()),
            side(e.c.object, e.c.subject, e.c.subject != e.c.object),  # a self-loop once
        ).subquery("touching")

    def chunks(self, nodes: Sequence[str], lo: int, hi: int | None) -> dict[str, Chunk]:
        """Each node's edges ranked (lo, hi] (hi None: all the rest)."""
        t = self._touching(nodes)
        order = (func.abs(t.c.weight).desc(), t.c.other, t.c.label, t.c.perspective, t.c.subject)
        ranked = select(
            t,
            func.sum(func.abs(t.c.weight)).over(partition_by=t.c.node).label("strength"),
            func.count().over(partition_by=t.c.node).label("degree"),
            func.row_number().over(partition_by=t.c.node, order_by=order).label("rn"),
        ).subquery("ranked")
        stmt = select(ranked).where(ranked.c.rn > lo)
        if hi is not None:
            stmt = stmt.where(ranked.c.rn <= hi)
        self.statements += 1
        found: dict[str, list[Hop]] = {}
        totals: dict[str, tuple[float, int]] = {}
        for row in self.session.execute(stmt.order_by(ranked.c.node, ranked.c.rn)):
            found.setdefault(row.node, []).append(_hop(row))
            totals[row.node] = (float(row.strength), int(row.degree))
        out = {}
        for node in nodes:
            strength, degree = totals.get(node, (0.0, 0))
            out[node] = Chunk(tuple(found.get(node, ())), strength, degree)
        return out

    def hops(self, nodes: Sequence[str]) -> dict[str, list[Hop]]:
        """Every edge of each node, in `Hop.key` order."""
        t = self._touching(nodes)
        self.statements += 1
        out: dict[str, list[Hop]] = {n: [] for n in nodes}
        for row in self.session.execute(select(t)):
            out[row.node].append(_hop(row))
        for hops in out.values():
            hops.sort(key=Hop.key)
        return out

    def neighbours(self, nodes: Sequence[str]) -> set[str]:
        """The distinct far ends of the nodes' edges (deduplicated in the database)."""
        if not nodes:
            return set()
        t = self._touching(nodes)
        self.statements += 1
        return set(self.session.scalars(select(t.c.other).distinct()))

    def edges(self, hops: Sequence[Hop], per_edge: int = 5) -> dict[tuple[str, ...], Edge]:
        """The hops as `Edge`s with their attributions (one statement)."""
        ids = [(self.ctx.id, *h.id) for h in hops]
        attrs = edges_mod.attributions(self.session, ids, self.window, per_edge)
        return {
            h.id: Edge(
                context=self.ctx.name,
                subject=h.subject,
                label=h.label,
                object=h.object,
                weight=h.weight,
                claims=h.claims,
                perspective=h.perspective or None,
                attributions=attrs.get((self.ctx.id, *h.id), ()),
            )
            for h in hops
        }


def bare(edge: Edge) -> Edge:
    """The edge without its attributions (a path repeats edges the result lists in full)."""
    return Edge(
        edge.context,
        edge.subject,
        edge.label,
        edge.object,
        edge.weight,
        edge.claims,
        edge.perspective,
    )


def _hop(row: Any) -> Hop:
    return Hop(
        row.other,
        row.perspective,
        row.subject,
        row.label,
        row.object,
        float(row.weight),
        int(row.claims),
    )
