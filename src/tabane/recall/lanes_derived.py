"""The derived-memory lanes of recall's one statement (same row shape as lanes.py): summaries
rebuilt from sources and claims, ranked by their summary embedding — never by a name.

- `communities`: community summaries of the context's concept graph (derive/communities.py);
- `profiles`: entity profiles, a summary of a concept's heaviest claims (derive/profiles.py).

Stale rows are served as they are (recall never waits for a build); the trace says how old.
"""

from __future__ import annotations

from typing import Any

from pgvector.sqlalchemy import Vector
from sqlalchemy import Integer, Select, Text, false, func, literal_column, or_, select, true

from tabane.recall.lanes import contexts_table, p, row
from tabane.storage.schema import Community, Profile


def nearest_summaries(table: Any, kind: str, lane: str, dim: int) -> Select[Any]:
    """The best `derived_pool` rows of `table` per context by the cosine of their summary
    embedding to the question, at or above the context's floor."""
    c = contexts_table()
    distance = table.embedding.cast(Vector(dim)).cosine_distance(p("qvec", Vector(dim)))
    near = (
        select(table.id, distance.label("d"))
        .where(
            table.context_id == c.c.id,
            table.model == p("model", Text),
            table.dim == literal_column(str(int(dim))),
            or_(c.c.floor.is_(None), distance <= 1.0 - c.c.floor),
        )
        .order_by(distance, table.id)
        .limit(p("derived_pool", Integer))
        .lateral(f"{lane}_near")
    )
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
