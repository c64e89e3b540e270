"""The vector lane: paragraph (and doc2query question) embeddings in pgvector, HNSW cosine.

Embeddings are written by background jobs (`embed_source`), never during ingest. Each vector row
records its model; `context_models` records which models a context holds, so a search can tell
"no vectors yet" from "vectors of another model" (and then schedules a re-embed instead of
answering from another vector space).
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from pgvector.sqlalchemy import Vector
from sqlalchemy import (
    ARRAY,
    BigInteger,
    Integer,
    Select,
    Text,
    bindparam,
    func,
    literal,
    select,
)
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from tabane.models.embedder import Embedder, Vectors, checked
from tabane.storage.binary import vector_array
from tabane.storage.schema import ContextModel, Paragraph, ParagraphVector
from tabane.storage.store import configure

# The HNSW graph search's candidate list (pgvector's default). The iterative scan goes on until
# the lane's LIMIT is met, so this sets the work per round, not the depth: on the default model's
# vectors of the dev corpora (bench/hnsw_recall.py, 124k vectors) recall@10 against an exact scan
# is 0.98-0.99 at every value from 40 to 400, and the work doubles from 128 to 400. With larger
# values PostgreSQL also planned some scans as reading a context's every vector instead (a
# mid-sized context's paragraphs at 200+, recall's gloss seeds at 100-128): recall's statement
# took 60.6 ms at 40, 118.2 ms at 400 (bench/recall_latency.py, docs/journal/benchmarks.md).
EF_SEARCH = 40


# The transaction settings of a read that ranks by an HNSW index (the search's vector lane,
# recall's statement; `storage.store.configure`). Filtered scans stay complete through
# pgvector's iterative scans. Plans are made for the values bound: PostgreSQL moves a prepared
# statement to a generic plan once that looks no worse than the custom plans' average — a few
# long questions (hundreds of seeds and terms) raise that average until it does — and a generic
# plan, its LIMIT unknown, scans every vector (bench/recall_latency.py `--long`).
NEAREST: dict[str, str] = {
    "plan_cache_mode": "force_custom_plan",
    "hnsw.iterative_scan": "relaxed_order",
    "hnsw.ef_search": str(EF_SEARCH),
}


BATCH = 64  # texts per embedder call (the model streams tokens, so the size barely matters)
# Vectors per write transaction at most: a batch of short repeated texts brings few new texts
# but many rows; this keeps each transaction (and the progress step) bounded.
ROWS = 512
# The smallest of the model's shrinking last calls of a job. The write after the last call is the
# one the model cannot hide; shrinking the calls (and writing each paragraph as soon as its texts
# are embedded) cut it from ~0.1 s to a few ms a job (bench/embed_throughput.py).
TAIL = 8


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


@dataclass(frozen=True)
class Held:
    model: str
    width: int
    rows: int  # paragraphs with a vector of the model (a paragraph's questions count once)


@dataclass(frozen=True)
class EmbeddingStatus:
    context: str
    configured: str | None  # the embedder configured now (None: none)
    held: tuple[Held, ...]  # the vectors the context holds, by model


def held(session: Session, context_id: int) -> tuple[Held, ...]:
    """The models a context's vectors were made with, as far as the caller can see them."""
    rows = session.execute(
        select(
            ParagraphVector.model,
            func.min(ParagraphVector.dim),
            func.count(func.distinct(ParagraphVector.paragraph_id)),
        )
        .where(ParagraphVector.context_id == context_id)
        .group_by(ParagraphVector.model)
        .order_by(ParagraphVector.model)
    )
    return tuple(Held(m, int(d), int(n)) for m, d, n in rows)


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
    """Paragraphs whose vectors are written in one transaction (a paragraph's text, ord 0, and its
    questions, 1..n, always together), and the texts the model embeds for them.

    A job embeds each distinct text once: `texts` are the texts this batch embeds (their job-wide
    ids are `first`, `first + 1`, …), `ids` gives each key the id of its text (a text repeated in
    the job reuses its vector), and `last` lists the ids no later batch uses (their vectors can
    be forgotten after this batch)."""

    texts: list[str]
    first: int
    keys: list[tuple[int, int]]
    ids: list[int]
    last: list[int]
    paragraphs: int


