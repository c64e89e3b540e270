"""The vector lane: paragraph (and doc2query question) embeddings in pgvector, HNSW cosine.

Embeddings are written by background jobs (`embed_source`), never during ingest. Each vector row
records its model; `context_models` records which models a context holds, so a search can tell
"no vectors yet" from "vectors of another model" (and then schedules a re-embed instead of
answering from another vector space).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from pgvector.sqlalchemy import Vector
from sqlalchemy import Select, func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from tabane.models.embedder import Embedder, Vectors, checked
from tabane.storage.schema import ContextModel, Paragraph, ParagraphVector

BATCH = 64  # passages per embedder call


@dataclass(frozen=True)
class VectorHit:
    paragraph_id: int
    score: float  # cosine similarity of the best of the paragraph's vectors
    rank: int
    via_question: bool


def models(session: Session, context_id: int) -> dict[str, int]:
    """Model name → width of the vectors a context holds."""
    rows = session.execute(
        select(ContextModel.model, ContextModel.dim).where(ContextModel.context_id == context_id)
    )
    return {m: d for m, d in rows}


def missing(session: Session, source_pk: int, model: str) -> list[tuple[int, str, list[str]]]:
    """Paragraphs of a source without a vector of `model`: (id, text, questions)."""
    have = select(ParagraphVector.paragraph_id).where(
        ParagraphVector.source_pk == source_pk, ParagraphVector.model == model
    )
    rows = session.execute(
        select(Paragraph.id, Paragraph.text, Paragraph.questions)
        .where(Paragraph.source_pk == source_pk, Paragraph.id.not_in(have))
        .order_by(Paragraph.idx)
    )
    return [(pid, text, list(qs)) for pid, text, qs in rows]


@dataclass(frozen=True)
class Batch:
    """Texts to embed (each paragraph's text as ord 0, its questions as 1..n) and their keys."""

    texts: list[str]
    keys: list[tuple[int, int]]
    paragraphs: int


def batch_of(paragraphs: Sequence[tuple[int, str, list[str]]]) -> Batch:
    texts: list[str] = []
    keys: list[tuple[int, int]] = []
    for pid, text, questions in paragraphs:
        texts.append(text)
        keys.append((pid, 0))
        for i, q in enumerate(questions, start=1):
            texts.append(q)
            keys.append((pid, i))
    return Batch(texts, keys, len(paragraphs))


def embed(embedder: Embedder, batch: Batch) -> Vectors:
    """The batch's vectors, checked (width, NaN, zero) before anything is stored."""
    raw = embedder.embed_documents(batch.texts)
    return checked(raw, len(batch.texts), embedder.dim, "embeddings")


def store(
    session: Session,
    embedder: Embedder,
    context_id: int,
    source_pk: int,
    scopes: Sequence[str],
    batch: Batch,
    vectors: Vectors,
) -> int:
    """Write a batch's vectors (a vector already stored is kept) and record the model."""
    if not batch.texts:
        return 0
    rows = [
        {
            "paragraph_id": pid,
            "ord": ord_,
            "context_id": context_id,
            "source_pk": source_pk,
            "model": embedder.name,
            "dim": embedder.dim,
            "embedding": vec,
            "scopes": list(scopes),
        }
        for (pid, ord_), vec in zip(batch.keys, vectors, strict=True)
    ]
    session.execute(insert(ParagraphVector).on_conflict_do_nothing(), rows)
    record_model(session, context_id, embedder)
    return batch.paragraphs


def record_model(session: Session, context_id: int, embedder: Embedder) -> None:
    stmt = insert(ContextModel).values(context_id=context_id, model=embedder.name, dim=embedder.dim)
    session.execute(stmt.on_conflict_do_nothing())


def lane(
    session: Session,
    context_id: int,
    query: Vectors,
    model: str,
    dim: int,
    *,
    pool: int,
    floor: float | None,
    eligible: Select[Any] | None = None,
) -> list[VectorHit]:
    """The best `pool` paragraphs by cosine (over text and question vectors), at or above
    `floor`. Filtered scans stay complete through pgvector's iterative index scans."""
    session.execute(
        select(
            func.set_config("hnsw.iterative_scan", "relaxed_order", True),
            # The candidate list of the graph search: with the index built at ef_construction
            # 200 (migration 0009), 8× the pool (400 for the default pool of 50) reached
            # recall@10 0.952 against an exact scan at 100k paragraphs, where 4× gave 0.915
            # (bench/search_latency.py); pgvector accepts up to 1000.
            func.set_config("hnsw.ef_search", str(min(1000, max(128, 8 * pool))), True),
        )
    )
    distance = ParagraphVector.embedding.cast(Vector(dim)).cosine_distance(
        np.asarray(query, dtype=np.float32)
    )
    stmt = (
        select(ParagraphVector.paragraph_id, ParagraphVector.ord, distance.label("d"))
        .where(
            ParagraphVector.context_id == context_id,
            ParagraphVector.model == model,
            ParagraphVector.dim == dim,
        )
        .order_by(distance)
        .limit(pool * 2)
    )
    if floor is not None:
        stmt = stmt.where(distance <= 1.0 - floor)
    if eligible is not None:
        stmt = stmt.where(ParagraphVector.source_pk.in_(eligible))
    best: dict[int, tuple[float, bool]] = {}
    for pid, ord_, d in session.execute(stmt):
        sim = 1.0 - float(d)
        if pid not in best or sim > best[pid][0]:
            best[pid] = (sim, ord_ > 0)
    ranked = sorted(best.items(), key=lambda kv: (-kv[1][0], kv[0]))[:pool]
    return [VectorHit(pid, sim, rank, via_q) for rank, (pid, (sim, via_q)) in enumerate(ranked, 1)]


def cosine(
    session: Session, paragraph_id: int, query: Vectors, model: str, dim: int
) -> float | None:
    """The paragraph's best cosine to the query (explain's evidence), or None without vectors."""
    distance = ParagraphVector.embedding.cast(Vector(dim)).cosine_distance(
        np.asarray(query, dtype=np.float32)
    )
    d = session.scalar(
        select(func.min(distance)).where(
            ParagraphVector.paragraph_id == paragraph_id, ParagraphVector.model == model
        )
    )
    return None if d is None else 1.0 - float(d)
