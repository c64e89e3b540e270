"""Writers that race: each test holds one transaction open at the point that matters, starts the
racing call on another thread, lets the first commit once the second waits on a lock (or has
ended), and then checks what is stored. Without the fixes each of these lost a write, corrupted a
statistic or failed with an internal error (the audit's reproducers, made deterministic)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from tabane.contexts import contexts
from tabane.errors import AliasConflict, NoSession, NoSource, StoreBusy, Unauthorized
from tabane.graph import aliases
from tabane.graph.claims import write as claims_mod
from tabane.graph.claims.parse import ClaimInput
from tabane.ingest.documents import DocumentInput, retract_source
from tabane.memory import sessions
from tabane.principal import PUBLIC, Principal
from tabane.recall.plan import RecallRequest
from tabane.search import bm25
from tabane.search.plan import SearchRequest
from tabane.service import Tabane
from tabane.storage.schema import (
    Association,
    Claim,
    Context,
    CorpusStats,
    Paragraph,
)

from helpers import unique

WAIT = 10.0  # seconds: the most a step may take before the test gives up


def _waiting(svc: Tabane) -> int:
    """Backends of this server waiting for a lock."""
    with svc.store.owner.connect() as conn:
        return int(
            conn.execute(text("SELECT count(*) FROM pg_locks WHERE NOT granted")).scalar_one()
        )


def race(
    svc: Tabane,
    who: Principal,
    first: Callable[[Session], object],
    second: Callable[[], object],
    meanwhile: Callable[[], None] = lambda: None,
) -> tuple[object, object]:
    """Run `first` in a transaction of `who`'s that stays open while `second` runs on another
    thread; once `second` waits on a lock (or has ended), call `meanwhile`, then commit the
    first. Returns what each returned or raised."""
    out: dict[str, object] = {}
    opened, release = threading.Event(), threading.Event()

    def hold() -> None:
        try:
            with svc.store.session(who) as session:
                out["first"] = first(session)
                opened.set()
                release.wait(WAIT)
        except Exception as exc:
            out["first"] = exc
            opened.set()

    def run() -> None:
        try:
            out["second"] = second()
        except Exception as exc:
            out["second"] = exc

    holder = threading.Thread(target=hold)
    holder.start()
    assert opened.wait(WAIT)
    racer = threading.Thread(target=run)
    racer.start()
    deadline = time.monotonic() + WAIT
    while racer.is_alive() and not _waiting(svc) and time.monotonic() < deadline:
        time.sleep(0.02)
    meanwhile()
    release.set()
    holder.join(WAIT)
    racer.join(WAIT)
    assert not holder.is_alive() and not racer.is_alive()
    return out["first"], out["second"]


@pytest.fixture
def shared(svc: Tabane, make_user: Callable[..., Principal]) -> Iterator[tuple[Principal, str]]:
    owner = make_user("o")
    name = unique("ctx")
    svc.create_context(owner, name, scopes=[PUBLIC])
    yield owner, name


def _context(session: Session, name: str) -> Any:
    return contexts.resolve(session, name)


@pytest.mark.parametrize("before", [None, 0.5])
def test_two_writers_of_one_edge_both_count(
    svc: Tabane, make_user: Callable[..., Principal], shared: tuple[Principal, str],
    before: float | None,
) -> None:  # fmt: skip
    _, ctx = shared
    a, b = make_user("a"), make_user("b")
    # the spellings exist (a writer minting one waits for the other at the vocabulary instead)
    svc.add_claims(
        a, ctx, [ClaimInput("kettle", "is", "tool", 1.0), ClaimInput("loud", "is", "tool", 1.0)]
    )
    if before is not None:  # the edge too
        svc.add_claims(a, ctx, [ClaimInput("kettle", "is", "loud", before)])

    def write(session: Session) -> object:
        c = _context(session, ctx)
        return claims_mod.write_batch(
            session, a, c, [ClaimInput("kettle", "is", "loud", 1.0)], (PUBLIC,)
        )

    first, second = race(
        svc, a, write, lambda: svc.add_claims(b, ctx, [ClaimInput("kettle", "is", "loud", 2.0)])
    )
    assert not isinstance(first, Exception) and not isinstance(second, Exception)
    with svc.store.admin() as session:
        cid = session.scalar(select(Context.id).where(Context.name == ctx))
        edge = session.execute(
            select(Association.weight, Association.claims).where(
                Association.context_id == cid, Association.object == "loud"
            )
        ).one()
        open_claims = session.scalar(
            select(func.sum(Claim.weight)).where(
                Claim.context_id == cid, Claim.object == "loud", Claim.closed_at.is_(None)
            )
        )
    expected = 3.0 + (before or 0.0)
    assert (edge.weight, edge.claims, open_claims) == (expected, 3 if before else 2, expected)


def test_two_retracts_of_one_source_subtract_it_once(
    svc: Tabane, shared: tuple[Principal, str]
) -> None:
    owner, ctx = shared
    svc.ingest(owner, ctx, DocumentInput("keep", data=b"alpha beta gamma delta"))
    svc.ingest(owner, ctx, DocumentInput("doc", data=b"alpha beta\n\nepsilon zeta\n\neta theta"))
    first, second = race(
        svc,
        owner,
        lambda session: retract_source(session, owner, _context(session, ctx), "doc"),
        lambda: svc.retract(owner, ctx, "doc"),
    )
    assert not isinstance(first, Exception)
    assert isinstance(second, NoSource)
    with svc.store.admin() as session:
        cid = session.scalar(select(Context.id).where(Context.name == ctx))
        stored = session.scalar(select(CorpusStats.paragraphs).where(CorpusStats.context_id == cid))
        live = session.scalar(
            select(func.count()).select_from(Paragraph).where(Paragraph.context_id == cid)
        )
    assert stored == live == 1
    hits = svc.search(owner, _search(ctx, "alpha")).hits
    assert [h.source_id for h in hits] == ["keep"]


def _search(ctx: str, query: str) -> SearchRequest:
    return SearchRequest(query, (ctx,))


def test_recall_drops_a_paragraph_replaced_after_bm25_scored_it(
    svc: Tabane, shared: tuple[Principal, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    owner, ctx = shared
    svc.ingest(owner, ctx, DocumentInput("tea", data=b"Green tea is brewed at eighty degrees."))
    ranked = bm25.ranked

    def ranked_then_replaced(*args: Any, **kwargs: Any) -> Any:
        out = ranked(*args, **kwargs)
        new = DocumentInput("tea", data=b"Matcha is whisked, not brewed.")
        writer = threading.Thread(target=lambda: svc.ingest(owner, ctx, new))
        writer.start()
        writer.join(WAIT)  # committed before the recall's statement reads the rows
        return out

    monkeypatch.setattr(bm25, "ranked", ranked_then_replaced)
    result = svc.recall(owner, RecallRequest("green tea brewed degrees", (ctx,), force=True))
    assert all(item.text for item in result.items)
    assert "eighty degrees" not in result.rendered
    assert any("removed by a write meanwhile" in note for note in result.trace.notes)


def test_a_turn_racing_the_deletion_of_its_session_is_kept_or_refused(
    svc: Tabane, make_user: Callable[..., Principal], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A turn that comes while the session is being deleted opens it again; one whose session
    was found just before the deletion committed is `no_session` (not an internal error)."""
    u = make_user("t")
    svc.add_turn(u, "s", "first turn")
    first, second = race(
        svc,
        u,
        lambda session: sessions.remove(session, u, "s"),
        lambda: svc.add_turn(u, "s", "second"),
    )
    assert first == 1 and isinstance(second, sessions.Turn) and second.seq == 1
    found, deleted = threading.Event(), threading.Event()
    real = sessions.find

    def find_then_wait(*args: Any, **kwargs: Any) -> Any:
        chat = real(*args, **kwargs)
        if threading.current_thread().name == "appender":
            found.set()
            deleted.wait(WAIT)
        return chat

    monkeypatch.setattr(sessions, "find", find_then_wait)
    out: dict[str, object] = {}

    def append() -> None:
        try:
            out["turn"] = svc.add_turn(u, "s", "third")
        except Exception as exc:
            out["turn"] = exc

    appender = threading.Thread(target=append, name="appender")
    appender.start()
    assert found.wait(WAIT)
    assert svc.delete_session(u, "s") == 1
    deleted.set()
    appender.join(WAIT)
    assert isinstance(out["turn"], NoSession)
    assert svc.list_sessions(u) == []


