"""Embedding is fair across users and contexts (issue 32): a worker's claims take turns by owner
(the scope set the work writes with: a user's own, or a team's) and, within an owner, by context —
so one context's bulk ingest, queued first, does not starve another's small one queued after it,
and a user with many contexts does not get a turn per context ahead of a user with one."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import select

from tabane.ingest.documents import DocumentInput
from tabane.jobs import queue, turns
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.storage.schema import Context, Job, Source

BULK = 8


def _context_id(svc: Tabane, name: str) -> int:
    with svc.store.admin() as session:
        found = session.scalar(select(Context.id).where(Context.name == name))
        assert found is not None
        return found


def _queued(svc: Tabane, context_id: int) -> int:
    with svc.store.admin() as session:
        jobs = select(Job.id).where(
            Job.context_id == context_id,
            Job.kind == queue.EMBED_SOURCE,
            Job.state.in_(("queued", "running")),
        )
        return len(session.scalars(jobs).all())


def test_a_small_ingest_is_embedded_before_a_bulk_one_queued_before_it(
    svc: Tabane,
    vsvc: Tabane,
    user: Principal,
    make_context: Callable[..., str],
) -> None:
    bulk, small = make_context(), make_context()
    for i in range(BULK):
        vsvc.ingest(user, bulk, DocumentInput(f"bulk-{i}.md", data=f"Bulk page {i}.".encode()))
    vsvc.ingest(user, small, DocumentInput("note.md", data=b"A small note."))
    ids = [_context_id(svc, bulk), _context_id(svc, small)]
    assert [_queued(svc, c) for c in ids] == [BULK, 1]
    runs = 0
    while _queued(svc, ids[1]):
        assert vsvc.worker.run_once(only=[queue.EMBED_SOURCE], contexts=ids)
        runs += 1
    assert runs <= 2  # the bulk's first job, then the small one's turn
    assert _queued(svc, ids[0]) >= BULK - 1  # the bulk still waits
    with svc.store.session(user) as session:
        note = session.scalar(select(Source.id).where(Source.source_id == "note.md"))
    assert note is not None
    while vsvc.worker.run_once(only=[queue.EMBED_SOURCE], contexts=ids):
        pass
    assert [_queued(svc, c) for c in ids] == [0, 0]


def test_the_claims_take_turns_by_context_and_wrap_round(
    svc: Tabane, vsvc: Tabane, user: Principal, make_context: Callable[..., str]
) -> None:
    first, second = make_context(), make_context()
    for context, name in ((first, "a.md"), (second, "b.md"), (first, "c.md")):
        vsvc.ingest(user, context, DocumentInput(name, data=f"Text of {name}.".encode()))
    ids = [_context_id(svc, first), _context_id(svc, second)]
    turn, taken = turns.Turns(), []
    for _ in range(3):  # no turn yet: the oldest; then the next context; then round again
        with svc.store.admin() as session:
            job = queue.claim(session, [queue.EMBED_SOURCE], ids, after=turn)
            assert job is not None
            turn.took(job)  # (the job stays leased, so it is not taken twice)
            taken.append(job.context_id)
    assert taken == [ids[0], ids[1], ids[0]]


def test_a_user_with_many_contexts_gets_one_turn_per_round_like_a_user_with_one(
    svc: Tabane,
    vsvc: Tabane,
    user: Principal,
    make_user: Callable[..., Principal],
    make_context: Callable[..., str],
) -> None:
    other = make_user()
    busy = [make_context() for _ in range(3)]
    for context in busy:
        for i in range(2):
            vsvc.ingest(user, context, DocumentInput(f"p{i}.md", data=f"Page {i}.".encode()))
    lone = make_context(owner=other)
    vsvc.ingest(other, lone, DocumentInput("note.md", data=b"The other user's note."))
    ids = [_context_id(svc, c) for c in (*busy, lone)]
    runs = 0
    while _queued(svc, ids[-1]):
        assert vsvc.worker.run_once(only=[queue.EMBED_SOURCE], contexts=ids)
        runs += 1
    assert runs <= 2  # at most one job of the busy user's, then the other user's turn
    assert sum(_queued(svc, c) for c in ids[:-1]) >= 2 * len(busy) - 1
    while vsvc.worker.run_once(only=[queue.EMBED_SOURCE], contexts=ids):
        pass
    assert sum(_queued(svc, c) for c in ids) == 0
