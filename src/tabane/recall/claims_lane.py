"""The claims lane of recall: claims whose text is nearest the question, current ones only.

The HNSW index over `claim_vectors` proposes candidates (per-width partial indexes, migration
0010); only those candidates are joined to their claims, and a claim that was closed (retracted or
superseded) is dropped there. Row-level security decides which vectors and claims the caller can
see: no filter here stands in for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from pgvector.sqlalchemy import Vector
from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from tabane.models.embedder import Vectors
from tabane.storage.schema import Claim, ClaimVector

# Candidates taken from the index per hit kept: a candidate whose claim was closed since is
# dropped by the join, so the index is asked for more than the pool (as the paragraph lane does
# for its question vectors).
OVERFETCH = 2


@dataclass(frozen=True)
class ClaimHit:
    claim_id: int
    context_id: int
    score: float  # cosine similarity of the claim's text to the question
    rank: int  # 1-based, over the addressed contexts together


def claim_lane_select(
    context_ids: Sequence[int],
    query_vector: Vectors,
    model: str,
    dim: int,
    *,
    pool: int,
    floor: float | None,
) -> Select[Any]:
    """The lane as one statement: (claim_id, context_id, score, rank), best first, ties by id.
    A recall statement can embed it as one of its lanes."""
    distance = ClaimVector.embedding.cast(Vector(dim)).cosine_distance(
        np.asarray(query_vector, dtype=np.float32)
    )
    candidates = (
        select(ClaimVector.claim_id, ClaimVector.context_id, distance.label("d"))
        .where(
            ClaimVector.context_id.in_(sorted(set(context_ids))),
            ClaimVector.model == model,
            ClaimVector.dim == dim,
        )
        .order_by(distance)
        .limit(pool * OVERFETCH)
    )
    if floor is not None:
        candidates = candidates.where(distance <= 1.0 - floor)
    cand = candidates.subquery("claim_candidates")
    order = (cand.c.d, cand.c.claim_id)
    return (
        select(
            cand.c.claim_id,
            cand.c.context_id,
            (1.0 - cand.c.d).label("score"),
            func.row_number().over(order_by=order).label("rank"),
        )
        .join(Claim, Claim.id == cand.c.claim_id)
        .where(Claim.closed_at.is_(None))
        .order_by(*order)
        .limit(pool)
    )


def search_settings(session: Session, pool: int) -> None:
    """Iterative index scans (a filtered scan stays complete) and the graph search's candidate
    list, as the paragraph lane sets them (search/vectors.py: 8× the pool, measured there)."""
    session.execute(
        select(
            func.set_config("hnsw.iterative_scan", "relaxed_order", True),
            func.set_config("hnsw.ef_search", str(min(1000, max(128, 8 * pool))), True),
        )
    )


def claim_lane(
    session: Session,
    context_ids: Sequence[int],
    query_vector: Vectors,
    model: str,
    dim: int,
    *,
    pool: int,
    floor: float | None,
) -> list[ClaimHit]:
    """The best `pool` current, visible claims of the contexts by cosine, at or above `floor`."""
    if not context_ids or pool < 1:
        return []
    search_settings(session, pool)
    stmt = claim_lane_select(context_ids, query_vector, model, dim, pool=pool, floor=floor)
    return [
        ClaimHit(int(r.claim_id), int(r.context_id), float(r.score), int(r.rank))
        for r in session.execute(stmt)
    ]