def batches(paragraphs: Sequence[tuple[int, str, list[str]]], size: int = BATCH) -> list[Batch]:
    """Plan a job: its distinct texts go to the model `size` at a time, the most used first (ties
    in order of first use), the last calls shrinking (half of what is left, down to `TAIL`); each
    paragraph is written with the call that embeds the last of its texts (in document order
    within it), at most `ROWS` vectors a batch. So the rows of repeated texts are written early,
    while the model still has work to hide them behind, and the write it cannot hide, the one
    after its last call, stays small."""
    uses = Counter(t for _, text, questions in paragraphs for t in (text, *questions))
    texts = sorted(uses, key=lambda t: (-uses[t], len(t)))  # stable: then order of first use
    ids = {t: i for i, t in enumerate(texts)}
    keyed = [
        ([(pid, i) for i in range(1 + len(qs))], [ids[t] for t in (text, *qs)])
        for pid, text, qs in paragraphs
    ]
    bounds = [0]  # the model's calls: text ids bounds[k] <= id < bounds[k + 1]
    while bounds[-1] < len(texts):
        left = len(texts) - bounds[-1]
        bounds.append(bounds[-1] + min(left, size, max(TAIL, left // 2)))
    unlocked: list[list[int]] = [[] for _ in bounds[1:]]  # paragraphs each call completes
    for n, (_, tids) in enumerate(keyed):
        unlocked[bisect_right(bounds, max(tids)) - 1].append(n)
    chunks: list[tuple[int, list[int]]] = []  # (call, paragraphs) per batch
    for call, members in enumerate(unlocked):
        chunk: list[int] = []
        rows = 0
        for n in members:
            if chunk and rows + len(keyed[n][0]) > ROWS:
                chunks.append((call, chunk))
                chunk, rows = [], 0
            chunk.append(n)
            rows += len(keyed[n][0])
        chunks.append((call, chunk))
    last_use: dict[int, int] = {}  # text id → the last batch that writes it
    for b, (_, members) in enumerate(chunks):
        for n in members:
            for t in keyed[n][1]:
                last_use[t] = b
    out: list[Batch] = []
    for b, (call, members) in enumerate(chunks):
        fresh = b == 0 or chunks[b - 1][0] != call  # the first batch of a call embeds its texts
        lo, hi = (bounds[call], bounds[call + 1]) if fresh else (bounds[call + 1], bounds[call + 1])
        used = [t for n in members for t in keyed[n][1]]
        out.append(
            Batch(
                texts[lo:hi],
                lo,
                [k for n in members for k in keyed[n][0]],
                used,
                sorted({t for t in used if last_use[t] == b}),
                len(members),
            )
        )
    return out


def embed(embedder: Embedder, batch: Batch, known: dict[int, Vectors]) -> Vectors:
    """The batch's vectors, one per key: its new texts are embedded and checked (width, NaN,
    zero) before anything is stored, then kept in `known` (text id → vector) for later batches
    of the job; vectors no later batch needs are dropped from `known`."""
    if batch.texts:
        raw = embedder.embed_documents(batch.texts)
        fresh = checked(raw, len(batch.texts), embedder.dim, "embeddings")
        for i, row in enumerate(fresh):
            known[batch.first + i] = row
    out: Vectors = (
        np.stack([known[i] for i in batch.ids])
        if batch.ids
        else np.zeros((0, embedder.dim), dtype=np.float32)
    )
    for i in batch.last:
        del known[i]
    return out


def store(
    session: Session,
    embedder: Embedder,
    context_id: int,
    source_pk: int,
    scopes: Sequence[str],
    keys: Sequence[tuple[int, int]],
    vectors: Vectors,
    *,
    record: bool = True,
) -> None:
    """Write vectors for (paragraph id, ord) keys in one statement (a vector already stored is
    kept) and, with `record`, record the model (a job's later writes skip the round trip). The
    vectors travel in pgvector's binary format: formatting floats as text cost more CPU than the
    rest of the write (bench/embed_throughput.py)."""
    if not keys:
        return
    rows = (
        func.unnest(
            bindparam("pids", [k[0] for k in keys], type_=ARRAY(BigInteger)),
            bindparam("ords", [k[1] for k in keys], type_=ARRAY(Integer)),
            vector_array(session, "embeddings", vectors),
        )
        .table_valued("paragraph_id", "ord", "embedding")
        .render_derived(name="rows")
    )
    constants = {
        "context_id": literal(context_id, Integer),
        "source_pk": literal(source_pk, BigInteger),
        "model": literal(embedder.name, Text),
        "dim": literal(embedder.dim, Integer),
        "scopes": literal(list(scopes), ARRAY(Text)),
    }
    stmt = insert(ParagraphVector).from_select(
        ["paragraph_id", "ord", "embedding", *constants],
        select(rows.c.paragraph_id, rows.c.ord, rows.c.embedding, *constants.values()),
    )
    session.execute(stmt.on_conflict_do_nothing())
    if record:
        record_model(session, context_id, embedder)


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
    `floor` (under `NEAREST`)."""
    best = nearest(session, context_id, query, model, dim, pool * 2, floor, eligible)
    ranked = sorted(best.items(), key=lambda kv: (-kv[1][0], kv[0]))[:pool]
    return [VectorHit(pid, sim, rank, via_q) for rank, (pid, (sim, via_q)) in enumerate(ranked, 1)]


def nearest(
    session: Session,
    context_id: int,
    query: Vectors,
    model: str,
    dim: int,
    limit: int,
    floor: float | None,
    eligible: Select[Any] | None = None,
) -> dict[int, tuple[float, bool]]:
    """Paragraph → (its best cosine, found by a question vector) over the context's `limit`
    vectors nearest `query`, those at or above `floor` (under `NEAREST`). The context is a bound
    value, so PostgreSQL plans for its size (a large context by the HNSW index, a small one by
    its rows), and the floor cuts after the LIMIT (the same rows: they come in distance order)
    rather than filtering the read, where its guessed selectivity priced the index scan as if
    it had to pass most of the index (decision 0047)."""
    configure(session, NEAREST)
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
        .limit(limit)
    )
    if eligible is not None:
        stmt = stmt.where(ParagraphVector.source_pk.in_(eligible))
    best: dict[int, tuple[float, bool]] = {}
    for pid, ord_, d in session.execute(stmt):
        if floor is not None and float(d) > 1.0 - floor:
            continue  # (the iterative scan's order is relaxed: a later row may still pass)
        sim = 1.0 - float(d)
        if pid not in best or sim > best[pid][0]:
            best[pid] = (sim, ord_ > 0)
    return best


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
