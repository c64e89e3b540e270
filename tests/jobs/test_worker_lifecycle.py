"""Jobs run where work belongs: a job whose workers keep dying is parked with its reason, a worker
that stops gives its job back at once, a one-shot command leases no job at all, and a command
waits only for the jobs of the context it wrote."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, update

from tabane.ingest.documents import DocumentInput, block
from tabane.jobs import queue
from tabane.jobs.worker import Worker
from tabane.service import Tabane
from tabane.storage.schema import Context, Job

pytestmark = pytest.mark.slow  # seconds a test: vectors, background jobs, a corpus per test


def _enqueue(svc: Tabane, user, kind: str, context_id: int | None = None) -> int:
    with svc.store.session(user) as session:
        queue.enqueue(
            session,
            kind,
            context_id=context_id,
            source_pk=None,
            scopes=list(user.default_scopes),
            read_scopes=list(user.default_scopes),
        )
    newest = select(Job.id).where(Job.kind == kind, Job.scopes == sorted(user.default_scopes))
    with svc.store.admin() as session:
        return int(session.scalars(newest.order_by(Job.id.desc()).limit(1)).one())


def _job(svc: Tabane, job_id: int) -> Job:
    with svc.store.admin() as session:
        job = session.get(Job, job_id)
        assert job is not None
        return job


def test_a_job_whose_workers_keep_dying_is_parked_with_the_reason(svc: Tabane, user) -> None:
    kind = f"dies-{user.name}"
    job_id = _enqueue(svc, user, kind)
    for attempt in range(1, queue.MAX_ATTEMPTS + 1):
        with svc.store.admin() as session:
            claimed = queue.claim(session, [kind])
            assert claimed is not None and claimed.attempts == attempt
            # the worker dies holding it: its lease runs out
            session.execute(
                update(Job)
                .where(Job.id == job_id)
                .values(run_after=datetime.now(UTC) - timedelta(1))
            )
    with svc.store.admin() as session:
        assert queue.claim(session, [kind]) is None
    job = _job(svc, job_id)
    assert (job.state, job.attempts) == ("failed", queue.MAX_ATTEMPTS)
    assert job.last_error is not None and "stopped or died" in job.last_error


def test_a_stopping_worker_gives_the_job_in_hand_back_at_once(svc: Tabane, user) -> None:
    kind = f"slow-{user.name}"
    job_id = _enqueue(svc, user, kind)
    started, finish = threading.Event(), threading.Event()

    def slow(job: queue.Claimed) -> None:
        started.set()
        finish.wait(30)

    worker = Worker(svc.store, None, poll=0.05)
    worker.handlers = {kind: slow}
    worker.start()
    try:
        assert started.wait(30)
        began = time.monotonic()
        worker.stop(timeout=0.2)
        assert time.monotonic() - began < 5
        job = _job(svc, job_id)
        assert (job.state, job.attempts) == ("queued", 1)  # due again, its attempt counted
        assert job.run_after <= datetime.now(UTC)
        assert job.last_error == "released unfinished: its worker stopped"
    finally:
        finish.set()
    time.sleep(0.3)  # the abandoned run ends: its finish lands nowhere (not its attempt now)
    assert _job(svc, job_id).state == "queued"


def test_waiting_for_a_contexts_jobs_runs_no_other_contexts(svc: Tabane, user, make_context):
    mine, theirs = make_context(), make_context()
    ids = {}
    with svc.store.admin() as session:
        for name in (mine, theirs):
            ids[name] = session.scalars(select(Context.id).where(Context.name == name)).one()
    ran: list[int | None] = []
    kind = queue.MERGE_BM25
    worker = svc.worker
    saved = worker.handlers[kind]
    worker.handlers[kind] = lambda job: ran.append(job.context_id)
    try:
        for name in (mine, theirs):
            svc.ingest(user, name, DocumentInput("a", paragraphs=[block("kettles boil water")]))
        assert svc.wait_for_jobs(timeout=30, only=(kind,), contexts=(mine,)) == 0
    finally:
        worker.handlers[kind] = saved
    assert ids[mine] in ran and ids[theirs] not in ran
    with svc.store.admin() as session:
        left = session.scalars(
            select(Job.state).where(Job.kind == kind, Job.context_id == ids[theirs])
        ).all()
    assert "queued" in left


def test_a_one_shot_command_leases_no_job(svc: Tabane, user, tabane_home: Path) -> None:
    """Even with TABANE_WORKER=thread (the default), a command such as `contexts list` runs no
    background worker: a due heavy job stays queued, unattempted (it was leased and dropped by
    each command that happened to run, up to attempts 6, and one hung 10 minutes at exit)."""
    job_id = _enqueue(svc, user, queue.DERIVE_COMMUNITIES)
    env = {
        **os.environ,
        "TABANE_HOME": str(tabane_home),
        "TABANE_USER": user.name,
        "TABANE_EMBEDDER": "none",
        "TABANE_WORKER": "thread",
    }
    listed = subprocess.run(
        [sys.executable, "-m", "tabane.cli.main", "contexts", "list"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert listed.returncode == 0, listed.stderr
    assert listed.stderr == ""  # no warning, no traceback at exit
    job = _job(svc, job_id)
    assert (job.state, job.attempts) == ("queued", 0)
    with svc.store.admin() as session:  # leave nothing due for other tests' workers
        session.execute(update(Job).where(Job.id == job_id).values(state="done"))
