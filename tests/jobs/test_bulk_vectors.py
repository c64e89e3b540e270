"""A bulk load of vectors sets the width's HNSW index aside and builds it again after the jobs
(jobs/bulk_vectors.py, storage/hnsw.py): the vectors are found by search, a small addition keeps
the index, and a reader gets the same answers while the index is gone, being built, or left
invalid by a build killed part-way."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence

import pytest
from sqlalchemy import text

from tabane.contexts import contexts
from tabane.ingest.documents import DocumentInput, block
from tabane.jobs import bulk_vectors, queue
from tabane.jobs.worker import Worker
from tabane.models.embedder import Embedder, Vectors
from tabane.principal import Principal
from tabane.search import vectors
from tabane.service import Tabane
from tabane.storage import hnsw

from helpers import past_the_debounce, unique


class Watching:
    """The real embedder, noting the state of its width's index at each call."""

    def __init__(self, inner: Embedder, svc: Tabane) -> None:
        self.inner, self.svc = inner, svc
        self.name, self.dim = inner.name, inner.dim
        self.states: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.states.append(_state(self.svc, self.dim))
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Vectors:
        return self.inner.embed_query(text)


def _state(svc: Tabane, dim: int) -> str:
    with svc.store.owner.connect() as conn:
        return hnsw.states(conn)[dim]


@pytest.fixture
def model(vsvc: Tabane) -> Iterator[Embedder]:
    """The embedder, with what other tests left queued done; the index valid again after."""
    assert vsvc.embedder is not None
    Worker(vsvc.store, vsvc.embedder).drain()
    yield vsvc.embedder
    hnsw.rebuild(vsvc.store.owner)
    assert _state(vsvc, vsvc.embedder.dim) == "valid"


def _load(vsvc: Tabane, user: Principal, context: str, sources: int, n: int) -> list[str]:
    """`sources` sources of `n` distinct paragraphs, their jobs due now; the texts."""
    marker = unique("bulk")
    texts = [f"{marker} note {s}-{i} on subject {s * n + i} of the load" for s in range(sources)
             for i in range(n)]  # fmt: skip
    for s in range(sources):
        chunk = [block(t) for t in texts[s * n : (s + 1) * n]]
        vsvc.ingest(user, context, DocumentInput(source_id=unique("doc"), paragraphs=chunk))
    past_the_debounce(vsvc, user, context)
    return texts


def _top(vsvc: Tabane, user: Principal, context: str, query: str) -> list[str]:
    """The vector lane's best three for `query`, as texts."""
    assert vsvc.embedder is not None
    emb = vsvc.embedder
    with vsvc.store.session(user) as session:
        ctx = contexts.resolve(session, context)
        hits = vectors.lane(
            session, ctx.id, emb.embed_query(query), emb.name, emb.dim, pool=3, floor=None
        )
        ids = [h.paragraph_id for h in hits]
        rows = dict(session.execute(text("SELECT id, text FROM paragraphs WHERE id = ANY(:i)"),
                                    {"i": ids}).all())  # fmt: skip
    return [rows[i] for i in ids]


def test_a_bulk_load_writes_without_the_index_and_builds_it_after(
    vsvc: Tabane, user: Principal, context: str, model: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bulk_vectors, "BULK_MIN", 10)
    monkeypatch.setattr(bulk_vectors, "SHARE", 0.0)
    texts = _load(vsvc, user, context, 3, 8)
    watching = Watching(model, vsvc)
    Worker(vsvc.store, watching).drain()
    assert watching.states and set(watching.states) == {"missing"}  # every write without it
    assert _state(vsvc, model.dim) == "valid"  # built again after the last job
    assert _top(vsvc, user, context, texts[13])[0] == texts[13]  # found through the index


def test_a_small_addition_keeps_the_index(
    vsvc: Tabane, user: Principal, context: str, model: Embedder
) -> None:
    texts = _load(vsvc, user, context, 1, 6)  # far below BULK_MIN
    watching = Watching(model, vsvc)
    Worker(vsvc.store, watching).drain()
    assert watching.states and set(watching.states) == {"valid"}
    assert _top(vsvc, user, context, texts[2])[0] == texts[2]


def test_a_reader_gets_answers_while_the_index_is_gone_or_being_built(
    vsvc: Tabane, user: Principal, context: str, model: Embedder
) -> None:
    texts = _load(vsvc, user, context, 1, 12)
    Worker(vsvc.store, model).drain()
    want = _top(vsvc, user, context, texts[5])
    assert want[0] == texts[5]
    assert hnsw.suspend(vsvc.store.owner, model.dim)
    assert _top(vsvc, user, context, texts[5]) == want  # no index: an exact scan, same answers
    built: list[list[int]] = []
    with vsvc.store.session(user, snapshot=True) as held:  # an older snapshot: the build waits
        held.execute(text("SELECT 1 FROM paragraphs LIMIT 1"))
        builder = threading.Thread(target=lambda: built.append(hnsw.rebuild(vsvc.store.owner)))
        builder.start()
        deadline = time.monotonic() + 30
        while _state(vsvc, model.dim) != "invalid" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _state(vsvc, model.dim) == "invalid"  # the build is under way
        assert _top(vsvc, user, context, texts[5]) == want  # … and a reader gets its answers
    builder.join(60)
    assert built == [[model.dim]] and _state(vsvc, model.dim) == "valid"
    assert _top(vsvc, user, context, texts[5]) == want


