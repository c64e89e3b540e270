"""audit_unsourced: Taguru's drift audit, the graph against its archive (decision 0027, "The
drift audit") — where tabane's own drift audit (graph/drift.py) is a time window. Nothing is
written. Two reads, each one SQL statement over what the caller can see:

- `edges`: the world edges whose live claims include some with no named source (`source` NULL
  or empty). An edge's weight is the sum of its live claims' (graph/edges.py), so the part no
  named source explains is exactly the sum of those claims' weights: `unsourced`, with their
  count. Largest |unsourced| first, paged by offset, with the total.
- `dead_aliases`: alias spellings whose canonical no longer lives — its vocabulary row is gone,
  or no live edge (an association row with open claims, any perspective) names it (a concept
  as subject or object, a label as label).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import exists, func, or_, select
from sqlalchemy.orm import Session, aliased

from tabane.graph import edges as edges_mod
from tabane.plain import shown_weight
from tabane.storage.schema import Association, Claim, Context, VocabEntry

ATTRIBUTIONS_PER_EDGE = 20


@dataclass(frozen=True)
class UnsourcedEdge:
    edge: edges_mod.Edge  # the whole live edge, its attributions (heaviest first) included
    unsourced: float  # the sum of its live claims that name no source
    unsourced_claims: int


@dataclass(frozen=True)
class Unsourced:
    context: str
    edges: list[UnsourcedEdge]
    total: int  # every edge over the floor, before the page was cut
    next_cursor: int | None
    dead_concept_aliases: dict[str, str]  # alias -> its gone canonical
    dead_label_aliases: dict[str, str]


def edges(
    session: Session, ctx: Context, floor: float, limit: int, cursor: int
) -> tuple[list[UnsourcedEdge], int, int | None]:
    c = Claim
    nameless = or_(c.source.is_(None), c.source == "")
    unsourced = func.coalesce(func.sum(c.weight).filter(nameless), 0.0)
    rows = (
        select(
            c.subject,
            c.label,
            c.object,
            unsourced.label("unsourced"),
            func.count().filter(nameless).label("n"),
            func.sum(c.weight).label("weight"),
            func.count().label("claims"),
        )
        .where(
            c.context_id == ctx.id,
            c.closed_at.is_(None),
            c.subject.is_not(None),
            c.perspective == "",
        )
        .group_by(c.subject, c.label, c.object)
        .having(func.abs(unsourced) > 1e-12, func.abs(unsourced) >= floor)
        .subquery()
    )
    total = int(session.scalar(select(func.count()).select_from(rows)) or 0)
    page = session.execute(
        select(rows)
        .order_by(func.abs(rows.c.unsourced).desc(), rows.c.subject, rows.c.label, rows.c.object)
        .limit(limit)
        .offset(cursor)
    ).all()
    ids = [(ctx.id, "", r.subject, r.label, r.object) for r in page]
    attrs = edges_mod.attributions(session, ids, None, ATTRIBUTIONS_PER_EDGE)
    found = [
        UnsourcedEdge(
            edge=edges_mod.Edge(
                context=ctx.name,
                subject=r.subject,
                label=r.label,
                object=r.object,
                weight=shown_weight(r.weight),
                claims=int(r.claims),
                attributions=attrs.get(i, ()),
            ),
            unsourced=shown_weight(r.unsourced),
            unsourced_claims=int(r.n),
        )
        for r, i in zip(page, ids, strict=True)
    ]
    after = cursor + len(found)
    return found, total, after if after < total else None


def dead_aliases(session: Session, ctx: Context, kind: str) -> dict[str, str]:
    """{alias: canonical} for the aliases of `kind` whose canonical no longer lives."""
    v, canon, a = VocabEntry, aliased(VocabEntry), Association
    named = (
        or_(a.subject == v.alias_of, a.object == v.alias_of)
        if kind == "concept"
        else a.label == v.alias_of
    )
    live_edge = exists().where(a.context_id == ctx.id, a.claims > 0, named)
    has_row = exists().where(
        canon.context_id == ctx.id,
        canon.kind == kind,
        canon.name == v.alias_of,
        canon.alias_of.is_(None),
    )
    rows = session.execute(
        select(v.name, v.alias_of)
        .where(
            v.context_id == ctx.id,
            v.kind == kind,
            v.alias_of.is_not(None),
            or_(~has_row, ~live_edge),
        )
        .order_by(v.name)
    ).all()
    return {r.name: r.alias_of for r in rows}
