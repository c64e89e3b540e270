"""The derived rebuild jobs that need a summarizer: entity profiles and the RAPTOR tree of one
context, each with the context's scope set (the worker's handlers, jobs/worker.py)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from tabane.derive import profiles
from tabane.derive.raptor import tree as raptor
from tabane.jobs import queue
from tabane.models.embedder import Embedder
from tabane.models.summarizer import Summarizer
from tabane.storage.schema import Context
from tabane.storage.store import Store


def job_context(session: Session, job: queue.Claimed) -> Context | None:
    """The job's context, or None when it is gone or was re-scoped since the job was queued
    (a job queued with its new set does the work)."""
    ctx = session.scalar(select(Context).where(Context.id == job.context_id))
    return ctx if ctx is not None and sorted(ctx.scopes) == list(job.scopes) else None


def run_profiles(
    store: Store, summarizer: Summarizer, embedder: Embedder | None, job: queue.Claimed
) -> None:
    """Rebuild one context's entity profiles (derive/profiles.py: the default `top`) with the
    configured summarizer and the context's scope set: a profile whose members did not change
    keeps its summary; with an embedder, every summary lacking a vector of its model is
    embedded (checked vectors)."""
    assert job.context_id is not None
    with store.session(job.principal) as session:
        ctx = job_context(session, job)
        if ctx is not None:
            profiles.build(session, ctx, summarizer, embedder)


def run_raptor(
    store: Store, summarizer: Summarizer, embedder: Embedder | None, job: queue.Claimed
) -> None:
    """Rebuild one context's RAPTOR tree (derive/raptor/tree.py) with the configured summarizer,
    the embedder and the context's scope set; a node whose members did not change keeps its
    summary and vector."""
    assert job.context_id is not None
    with store.session(job.principal) as session:
        ctx = job_context(session, job)
        if ctx is not None:
            raptor.build(session, ctx, summarizer, embedder)
