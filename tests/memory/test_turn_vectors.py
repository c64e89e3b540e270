"""Turn vectors: session turns embedded by the `embed_turns` job (one queued job per session),
stored with their turn's scope set, invisible to other users, removed with their session or
user, and bad vectors never stored."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import ColumnElement, delete, func, select, update

from tabane.errors import InvalidInput
from tabane.jobs import queue
from tabane.memory import turn_vectors
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.storage.schema import ChatSession, Job, SessionTurn, TurnVector, User

from helpers import BadEmbedder, unique

TURNS = (
    "Hannah adopted a beagle puppy named Biscuit last spring.",
    "The quarterly budget review moved to the second Thursday of the month.",
    "Kenji prefers green tea over coffee in the morning.",
)


def _session_pk(svc: Tabane, user: Principal, name: str) -> int:
    with svc.store.session(user) as session:
        return session.execute(
            select(ChatSession.id).where(
                ChatSession.user_id == user.user_id, ChatSession.name == name
            )
        ).scalar_one()


def _owner_count(svc: Tabane, *where: ColumnElement[bool]) -> int:
    """Turn vectors as the owner sees them (every row, whoever may read it)."""
    with svc.store.owner.connect() as conn:
        return int(
            conn.execute(select(func.count()).select_from(TurnVector).where(*where)).scalar_one()
        )


def _queued(svc: Tabane, session_pk: int) -> list[Job]:
    with svc.store.admin() as session:
        return list(
            session.scalars(
                select(Job).where(
                    Job.kind == queue.EMBED_TURNS,
                    Job.session_pk == session_pk,
                    Job.state == "queued",
                )
            )
        )


def _settle(svc: Tabane) -> None:
    """Earlier tests' queued work must not be claimed by a test that runs one job."""
    with svc.store.admin() as session:
        session.execute(
            update(Job).where(Job.state.in_(("queued", "running"))).values(state="done")
        )


def test_no_embedder_queues_nothing(svc: Tabane, user: Principal) -> None:
    name = unique("chat")
    svc.add_turn(user, name, "nothing to embed with")
    assert _queued(svc, _session_pk(svc, user, name)) == []


def test_turns_are_embedded_once_with_their_scopes_and_rank_by_similarity(
    vsvc: Tabane, user: Principal
) -> None:
    name = unique("chat")
    for text in TURNS:  # three turns while the first job waits: one job
        vsvc.add_turn(user, name, text)
    pk = _session_pk(vsvc, user, name)
    (job,) = _queued(vsvc, pk)
    assert job.scopes == list(user.default_scopes) == job.read_scopes
    assert job.context_id is None and job.source_pk is None
    assert vsvc.wait_for_jobs(timeout=120) == 0
    embedder = vsvc.embedder
    assert embedder is not None
    query = embedder.embed_query("What kind of dog does Hannah have?")
    with vsvc.store.session(user) as session:
        rows = session.execute(
            select(SessionTurn.text, TurnVector.dim, TurnVector.scopes, TurnVector.session_pk)
            .join(TurnVector, TurnVector.turn_id == SessionTurn.id)
            .where(TurnVector.session_pk == pk, TurnVector.model == embedder.name)
            .order_by(TurnVector.embedding.cosine_distance(query), SessionTurn.seq)
        ).all()
        turn_scopes = session.scalars(
            select(SessionTurn.scopes).where(SessionTurn.session_pk == pk)
        ).all()
    assert rows[0].text == TURNS[0]  # the nearest to the question
    assert sorted(r.text for r in rows) == sorted(TURNS)
    assert {r.dim for r in rows} == {embedder.dim}
    assert {tuple(r.scopes) for r in rows} == {tuple(s) for s in turn_scopes}
    assert {r.session_pk for r in rows} == {pk}
    # A later turn queues a new job that embeds only that turn.
    vsvc.add_turn(user, name, "Biscuit chewed the sofa again.", role="assistant")
    with vsvc.store.session(user) as session:
        todo = turn_vectors.missing(session, pk, embedder.name)
    assert [t.text for t in todo] == ["Biscuit chewed the sofa again."]
    assert vsvc.wait_for_jobs(timeout=120) == 0
    assert _owner_count(vsvc, TurnVector.session_pk == pk) == len(TURNS) + 1
    with vsvc.store.session(user) as session:
        assert turn_vectors.missing(session, pk, embedder.name) == []


