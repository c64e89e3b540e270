"""The paragraph-embedding job (jobs/worker.py `_run_source`): each distinct text of a source is
embedded once, every paragraph gets all its vectors, progress is recorded, and a failure part-way
leaves each paragraph with all of its vectors or none, for the retry to finish."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

import numpy as np
import pytest
from sqlalchemy import func, select, update

from tabane.contexts import contexts
from tabane.ingest.documents import DocumentInput, block
from tabane.jobs import queue
from tabane.jobs.pipeline import pipelined
from tabane.jobs.worker import Worker
from tabane.models.embedder import Embedder, Vectors
from tabane.principal import Principal
from tabane.search import vectors
from tabane.service import Tabane
from tabane.storage.schema import Job, Paragraph, ParagraphVector, Source

from helpers import past_the_debounce, unique


class Recording:
    """The real embedder (same name and width), recording the texts it is given; with `fail_on`,
    its call of that number that carries one of `marked` raises."""

    def __init__(self, inner: Embedder, marker: str, fail_on: int | None = None) -> None:
        self.inner, self.marker, self.fail_on = inner, marker, fail_on
        self.name, self.dim = inner.name, inner.dim
        self.seen: list[str] = []
        self.calls = 0

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        if any(self.marker in t for t in texts):
            self.calls += 1
            if self.calls == self.fail_on:
                raise RuntimeError("the model went away")
            self.seen.extend(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Vectors:
        return self.inner.embed_query(text)


def _ingest(vsvc: Tabane, user: Principal, context: str, marker: str, n: int) -> str:
    """A source of `n` paragraphs: distinct ones, a repeated boilerplate line, questions."""
    texts = [f"{marker} paragraph {i} about topic {i % 7}" for i in range(n)]
    texts[3::5] = [f"{marker} Part of the Stable ABI."] * len(texts[3::5])
    questions = [[f"{marker} why {i}?"] if i % 4 == 0 else [] for i in range(n)]
    source_id = unique("doc")
    doc = DocumentInput(
        source_id=source_id, paragraphs=[block(t) for t in texts], questions=questions
    )
    vsvc.ingest(user, context, doc)
    return source_id


def _state(vsvc: Tabane, user: Principal, source_id: str) -> tuple[dict[int, int], Job]:
    """Vectors per paragraph (all of the source's paragraphs) and the source's embedding job."""
    with vsvc.store.session(user) as session:
        pk = session.scalar(select(Source.id).where(Source.source_id == source_id))
        wanted = {
            pid: 1 + len(qs)
            for pid, qs in session.execute(
                select(Paragraph.id, Paragraph.questions).where(Paragraph.source_pk == pk)
            )
        }
        have = dict.fromkeys(wanted, 0)
        for pid in session.scalars(
            select(ParagraphVector.paragraph_id).where(
                ParagraphVector.source_pk == pk, ParagraphVector.model == vsvc.embedder.name
            )
        ):
            have[pid] += 1
    for pid, count in have.items():  # all of a paragraph's vectors, or none
        assert count in (0, wanted[pid]), (pid, count, wanted[pid])
    with vsvc.store.admin() as session:
        job = session.scalar(select(Job).where(Job.kind == queue.EMBED_SOURCE, Job.source_pk == pk))
    assert job is not None
    return have, job


def test_each_distinct_text_is_embedded_once(vsvc: Tabane, user: Principal, context: str) -> None:
    assert vsvc.embedder is not None
    Worker(vsvc.store, vsvc.embedder).drain()  # what other tests left queued
    marker = unique("m")
    source_id = _ingest(vsvc, user, context, marker, 40)
    model = Recording(vsvc.embedder, marker)
    Worker(vsvc.store, model).drain()
    have, job = _state(vsvc, user, source_id)
    assert all(have.values())
    assert len(model.seen) == len(set(model.seen))  # the boilerplate line once, not 8 times
    assert f"{marker} Part of the Stable ABI." in model.seen
    assert (job.state, job.done_items, job.total_items) == ("done", 40, 40)
    with vsvc.store.session(user) as session:  # the model is recorded (by the job's first write)
        assert vectors.models(session, contexts.resolve(session, context).id) == {
            model.name: model.dim
        }
    with vsvc.store.session(user) as session:  # equal texts share one vector
        rows = session.execute(
            select(ParagraphVector.embedding)
            .join(Paragraph, Paragraph.id == ParagraphVector.paragraph_id)
            .where(
                Paragraph.text == f"{marker} Part of the Stable ABI.",
                ParagraphVector.ord == 0,
                ParagraphVector.model == model.name,
            )
        ).all()
    assert len(rows) == 8
    assert all(np.array_equal(np.asarray(r[0]), np.asarray(rows[0][0])) for r in rows)


@pytest.mark.slow
def test_a_failed_job_leaves_whole_paragraphs_and_the_retry_finishes(
    vsvc: Tabane, user: Principal, context: str
) -> None:
    assert vsvc.embedder is not None
    Worker(vsvc.store, vsvc.embedder).drain()
    marker = unique("m")
    n = 3 * vectors.BATCH
    source_id = _ingest(vsvc, user, context, marker, n)
    failing = Recording(vsvc.embedder, marker, fail_on=2)
    assert Worker(vsvc.store, failing).run_once()
    have, job = _state(vsvc, user, source_id)
    written = sum(1 for c in have.values() if c)
    assert 0 < written < n  # the first call's paragraphs were written, the rest were not
    assert job.state == "queued" and "went away" in (job.last_error or "")
    assert job.done_items == written and job.total_items == n  # progress as far as it got
    past_the_debounce(vsvc, user, context)  # due now, not after the backoff
    retry = Recording(vsvc.embedder, marker)
    Worker(vsvc.store, retry).drain()
    have, job = _state(vsvc, user, source_id)
    assert all(have.values()) and job.state == "done"
    assert job.done_items == job.total_items == n - written  # only what was missing
    assert len(retry.seen) == len(set(retry.seen))


def test_a_failed_write_stops_the_model_and_is_raised() -> None:
    computed: list[int] = []
    written: list[list[int]] = []

    def compute(item: int) -> Vectors:
        computed.append(item)
        return np.zeros((1, 2), dtype=np.float32)

    def write(ready: list[tuple[int, Vectors]]) -> None:
        if written:
            raise RuntimeError("the database went away")
        written.append([item for item, _ in ready])

    with pytest.raises(RuntimeError, match="went away"):
        pipelined(iter(range(10_000)), compute, write, lambda _: 1)
    assert len(written) == 1 and len(computed) < 10_000


class DiesBeforeTheRebuild(Worker):
    """A worker whose process dies right after the job's last vectors are committed, before it
    queues the tree's rebuild: the job stays leased, as SIGKILL would leave it."""

    def _leaves_changed(self, context_id: int) -> None:
        raise SystemExit  # not an Exception: run_once neither fails nor finishes the job


def test_a_worker_dead_after_storing_the_last_vectors_leaves_the_rebuild_to_the_retry(
    vsvc: Tabane, user: Principal, context: str
) -> None:
    assert vsvc.embedder is not None
    Worker(vsvc.store, vsvc.embedder).drain()
    source_id = _ingest(vsvc, user, context, unique("m"), 12)
    with vsvc.store.session(user) as session:
        ctx_id = contexts.resolve(session, context).id

    def rebuilds() -> int:
        with vsvc.store.admin() as session:
            return len(
                session.scalars(
                    select(Job.id).where(Job.kind == queue.DERIVE_RAPTOR, Job.context_id == ctx_id)
                ).all()
            )

    dying = DiesBeforeTheRebuild(vsvc.store, vsvc.embedder, summarizer=vsvc.core.summarizer_model)
    with pytest.raises(SystemExit):
        dying.drain()  # the jobs before it run; the embedding job dies
    have, job = _state(vsvc, user, source_id)
    assert all(have.values()) and job.state == "running" and rebuilds() == 0
    with vsvc.store.admin() as session:  # its lease runs out
        session.execute(
            update(Job).where(Job.id == job.id).values(run_after=func.now() - timedelta(seconds=1))
        )
    Worker(vsvc.store, vsvc.embedder, summarizer=vsvc.core.summarizer_model).drain()
    _, job = _state(vsvc, user, source_id)
    assert (job.state, job.attempts) == ("done", 2)
    assert rebuilds() == 1  # nothing was left to embed, and the rebuild is queued all the same