def test_alias_races_end_in_one_spelling_and_a_clear_error(
    svc: Tabane, make_user: Callable[..., Principal], shared: tuple[Principal, str]
) -> None:
    owner, ctx = shared
    a, b = make_user("a"), make_user("b")
    svc.add_claims(owner, ctx, [ClaimInput("T0", "is", "T1", 1.0)])

    def alias(to: str, name: str = "al") -> Callable[[Session], object]:
        return lambda session: aliases.add_alias(
            session, a, _context(session, ctx), "concept", name, to, (PUBLIC,)
        )

    # two aliases of one spelling to two targets: the second is told, not "created=False"
    _, second = race(svc, a, alias("T0"), lambda: svc.add_alias(b, ctx, "al", "T1"))
    assert isinstance(second, AliasConflict)
    # a claim that mints a spelling an alias is taking meanwhile: retry, nothing written
    _, second = race(
        svc, a, alias("T0", "X"), lambda: svc.add_claims(b, ctx, [ClaimInput("X", "is", "Y", 1.0)])
    )
    assert isinstance(second, StoreBusy)
    assert [e.object for e in svc.query(b, contexts=[ctx], subject="X").edges] == ["T1"]
    # an alias of a spelling a claim is minting as a concept meanwhile
    _, second = race(
        svc,
        a,
        lambda session: claims_mod.write_batch(
            session, a, _context(session, ctx), [ClaimInput("Y2", "is", "T1", 1.0)], (PUBLIC,)
        ),
        lambda: svc.add_alias(b, ctx, "Y2", "T0"),
    )
    assert isinstance(second, AliasConflict)
    assert [c.kind for c in svc.resolve(b, ctx, "Y2").candidates][:1] == ["exact"]


