"""The job table: enqueue in the writer's transaction, claim with FOR UPDATE SKIP LOCKED, retry
with backoff, and recover work whose worker died (its lease runs out).

A claimed job is `running` with `run_after` as its lease; the worker renews the lease while it
works (jobs/lease.py). A claim takes queued jobs that are due and running jobs whose lease expired,
and counts an attempt: the attempt is the fencing token. A worker's progress, finish or failure
only lands while the job is still its attempt, so a worker that stalled past its lease cannot
finish, re-queue or renew the job another worker took since.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import ColumnElement, and_, func, select, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from tabane.errors import TabaneError
from tabane.jobs import turns
from tabane.principal import Principal
from tabane.storage.schema import Job

EMBED_SOURCE = "embed_source"  # embed a source's paragraphs that lack vectors of the model
EMBED_GLOSSES = "embed_glosses"  # (re)embed a context's concept and label glosses of one scope set
EMBED_CLAIMS = "embed_claims"  # embed a context's current claims of one scope set lacking vectors
EMBED_TURNS = "embed_turns"  # embed a session's turns lacking vectors
DERIVE_COMMUNITIES = "derive_communities"  # rebuild a context's communities (and embed them)
DERIVE_PROFILES = "derive_profiles"  # rebuild a context's entity profiles (and embed them)
DERIVE_RAPTOR = "derive_raptor"  # rebuild a context's RAPTOR tree (summaries embedded)
DERIVE_DEBOUNCE = timedelta(seconds=2)  # a derived build waits this long for more writes
MERGE_BM25 = "merge_bm25"  # merge a context's BM25 packs of one scope set, when due
MERGE_GRAMS = "merge_grams"  # pack a context's vocabulary bigram postings of one set, when due
INDEX_READINGS = "index_readings"  # reading keys of a context's spellings of one set lacking them
VACUUM = "vacuum"  # VACUUM the tables an erasure touched, if its own VACUUM did not happen
LEASE = timedelta(seconds=60)
MAX_ATTEMPTS = 5
BACKOFF_CAP = 300.0


@dataclass(frozen=True)
class Claimed:
    id: int
    kind: str
    context_id: int | None
    source_pk: int | None
    scopes: tuple[str, ...]
    read_scopes: tuple[str, ...]
    attempts: int
    session_pk: int | None = None
    tables: tuple[str, ...] = ()  # a vacuum job's

    @property
    def principal(self) -> Principal:
        """Who the job runs as: exactly the scope set of the rows it writes."""
        return Principal(
            user_id=0,
            name=f"job:{self.id}",
            read=frozenset(self.read_scopes),
            write=frozenset(self.scopes),
            default_scopes=self.scopes,
        )


class LeaseLost(TabaneError):
    """Another worker took the job since this worker's lease ran out: this one stops."""

    def __init__(self, job: Claimed) -> None:
        super().__init__(f"job {job.id}: attempt {job.attempts} lost its lease to another worker")


def enqueue(
    session: Session,
    kind: str,
    *,
    context_id: int | None,
    source_pk: int | None,
    scopes: Sequence[str],
    read_scopes: Sequence[str],
) -> None:
    """Queue a job unless the same work is already queued (not yet claimed)."""
    pending = session.scalar(
        select(Job.id).where(
            Job.kind == kind,
            Job.context_id == context_id,
            Job.source_pk == source_pk if source_pk is not None else Job.source_pk.is_(None),
            Job.state == "queued",
        )
    )
    if pending is None:
        session.add(
            Job(
                kind=kind,
                context_id=context_id,
                source_pk=source_pk,
                scopes=sorted(scopes),
                read_scopes=sorted(set(read_scopes) | set(scopes)),
            )
        )


def enqueue_embedding(
    session: Session,
    *,
    context_id: int,
    context_scopes: Sequence[str],
    source_pk: int,
    source_scopes: Sequence[str],
) -> None:
    """Queue the embedding of a source: the job writes with the source's scopes and reads with
    those and the context's (the caller's transaction must be allowed both)."""
    enqueue(
        session,
        EMBED_SOURCE,
        context_id=context_id,
        source_pk=source_pk,
        scopes=source_scopes,
        read_scopes=[*context_scopes, *source_scopes],
    )


def enqueue_glosses(session: Session, *, context_id: int, scopes: Sequence[str]) -> None:
    """Queue the gloss embedding of a context's concepts stored under `scopes` (the job reads
    and writes with exactly that set, so a gloss never carries a fact its readers cannot see)."""
    _enqueue_scoped(session, EMBED_GLOSSES, context_id, scopes)


