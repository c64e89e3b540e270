"""The derived-memory lanes of recall's one statement (same row shape as recall/lanes/lanes.py):
summaries
rebuilt from sources and claims, ranked by their summary embedding — never by a name.

- `communities`: community summaries of the context's concept graph
(derive/communities/communities.py);
- `profiles`: entity profiles, a summary of a concept's heaviest claims (derive/profiles.py);
- `raptor`: the RAPTOR tree's broad overviews (derive/raptor/tree.py): its nodes above the first
  level, the roots among them. First-level nodes summarize a handful of paragraphs that the
  paragraph lanes already serve (a one-level tree offers nothing broader), so they are left to
  those paragraphs, which stay the grounded evidence below the overviews.

Stale rows are served as they are (recall never waits for a build); the trace says how old.
Each table has per-width HNSW indexes (migration 0027; RAPTOR's over the levels served here), so
a lane reads its few nearest summaries without scanning the context's (bench/recall_latency.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, false, func, literal_column, select, true

from tabane.recall.lanes.lanes import contexts_table, nearest, row
from tabane.recall.lanes.lanes import limit as lanes_limit
from tabane.storage.schema import Community, Profile, RaptorNode

RAPTOR_SERVED = 2  # the lowest RAPTOR level served (migration 0027's partial index covers it)


def nearest_summaries(
    table: Any, kind: str, lane: str, dim: int, where: Sequence[Any] = ()
) -> Select[Any]:
    """The best `derived_pool` rows of `table` (those meeting `where`) per context by the cosine
    of their summary embedding to the question, at or above the context's floor, through the
    table's HNSW index where the planner finds it cheaper than a scan."""
    c = contexts_table()
    limit = lanes_limit("derived_pool")
    near = nearest(c, table, table.id, dim, limit, f"{lane}_near", where=where)
    rank = func.row_number().over(partition_by=c.c.id, order_by=(near.c.d, near.c.id))
    return (
        select(*row(kind, near.c.id, c.c.id, lane, rank, 1.0 - near.c.d, false()))
        .select_from(c)
        .join(near, true())
    )


def communities_lane(dim: int) -> Select[Any]:
    return nearest_summaries(Community, "community", "communities", dim)


def profiles_lane(dim: int) -> Select[Any]:
    return nearest_summaries(Profile, "profile", "profiles", dim)


def raptor_lane(dim: int) -> Select[Any]:
    # the level is written out, so the planner can prove the partial index's `level >= 2`
    served = RaptorNode.level >= literal_column(str(RAPTOR_SERVED))
    return nearest_summaries(RaptorNode, "raptor", "raptor", dim, (served,))
