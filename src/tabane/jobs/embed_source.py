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
    found = _todo(store, embedder, job)
    if found is None:
        return None if then is None else then(None)
    job_writes = _Writes(store, embedder, job, found, leaves_changed, then)
    # The model runs here while a second thread writes (and PostgreSQL indexes, on the other
    # core) what it finished before: the pipeline costs max(model, write), not their sum.
    known: dict[int, Vectors] = {}
    try:
        pipelined(
            vectors.batches(job_writes.todo),
            lambda batch: vectors.embed(embedder, batch, known),
            job_writes.write,
            lambda batch: len(batch.keys),
            None if then is None else job_writes.end,
        )
    except Exception as exc:  # the model's error, or (without `then`) the writer's
        job_writes.end(exc)
    else:
        if then is None:
            job_writes.end(None)


class _Writes:
    """One job's side of the writer thread: its writes, progress notes and end."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        job: queue.Claimed,
        found: tuple[int, int, list[str], list[tuple[int, str, list[str]]]],
        leaves_changed: Callable[[int], None],
        then: Callable[[BaseException | None], None] | None,
    ) -> None:
        self.store, self.embedder, self.job = store, embedder, job
        self.context_id, self.source_pk, self.scopes, self.todo = found
        self.leaves_changed, self.then = leaves_changed, then
        self.done, self.noted, self.noted_at = 0, 0, time.monotonic()
        self.started = self.noted_at  # since the last write: the model's time and the write's

    def note(self) -> None:
        with self.store.admin() as session:
            queue.progress(session, self.job, self.done, len(self.todo))
        self.noted, self.noted_at = self.done, time.monotonic()

    def write(self, ready: list[tuple[vectors.Batch, Vectors]]) -> None:
        """One transaction for the batches the model finished while the last one ran (the
        job's first also records the model); progress, an owner transaction of its own, is
        noted at most every `PROGRESS_EVERY` seconds and once at the end."""
        keys = [key for batch, _ in ready for key in batch.keys]
        vecs = np.concatenate([v for _, v in ready])
        with self.store.session(self.job.principal) as session:
            vectors.store(
                session,
                self.embedder,
                self.context_id,
                self.source_pk,
                self.scopes,
                keys,
                vecs,
                record=not self.done,
            )
        written = sum(batch.paragraphs for batch, _ in ready)
        self.done += written
        EMBEDDED.add(written, time.monotonic() - self.started)
        self.started = time.monotonic()
        if time.monotonic() - self.noted_at >= PROGRESS_EVERY:
            self.note()

    def end(self, exc: BaseException | None) -> None:
        """What was written, also when the job failed part-way; then the leaves' rebuild (a
        retry queues it even with nothing left: the run before may have died before this);
        then `then`, or (without it) the error raised."""
        try:
            if self.done != self.noted:
                self.note()
            if exc is None and (self.todo or self.job.attempts > 1):
                self.leaves_changed(self.context_id)
        except BaseException as late:  # SystemExit too: the worker's `then` hands it on
            exc = exc or late
        if self.then is not None:
            self.then(exc)
        elif exc is not None:
            raise exc


def _todo(
    store: Store, embedder: Embedder, job: queue.Claimed
) -> tuple[int, int, list[str], list[tuple[int, str, list[str]]]] | None:
    """(context id, source pk, the source's scopes, its paragraphs lacking a vector of the
    model), or None when the source is gone, retracted, or re-scoped since (the job queued
    with its new set does the work)."""
    assert job.source_pk is not None
    with store.session(job.principal) as session:
        source = session.scalar(select(Source).where(Source.id == job.source_pk))
        if source is None or source.retracted_at is not None:
            return None
        if not set(source.scopes) <= job.principal.write:
            return None
        todo = vectors.missing(session, source.id, embedder.name)
        return source.context_id, source.id, list(source.scopes), todo


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
