"""Entity profiles kept fresh by the debounced `derive_profiles` job: a claim write queues one
rebuild per context and scope set; running it builds profiles that are not stale, with summary
embeddings of the embedder's width; a later claim makes a profile stale until the next run."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from sqlalchemy import select

from tabane.contexts import contexts
from tabane.graph.claims.parse import ClaimInput
from tabane.jobs import queue
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.storage.schema import Job, Profile

from helpers import past_the_debounce, queue_rebuilds, unique

pytestmark = pytest.mark.slow  # seconds a test: vectors, background jobs, a corpus per test


def profile_jobs(svc: Tabane, user: Principal, context: str, state: str = "queued") -> list[Job]:
    with svc.store.session(user) as session:
        ctx_id = contexts.resolve(session, context).id
    with svc.store.admin() as session:
        return list(
            session.scalars(
                select(Job)
                .where(
                    Job.kind == queue.DERIVE_PROFILES,
                    Job.context_id == ctx_id,
                    Job.state == state,
                )
                .order_by(Job.id)
            )
        )


def stored(svc: Tabane, user: Principal, context: str, concept: str) -> Profile:
    with svc.store.session(user) as session:
        ctx = contexts.resolve(session, context)
        return session.scalars(
            select(Profile).where(Profile.context_id == ctx.id, Profile.concept == concept)
        ).one()


def test_a_burst_of_claim_writes_queues_one_debounced_job(
    vsvc: Tabane, user: Principal, context: str
) -> None:
    vsvc.add_claims(user, context, [ClaimInput(unique("a"), "near", unique("b"), 1.0)])
    first = profile_jobs(vsvc, user, context)
    assert len(first) == 1
    job = first[0]
    with vsvc.store.session(user) as session:
        scopes = sorted(contexts.resolve(session, context).scopes)
    assert (job.scopes, job.read_scopes) == (scopes, scopes)  # the context's own scope set
    assert job.run_after - job.created_at == queue.DERIVE_DEBOUNCE
    vsvc.add_claims(user, context, [ClaimInput(unique("c"), "near", unique("d"), 1.0)])
    note = {"text": "e is near f", "subject": "e", "label": "near", "object": "f", "weight": 1}
    vsvc.remember(user, context, note)
    again = profile_jobs(vsvc, user, context)
    assert [j.id for j in again] == [job.id] and again[0].run_after == job.run_after
    assert vsvc.wait_for_jobs(timeout=120) == 0
    assert [j.id for j in profile_jobs(vsvc, user, context, "done")] == [job.id]


def test_writes_outside_the_shared_graph_queue_nothing(
    vsvc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    team = unique("team:")
    alice = make_user("alice", extra_write=(team,))
    narrow = make_context(alice)
    with vsvc.store.session(alice) as session:
        shared = list(contexts.resolve(session, narrow).scopes)
    claim = [ClaimInput("n", "near", "m", 1.0)]
    vsvc.add_claims(alice, narrow, claim, scopes=sorted({*shared, team}))  # fewer readers
    assert profile_jobs(vsvc, alice, narrow) == []


def test_a_worker_without_an_embedder_keeps_profiles_fresh(
    svc: Tabane, vsvc: Tabane, user: Principal, context: str
) -> None:
    concept = unique("coffee")
    svc.add_claims(user, context, [ClaimInput(concept, "contains", "caffeine", 3.0)])
    [job] = profile_jobs(svc, user, context)
    assert job.run_after - job.created_at == queue.DERIVE_DEBOUNCE
    past_the_debounce(svc, user, context)
    svc.worker.drain()
    got = svc.profile(user, context, concept)
    assert got.built and not got.stale and f"{concept} contains caffeine" in got.summary
    assert (got.summarizer, got.model, got.dim) == ("extractive", None, None)
    assert [j.id for j in profile_jobs(svc, user, context, "done")] == [job.id]

    svc.add_claims(user, context, [ClaimInput(concept, "grows in", "Ethiopia", 2.0)])
    assert svc.profile(user, context, concept).stale
    past_the_debounce(svc, user, context)
    svc.worker.drain()
    fresh = svc.profile(user, context, concept)
    assert not fresh.stale and f"{concept} grows in Ethiopia" in fresh.summary

    # an embedder appears: its next rebuild embeds the kept summaries, rewriting none
    embedder = vsvc.embedder
    assert embedder is not None
    queue_rebuilds(vsvc, user, context)
    past_the_debounce(vsvc, user, context)
    assert vsvc.wait_for_jobs(timeout=120) == 0
    embedded = vsvc.profile(user, context, concept)
    assert (embedded.model, embedded.dim) == (embedder.name, embedder.dim)
    assert (embedded.summary, embedded.fingerprint) == (fresh.summary, fresh.fingerprint)
    assert embedded.built_at is not None and fresh.built_at is not None
    assert embedded.built_at > fresh.built_at and not embedded.stale


def test_running_the_job_builds_a_fresh_embedded_profile_and_a_new_claim_refreshes_it(
    vsvc: Tabane, user: Principal, context: str
) -> None:
    concept = unique("coffee")
    vsvc.add_claims(user, context, [ClaimInput(concept, "contains", "caffeine", 3.0)])
    assert len(profile_jobs(vsvc, user, context)) == 1
    assert vsvc.profile(user, context, concept).stale  # claims, no profile yet
    assert vsvc.wait_for_jobs(timeout=120) == 0
    got = vsvc.profile(user, context, concept)
    assert got.built and not got.stale and got.claim_version == got.current_version
    assert f"{concept} contains caffeine" in got.summary
    embedder = vsvc.embedder
    assert embedder is not None
    assert (got.model, got.dim) == (embedder.name, embedder.dim)
    vec = np.asarray(stored(vsvc, user, context, concept).embedding, dtype=np.float32)
    assert vec.shape == (embedder.dim,) and np.isfinite(vec).all()

    vsvc.add_claims(user, context, [ClaimInput(concept, "grows in", "Ethiopia", 2.0)])
    stale = vsvc.profile(user, context, concept)
    assert stale.stale and "Ethiopia" not in stale.summary
    assert len(profile_jobs(vsvc, user, context)) == 1
    assert vsvc.wait_for_jobs(timeout=120) == 0
    fresh = vsvc.profile(user, context, concept)
    assert not fresh.stale and fresh.built_at is not None and got.built_at is not None
    assert fresh.built_at > got.built_at
    assert f"{concept} grows in Ethiopia" in fresh.summary
    assert f"{concept} contains caffeine" in fresh.summary
    assert fresh.dim == embedder.dim


def test_a_retraction_queues_a_rebuild_that_drops_the_claim(
    vsvc: Tabane, user: Principal, context: str
) -> None:
    concept = unique("tea")
    claims = [
        ClaimInput(concept, "contains", "theanine", 1.0),
        ClaimInput(concept, "is", "green", 1.0),
    ]
    vsvc.add_claims(user, context, claims)
    assert vsvc.wait_for_jobs(timeout=120) == 0
    assert "green" in vsvc.profile(user, context, concept).summary
    vsvc.retract_associations(user, context, [(concept, "is", "green", None, None)])
    assert vsvc.profile(user, context, concept).stale
    assert len(profile_jobs(vsvc, user, context)) == 1
    assert vsvc.wait_for_jobs(timeout=120) == 0
    after = vsvc.profile(user, context, concept)
    assert not after.stale and "green" not in after.summary and "theanine" in after.summary


def test_retracting_or_replacing_a_source_rebuilds_the_profiles_of_its_claims(
    vsvc: Tabane, user: Principal, context: str
) -> None:
    """A source's claims close with it (retracted, or replaced without the paragraph they
    cite): the profiles that summarized them are rebuilt, never served stale for good."""
    from tabane.ingest.documents import DocumentInput, block

    concept = unique("falcon")
    for sid, fact in (("plan", "ZEBRA-42"), ("memo", "orbit-7")):
        doc = DocumentInput(sid, paragraphs=[block(f"{concept} has code {fact}.")])
        vsvc.ingest(user, context, doc)
        claim = ClaimInput(concept, "has code", fact, 1.0, source=sid, paragraph=0)
        vsvc.add_claims(user, context, [claim, ClaimInput(concept, "is", "a project", 1.0)])
    assert vsvc.wait_for_jobs(timeout=120) == 0
    assert "ZEBRA-42" in vsvc.profile(user, context, concept).summary
    vsvc.retract(user, context, "plan")
    assert vsvc.profile(user, context, concept).stale
    assert len(profile_jobs(vsvc, user, context)) == 1
    assert vsvc.wait_for_jobs(timeout=120) == 0
    after = vsvc.profile(user, context, concept)
    assert not after.stale and "ZEBRA-42" not in after.summary and "orbit-7" in after.summary
    edited = DocumentInput("memo", paragraphs=[block("The memo was rewritten.")])
    assert vsvc.ingest(user, context, edited).claims_closed == 1
    assert len(profile_jobs(vsvc, user, context)) == 1
    assert vsvc.wait_for_jobs(timeout=120) == 0
    assert "orbit-7" not in vsvc.profile(user, context, concept).summary


def test_a_job_for_a_rescoped_context_builds_nothing(
    vsvc: Tabane, user: Principal, context: str
) -> None:
    concept = unique("s")
    vsvc.add_claims(user, context, [ClaimInput(concept, "near", "t", 1.0)])
    job = profile_jobs(vsvc, user, context)[0]
    with vsvc.store.admin() as session:  # as if the context's scopes changed after the write
        row = session.get(Job, job.id)
        assert row is not None
        row.scopes = [*row.scopes, "elsewhere"]
        row.run_after = row.created_at
    assert vsvc.wait_for_jobs(timeout=120) == 0
    assert not vsvc.profile(user, context, concept).built
    assert [j.id for j in profile_jobs(vsvc, user, context, "done")] == [job.id]