def test_another_users_turn_vectors_stay_invisible(
    vsvc: Tabane, make_user: Callable[..., Principal]
) -> None:
    alice, bob = make_user(), make_user()
    name = unique("chat")
    vsvc.add_turn(alice, name, "alice's secret plan")
    assert vsvc.wait_for_jobs(timeout=120) == 0
    pk = _session_pk(vsvc, alice, name)
    assert _owner_count(vsvc, TurnVector.session_pk == pk) == 1
    with vsvc.store.session(bob) as session:
        seen = session.scalar(
            select(func.count()).select_from(TurnVector).where(TurnVector.session_pk == pk)
        )
        assert seen == 0
        assert turn_vectors.missing(session, pk, "any-model") == []


def test_deleting_the_session_or_the_user_removes_the_vectors(
    vsvc: Tabane, make_user: Callable[..., Principal]
) -> None:
    alice, bob = make_user(), make_user()
    kept, dropped = unique("kept"), unique("dropped")
    for who, name in ((alice, kept), (alice, dropped), (bob, kept)):
        vsvc.add_turn(who, name, f"{name} one")
        vsvc.add_turn(who, name, f"{name} two")
    assert vsvc.wait_for_jobs(timeout=120) == 0
    alice_kept = _session_pk(vsvc, alice, kept)
    alice_dropped = _session_pk(vsvc, alice, dropped)
    bob_kept = _session_pk(vsvc, bob, kept)
    for pk in (alice_kept, alice_dropped, bob_kept):
        assert _owner_count(vsvc, TurnVector.session_pk == pk) == 2
    assert vsvc.delete_session(alice, dropped) == 2
    assert _owner_count(vsvc, TurnVector.session_pk == alice_dropped) == 0
    assert _owner_count(vsvc, TurnVector.session_pk == alice_kept) == 2
    with vsvc.store.admin() as session:
        session.execute(delete(User).where(User.id == alice.user_id))
    assert _owner_count(vsvc, TurnVector.session_pk == alice_kept) == 0
    assert _owner_count(vsvc, TurnVector.session_pk == bob_kept) == 2


def test_a_deleted_sessions_queued_job_goes_with_it(vsvc: Tabane, user: Principal) -> None:
    name = unique("chat")
    vsvc.add_turn(user, name, "soon gone")
    pk = _session_pk(vsvc, user, name)
    assert len(_queued(vsvc, pk)) == 1
    vsvc.delete_session(user, name)
    with vsvc.store.admin() as session:
        left = session.scalar(select(func.count()).select_from(Job).where(Job.session_pk == pk))
    assert left == 0


@pytest.mark.parametrize("mode", ["nan", "width"])
def test_nan_and_wrong_width_vectors_are_refused(svc: Tabane, user: Principal, mode: str) -> None:
    bad = BadEmbedder(mode)
    with pytest.raises(InvalidInput):
        turn_vectors.embed(bad, [turn_vectors.TurnText(1, ("user:x",), "x")])
    _settle(svc)
    bad_svc = Tabane.build(svc.store, svc.settings, bad)
    name = unique("chat")
    bad_svc.add_turn(user, name, "Never stored as a vector.")
    pk = _session_pk(svc, user, name)
    assert bad_svc.worker.run_once()
    with svc.store.admin() as session:
        job = session.scalars(
            select(Job).where(Job.kind == queue.EMBED_TURNS, Job.session_pk == pk)
        ).one()
        assert job.state == "queued" and job.attempts == 1
        assert "turn_embeddings" in (job.last_error or "")
        session.execute(update(Job).where(Job.id == job.id).values(state="done"))
    assert _owner_count(svc, TurnVector.session_pk == pk) == 0
