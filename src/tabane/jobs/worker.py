"""The worker: claims jobs and runs them with exactly the scopes each job carries.

A local install runs one in a daemon thread; a service runs `tabane worker` processes. A worker
without an embedder still runs the derived rebuilds (their embedding steps skipped), so a local
install with no model keeps its communities and profiles fresh. The queue itself is kept
through the owner's connection (the jobs table is under row-level security: a caller sees and
queues only jobs within its own scopes). Each job runs under a principal whose read set is the
job's `read_scopes` and whose write set is its `scopes`, so a worker never has more authority
than the data it works on.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Collection
from typing import TypeVar

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tabane.derive.communities import communities
from tabane.derive.communities import vectors as community_vectors
from tabane.errors import DiskLow
from tabane.graph import gloss, gram_merge, readings
from tabane.jobs import bulk_vectors, catchup, embed_source, lease, queue, statements, turns, vacuum
from tabane.jobs.derived import job_context, run_profiles, run_raptor
from tabane.jobs.pipeline import in_batches
from tabane.jobs.tails import Tails
from tabane.models.embedder import Embedder
from tabane.models.summarizer import Summarizer
from tabane.search import merge
from tabane.storage import disk
from tabane.storage.schema import Context, Job
from tabane.storage.store import Store

T = TypeVar("T")
logger = logging.getLogger("tabane.worker")


# Which job kinds need which model (a kind in neither set needs none): a worker runs a kind only
# when it has what the kind needs. Derived builds run without an embedder, their embedding steps
# skipped; the next build by a worker with one embeds what lacks a vector of its model.
# The RAPTOR tree clusters vectors, so its build needs an embedder as well as the summarizer.
NEEDS_EMBEDDER = frozenset(
    {queue.EMBED_SOURCE, queue.EMBED_GLOSSES, queue.EMBED_CLAIMS, queue.EMBED_TURNS}
    | {queue.DERIVE_RAPTOR}
)
NEEDS_SUMMARIZER = frozenset({queue.DERIVE_PROFILES, queue.DERIVE_RAPTOR})


class Worker:
    """Runs the jobs its models allow: the embedding jobs only with an embedder, profile
    rebuilds only with `summarizer` (which gives the configured summarizer, built on first use),
    community rebuilds always."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder | None,
        *,
        summarizer: Callable[[], Summarizer] | None = None,
        poll: float = 0.5,
        disk_low_mb: int = 0,
        second: Embedder | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        # e5's passages (models/e5.py), stored beside the embedder's claim and turn vectors
        self.second: list[Embedder] = [second] if second is not None else []
        self.summarizer = summarizer
        self.poll = poll
        self.disk_low_mb = disk_low_mb  # below it, no job is claimed (storage/disk.py)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._current: queue.Claimed | None = None  # the job the thread runs now
        self._turns = turns.Turns()  # whose job ran last: the next claim goes to another's
        self._bulk = bulk_vectors.Bulk(store)  # the HNSW index set aside for a bulk load
        self._tails = Tails()  # embedding jobs' ends still being written
        # The one map from job kind to handler (claims take the oldest due job of any kind).
        self.handlers: dict[str, Callable[[queue.Claimed], None]] = {
            queue.EMBED_SOURCE: self._run_source,
            queue.EMBED_GLOSSES: self._run_glosses,
            queue.EMBED_CLAIMS: self._run_claims,
            queue.EMBED_TURNS: self._run_turns,
            queue.DERIVE_COMMUNITIES: self._run_communities,
            queue.DERIVE_PROFILES: self._run_profiles,
            queue.DERIVE_RAPTOR: self._run_raptor,
            queue.MERGE_BM25: self._run_merge,
            queue.MERGE_GRAMS: self._run_gram_merge,
            queue.INDEX_READINGS: self._run_readings,
            queue.VACUUM: lambda job: vacuum.run(self.store, job),
        }

    @property
    def kinds(self) -> list[str]:
        """The job kinds this worker runs (in `handlers` order)."""
        return [
            kind
            for kind in self.handlers
            if (self.embedder is not None or kind not in NEEDS_EMBEDDER)
            and (self.summarizer is not None or kind not in NEEDS_SUMMARIZER)
        ]

    def pending(
        self, session: Session, only: Collection[str] = (), contexts: Collection[int] = ()
    ) -> int:
        """Queued or running jobs of the kinds this worker runs (the others wait for a worker
        with the model they need), or of those among them `only` names; of `contexts` only,
        when given."""
        kinds = [k for k in self.kinds if not only or k in only]
        stmt = select(func.count()).select_from(Job).where(Job.kind.in_(kinds))
        if contexts:
            stmt = stmt.where(Job.context_id.in_(list(contexts)))
        return int(session.scalar(stmt.where(Job.state.in_(("queued", "running")))) or 0)

    def run_once(
        self, only: Collection[str] = (), contexts: Collection[int] = (), *, overlap: bool = False
    ) -> bool:
        """Claim and run one job (of the kinds `only` names, if any; of `contexts`, if any);
        False when none was due, or the worker is stopping. With `overlap`, an embedding job's
        last writes and end are left to its writer (jobs/tails.py): with none due, this waits
        for those and returns True."""
        kinds = [k for k in self.kinds if not only or k in only]
        if not kinds or self._stop.is_set() or self._disk_low():
            return False
        with self.store.admin() as session:
            job = queue.claim(session, kinds, list(contexts), after=self._turns)
        if job is None:
            if self._tails.flush():
                return True
            if self.embedder is not None:
                self._bulk.settle(idle=True)
            return False
        self._current = job
        self._turns.took(job)
        if overlap and job.kind == queue.EMBED_SOURCE:
            self._source_overlapped(job)
            return True
        try:
            with lease.Heartbeat(self.store, job):
                self._run(job)
        except Exception as exc:
            self._ended(job, exc)
        else:
            self._ended(job, None)
        finally:
            self._current = None
        if job.kind == queue.EMBED_SOURCE:  # the last of a load: its index built again
            self._bulk.settle()
        return True

    def _ended(self, job: queue.Claimed, exc: BaseException | None) -> None:
        """Record a job's end: done; failed (retried later, the worker goes on); or, when
        another worker took it, nothing (its run is the one that counts)."""
        if isinstance(exc, queue.LeaseLost):
            logger.warning("job %s (%s) lost its lease and stopped", job.id, job.kind)
        elif exc is not None:
            message = queue.failure(exc)
            logger.warning("job %s (%s) failed: %s", job.id, job.kind, message)
            with self.store.admin() as session:
                queue.fail(session, job, message)
        else:
            with self.store.admin() as session:
                queue.finish(session, job)

    def _source_overlapped(self, job: queue.Claimed) -> None:
        """An embedding job ended by its writer thread while this one goes on (jobs/tails.py)."""
        assert self.embedder is not None

        def ended(exc: BaseException | None) -> None:
            self._ended(job, exc)
            self._bulk.settle()  # the last of a load: its index built again

        then = self._tails.start(self.store, job, ended)
        try:
            self._bulk.before(self.embedder.dim)
            embed_source.run(self.store, self.embedder, job, self._leaves_changed, then)
        except Exception as exc:  # before its writer took over
            then(exc)
        finally:
            self._current = None

    def _disk_low(self) -> bool:
        """The store's disk is under its watermark: jobs (which write) wait for space."""
        try:
            disk.check(self.store.embedded_home, self.disk_low_mb)
        except DiskLow:
            logger.warning("the store's disk is nearly full: jobs wait for space")
            return True
        return False

    def drain(self, until: Callable[[], bool] | None = None) -> int:
        """Run jobs until none is due (or `until()` says stop), then wait for their ends and an
        index build they started; return how many ran."""
        ran = 0
        while (until is None or not until()) and self.run_once(overlap=True):
            ran += 1
        self._tails.flush()
        self.settled()
        return ran

    def settled(self, timeout: float | None = None) -> bool:
        """Wait up to `timeout` s for this worker's HNSW build; True when none runs."""
        return self._bulk.wait(timeout)

    def catch_up(self) -> int:
        """Queue the embedding of what lacks a vector of this worker's model, or of e5's where it
        stores them (jobs/catchup.py); 0 without an embedder."""
        if self.embedder is None:
            return 0
        with self.store.admin() as session:
            return sum(
                catchup.queue_missing(session, e.name) for e in [self.embedder, *self.second]
            )

    def start(self) -> None:
        if self._thread is None and self.kinds:
            self._thread = threading.Thread(target=self._loop, name="tabane-worker", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        """Stop claiming; wait up to `timeout` seconds for the job in hand, then give it back
        (queue.release) so that another worker takes it at once rather than after its lease.
        The thread is a daemon: a job that does not stop ends with the process."""
        self._stop.set()
        self._tails.flush(timeout)
        self._bulk.cancel(timeout)  # an index build left part-way is built again later
        thread, self._thread = self._thread, None
        if thread is None:
            return
        thread.join(timeout)
        job = self._current
        if thread.is_alive() and job is not None:
            try:
                with self.store.admin() as session:
                    released = queue.release(session, job)
            except Exception:  # the store is going away too: the lease runs out instead
                logger.warning("job %s (%s) could not be released", job.id, job.kind)
            else:
                if released:
                    logger.info("job %s (%s) released unfinished", job.id, job.kind)

    def _loop(self) -> None:
        try:
            self.catch_up()
        except Exception:  # the jobs it would queue wait for the next start
            logger.exception("worker catch-up")
        while not self._stop.is_set():
            try:
                if not self.run_once(overlap=True):
                    self._stop.wait(self.poll)
            except Exception:  # the store went away (shutdown); try again later
                logger.exception("worker loop")
                self._stop.wait(self.poll * 4)

    def _run(self, job: queue.Claimed) -> None:
        self.handlers[job.kind](job)

    def _run_source(self, job: queue.Claimed) -> None:
        assert self.embedder is not None
        self._bulk.before(self.embedder.dim)
        embed_source.run(self.store, self.embedder, job, self._leaves_changed)

    def _leaves_changed(self, context_id: int) -> None:
        """Queue the debounced RAPTOR rebuild of a context whose leaves (paragraph or note
        vectors) were just stored, when this worker can build it. A retry queues it even with
        nothing left to store: the run before may have stored the last vectors and died (or
        failed) before it queued the rebuild."""
        if queue.DERIVE_RAPTOR not in self.kinds:
            return
        with self.store.admin() as session:
            ctx = session.get(Context, context_id)
            if ctx is not None:
                queue.enqueue_raptor(session, context_id=ctx.id, scopes=list(ctx.scopes))

    def _run_glosses(self, job: queue.Claimed) -> None:
        """Re-embed the glosses of one context and scope set that changed (graph/gloss.py)."""
        embedder, context_id = self.embedder, job.context_id
        assert embedder is not None and context_id is not None
        principal = job.principal
        with self.store.session(principal) as session:
            todo = gloss.stale(session, context_id, job.scopes, embedder.name)
        in_batches(
            self.store,
            job,
            principal,
            todo,
            gloss.BATCH,
            lambda batch: gloss.embed(embedder, batch),
            lambda session, batch, vecs: gloss.store(
                session, embedder, context_id, job.scopes, batch, vecs
            ),
        )

    def _run_claims(self, job: queue.Claimed) -> None:
        """Embed a context's current claims of one scope set (jobs/statements.py)."""
        assert self.embedder is not None and job.context_id is not None
        todo = statements.claims(self.store, job, [self.embedder, *self.second])
        if todo or job.attempts > 1:  # a retry: the run before may have died before this
            self._leaves_changed(job.context_id)

    def _run_turns(self, job: queue.Claimed) -> None:
        """Embed a session's turns (jobs/statements.py)."""
        assert self.embedder is not None
        statements.turns(self.store, job, [self.embedder, *self.second])

    def _run_communities(self, job: queue.Claimed) -> None:
        """Rebuild one context's communities (derive/communities/communities.py) with the
        context's scope set, then, with an embedder, embed the summaries that lack a vector of its
        model (checked before anything is stored): those of this build, and those a build without
        an embedder, or with another model, left behind."""
        assert job.context_id is not None
        principal = job.principal
        with self.store.session(principal) as session:
            ctx = job_context(session, job)
            if ctx is None:
                return
            communities.build(session, ctx)
        embedder = self.embedder
        if embedder is None:
            return
        with self.store.session(principal) as session:
            todo = community_vectors.missing(session, job.context_id, embedder.name)
        in_batches(
            self.store,
            job,
            principal,
            todo,
            community_vectors.BATCH,
            lambda batch: community_vectors.embed(embedder, batch),
            lambda session, batch, vecs: community_vectors.store(session, embedder, batch, vecs),
        )

    def _run_profiles(self, job: queue.Claimed) -> None:
        assert self.summarizer is not None
        run_profiles(self.store, self.summarizer(), self.embedder, job)

    def _run_raptor(self, job: queue.Claimed) -> None:
        assert self.summarizer is not None
        run_raptor(self.store, self.summarizer(), self.embedder, job)

    def _run_gram_merge(self, job: queue.Claimed) -> None:
        """Pack one context's vocabulary bigram postings of the job's scope set when the backlog
        is due (graph/gram_merge.py): one transaction, the set's writers held off meanwhile."""
        assert job.context_id is not None
        with self.store.session(job.principal) as session:
            gram_merge.merge(session, job.context_id, job.scopes)

    def _run_readings(self, job: queue.Claimed) -> None:
        """Write the reading keys of one context's spellings of the job's scope set that have
        none (graph/readings.py; queued by migration 0039 for the spellings stored before)."""
        assert job.context_id is not None
        with self.store.session(job.principal) as session:
            readings.backfill(session, job.context_id, job.scopes)

    def _run_merge(self, job: queue.Claimed) -> None:
        """Merge one context's BM25 packs of the job's scope set when the backlog is due
        (search/merge.py), a range of terms per transaction: the set's writers wait a step. When
        no merge is due, merged rows still in the PACK format are converted, in the same steps
        (migration 0040 queues this job for every set that has merged rows)."""
        assert job.context_id is not None
        principal = job.principal
        sessions = lambda: self.store.session(principal)  # noqa: E731 - one per step
        done = merge.merge_in_steps(sessions, job.context_id, job.scopes)
        if not done.merged and done.backlog.old:
            merge.convert_in_steps(sessions, job.context_id, job.scopes)