def test_a_build_killed_part_way_is_built_again(
    vsvc: Tabane, user: Principal, context: str, model: Embedder
) -> None:
    texts = _load(vsvc, user, context, 1, 12)
    Worker(vsvc.store, model).drain()
    want = _top(vsvc, user, context, texts[7])
    assert hnsw.suspend(vsvc.store.owner, model.dim)
    failed: list[BaseException] = []

    def build() -> None:
        try:
            hnsw.rebuild(vsvc.store.owner)
        except BaseException as exc:  # the server ended its session
            failed.append(exc)

    with vsvc.store.session(user, snapshot=True) as held:
        held.execute(text("SELECT 1 FROM paragraphs LIMIT 1"))
        builder = threading.Thread(target=build)
        builder.start()
        deadline = time.monotonic() + 30
        while _state(vsvc, model.dim) != "invalid" and time.monotonic() < deadline:
            time.sleep(0.05)
        with vsvc.store.owner.connect() as conn:  # as a crash of the building process would
            conn.execute(text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE query LIKE 'CREATE INDEX CONCURRENTLY%' AND pid <> pg_backend_pid()"
            ))  # fmt: skip
        builder.join(60)
    assert failed and _state(vsvc, model.dim) == "invalid"
    assert _top(vsvc, user, context, texts[7]) == want  # an invalid index is never read
    bulk = bulk_vectors.Bulk(vsvc.store)
    assert bulk.settle() == [model.dim]  # the lock went with it
    assert bulk.wait(60) and _state(vsvc, model.dim) == "valid"
    assert _top(vsvc, user, context, texts[7]) == want


def test_the_index_waits_for_the_embedding_jobs_due(
    vsvc: Tabane, user: Principal, context: str, model: Embedder
) -> None:
    assert hnsw.suspend(vsvc.store.owner, model.dim)
    texts = _load(vsvc, user, context, 1, 4)  # a job due now
    assert bulk_vectors.Bulk(vsvc.store).settle() == []  # not while the load goes on
    assert _state(vsvc, model.dim) == "missing"
    assert _top(vsvc, user, context, texts[0]) == []  # not embedded yet: nothing to find
    Worker(vsvc.store, model).drain()  # the last job's end builds it
    assert _state(vsvc, model.dim) == "valid"
    assert _top(vsvc, user, context, texts[0])[0] == texts[0]


def _building(vsvc: Tabane, dim: int) -> None:
    """Wait until the width's index is being built (invalid: a snapshot holds it back)."""
    deadline = time.monotonic() + 30
    while _state(vsvc, dim) != "invalid" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _state(vsvc, dim) == "invalid"


def test_the_build_runs_beside_the_workers_other_jobs(
    vsvc: Tabane, user: Principal, context: str, model: Embedder
) -> None:
    texts = _load(vsvc, user, context, 1, 12)
    worker = Worker(vsvc.store, model)
    worker.drain()
    want = _top(vsvc, user, context, texts[3])
    assert hnsw.suspend(vsvc.store.owner, model.dim)
    with vsvc.store.session(user, snapshot=True) as held:  # the build waits while it is held
        held.execute(text("SELECT 1 FROM paragraphs LIMIT 1"))
        assert worker._bulk.settle() == [model.dim]  # started in its own thread
        _building(vsvc, model.dim)
        with vsvc.store.session(user) as session:
            ctx = contexts.resolve(session, context)
        with vsvc.store.admin() as session:
            queue.enqueue_merge(session, context_id=ctx.id, scopes=list(ctx.scopes))
        assert worker.run_once(only=[queue.MERGE_BM25])  # another kind runs meanwhile
        with vsvc.store.admin() as session:
            assert worker.pending(session, only=[queue.MERGE_BM25]) == 0
        assert _state(vsvc, model.dim) == "invalid" and not worker.settled(0.1)
        assert _top(vsvc, user, context, texts[3]) == want  # a reader answered by an exact scan
    assert worker.settled(60) and _state(vsvc, model.dim) == "valid"
    assert _top(vsvc, user, context, texts[3]) == want


def test_a_worker_stopping_cancels_the_build_and_the_next_one_builds_it(
    vsvc: Tabane, user: Principal, context: str, model: Embedder
) -> None:
    texts = _load(vsvc, user, context, 1, 12)
    Worker(vsvc.store, model).drain()
    want = _top(vsvc, user, context, texts[4])
    assert hnsw.suspend(vsvc.store.owner, model.dim)
    worker = Worker(vsvc.store, model)
    with vsvc.store.session(user, snapshot=True) as held:
        held.execute(text("SELECT 1 FROM paragraphs LIMIT 1"))
        assert worker._bulk.settle() == [model.dim]
        _building(vsvc, model.dim)
        started = time.monotonic()
        worker.stop(timeout=10)  # not held up until the snapshot ends
        assert time.monotonic() - started < 10 and worker.settled(0)
    assert _state(vsvc, model.dim) == "invalid"  # never read; readers scan exactly
    assert _top(vsvc, user, context, texts[4]) == want
    again = Worker(vsvc.store, model)
    assert again.run_once() is False  # idle: the missing build starts
    assert again.settled(60) and _state(vsvc, model.dim) == "valid"
    assert _top(vsvc, user, context, texts[4]) == want
