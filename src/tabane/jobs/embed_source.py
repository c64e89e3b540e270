"""The embedding of one source's paragraphs (an `embed_source` job): each distinct text once, the
model running while a second thread writes what it finished before."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from tabane.jobs import queue
from tabane.jobs.meter import EMBEDDED
from tabane.jobs.pipeline import pipelined
from tabane.models.embedder import Embedder, Vectors
from tabane.principal import Principal
from tabane.search import vectors
from tabane.sources import read as sources_read
from tabane.storage.schema import Context, Source
from tabane.storage.store import Store

PROGRESS_EVERY = 1.0  # seconds between an embedding job's progress notes (each renews its lease)


def run(
    store: Store,
    embedder: Embedder,
    job: queue.Claimed,
    leaves_changed: Callable[[int], None],
    then: Callable[[BaseException | None], None] | None = None,
) -> None:
    """Embed a source's paragraphs that lack a vector of the model (search/vectors.py): each
    distinct text once, the model running while earlier batches are written. With `then`, this
    returns when the model is done: the writer thread writes the rest, then calls `then` once
    with the job's error or None (so the worker's model can start on its next job meanwhile)."""
    assert job.source_pk is not None
    principal = job.principal
    with store.session(principal) as session:
        source = session.scalar(select(Source).where(Source.id == job.source_pk))
        if source is None or source.retracted_at is not None:
            return None if then is None else then(None)
        if not set(source.scopes) <= principal.write:
            # the source was re-scoped since; the job queued with it does the work
            return None if then is None else then(None)
        scopes = list(source.scopes)
        todo = vectors.missing(session, source.id, embedder.name)
    context_id, source_pk = source.context_id, source.id
    done, noted, noted_at = 0, 0, time.monotonic()
    started = noted_at  # since the last write: the model's time and the write's

    def note() -> None:
        nonlocal noted, noted_at
        with store.admin() as session:
            queue.progress(session, job, done, len(todo))
        noted, noted_at = done, time.monotonic()

    def write(ready: list[tuple[vectors.Batch, Vectors]]) -> None:
        """One transaction for the batches the model finished while the last one ran (the
        job's first also records the model); progress, an owner transaction of its own, is
        noted at most every `PROGRESS_EVERY` seconds and once at the end."""
        nonlocal done, started
        keys = [key for batch, _ in ready for key in batch.keys]
        vecs = np.concatenate([v for _, v in ready])
        with store.session(principal) as session:
            vectors.store(
                session, embedder, context_id, source_pk, scopes, keys, vecs, record=not done
            )
        written = sum(batch.paragraphs for batch, _ in ready)
        done += written
        EMBEDDED.add(written, time.monotonic() - started)
        started = time.monotonic()
        if time.monotonic() - noted_at >= PROGRESS_EVERY:
            note()

    # The model runs here while a second thread writes (and PostgreSQL indexes, on the other
    # core) what it finished before: the pipeline costs max(model, write), not their sum
    # (bench/embed_throughput.py).
    def end(exc: BaseException | None) -> None:
        """What was written, also when the job failed part-way; then the leaves' rebuild."""
        try:
            if done != noted:
                note()
            if exc is None and (todo or job.attempts > 1):  # a retry: the run before may have
                leaves_changed(context_id)  # died before this
        except BaseException as late:  # SystemExit too: the worker's `then` hands it on
            exc = exc or late
        if then is not None:
            then(exc)
        elif exc is not None:
            raise exc

    known: dict[int, Vectors] = {}
    try:
        pipelined(
            vectors.batches(todo),
            lambda batch: vectors.embed(embedder, batch, known),
            write,
            lambda batch: len(batch.keys),
            None if then is None else end,
        )
    except Exception as exc:  # the model's error, or (without `then`) the writer's
        end(exc)
    else:
        if then is None:
            end(None)


@dataclass(frozen=True)
class EmbeddingRefresh:
    context: str
    model: str  # the configured embedder the jobs embed with
    sources: int  # live sources queued (a job already queued for one is not queued twice)


def queue_again(session: Session, user: Principal, ctx: Context) -> int:
    """The context holds no vectors of the configured model (another model's, or none — its
    sources were stored with no embedder): queue an embedding of every live source the caller
    can see (each job carries that source's scopes; the job skips embedded paragraphs). Returns
    how many sources it queued."""
    queued = 0
    for source in sources_read.live(session, ctx.id):
        if not user.can_write(tuple(source.scopes)):
            continue  # a reader cannot queue work that writes with the source's scopes
        queue.enqueue_embedding(
            session,
            context_id=ctx.id,
            context_scopes=ctx.scopes,
            source_pk=source.id,
            source_scopes=source.scopes,
        )
        queued += 1
    return queued