def enqueue_claims(session: Session, *, context_id: int, scopes: Sequence[str]) -> None:
    """Queue the embedding of a context's claims stored under `scopes` that lack a vector of
    the model (the job reads and writes with exactly that set, the claims' own)."""
    _enqueue_scoped(session, EMBED_CLAIMS, context_id, scopes)


def enqueue_communities(
    session: Session,
    *,
    context_id: int,
    scopes: Sequence[str],
    delay: timedelta = DERIVE_DEBOUNCE,
) -> None:
    """Queue a rebuild of a context's communities, debounced: the first write of a burst queues
    one job due `delay` later and every write until it is claimed finds it and adds none, so a
    burst builds once, at most `delay` after its first write (a write while the build runs
    queues the next one). The job reads and writes with the context's scope set, `scopes`."""
    _enqueue_scoped(session, DERIVE_COMMUNITIES, context_id, scopes, delay)


def enqueue_profiles(
    session: Session,
    *,
    context_id: int,
    scopes: Sequence[str],
    delay: timedelta = DERIVE_DEBOUNCE,
) -> None:
    """Queue a rebuild of a context's entity profiles, debounced as `enqueue_communities` (one
    queued job per context and scope set, due `delay` after the first write of a burst). The job
    reads and writes with the context's scope set, `scopes`."""
    _enqueue_scoped(session, DERIVE_PROFILES, context_id, scopes, delay)


def enqueue_raptor(
    session: Session,
    *,
    context_id: int,
    scopes: Sequence[str],
    delay: timedelta = DERIVE_DEBOUNCE,
) -> None:
    """Queue a rebuild of a context's RAPTOR tree, debounced as `enqueue_communities`: queued when
    the context's leaves change (paragraph or note vectors stored, a source retracted). The job
    reads and writes with the context's scope set, `scopes`."""
    _enqueue_scoped(session, DERIVE_RAPTOR, context_id, scopes, delay)


def enqueue_merge(session: Session, *, context_id: int, scopes: Sequence[str]) -> None:
    """Queue a look at a context's BM25 packs of one scope set (one queued job per context and
    set: a burst of writes finds it and adds none); the job merges them only when its budget
    says so (search/merge.py), so it is not delayed. It reads and writes with exactly that
    set, the packs' own."""
    _enqueue_scoped(session, MERGE_BM25, context_id, scopes)


def enqueue_gram_merge(session: Session, *, context_id: int, scopes: Sequence[str]) -> None:
    """Queue a look at a context's vocabulary bigram postings of one scope set (one queued job
    per context and set); the job packs them only when its budget says so
    (graph/gram_merge.py). It reads and writes with exactly that set."""
    _enqueue_scoped(session, MERGE_GRAMS, context_id, scopes)


def enqueue_turns(session: Session, *, session_pk: int, scopes: Sequence[str]) -> None:
    """Queue the embedding of a session's turns that lack a vector of the model: one queued job
    per session (a later turn finds it and adds none); it reads and writes with exactly the
    session's scope set, its turns' own."""
    pending = session.scalar(
        select(Job.id).where(
            Job.kind == EMBED_TURNS,
            Job.session_pk == session_pk,
            Job.scopes == sorted(scopes),
            Job.state == "queued",
        )
    )
    if pending is None:
        session.add(
            Job(
                kind=EMBED_TURNS,
                session_pk=session_pk,
                scopes=sorted(scopes),
                read_scopes=sorted(scopes),
            )
        )


def _enqueue_scoped(
    session: Session,
    kind: str,
    context_id: int,
    scopes: Sequence[str],
    delay: timedelta | None = None,
) -> None:
    """One queued job per kind, context and scope set: a later write finds it and adds none.
    With `delay`, a new job is due that long after the writer's transaction began."""
    pending = session.scalar(
        select(Job.id).where(
            Job.kind == kind,
            Job.context_id == context_id,
            Job.scopes == sorted(scopes),
            Job.state == "queued",
        )
    )
    if pending is None:
        job = Job(
            kind=kind, context_id=context_id, scopes=sorted(scopes), read_scopes=sorted(scopes)
        )
        if delay is not None:
            job.run_after = func.now() + delay
        session.add(job)


def enqueue_vacuum(session: Session, tables: Sequence[str]) -> int:
    """Queue a VACUUM of `tables` in the writer's transaction (an erasure's), due after one
    lease: the writer runs it itself once it committed and then calls `finish`; the job is what
    is left when the writer died first or its VACUUM failed. Returns the job's id."""
    job = Job(
        kind=VACUUM, scopes=[], read_scopes=[], tables=sorted(tables), run_after=func.now() + LEASE
    )
    session.add(job)
    session.flush()
    return int(job.id)


