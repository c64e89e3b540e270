"""Packing the vocabulary's bigram postings (graph/gram_merge.py): the job packs a scope set
once its budget is due, a merge holds off that set's writers, and migration 0022 packs what a
store already holds exactly as a merge does. resolve's results over packs are compared with
scoring everything in tests/graph/test_resolve_fast.py."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import func, select, update

from tabane.graph import gram_merge
from tabane.graph.claims.parse import ClaimInput
from tabane.jobs import queue
from tabane.jobs.worker import Worker
from tabane.principal import Principal, personal_scope
from tabane.service import Tabane
from tabane.storage.schema import Context, Job, VocabGram, VocabGramPack


def _claims(names: list[str]) -> list[ClaimInput]:
    return [ClaimInput(a, "r", b, 1.0) for a, b in zip(names[::2], names[1::2], strict=True)]


def _context_id(svc: Tabane, who: Principal, name: str) -> int:
    with svc.store.session(who) as session:
        found = session.scalar(select(Context.id).where(Context.name == name))
        assert found is not None
        return int(found)


def _packs(conn: Any, context_id: int) -> dict[tuple[str, str, tuple[str, ...]], bytes]:
    rows = conn.execute(
        select(
            VocabGramPack.kind, VocabGramPack.gram, VocabGramPack.scopes, VocabGramPack.records
        ).where(VocabGramPack.context_id == context_id)
    ).all()
    return {(r.kind, r.gram, tuple(r.scopes)): bytes(r.records) for r in rows}


def test_the_budget() -> None:
    assert not gram_merge.Backlog(fresh=0, packed=0).due()
    assert not gram_merge.Backlog(fresh=gram_merge.MIN_FRESH - 1, packed=0).due()
    assert gram_merge.Backlog(fresh=gram_merge.MIN_FRESH, packed=0).due()
    assert not gram_merge.Backlog(fresh=gram_merge.MIN_FRESH, packed=40_000).due()
    assert gram_merge.Backlog(fresh=10_000, packed=40_000).due()
    assert gram_merge.Backlog(fresh=3, packed=0).due(min_fresh=3)


def test_the_job_packs_a_scope_set_once_due(
    svc: Tabane,
    make_user: Callable[..., Principal],
    make_context: Callable[..., str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with svc.store.admin() as session:  # earlier tests' queued work must not be claimed here
        session.execute(
            update(Job).where(Job.state.in_(("queued", "running"))).values(state="done")
        )
    owner = make_user()
    ctx = make_context(owner)
    svc.add_claims(owner, ctx, _claims(["alphaBeta", "gammaDelta", "epsilonZeta", "etaTheta"]))
    ctx_id = _context_id(svc, owner, ctx)
    with svc.store.session(owner) as session:
        queued = session.scalar(
            select(func.count()).where(Job.kind == queue.MERGE_GRAMS, Job.context_id == ctx_id)
        )
    assert queued == 1
    assert Worker(svc.store, None).drain() >= 1  # under MIN_FRESH: looked, not packed
    with svc.store.session(owner) as session:
        assert session.scalar(select(func.count()).where(VocabGramPack.context_id == ctx_id)) == 0
    monkeypatch.setattr(gram_merge, "MIN_FRESH", 1)
    svc.add_claims(owner, ctx, _claims(["iotaKappa", "lambdaMu"]))
    assert Worker(svc.store, None).drain() >= 1
    with svc.store.session(owner) as session:
        packs = session.scalar(select(func.count()).where(VocabGramPack.context_id == ctx_id))
        fresh = session.scalar(
            select(func.count()).where(VocabGram.context_id == ctx_id, ~VocabGram.merged)
        )
        grams = session.scalar(
            select(func.count(func.distinct(VocabGram.gram))).where(VocabGram.context_id == ctx_id)
        )
    assert fresh == 0 and packs == grams > 0


def test_a_merge_holds_off_the_writers_of_its_scope_set(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    """A write that starts while a merge is uncommitted waits for it, then lands unflagged:
    its postings are read as fresh, never flagged without being packed."""
    owner = make_user()
    ctx = make_context(owner)
    svc.add_claims(owner, ctx, _claims(["firstOne", "secondTwo"]))
    ctx_id = _context_id(svc, owner, ctx)
    scopes = [personal_scope(owner.name)]
    done: list[float] = []

    def write() -> None:
        svc.add_claims(owner, ctx, _claims(["thirdThree", "fourthFour"]))
        done.append(time.monotonic())

    with svc.store.session(owner) as session:
        assert gram_merge.merge(session, ctx_id, scopes, force=True)
        writer = threading.Thread(target=write)
        writer.start()
        time.sleep(0.5)
        assert not done  # blocked on the size rows the merge holds
        committed = time.monotonic()
    writer.join(timeout=30)
    assert done and done[0] >= committed
    with svc.store.session(owner) as session:
        late = session.scalars(select(VocabGram.merged).where(VocabGram.context_id == ctx_id)).all()
        packed = session.scalar(
            select(func.sum(func.length(VocabGramPack.records))).where(
                VocabGramPack.context_id == ctx_id
            )
        )
    assert late.count(False) > 0 and late.count(True) * gram_merge.RECORD.itemsize == packed
