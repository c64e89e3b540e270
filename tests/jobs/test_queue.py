"""The job queue: dedupe, SKIP LOCKED claims, backoff, giving up, lease recovery, and a worker
whose embedding service fails (a real HTTP fake) retrying later."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select, update

from tabane.ingest.documents import DocumentInput, block
from tabane.jobs import queue
from tabane.jobs.worker import Worker
from tabane.models.openai_embedder import OpenAIEmbedder
from tabane.service import Tabane
from tabane.storage.schema import Job

from fakes.openai_server import FakeOpenAIServer


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
        claimed = got_a if got_a.id == first else got_b
    with svc.store.admin() as session:
        assert queue.fail(session, claimed, "boom")
    job = _job(svc, first)
    assert (job.state, job.last_error) == ("queued", "boom")
    assert job.run_after > datetime.now(UTC)  # backed off: not due yet
    with svc.store.admin() as session:
        assert queue.claim(session, [kind]) is None
        session.execute(  # due again, one attempt short of giving up
            update(Job)
            .where(Job.id == first)
            .values(run_after=datetime.now(UTC) - timedelta(1), attempts=queue.MAX_ATTEMPTS - 1)
        )
    with svc.store.admin() as session:
        last = queue.claim(session, [kind])
        assert last is not None and last.attempts == queue.MAX_ATTEMPTS
        assert queue.fail(session, last, "boom again")
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


def _expire(svc: Tabane, job_id: int) -> None:
    with svc.store.admin() as session:
        session.execute(
            update(Job).where(Job.id == job_id).values(run_after=datetime.now(UTC) - timedelta(1))
        )


def test_a_worker_that_lost_its_lease_cannot_finish_fail_or_renew_the_job(svc: Tabane, user):
    """The attempt is the fencing token: once a second worker took the job, whatever the first
    (stalled past its lease) does lands nowhere, and its next progress note stops it."""
    kind = f"fence-{user.name}"
    job_id = _enqueue(svc, user, kind)
    with svc.store.admin() as session:
        stale = queue.claim(session, [kind])
    assert stale is not None
    _expire(svc, job_id)
    with svc.store.admin() as session:
        holder = queue.claim(session, [kind])
    assert holder is not None and holder.attempts == stale.attempts + 1
    before = _job(svc, job_id)
    with svc.store.admin() as session:
        assert not queue.finish(session, stale)
        assert not queue.fail(session, stale, "late")
        assert not queue.renew(session, stale)
        with pytest.raises(queue.LeaseLost, match=f"job {job_id}: attempt {stale.attempts}"):
            queue.progress(session, stale, 1, 2)
    after = _job(svc, job_id)
    assert (after.state, after.attempts, after.run_after) == ("running", 2, before.run_after)
    assert after.last_error is None
    with svc.store.admin() as session:
        assert queue.renew(session, holder)
        queue.progress(session, holder, 1, 2)
        assert queue.finish(session, holder)
    assert _job(svc, job_id).state == "done"


def _only(svc: Tabane, user, kind: str, run) -> tuple[Worker, int]:
    """A worker that runs only `kind`, with `run` as its handler, and one job of it queued."""
    worker = Worker(svc.store, None)
    worker.handlers = {kind: run}
    return worker, _enqueue(svc, user, kind)


@pytest.mark.slow
def test_a_job_longer_than_its_lease_is_not_taken_by_a_second_worker(svc, user, monkeypatch):
    monkeypatch.setattr(queue, "LEASE", timedelta(seconds=1))
    kind = f"long-{user.name}"
    taken: list[object] = []

    def run(job: queue.Claimed) -> None:
        for _ in range(6):  # three leases long, with a second worker trying all along
            time.sleep(0.5)
            with svc.store.admin() as session:
                taken.append(queue.claim(session, [kind]))

    worker, job_id = _only(svc, user, kind, run)
    assert worker.run_once()
    assert taken == [None] * 6
    job = _job(svc, job_id)
    assert (job.state, job.attempts, job.last_error) == ("done", 1, None)


def test_a_worker_that_stalled_past_its_lease_stops_and_leaves_the_job_to_the_other(svc, user):
    kind = f"stall-{user.name}"
    other: list[queue.Claimed] = []

    def run(job: queue.Claimed) -> None:  # stalls: meanwhile its lease ran out, another took it
        _expire(svc, job.id)
        with svc.store.admin() as session:
            got = queue.claim(session, [kind])
        assert got is not None
        other.append(got)
        with svc.store.admin() as session:
            queue.progress(session, job, 1, 1)  # its next note

    worker, job_id = _only(svc, user, kind, run)
    assert worker.run_once()
    job = _job(svc, job_id)  # neither failed (re-queued) nor done: the other worker's, running
    assert (job.state, job.attempts, job.last_error) == ("running", 2, None)
    with svc.store.admin() as session:
        assert queue.finish(session, other[0])

    def quiet(job: queue.Claimed) -> None:  # the same stall without a note: its finish is void
        _expire(svc, job.id)
        with svc.store.admin() as session:
            assert queue.claim(session, [job.kind]) is not None

    worker, job_id = _only(svc, user, f"quiet-{user.name}", quiet)
    assert worker.run_once()
    assert (_job(svc, job_id).state, _job(svc, job_id).attempts) == ("running", 2)


def test_a_failing_embedder_leaves_the_job_queued_with_its_error(svc: Tabane, user, context):
    with (
        FakeOpenAIServer(dim=16) as server,
        OpenAIEmbedder(server.url, "flaky", dim=16, attempts=1, backoff=0.0) as flaky,
    ):
        with svc.store.admin() as session:  # earlier tests' queued work must not be claimed here
            session.execute(
                update(Job).where(Job.state.in_(("queued", "running"))).values(state="done")
            )
        svc_f = Tabane.build(svc.store, svc.settings, flaky)
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


def test_a_database_failure_is_recorded_without_its_statement_or_rows(svc: Tabane, user) -> None:
    """A job whose context vanished mid-build fails on a foreign key: what it records (and logs)
    is the database's first line, never the statement with the rows' text as parameters."""
    from sqlalchemy import insert
    from sqlalchemy.exc import IntegrityError

    from tabane.storage.schema import Source

    secret = "the kettle code is 4711"
    with pytest.raises(IntegrityError) as caught, svc.store.admin() as session:
        session.execute(
            insert(Source).values(
                context_id=2**30, source_id="x", title=secret, format="text", content_hash="h",
                byte_size=1, scopes=["public"],
            )
        )  # fmt: skip
    recorded = queue.failure(caught.value)
    assert recorded.startswith("ForeignKeyViolation: ") and "violates foreign key" in recorded
    assert secret not in recorded and "INSERT" not in recorded and "\n" not in recorded
    assert queue.failure(ValueError("odd")) == "ValueError: odd"
