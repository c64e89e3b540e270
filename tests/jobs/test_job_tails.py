"""An embedding job's last writes and end run in its writer thread while the worker claims the
next job and starts the model on it (jobs/tails.py, decision 0040): the model does not wait for
the write it cannot hide; every job still ends done with all its vectors, and a failed write
still fails its job."""

from __future__ import annotations

import time
from collections.abc import Sequence

import pytest
from sqlalchemy import func, select

from tabane.ingest.documents import DocumentInput, block
from tabane.jobs import queue
from tabane.jobs.worker import Worker
from tabane.models.embedder import Embedder, Vectors
from tabane.principal import Principal
from tabane.search import vectors
from tabane.service import Tabane
from tabane.storage.schema import Job, ParagraphVector, Source

from helpers import past_the_debounce, unique


class Noting:
    """The real embedder, noting at each call the states of the embedding jobs of `sources`."""

    def __init__(self, inner: Embedder, svc: Tabane, sources: list[str]) -> None:
        self.inner, self.svc, self.sources = inner, svc, sources
        self.name, self.dim = inner.name, inner.dim
        self.calls: list[tuple[str, dict[str, str]]] = []

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.calls.append((texts[0], _states(self.svc, self.sources)))
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Vectors:
        return self.inner.embed_query(text)


def _states(svc: Tabane, sources: list[str]) -> dict[str, str]:
    with svc.store.admin() as session:
        rows = session.execute(
            select(Source.source_id, Job.state)
            .join(Job, Job.source_pk == Source.id)
            .where(Source.source_id.in_(sources), Job.kind == queue.EMBED_SOURCE)
        )
        return {str(s): str(state) for s, state in rows}


def _two_sources(vsvc: Tabane, user: Principal, context: str) -> tuple[list[str], str]:
    marker = unique("tail")
    ids = [unique("doc"), unique("doc")]
    for n, source_id in enumerate(ids):
        texts = [f"{marker} source {n} paragraph {i} on matter {n * 10 + i}" for i in range(6)]
        doc = DocumentInput(source_id=source_id, paragraphs=[block(t) for t in texts])
        vsvc.ingest(user, context, doc)
    past_the_debounce(vsvc, user, context)
    return ids, marker


def _slow_writes(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    store = vectors.store

    def slow(*args: object, **kwargs: object) -> None:
        time.sleep(seconds)
        store(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(vectors, "store", slow)


def test_the_model_starts_the_next_job_while_the_last_one_is_written(
    vsvc: Tabane, user: Principal, context: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert vsvc.embedder is not None
    Worker(vsvc.store, vsvc.embedder).drain()
    ids, marker = _two_sources(vsvc, user, context)
    _slow_writes(monkeypatch, 0.5)
    noting = Noting(vsvc.embedder, vsvc, ids)
    Worker(vsvc.store, noting).drain()
    firsts = {text.split(" paragraph")[0]: states for text, states in reversed(noting.calls)}
    first_of_second = firsts[f"{marker} source 1"]  # the model's first call of the 2nd job
    assert first_of_second[ids[0]] == "running"  # the 1st job was still being written
    assert _states(vsvc, ids) == {ids[0]: "done", ids[1]: "done"}  # every end recorded
    with vsvc.store.admin() as session:
        stored = session.scalar(
            select(func.count())
            .select_from(ParagraphVector)
            .join(Source, Source.id == ParagraphVector.source_pk)
            .where(Source.source_id.in_(ids))
        )
    assert stored == 12


def test_a_failed_write_at_a_jobs_end_fails_that_job(
    vsvc: Tabane, user: Principal, context: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert vsvc.embedder is not None
    Worker(vsvc.store, vsvc.embedder).drain()
    ids, _ = _two_sources(vsvc, user, context)
    store = vectors.store

    def failing(session: object, embedder: object, context_id: object, source_pk: int,
                *args: object, **kwargs: object) -> None:  # fmt: skip
        if source_pk == first_pk:
            raise RuntimeError("the disk went away")
        store(session, embedder, context_id, source_pk, *args, **kwargs)  # type: ignore[arg-type]

    with vsvc.store.admin() as session:
        first_pk = session.scalar(select(Source.id).where(Source.source_id == ids[0]))
    monkeypatch.setattr(vectors, "store", failing)
    Worker(vsvc.store, vsvc.embedder).drain()
    assert _states(vsvc, ids) == {ids[0]: "queued", ids[1]: "done"}  # failed: retried later
    with vsvc.store.admin() as session:
        error = session.scalar(
            select(Job.last_error).where(Job.kind == queue.EMBED_SOURCE, Job.source_pk == first_pk)
        )
    assert error is not None and "disk went away" in error


def test_two_threads_waiting_for_the_same_end_both_return() -> None:
    """A worker's own thread and a caller's `wait_for_jobs` flush the same ends: both wait on the
    one under way and, once it is done, both return (main raised IndexError in the second)."""
    import threading

    from tabane.jobs.tails import Tails

    tails = Tails()
    end = threading.Event()
    tails._ends.append(end)  # an end under way, as `start` leaves it
    errors: list[BaseException] = []

    def flush() -> None:
        try:
            tails.flush()
        except BaseException as exc:  # the test reports whatever a flush raised
            errors.append(exc)

    threads = [threading.Thread(target=flush) for _ in range(2)]
    for thread in threads:
        thread.start()
    time.sleep(0.2)  # both are waiting on the end
    end.set()
    for thread in threads:
        thread.join(5)
    assert not any(thread.is_alive() for thread in threads)
    assert errors == []
    assert tails.flush() is False  # nothing left under way
