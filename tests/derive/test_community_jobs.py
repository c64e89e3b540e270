"""Communities kept fresh by the debounced `derive_communities` job: claim writes, remembered
triples and retractions queue one rebuild per context; running it builds communities that are not
stale and embeds their summaries with checked vectors."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import timedelta

import numpy as np
import pytest
from sqlalchemy import select

from tabane.contexts import contexts
from tabane.derive.communities import vectors as community_vectors
from tabane.errors import InvalidInput
from tabane.graph.claims.parse import ClaimInput
from tabane.jobs import queue
from tabane.models.embedder import Vectors
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.storage.schema import Community, Job

from helpers import Counting, past_the_debounce, queue_rebuilds, unique

pytestmark = pytest.mark.slow  # seconds a test: vectors, background jobs, a corpus per test


def clique(names: Sequence[str], label: str, weight: float = 1.0) -> list[ClaimInput]:
    return [ClaimInput(a, label, b, weight) for i, a in enumerate(names) for b in names[i + 1 :]]


def group(prefix: str, n: int = 4) -> tuple[str, ...]:
    return tuple(f"{prefix}{i}" for i in range(n))


def derive_jobs(svc: Tabane, svc_user: Principal, context: str, state: str = "queued") -> list[Job]:
    with svc.store.session(svc_user) as session:
        ctx_id = contexts.resolve(session, context).id
    with svc.store.admin() as session:
        return list(
            session.scalars(
                select(Job)
                .where(
                    Job.kind == queue.DERIVE_COMMUNITIES,
                    Job.context_id == ctx_id,
                    Job.state == state,
                )
                .order_by(Job.id)
            )
        )


def stored(svc: Tabane, user: Principal, context: str) -> list[Community]:
    with svc.store.session(user) as session:
        ctx = contexts.resolve(session, context)
        return list(
            session.scalars(
                select(Community)
                .where(Community.context_id == ctx.id)
                .order_by(Community.level, Community.ordinal)
            )
        )


def test_a_burst_of_claim_writes_queues_one_debounced_job(
    vsvc: Tabane, user: Principal, context: str
) -> None:
    vsvc.add_claims(user, context, clique(group(unique("a")), "near"))
    first = derive_jobs(vsvc, user, context)
    assert len(first) == 1
    job = first[0]
    with vsvc.store.session(user) as session:
        scopes = sorted(contexts.resolve(session, context).scopes)
    assert (job.scopes, job.read_scopes) == (scopes, scopes)  # the context's own scope set
    assert job.run_after - job.created_at == queue.DERIVE_DEBOUNCE  # due after the debounce
    vsvc.add_claims(user, context, clique(group(unique("b")), "near"))
    note = {"text": "c is near d", "subject": "c", "label": "near", "object": "d", "weight": 1}
    vsvc.remember(user, context, note)
    again = derive_jobs(vsvc, user, context)
    assert [j.id for j in again] == [job.id]  # the later writes found it and added none
    assert again[0].run_after == job.run_after  # and did not push it back
    assert vsvc.wait_for_jobs(timeout=120) == 0
    assert [j.id for j in derive_jobs(vsvc, user, context, "done")] == [job.id]


def test_a_statement_queues_no_rebuild(
    vsvc: Tabane, user: Principal, make_context: Callable[..., str]
) -> None:
    notes = make_context()
    vsvc.remember(user, notes, {"text": "A note with no triple."})  # the graph did not change
    assert derive_jobs(vsvc, user, notes) == []


def test_a_write_outside_the_shared_graph_queues_nothing(
    vsvc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    team = unique("team:")
    alice = make_user("alice", extra_write=(team,))
    context = make_context(alice)
    with vsvc.store.session(alice) as session:
        shared = list(contexts.resolve(session, context).scopes)
    narrower = sorted({*shared, team})  # fewer readers than the context: the build leaves it out
    vsvc.add_claims(alice, context, clique(group("n"), "near"), scopes=narrower)
    assert derive_jobs(vsvc, alice, context) == []


def test_running_the_job_builds_fresh_communities_with_summary_embeddings(
    vsvc: Tabane, user: Principal, context: str
) -> None:
    fruit, tools = group(unique("fruit")), group(unique("tool"))
    vsvc.add_claims(user, context, [*clique(fruit, "goes with", 2.0), *clique(tools, "used with")])
    assert vsvc.communities(user, context).stale  # not built yet
    assert vsvc.wait_for_jobs(timeout=120) == 0
    got = vsvc.communities(user, context)
    assert got.built and not got.stale and got.graph_version == got.current_version
    assert [sorted(m.concept for m in c.members) for c in got.communities] == [
        list(fruit),
        list(tools),
    ]
    embedder = vsvc.embedder
    assert embedder is not None
    rows = stored(vsvc, user, context)
    assert len(rows) == 2
    for row in rows:
        assert (row.model, row.dim) == (embedder.name, embedder.dim)
        vec = np.asarray(row.embedding, dtype=np.float32)
        assert vec.shape == (embedder.dim,)
        assert abs(float(np.linalg.norm(vec)) - 1.0) < 1e-5
        expected = embedder.embed_documents([row.summary])[0]
        assert float(np.dot(vec, expected / np.linalg.norm(expected))) > 0.999
    with vsvc.store.session(user) as session:
        assert community_vectors.missing(session, rows[0].context_id, embedder.name) == []


def test_a_retraction_queues_a_rebuild_that_drops_the_edge(
    vsvc: Tabane, user: Principal, context: str
) -> None:
    left, right = group(unique("l"), 3), group(unique("r"), 3)
    bridge = ClaimInput(left[0], "bridges", right[0], 5.0)
    vsvc.add_claims(user, context, [*clique(left, "near"), *clique(right, "near"), bridge])
    assert vsvc.wait_for_jobs(timeout=120) == 0
    before = vsvc.communities(user, context)
    assert not before.stale
    closed = vsvc.retract_associations(
        user, context, [(bridge.subject or "", "bridges", bridge.object or "", None, None)]
    )
    assert closed.associations == 1
    assert vsvc.communities(user, context).stale
    assert len(derive_jobs(vsvc, user, context)) == 1
    edge = (left[0], "near", left[1], None, None)
    dry = vsvc.retract_associations(user, context, [edge], dry_run=True)
    assert dry.dry_run and len(derive_jobs(vsvc, user, context)) == 1
    assert vsvc.wait_for_jobs(timeout=120) == 0
    after = vsvc.communities(user, context)
    assert not after.stale and after.built_at is not None and before.built_at is not None
    assert after.built_at > before.built_at
    assert [sorted(m.concept for m in c.members) for c in after.communities] == [
        list(left),
        list(right),
    ]


def test_a_worker_without_an_embedder_rebuilds_after_the_debounce_and_a_retraction(
    svc: Tabane, vsvc: Tabane, user: Principal, context: str
) -> None:
    left, right = group(unique("l"), 3), group(unique("r"), 3)
    bridge = ClaimInput(left[0], "bridges", right[0], 5.0)
    svc.add_claims(user, context, [*clique(left, "near"), *clique(right, "near"), bridge])
    [job] = derive_jobs(svc, user, context)
    assert job.run_after - job.created_at == queue.DERIVE_DEBOUNCE
    svc.worker.drain()  # not due yet: it waits for more writes
    assert [j.id for j in derive_jobs(svc, user, context)] == [job.id]
    assert not svc.communities(user, context).built
    past_the_debounce(svc, user, context)
    svc.worker.drain()
    before = svc.communities(user, context)
    assert before.built and not before.stale
    assert [j.id for j in derive_jobs(svc, user, context, "done")] == [job.id]
    assert all(r.model is None and r.embedding is None for r in stored(svc, user, context))

    closed = svc.retract_associations(
        user, context, [(bridge.subject or "", "bridges", bridge.object or "", None, None)]
    )
    assert closed.associations == 1
    assert svc.communities(user, context).stale and len(derive_jobs(svc, user, context)) == 1
    past_the_debounce(svc, user, context)
    svc.worker.drain()
    after = svc.communities(user, context)
    assert not after.stale and after.built_at is not None and before.built_at is not None
    assert after.built_at > before.built_at
    assert [sorted(m.concept for m in c.members) for c in after.communities] == [
        list(left),
        list(right),
    ]
    assert derive_jobs(svc, user, context) == []

    # an embedder appears: its next rebuild embeds the summaries built without one
    embedder = vsvc.embedder
    assert embedder is not None
    queue_rebuilds(vsvc, user, context)
    past_the_debounce(vsvc, user, context)
    assert vsvc.wait_for_jobs(timeout=120) == 0
    rows = stored(vsvc, user, context)
    assert len(rows) == 2 and all(r.model == embedder.name for r in rows)
    with vsvc.store.session(user) as session:
        assert community_vectors.missing(session, rows[0].context_id, embedder.name) == []


def test_a_rebuild_embeds_only_the_summaries_that_changed(
    vsvc: Tabane, user: Principal, context: str
) -> None:
    assert vsvc.embedder is not None
    counting = Counting(vsvc.embedder)
    csvc = Tabane.build(vsvc.store, vsvc.settings, counting)
    one, two = group(unique("o")), group(unique("t"))
    csvc.add_claims(user, context, [*clique(one, "near"), *clique(two, "near")])
    assert csvc.wait_for_jobs(timeout=120) == 0
    first = {r.summary: np.asarray(r.embedding) for r in stored(csvc, user, context)}
    assert len(first) == 2 and set(first) <= set(counting.texts)
    counting.texts.clear()
    three = group(unique("h"))
    csvc.add_claims(user, context, clique(three, "near"))
    assert csvc.wait_for_jobs(timeout=120) == 0
    rows = stored(csvc, user, context)
    assert len(rows) == 3 and all(r.model == counting.name for r in rows)
    new = [r.summary for r in rows if r.summary not in first]
    assert len(new) == 1 and three[0] in new[0]
    summaries = {r.summary for r in rows}
    assert [t for t in counting.texts if t in summaries] == new  # the kept two were not embedded
    for r in rows:
        if r.summary in first:
            assert np.array_equal(np.asarray(r.embedding), first[r.summary])


def test_a_job_for_a_rescoped_context_builds_nothing(
    vsvc: Tabane, user: Principal, context: str
) -> None:
    vsvc.add_claims(user, context, clique(group(unique("s")), "near"))
    job = derive_jobs(vsvc, user, context)[0]
    with vsvc.store.admin() as session:  # as if the context's scopes changed after the write
        row = session.get(Job, job.id)
        assert row is not None
        row.scopes = [*row.scopes, "elsewhere"]
        row.run_after = row.created_at - timedelta(seconds=1)
    assert vsvc.wait_for_jobs(timeout=120) == 0
    assert not vsvc.communities(user, context).built
    assert [j.id for j in derive_jobs(vsvc, user, context, "done")] == [job.id]


class NaNEmbedder:
    name = "nan-model"
    dim = 512

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return np.full((len(texts), self.dim), np.nan, dtype=np.float32)

    def embed_query(self, text: str) -> Vectors:
        return self.embed_documents([text])[0]


def test_unfinite_summary_vectors_are_refused() -> None:
    todo = [community_vectors.SummaryText(1, "x")]
    with pytest.raises(InvalidInput) as caught:
        community_vectors.embed(NaNEmbedder(), todo)
    assert "community_embeddings" in str(caught.value.issues[0].path)
