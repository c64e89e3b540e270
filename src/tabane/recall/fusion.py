"""Recall's fusion, inside its one statement (statement.py): every candidate the lanes found,
put on one scale (scale.py), is fused by reciprocal rank fusion over the lanes that found it (a
hit at rank r adds 1/(rrf_k + r)), paragraphs by their score shares among themselves
(shares.py), and the best `candidates` kept, in the statement's order.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Boolean, Float, and_, case, func, select
from sqlalchemy.dialects.postgresql import aggregate_order_by

from tabane.recall.lanes import lanes as lane_mod
from tabane.recall.shares import PARAGRAPH_LANES, paragraph_places, reassigned, unranked


def _grouped(hits: Any, rrf_k: Any) -> Any:
    """One row per candidate (kind, item): its reciprocal ranks summed over the paragraph lanes
    (`by_lanes`) and the others (`by_others`), its share place, lanes, ranks and scores."""
    places = paragraph_places(hits)
    # A paragraph's lanes are averaged, not summed (`paragraph_lanes`: how many paragraph lanes
    # ran and found something), so each kind of evidence competes by rank with the others: a
    # claim first in its only lane ties with a paragraph first in both of its lanes. A lane that
    # missed the paragraph counts it just past its last row (`shares.unranked`). With `share_fusion`
    # the paragraphs keep those values as a group, in the order of their score shares (shares.py).
    share = case((hits.c.kind == "paragraph", lane_mod.p("paragraph_lanes", Float)), else_=1.0)
    mine = and_(hits.c.kind == "paragraph", hits.c.lane.in_(PARAGRAPH_LANES))
    reciprocal = 1.0 / (rrf_k + hits.c.rank)
    by_lanes = func.sum(case((mine, reciprocal), else_=0.0)) + unranked(hits, rrf_k)
    by_others = func.sum(case((mine, 0.0), else_=reciprocal))
    return (
        select(
            hits.c.kind,
            hits.c.item_id,
            func.max(hits.c.context_id).label("context_id"),
            (by_lanes / func.max(share)).label("by_lanes"),
            (by_others / func.max(share)).label("by_others"),
            func.max(places.c.place).label("place"),
            func.array_agg(aggregate_order_by(hits.c.lane, hits.c.lane)).label("lanes"),
            func.array_agg(aggregate_order_by(hits.c.rank, hits.c.lane)).label("ranks"),
            func.array_agg(aggregate_order_by(hits.c.score, hits.c.lane)).label("scores"),
            func.bool_or(hits.c.direct).label("direct"),
            func.min(hits.c.rank).label("best_rank"),
        )
        .select_from(
            hits.outerjoin(
                places, and_(hits.c.kind == "paragraph", places.c.item_id == hits.c.item_id)
            )
        )
        .group_by(hits.c.kind, hits.c.item_id)
        .subquery("grouped")
    )


def fuse(hits: Any) -> Any:
    """The CTE `fused`: the best `candidates` by fused score, ties by best rank, kind, then the
    share order of paragraphs tied on a value, then id."""
    rrf_k = lane_mod.p("rrf_k", Float)
    grouped = _grouped(hits, rrf_k)
    numbered, values = reassigned(grouped, lane_mod.p("share_fusion", Boolean))
    n = numbered.c
    fused_score = func.coalesce(values.c.by_lanes, n.by_lanes) + n.by_others
    # ties: by best rank, then kind, as before; paragraphs tied on a value stand at their group's
    # best rank and keep their share order among themselves
    group_rank = case(
        (n.sharing, func.min(n.best_rank).over(partition_by=(n.sharing, fused_score))),
        else_=n.best_rank,
    )
    tie = case((n.sharing, n.new_ordinal))
    return (
        select(
            n.kind,
            n.item_id,
            n.context_id,
            fused_score.label("fused"),
            n.lanes,
            n.ranks,
            n.scores,
            n.direct,
            n.best_rank,
            group_rank.label("group_rank"),
            tie.label("tie"),
        )
        .select_from(numbered.outerjoin(values, and_(n.sharing, values.c.ordinal == n.new_ordinal)))
        .order_by(fused_score.desc(), group_rank, n.kind, tie, n.item_id)
        .limit(lane_mod.limit("candidates"))
        .cte("fused")
    )
