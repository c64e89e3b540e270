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
    Select,
    and_,
    case,
    false,
    func,
    null,
    select,
    union_all,
)

from tabane.recall.lanes.lanes import limit as lane_limit
from tabane.recall.lanes.lanes import p, row
from tabane.recall.seeds import bound_seeds
from tabane.storage.schema import Association


def _netted(touching: CTE, hop: int, exclude: CTE | None) -> CTE:
    """The visible edges touching a node of `touching`, netted over the caller's rows (the
    weight `w` summed, `id` the least row id), less those of `exclude`; each with the node at its
    subject and the node at its object (`s_*`, `o_*`: NULL where that end is no node). A CTE:
    netted once for both ends of an edge."""
    a = Association
    # Driven from the nodes through the subject and object indexes (an OR of two correlated
    # IN-subqueries read every association of the context: 370 ms at 50k claims). Each row is
    # read once, with the columns netting needs and its ends' nodes: the rows by subject, then
    # those by object whose subject is no node. (Joining ids back to `associations` looked every
    # touched row up a second time, ~2,700 rows for a hub seed, and joining the netted edges to
    # the nodes afterwards ran as a loop over the nodes.)
    s_node, o_node = touching.alias(f"s_node{hop}"), touching.alias(f"o_node{hop}")

    def at(node: Any, column: Any) -> Any:
        return and_(node.c.context_id == a.context_id, node.c.name == column)

    read = (a.id, a.context_id, a.perspective, a.subject, a.label, a.object, a.weight, a.claims)
    by_object = (
        select(*read, *(null().label(f"s_{c}") for c in ("name", "strength", "reach")))
        .add_columns(o_node.c.name.label("o_name"), o_node.c.strength.label("o_strength"))
        .add_columns(o_node.c.reach.label("o_reach"))
        .join(o_node, at(o_node, a.object))
        .where(~select(s_node.c.name).where(at(s_node, a.subject)).exists())
    )
    by_subject = (
        select(*read)
        .add_columns(*(s_node.c[c].label(f"s_{c}") for c in ("name", "strength", "reach")))
        .add_columns(*(o_node.c[c].label(f"o_{c}") for c in ("name", "strength", "reach")))
        .join(s_node, at(s_node, a.subject))
        .outerjoin(o_node, at(o_node, a.object))
    )
    touched = union_all(by_subject, by_object).subquery(f"touched{hop}")
    t = touched.c
    net = func.sum(t.weight)
    ends = [
        func.max(t[f"{side}_{c}"]).label(f"{side}_{c}")
        for side in ("s", "o")
        for c in ("name", "strength", "reach")
    ]  # the same in every row of an edge: its subject's and its object's node
    netted = (
        select(
            t.context_id,
            t.perspective,
            t.subject,
            t.label,
            t.object,
            net.label("w"),
            func.min(t.id).label("id"),
            *ends,
        )
        .group_by(t.context_id, t.perspective, t.subject, t.label, t.object)
        .having(and_(func.sum(t.claims) > 0, func.abs(net) > 1e-12))
    )
    if exclude is not None:
        netted = netted.having(func.min(t.id).not_in(select(exclude.c.id)))
    return netted.cte(f"netted{hop}")


EDGE = ("context_id", "perspective", "subject", "label", "object", "w", "id")


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
    # each (edge, node it touches) once: at its subject, then at its object unless that is the
    # subject too
    ends = [
        select(
            *(e.c[c] for c in EDGE),
            e.c[f"{side}_name"].label("node"),
            e.c[f"{side}_strength"].label("strength"),
            e.c[f"{side}_reach"].label("reach"),
        ).where(e.c[f"{side}_name"].is_not(None), *extra)
        for side, extra in (("s", ()), ("o", (e.c.object != e.c.subject,)))
    ]
    matched = union_all(*ends).subquery(f"matched{hop}")
    m = matched.c
    load = func.power(
        func.greatest(1.0, func.sum(func.abs(m.w)).over(partition_by=(m.context_id, m.node))),
        p("walk_hub", Float),
    )
    edge = [m[c] for c in EDGE]
    pairs = select(*edge, (m.strength / load).label("passed"), m.reach).subquery(f"pairs{hop}")
    # an edge's row is one netted group, whose least row id names it: grouped by that id alone
    # (the same groups as by every column, without comparing their text)
    score = func.sum(pairs.c.passed) * func.abs(func.min(pairs.c.w))
    kept = [func.min(pairs.c[c]).label(c) for c in EDGE if c != "id"]
    return (
        select(*kept, pairs.c.id, score.label("score"), func.max(pairs.c.reach).label("reach"))
        .group_by(pairs.c.id)
        .order_by(score.desc(), pairs.c.id)
        .limit(lane_limit("walk_pool"))
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
