"""The derived-memory lanes of recall's one statement (same row shape as lanes.py): summaries
rebuilt from sources and claims, ranked by their summary embedding — never by a name.

- `communities`: community summaries of the context's concept graph (derive/communities.py);
- `profiles`: entity profiles, a summary of a concept's heaviest claims (derive/profiles.py).

Stale rows are served as they are (recall never waits for a build); the trace says how old.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Integer, Select, false, func, select, true

from tabane.recall.lanes import contexts_table, nearest, p, row
from tabane.storage.schema import Community, Profile


def nearest_summaries(table: Any, kind: str, lane: str, dim: int) -> Select[Any]:
    """The best `derived_pool` rows of `table` per context by the cosine of their summary
    embedding to the question, at or above the context's floor."""
    c = contexts_table()
    limit = p("derived_pool", Integer)
    near = nearest(c, table, table.id, dim, limit, f"{lane}_near", exact=True)
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