@pytest.mark.slow
def test_erasure_waits_for_the_users_writes_and_refuses_later_ones(
    svc: Tabane, make_user: Callable[..., Principal], shared: tuple[Principal, str]
) -> None:
    owner, ctx = shared
    x = make_user("x")
    svc.add_claims(x, ctx, [ClaimInput("tea", "is", "green", 1.0)])

    def write(session: Session) -> object:
        return claims_mod.write_batch(
            session, x, _context(session, ctx), [ClaimInput("tea", "is", "hot", 1.0)], (PUBLIC,)
        )

    during: dict[str, object] = {}

    def meanwhile() -> None:  # a new transaction of x while the erasure waits: refused at once
        try:
            during["remember"] = svc.remember(x, ctx, {"text": "written during the erasure"})
        except Exception as exc:
            during["remember"] = exc

    first, done = race(svc, x, write, lambda: svc.erase_user(x.name), meanwhile)
    assert not isinstance(first, Exception) and not isinstance(done, Exception)
    assert isinstance(during.get("remember"), StoreBusy)
    with svc.store.admin() as session:
        left = session.scalar(select(func.count()).select_from(Claim).where(Claim.author == x.name))
    assert left == 0  # the claim in flight committed first, and went with x
    for call in (
        lambda: svc.add_claims(x, ctx, [ClaimInput("tea", "is", "cold", 1.0)]),
        lambda: svc.remember(x, ctx, {"text": "after the erasure"}),
        lambda: svc.add_turn(x, "s", "after the erasure"),
    ):
        with pytest.raises(Unauthorized):
            call()
    assert owner.name  # the context's owner is untouched
