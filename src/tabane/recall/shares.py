"""Paragraphs placed by their score shares, as search fuses them (search/fuse.py `combine`).

Recall fuses many kinds of evidence by rank (statement.py); a paragraph's two lanes, though, are
fused as search fuses them: each lane's score over that lane's best in the paragraph's context,
averaged over the paragraph lanes that ran. Summing the lanes' reciprocal ranks let paragraphs
both lanes found mid-list outrank the one a lane found first by far (docs/decisions/0005). The
paragraphs of a context are ranked by that share, and the context's ranking is placed as
scale.py places a context's BM25 rows: behind the other contexts' passages nearer the question
than the context's best one. The statement then counts a paragraph once, at that place, as if
every paragraph lane had ranked it there (bound `share_fusion` false: the lanes' own ranks).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, func, select

from tabane.recall.scale import PASSAGE_LANES

PARAGRAPH_LANES = ("vector", "bm25")


def paragraph_places(hits: Any) -> Any:
    """(item_id, share, place) of every paragraph a paragraph lane found (`hits`: the lanes'
    rows on one scale)."""
    c = hits.c
    mine = and_(c.kind == "paragraph", c.lane.in_(PARAGRAPH_LANES))
    best = func.max(c.score).over(partition_by=(c.context_id, c.lane))
    rows = (
        select(
            c.item_id,
            c.context_id,
            (func.greatest(c.score, 0.0) / func.nullif(best, 0.0)).label("share"),
        )
        .where(mine)
        .subquery("lane_shares")
    )
    per = (
        select(
            rows.c.item_id,
            rows.c.context_id,
            func.sum(func.coalesce(rows.c.share, 0.0)).label("share"),
        )
        .group_by(rows.c.item_id, rows.c.context_id)
        .subquery("paragraph_shares")
    )
    standing = (
        select(c.context_id, func.min(c.rank).label("best_place"))
        .where(c.lane.in_(PASSAGE_LANES))
        .group_by(c.context_id)
        .subquery("standing")
    )
    local = func.row_number().over(
        partition_by=per.c.context_id, order_by=(per.c.share.desc(), per.c.item_id)
    )
    place = func.coalesce(standing.c.best_place - 1, 0) + local
    return (
        select(per.c.item_id, per.c.share, place.label("place"))
        .select_from(per.outerjoin(standing, standing.c.context_id == per.c.context_id))
        .cte("paragraph_places")
    )
