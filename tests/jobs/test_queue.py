"""The job queue: dedupe, SKIP LOCKED claims, backoff, giving up, lease recovery, and a worker
whose embedding service fails (a real HTTP fake) retrying later."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select, update

from tabane.ingest.documents import DocumentInput, block
from tabane.jobs import queue
from tabane.models.fake_openai import FakeOpenAIServer
from tabane.models.openai_embedder import OpenAIEmbedder
from tabane.service import Tabane
from tabane.storage.schema import Job


def _job(svc: Tabane, job_id: int) -> Job:
    with svc.store.admin() as session:
        job = session.get(Job, job_id)
        assert job is not None
        return job


def _enqueue(svc: Tabane, user, kind: str) -> int:
    with svc.store.session(user) as session:
        for _ in range(2):  # the second is a duplicate of queued work and is dropped
            queue.enqueue(
                session,
                kind,
                context_id=None,
                source_pk=None,
                scopes=list(user.default_scopes),
                read_scopes=list(user.default_scopes),
            )
    with svc.store.admin() as session:
        ids = session.scalars(select(Job.id).where(Job.kind == kind)).all()
    assert len(ids) == 1
    return ids[0]


def test_claims_skip_locked_rows_and_failures_back_off(svc: Tabane, user) -> None:
    kind = f"test-{user.name}"
    first = _enqueue(svc, user, kind)
    second = _enqueue(svc, user, kind + "-b")
    with svc.store.admin() as a, svc.store.admin() as b:
        got_a = queue.claim(a, [kind, kind + "-b"])
        got_b = queue.claim(b, [kind, kind + "-b"])  # a's row is locked: b takes the other
        assert got_a is not None and got_b is not None
        assert {got_a.id, got_b.id} == {first, second}
    with svc.store.admin() as session:
        queue.fail(session, first, 1, "boom")
    job = _job(svc, first)
    assert (job.state, job.last_error) == ("queued", "boom")
    assert job.run_after > datetime.now(UTC)  # backed off: not due yet
    with svc.store.admin() as session:
        assert queue.claim(session, [kind]) is None
        queue.fail(session, first, queue.MAX_ATTEMPTS, "boom again")
    assert _job(svc, first).state == "failed"


def test_a_dead_workers_lease_runs_out_and_the_job_is_taken_again(svc: Tabane, user) -> None:
    kind = f"lease-{user.name}"
    job_id = _enqueue(svc, user, kind)
    with svc.store.admin() as session:
        claimed = queue.claim(session, [kind])
        assert claimed is not None and claimed.attempts == 1
    with svc.store.admin() as session:  # still leased: nobody else takes it
        assert queue.claim(session, [kind]) is None
        session.execute(
            update(Job).where(Job.id == job_id).values(run_after=datetime.now(UTC) - timedelta(1))
        )
    with svc.store.admin() as session:
        again = queue.claim(session, [kind])
        assert again is not None and again.id == job_id and again.attempts == 2


def test_a_failing_embedder_leaves_the_job_queued_with_its_error(svc: Tabane, user, context):
    with (
        FakeOpenAIServer(dim=16) as server,
        OpenAIEmbedder(server.url, "flaky", dim=16, attempts=1, backoff=0.0) as flaky,
    ):
        with svc.store.admin() as session:  # earlier tests' queued work must not be claimed here
            session.execute(
                update(Job).where(Job.state.in_(("queued", "running"))).values(state="done")
            )
        svc_f = Tabane(svc.store, svc.settings, flaky)
        svc_f.ingest(user, context, DocumentInput(source_id="f", paragraphs=[block("x y")]))
        server.fail_next(1, status=500)
        assert svc_f.worker.run_once()
        with svc.store.admin() as session:
            job = session.scalars(
                select(Job).where(Job.kind == queue.EMBED_SOURCE).order_by(Job.id.desc())
            ).first()
            assert job is not None
            assert (job.state, job.attempts) == ("queued", 1)
            assert "500" in (job.last_error or "")
            session.execute(update(Job).where(Job.id == job.id).values(run_after=datetime.now(UTC)))
        assert svc_f.worker.run_once()
        assert _job(svc, job.id).state == "done"