def claim(
    session: Session,
    kinds: Sequence[str],
    contexts: Sequence[int] = (),
    after: turns.Turns | None = None,
) -> Claimed | None:
    """Take the oldest due job of `kinds` (of `contexts`, when given), or one whose worker's
    lease ran out, and lease it. Owners and their contexts take turns: given `after` (whose
    work the caller ran last), the next owner in order that has a due job, and within it the
    oldest due job of its next context in id order, wrapping round at both levels (jobs/turns.py).
    A job that has used its MAX_ATTEMPTS without failing — its workers died or stopped with it
    each time — is parked as failed, with that reason, instead of being run again."""
    while True:
        job = turns.due(session, kinds, contexts, after)
        if job is None:
            return None
        if job.attempts < MAX_ATTEMPTS:
            break
        job.state = "failed"
        job.last_error = (
            f"abandoned: its worker stopped or died during each of its {job.attempts} attempts"
        )
        job.updated_at = func.now()
        session.flush()
    now = func.now()
    job.state = "running"
    job.attempts += 1
    job.run_after = now + LEASE
    job.updated_at = now
    session.flush()
    return Claimed(
        job.id,
        job.kind,
        job.context_id,
        job.source_pk,
        tuple(job.scopes),
        tuple(job.read_scopes),
        job.attempts,
        job.session_pk,
        tuple(job.tables or ()),
    )


def _held(job: Claimed) -> ColumnElement[bool]:
    """The job is still this claim's attempt, running."""
    return and_(Job.id == job.id, Job.state == "running", Job.attempts == job.attempts)


def renew(session: Session, job: Claimed) -> bool:
    """Extend the lease of a job this worker still holds; False when another worker took it."""
    held = session.execute(
        update(Job).where(_held(job)).values(run_after=func.now() + LEASE, updated_at=func.now())
    )
    return bool(held.rowcount)  # type: ignore[attr-defined]


def progress(session: Session, job: Claimed, done: int, total: int) -> None:
    """Record progress and renew the lease; LeaseLost when another worker took the job."""
    held = session.execute(
        update(Job)
        .where(_held(job))
        .values(
            done_items=done, total_items=total, run_after=func.now() + LEASE, updated_at=func.now()
        )
    )
    if not held.rowcount:  # type: ignore[attr-defined]
        raise LeaseLost(job)


def finish(session: Session, job: Claimed | int) -> bool:
    """Mark a job done: a claimed one only while this worker holds it (False otherwise), a job
    by id (an erasure's vacuum, which its writer ran itself) in whatever state it is."""
    held = _held(job) if isinstance(job, Claimed) else Job.id == job
    done = session.execute(update(Job).where(held).values(state="done", updated_at=func.now()))
    return bool(done.rowcount)  # type: ignore[attr-defined]


def failure(exc: BaseException) -> str:
    """What a failed job records and logs: a tabane error's message; a database error's own
    first line, never the statement and its parameters (rows' text would land in the log and
    in `tabane jobs`); else the exception's type and text."""
    if isinstance(exc, TabaneError):
        return exc.message
    if isinstance(exc, DBAPIError) and exc.orig is not None:
        first = str(exc.orig).strip().splitlines()[:1]
        return f"{type(exc.orig).__name__}: {first[0] if first else ''}".rstrip(": ")
    return f"{type(exc).__name__}: {exc}"


def fail(session: Session, job: Claimed, error: str) -> bool:
    """Retry later with exponential backoff, or give up after MAX_ATTEMPTS; False (and nothing
    changed) when another worker took the job since."""
    if job.attempts >= MAX_ATTEMPTS:
        values: dict[str, object] = {"state": "failed"}
    else:
        delay = min(BACKOFF_CAP, 2.0**job.attempts)
        values = {"state": "queued", "run_after": func.now() + timedelta(seconds=delay)}
    failed = session.execute(
        update(Job)
        .where(_held(job))
        .values(last_error=error[:2000], updated_at=func.now(), **values)
    )
    return bool(failed.rowcount)  # type: ignore[attr-defined]


def release(session: Session, job: Claimed) -> bool:
    """Give a job back unfinished (its worker is stopping): due again at once for another worker,
    its attempt counted; False when another worker took it since."""
    released = session.execute(
        update(Job)
        .where(_held(job))
        .values(
            state="queued",
            run_after=func.now(),
            updated_at=func.now(),
            last_error="released unfinished: its worker stopped",
        )
    )
    return bool(released.rowcount)  # type: ignore[attr-defined]
