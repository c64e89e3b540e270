"""Which jobs a worker runs: the embedding jobs only with an embedder, profile rebuilds only with
a summarizer, community rebuilds always; `pending` counts only the jobs it can run."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from sqlalchemy import update

from tabane.contexts import contexts
from tabane.jobs import queue
from tabane.jobs.worker import NEEDS_EMBEDDER, Worker
from tabane.models.embedder import Vectors
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.storage.schema import Job


class OnesEmbedder:
    name = "ones-4"
    dim = 4

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return np.ones((len(texts), self.dim), dtype=np.float32)

    def embed_query(self, text: str) -> Vectors:
        return self.embed_documents([text])[0]


def test_kinds_follow_the_models_the_worker_has(svc: Tabane) -> None:
    embedder = OnesEmbedder()
    derived = [queue.DERIVE_COMMUNITIES, queue.DERIVE_PROFILES]
    merges = [queue.MERGE_BM25, queue.MERGE_GRAMS, queue.INDEX_READINGS, queue.VACUUM]  # no model
    assert Worker(svc.store, None).kinds == [queue.DERIVE_COMMUNITIES, *merges]
    summarizer = svc.core.summarizer_model
    assert Worker(svc.store, None, summarizer=summarizer).kinds == [*derived, *merges]
    assert svc.worker.kinds == [*derived, *merges]  # the facade's: the configured summarizer
    full = Worker(svc.store, embedder, summarizer=summarizer).kinds
    assert set(full) == {*NEEDS_EMBEDDER, *derived, *merges}
    assert full[-7:] == [*derived, "derive_raptor", *merges]
    alone = Worker(svc.store, embedder).kinds  # the tree needs the summarizer as well
    assert queue.DERIVE_PROFILES not in alone and queue.DERIVE_RAPTOR not in alone
    assert set(Worker(svc.store, embedder).handlers) == set(full)  # one handler per kind


def test_pending_counts_only_the_kinds_it_runs(
    svc: Tabane, user: Principal, make_context: Callable[..., str]
) -> None:
    plain = Worker(svc.store, None, summarizer=svc.core.summarizer_model)
    full = Worker(svc.store, OnesEmbedder(), summarizer=svc.core.summarizer_model)
    context = make_context()
    with svc.store.admin() as session:
        before = (plain.pending(session), full.pending(session))
    with svc.store.session(user) as session:
        ctx = contexts.resolve(session, context)
        scopes = list(ctx.scopes)
        queue.enqueue_claims(session, context_id=ctx.id, scopes=scopes)
        queue.enqueue_communities(session, context_id=ctx.id, scopes=scopes)
        ctx_id = ctx.id
    try:
        with svc.store.admin() as session:
            after = (plain.pending(session), full.pending(session))
        assert (after[0] - before[0], after[1] - before[1]) == (1, 2)
    finally:  # later tests' workers must not run this test's jobs
        with svc.store.admin() as session:
            session.execute(update(Job).where(Job.context_id == ctx_id).values(state="done"))
