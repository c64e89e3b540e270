"""The service's search operations: sources/search, its explain twin, and the job queue."""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from dataclasses import replace

from tabane.contexts import contexts as contexts_mod
from tabane.contexts import groups
from tabane.errors import InvalidInput, Issue
from tabane.graph import gram_merge
from tabane.jobs import embed_source, listing, queue
from tabane.models.registry import default_floor
from tabane.principal import Principal
from tabane.search import explain as explain_mod
from tabane.search import merge, upkeep, vectors
from tabane.search import search as search_mod
from tabane.search.catalog import catalog
from tabane.search.catalog.catalog import CatalogRequest, CatalogResult
from tabane.search.catalog.explain import CatalogExplanation, explain_catalog
from tabane.search.plan import SearchRequest
from tabane.search.reach import reach
from tabane.service.base import ServiceBase


class SearchService(ServiceBase):
    def search(
        self, user: Principal, request: SearchRequest, *, count_usage: bool = True
    ) -> search_mod.SearchResult:
        """The paragraph lanes over the contexts and groups named, fused, with their plan."""
        request.check()
        qv = search_mod.embed_query(
            self.embedder if "vector" in request.lanes else None, request.query
        )
        # the vector lane's settings in the transaction's first round trip
        settings = vectors.NEAREST if "vector" in request.lanes else None
        with self.store.session(user, settings=settings) as session:
            found = reach(session, request.contexts, request.groups, queue.EMBED_SOURCE)
            reached = found.contexts
            result = search_mod.search(
                session,
                reached,
                request,
                qv,
                default_floor=default_floor(self.settings, self.embedder),
                pending=found.pending,
                beside=self.store.beside(user),
                models=found.models,
            )
            for ctx, plan in zip(reached, result.plan.contexts, strict=True):
                hits = sum(lp.hits for lp in plan.lanes.values())
                if count_usage:  # written at most every TABANE_USAGE_SECONDS (usage.py)
                    self.usage.count(session, user, ctx.id, misses=0 if hits else 1)
                vector = plan.lanes.get("vector")
                stale = vector is not None and (
                    vector.reason == "model_mismatch"
                    or (vector.reason == "no_vectors" and not plan.pending_embeddings)
                )
                if stale and self.embedder is not None:
                    embed_source.queue_again(session, user, ctx)
        return result

    def search_catalog(self, user: Principal, request: CatalogRequest) -> CatalogResult:
        """Which documents there are about the query (search/catalog/catalog.py), or all of them."""
        request.check()
        with self.store.session(user) as session:
            reached = groups.expand(session, request.contexts, request.groups)
            return catalog.search_catalog(session, reached, request)

    def explain_catalog(
        self, user: Principal, request: CatalogRequest, context: str, source_id: str
    ) -> CatalogExplanation:
        """Why `source_id` (of `context`) is or is not on this page of the catalog: the first
        verdict that applies, from the same ranking (search/catalog/explain.py)."""
        request.check()
        if not isinstance(source_id, str) or not source_id.strip():
            raise InvalidInput(
                "name the source to explain", issues=[Issue("expected.source_id", "empty")]
            )
        with self.store.session(user) as session:
            reached = groups.expand(session, request.contexts, request.groups)
            return explain_catalog(session, reached, request, context, source_id)

    def explain_search(
        self,
        user: Principal,
        request: SearchRequest,
        context: str,
        source_id: str,
        paragraph: int | None = None,
    ) -> explain_mod.Explanation:
        """Why (source, paragraph) is or is not among the hits of `request` — the first verdict
        that applies, with the evidence, from the same scoring code as the search."""
        request.check()
        if not isinstance(source_id, str) or not source_id.strip():
            raise InvalidInput(
                "name the source to explain", issues=[Issue("expected.source_id", "empty")]
            )
        qv = search_mod.embed_query(
            self.embedder if "vector" in request.lanes else None, request.query
        )
        with self.store.session(user) as session:
            reached = groups.expand(session, request.contexts, request.groups)
            return explain_mod.explain(
                session,
                reached,
                request,
                qv,
                context,
                source_id,
                paragraph,
                default_floor=default_floor(self.settings, self.embedder),
                rerun=lambda limit: self._rerun(user, request, limit),
            )

    def _rerun(
        self, user: Principal, request: SearchRequest, limit: int
    ) -> list[tuple[str, str, int]]:
        result = self.search(user, replace(request, limit=limit, after=None), count_usage=False)
        return [(h.context, h.source_id, h.paragraph) for h in result.hits]

    # -- jobs ----------------------------------------------------------------------------------

    def jobs(self, *, limit: int = 50) -> list[listing.JobView]:
        with self.store.admin() as session:
            return listing.listing(session, limit=limit)

    def compact(self, user: Principal, context: str) -> upkeep.Compaction:
        """Fold the context's fresh BM25 packs and masks into its merged rows, and pack its
        vocabulary bigrams, now, for each scope set `user` may write (search/upkeep.py)."""
        with self.store.session(user) as session:
            ctx = contexts_mod.resolve(session, context)
            contexts_mod.require_writable(user, ctx)
            sets = merge.scope_sets(session, ctx.id)
            grams = [g for g in gram_merge.scope_sets(session, ctx.id) if user.can_write(g)]
            before = [merge.backlog(session, ctx.id, s) for s in sets]
        mine = [(s, b) for s, b in zip(sets, before, strict=True) if user.can_write(s)]
        terms = 0
        for scopes, backlog in mine:
            if backlog.fresh or backlog.dead or backlog.old:  # old: PACK rows rewritten
                sessions = lambda: self.store.session(user)  # noqa: E731 - one per step
                terms += merge.merge_in_steps(sessions, ctx.id, scopes, force=True).terms
        with self.store.session(user) as session:
            packed = sum(gram_merge.merge(session, ctx.id, g, force=True) for g in grams)
            after = [merge.backlog(session, ctx.id, s) for s, _ in mine]
        return upkeep.Compaction(
            context=ctx.name,
            sets=len(mine),
            skipped=len(sets) - len(mine),
            fresh_before=sum(b.fresh for _, b in mine),
            dead_before=sum(b.dead for _, b in mine),
            fresh_after=sum(b.fresh for b in after),
            dead_after=sum(b.dead for b in after),
            terms=terms,
            gram_sets=packed,
        )

    def compact_all(self, user: Principal) -> list[upkeep.Compaction]:
        """Taguru's maintenance sweep (decision 0027): compact, one after the other, every
        context `user` may write whose postings have anything to fold (fresh packs, masked
        ids); each in its own transactions, so the store stays open to everyone."""
        with self.store.session(user) as session:
            due = [
                c.name
                for c in contexts_mod.writable(session, user)
                if any(
                    b.fresh or b.dead or b.old
                    for b in (
                        merge.backlog(session, c.id, s) for s in merge.scope_sets(session, c.id)
                    )
                )
            ]
        return [self.compact(user, name) for name in due]

    def flush(self, user: Principal, context: str, timeout: float = 30.0) -> upkeep.Flush:
        """Run the jobs queued for the context (as each job's own principal) until none is
        left or `timeout` seconds pass (search/upkeep.py)."""
        _check_timeout(timeout)
        with self.store.session(user) as session:
            ctx = contexts_mod.resolve(session, context)
        started = time.monotonic()
        with self.store.admin() as session:
            pending = self.worker.pending(session, (), [ctx.id])
        left = self.wait_for_jobs(timeout, contexts=[ctx.name]) if pending else 0
        return upkeep.Flush(ctx.name, pending, left, round(time.monotonic() - started, 3))

    def flush_all(self, user: Principal, timeout: float = 30.0) -> list[upkeep.Flush]:
        """Taguru's server-wide flush on a store where every commit is durable (decision
        0027): run the queued jobs of every context `user` may write, with one deadline."""
        _check_timeout(timeout)
        with self.store.session(user) as session:
            mine = [(c.id, c.name) for c in contexts_mod.writable(session, user)]
        started = time.monotonic()
        with self.store.admin() as session:
            pending = {i: self.worker.pending(session, (), [i]) for i, _ in mine}
        busy = [n for i, n in mine if pending[i]]
        if busy:
            self.wait_for_jobs(timeout, contexts=busy)
        with self.store.admin() as session:
            left = {i: self.worker.pending(session, (), [i]) if pending[i] else 0 for i, _ in mine}
        seconds = round(time.monotonic() - started, 3)
        return [upkeep.Flush(n, pending[i], left[i], seconds) for i, n in mine]

    def wait_for_jobs(
        self,
        timeout: float = 600.0,
        progress: Callable[[int], None] | None = None,
        only: Collection[str] = (),
        contexts: Collection[str] = (),
    ) -> int:
        """Run due jobs in this thread until none of the kinds its worker runs (or of those
        `only` names; of the `contexts` named, when given) is left, or the timeout; return how
        many of those remain (jobs that need a model this process lacks wait for a worker with
        one). A CLI command waits so for the jobs of what it wrote, and runs no other."""
        ids: list[int] = []
        if contexts:
            with self.store.admin() as session:
                ids = contexts_mod.ids_named(session, list(contexts))
            if not ids:
                return 0
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.store.admin() as session:
                left = self.worker.pending(session, only, ids)
            if progress:
                progress(left)
            if not left or not self.worker.kinds:  # nothing here can run them
                # an HNSW build the jobs started runs in a thread of its own: a CLI ingest
                # returns with it done (jobs/bulk_vectors.py)
                self.worker.settled(max(0.0, deadline - time.monotonic()))
                return left
            if not self.worker.run_once(only, ids, overlap=True):
                time.sleep(0.2)
        with self.store.admin() as session:
            return self.worker.pending(session, only, ids)


def _check_timeout(timeout: object) -> None:
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, (int, float))
        or not (0 < timeout <= upkeep.MAX_FLUSH_SECONDS)
    ):
        raise InvalidInput(
            f"timeout {timeout!r}",
            issues=[Issue("timeout", f"seconds in (0, {upkeep.MAX_FLUSH_SECONDS:g}]")],
        )
