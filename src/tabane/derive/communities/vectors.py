"""Community embeddings: each community's summary embedded, so recall can rank communities by
what their summary says rather than by member names.

Vectors are written by the `derive_communities` job after its build (jobs/worker.py), into the
community row itself (`embedding`, `model`, `dim`), checked before anything is stored. A build
replaces every community of its context; a new community whose summary is word for word an old
one's keeps that vector (`kept`), so a rebuild after a small change embeds only what changed.
A row holding another model's vector, or none, is `missing` for the configured model: a build
run by a worker without an embedder leaves its new summaries so, and the next `derive_communities`
job run by a worker with one embeds them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from tabane.models.embedder import Embedder, Vectors, checked
from tabane.storage.schema import Community

BATCH = 64  # summaries per embedder call


@dataclass(frozen=True)
class SummaryText:
    community_id: int
    text: str


def kept(session: Session, context_id: int) -> dict[str, dict[str, Any]]:
    """The context's stored summary vectors by summary text (the first community in level,
    ordinal order stands for a text held twice): `model`, `dim` and `embedding` columns."""
    c = Community
    rows = session.execute(
        select(c.summary, c.model, c.dim, c.embedding)
        .where(c.context_id == context_id, c.embedding.is_not(None))
        .order_by(c.level, c.ordinal, c.id)
    )
    found: dict[str, dict[str, Any]] = {}
    for summary, model, dim, embedding in rows:
        found.setdefault(summary, {"model": model, "dim": dim, "embedding": embedding})
    return found


def missing(session: Session, context_id: int, model: str) -> list[SummaryText]:
    """The context's communities without a summary vector of `model`, by level and ordinal."""
    c = Community
    rows = session.execute(
        select(c.id, c.summary)
        .where(
            c.context_id == context_id,
            c.embedding.is_(None) | c.model.is_distinct_from(model),
        )
        .order_by(c.level, c.ordinal, c.id)
    )
    return [SummaryText(cid, text) for cid, text in rows if text.strip()]


def embed(embedder: Embedder, todo: Sequence[SummaryText]) -> Vectors:
    """The summaries' vectors, refused on NaN, infinities, zero rows or a wrong width."""
    raw = embedder.embed_documents([t.text for t in todo])
    return checked(raw, len(todo), embedder.dim, "community_embeddings")


def store(
    session: Session, embedder: Embedder, todo: Sequence[SummaryText], vectors: Vectors
) -> int:
    """Write one batch's vectors into their communities (one a rebuild removed since is
    skipped: its id is gone); returns how many rows were updated."""
    written = 0
    for t, vec in zip(todo, vectors, strict=True):
        result = session.execute(
            update(Community)
            .where(Community.id == t.community_id)
            .values(model=embedder.name, dim=embedder.dim, embedding=vec)
        )
        written += int(getattr(result, "rowcount", 0) or 0)
    return written
