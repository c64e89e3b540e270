"""The graph lane of recall's one statement (same row shape and parameters as
recall/lanes/lanes.py):

- `walk`: association edges within two hops of the seeds (seeds.py: concepts the question names
  and the concepts whose glosses are nearest it) — scored like spreading activation;
  `score` is the edge's signed net weight over the rows the caller can see.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    CTE,
    Float,
    Integer,
    Select,
    and_,
    case,
    false,
    func,
    or_,
    select,
    union,
    union_all,
)

from tabane.recall.lanes.lanes import p, row
from tabane.recall.seeds import bound_seeds
from tabane.storage.schema import Association


def _netted(touching: CTE, hop: int, exclude: CTE | None) -> Any:
    """The visible edges touching a node of `touching`, netted over the caller's rows (the
    weight `w` summed, `id` the least row id), less those of `exclude`."""
    a = Association
    # Driven from the nodes through the subject and object indexes (an OR of two correlated
    # IN-subqueries read every association of the context: 370 ms at 50k claims).
    ends = [
        select(a.id).join(
            touching, and_(touching.c.context_id == a.context_id, column == touching.c.name)
        )
        for column in (a.subject, a.object)
    ]
    touched = union(*ends).subquery(f"touched{hop}")
    net = func.sum(a.weight)
    netted = (
        select(
            a.context_id,
            a.perspective,
            a.subject,
            a.label,
            a.object,
            net.label("w"),
            func.min(a.id).label("id"),
        )
        .join(touched, touched.c.id == a.id)
        .group_by(a.context_id, a.perspective, a.subject, a.label, a.object)
        .having(and_(func.sum(a.claims) > 0, func.abs(net) > 1e-12))
    )
    if exclude is not None:
        netted = netted.having(func.min(a.id).not_in(select(exclude.c.id)))
    return netted.subquery(f"netted{hop}")


def _edges(touching: CTE, hop: int, exclude: CTE | None = None) -> CTE:
    """The visible edges (netted over the caller's rows) touching a node of `touching`, each
    scored by the activation it gathers — what each node it touches passes along it, summed (an
    edge joining two seeds gets both) — times |weight|; the best `walk_pool`. A node passes its
    strength divided by its load, max(1, W)^`walk_hub` with W = Σ|w| over its edges here (as
    `activate` divides by W: graph/walk/walk.py): a hub seed's many edges share what it passes
    and leave room for the few edges of a seed with few, which a question naming it asks about
    as much (0: no division, each edge gets the node's whole strength). Its `reach` is the best
    `reach` of those nodes: 1 for a concept the question names, a gloss's cosine otherwise."""
    e = _netted(touching, hop, exclude)
    node = (touching.c.context_id, touching.c.name)
    load = func.power(
        func.greatest(1.0, func.sum(func.abs(e.c.w)).over(partition_by=node)),
        p("walk_hub", Float),
    )
    pairs = (
        select(e, (touching.c.strength / load).label("passed"), touching.c.reach)
        .join(
            touching,
            and_(
                touching.c.context_id == e.c.context_id,
                or_(touching.c.name == e.c.subject, touching.c.name == e.c.object),
            ),
        )
        .subquery(f"pairs{hop}")
    )
    edge = [pairs.c[c.name] for c in e.c]
    score = func.sum(pairs.c.passed) * func.abs(pairs.c.w)
    return (
        select(*edge, score.label("score"), func.max(pairs.c.reach).label("reach"))
        .group_by(*edge)
        .order_by(score.desc(), pairs.c.id)
        .limit(p("walk_pool", Integer))
        .cte(f"hop{hop}")
    )


def walk_lane() -> Select[Any]:
    """Two hops from the seeds: a hop-2 edge scores half its hop-1 node's best edge score
    times its own |weight| (the spreading activation of `activate`, decay 0.5). An edge no named
    concept led to carries its best gloss's cosine as its `reach` (scale.py)."""
    seeds = bound_seeds()
    hop1 = _edges(seeds, 1)
    ends = union_all(
        select(hop1.c.context_id, hop1.c.subject.label("name"), hop1.c.score, hop1.c.reach),
        select(hop1.c.context_id, hop1.c.object.label("name"), hop1.c.score, hop1.c.reach),
    ).subquery("hop1_ends")
    frontier = (
        select(
            ends.c.context_id,
            ends.c.name,
            (0.5 * func.max(ends.c.score)).label("strength"),
            func.max(ends.c.reach).label("reach"),
        )
        .where(
            ~select(seeds.c.name)
            .where(seeds.c.context_id == ends.c.context_id, seeds.c.name == ends.c.name)
            .exists()
        )
        .group_by(ends.c.context_id, ends.c.name)
        .cte("frontier")
    )
    hop2 = _edges(frontier, 2, exclude=hop1)
    both = union_all(select(hop1), select(hop2)).subquery("walked")
    rank = func.row_number().over(order_by=(both.c.score.desc(), both.c.id))
    # an edge some named concept led to needs no gloss to stand for its relevance
    glossed = case((both.c.reach < 1.0, both.c.reach))
    return select(
        *row("association", both.c.id, both.c.context_id, "walk", rank, both.c.w, false(), glossed)
    )
