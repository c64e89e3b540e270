"""Paragraphs ordered by their score shares, as search fuses them (search/fuse.py `combine`).

Recall fuses many kinds of evidence by rank (statement.py); which paragraph comes first among
the paragraphs, though, is decided as search decides it: each lane's score over that lane's best
in the paragraph's context, averaged over the paragraph lanes that ran. Averaging the lanes'
reciprocal ranks let paragraphs both lanes found mid-list outrank the one a lane found first by
far (docs/decisions/0005). The paragraphs of a context are ranked by that share and the
context's ranking is placed as scale.py places a context's BM25 rows (behind the other contexts'
passages nearer the question than the context's best one).

The kinds still compete as before: the paragraphs keep the values their lanes' reciprocal ranks
gave them as a group, reassigned in the order of their shares (`reassigned`) — the best share
takes the best value. Counting a paragraph at its share place as if both lanes had ranked it
there raised paragraphs above notes and edges: the graph sets through recall lost a tenth of
their all-needed questions (docs/decisions/0005). Bound `share_fusion` false keeps the values
where they fell.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Boolean, and_, case, func, literal, select

from tabane.recall.lanes import lanes as lane_mod
from tabane.recall.scale import behind_standing

PARAGRAPH_LANES = ("vector", "bm25")


def paragraph_places(hits: Any) -> Any:
    """(item_id, share, place) of every paragraph a paragraph lane found (`hits`: the lanes'
    rows on one scale, with their context's standing `best_place`)."""
    c = hits.c
    mine = and_(c.kind == "paragraph", c.lane.in_(PARAGRAPH_LANES))
    best = func.max(c.score).over(partition_by=(c.context_id, c.lane))
    rows = (
        select(
            c.item_id,
            c.context_id,
            c.best_place,
            (func.greatest(c.score, 0.0) / func.nullif(best, 0.0)).label("share"),
        )
        .where(mine)
        .subquery("lane_shares")
    )
    per = (
        select(
            rows.c.item_id,
            rows.c.context_id,
            func.min(rows.c.best_place).label("best_place"),
            func.sum(func.coalesce(rows.c.share, 0.0)).label("share"),
        )
        .group_by(rows.c.item_id, rows.c.context_id)
        .subquery("paragraph_shares")
    )
    local = func.row_number().over(
        partition_by=per.c.context_id, order_by=(per.c.share.desc(), per.c.item_id)
    )
    place = behind_standing(per.c.best_place, local)
    return select(per.c.item_id, per.c.share, place.label("place")).cte("paragraph_places")


def reassigned(grouped: Any, sharing_on: Any) -> tuple[Any, Any]:
    """The grouped items numbered twice — by the paragraph lanes' value (`by_lanes`) and by
    share place — and the values by their number, to join on `new_ordinal`: the n-th best share
    takes the n-th best value. Only paragraphs a paragraph lane found take part (`sharing`)."""
    g = grouped.c
    sharing = and_(sharing_on, g.place.is_not(None))
    numbered = select(
        grouped,
        sharing.label("sharing"),
        func.row_number()
        .over(partition_by=sharing, order_by=(g.by_lanes.desc(), g.item_id))
        .label("ordinal"),
        func.row_number()
        .over(partition_by=sharing, order_by=(g.place, g.item_id))
        .label("new_ordinal"),
    ).subquery("numbered")
    values = (
        select(numbered.c.ordinal, numbered.c.by_lanes)
        .where(numbered.c.sharing)
        .subquery("lane_values")
    )
    return numbered, values


def unranked(hits: Any, rrf_k: Any) -> Any:
    """What a paragraph missing from a paragraph lane (`vector`, `bm25`) that ran gets from it,
    within its group: the rank just past the lane's last row. The lane ranked only its pool,
    so the paragraph's rank there is unknown but no better than that; counting it as nothing
    halved a paragraph only one lane found, and a far context's notes and edges went ahead of a
    near context's paragraph, first on the common scale (scale.py). Bound `impute` false counts
    nothing."""
    total: Any = literal(0.0)
    for lane in ("vector", "bm25"):
        end = select(func.max(hits.c.rank) + 1).where(hits.c.lane == lane).scalar_subquery()
        missing = and_(
            lane_mod.p("impute", Boolean),
            hits.c.kind == "paragraph",
            ~func.bool_or(hits.c.lane == lane),
        )
        total = total + func.coalesce(case((missing, 1.0 / (rrf_k + end))), 0.0)
    return total
