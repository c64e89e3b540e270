"""Rows written by COPY through a staging table (storage/bulk.py `copy_columns`): the policies
of the real table still decide every row, and the staging table can be used again."""

from __future__ import annotations

import logging

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import ProgrammingError

from tabane.ingest.documents import DocumentInput, block
from tabane.service import Tabane
from tabane.storage.bulk import copy_columns
from tabane.storage.schema import Paragraph, Source


def _source(svc: Tabane, user, context: str) -> tuple[int, int, list[str]]:
    svc.ingest(user, context, DocumentInput(source_id="s", paragraphs=[block("one")]))
    with svc.store.session(user) as session:
        src = session.scalar(select(Source).where(Source.source_id == "s"))
        assert src is not None
        return src.id, src.context_id, list(src.scopes)


def _stage(session, source_pk: int, context_id: int, scopes: list[str], first: int, n: int):
    ids = [session.scalar(select(func.nextval("paragraphs_id_seq"))) for _ in range(n)]
    copy_columns(
        session,
        Paragraph.__table__,
        {
            "id": ids,
            "idx": list(range(first, first + n)),
            "text": [f"staged {i}" for i in range(n)],
            "locator": [{"kind": "line", "line": 1}] + [None] * (n - 1),
        },
        {"source_pk": source_pk, "context_id": context_id, "scopes": scopes},
    )


def _count(svc: Tabane, user, source_pk: int) -> int:
    with svc.store.session(user) as session:
        return session.scalar(
            select(func.count()).select_from(Paragraph).where(Paragraph.source_pk == source_pk)
        )


def test_a_row_the_caller_may_not_write_is_refused_through_the_staging_table(
    svc: Tabane, make_user, make_context
):
    owner, stranger = make_user("owner"), make_user("stranger")
    theirs = make_context(stranger)
    pk, ctx_id, scopes = _source(svc, stranger, theirs)
    with svc.store.session(stranger) as session:  # the stranger's own scopes: written
        _stage(session, pk, ctx_id, scopes, 10, 2)
    assert _count(svc, stranger, pk) == 3
    foreign = [f"user:{owner.name}"]  # a scope set the stranger may not write
    refused = pytest.raises(ProgrammingError, match="row-level security")
    with refused, svc.store.session(stranger) as session:
        _stage(session, pk, ctx_id, foreign, 20, 2)
    with svc.store.session(owner) as session:  # and nothing of it landed, for anyone
        hidden = session.scalar(
            select(func.count()).select_from(Paragraph).where(Paragraph.source_pk == pk)
        )
    assert hidden == 0 and _count(svc, stranger, pk) == 3


def test_the_staging_table_serves_many_writes_and_outlives_a_rollback(svc: Tabane, user, context):
    pk, ctx_id, scopes = _source(svc, user, context)
    with svc.store.session(user) as session:  # twice in one transaction: emptied in between
        _stage(session, pk, ctx_id, scopes, 10, 3)
        _stage(session, pk, ctx_id, scopes, 20, 3)
    assert _count(svc, user, pk) == 7
    with pytest.raises(RuntimeError), svc.store.session(user) as session:
        _stage(session, pk, ctx_id, scopes, 30, 3)
        raise RuntimeError("rolled back")
    assert _count(svc, user, pk) == 7
    for first in (40, 50):  # each on whichever pooled connection comes: made where missing
        with svc.store.session(user) as session:
            _stage(session, pk, ctx_id, scopes, first, 2)
    assert _count(svc, user, pk) == 11
    with svc.store.session(user) as session:
        stored = session.scalar(
            select(Paragraph.locator).where(Paragraph.source_pk == pk, Paragraph.idx == 10)
        )
    assert stored == {"kind": "line", "line": 1}


def test_an_interrupt_in_the_middle_of_a_copy_is_still_an_interrupt(
    svc: Tabane, user, caplog: pytest.LogCaptureFixture
) -> None:
    """Ctrl-C while COPY is under way leaves the connection mid-command, where a rollback fails:
    the interrupt must reach the caller (not turn into `store_unavailable`, which a caller may
    retry past), and the pool must serve the next transaction."""
    with pytest.raises(KeyboardInterrupt), svc.store.session(user) as session:
        driver = session.connection().connection.driver_connection
        driver.pgconn.send_query(b"SELECT pg_sleep(0.2)")  # sent, its answer not read yet:
        raise KeyboardInterrupt  # where Ctrl-C lands while psycopg waits on COPY
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    with svc.store.session(user) as session:  # the pool serves the next transaction
        assert session.scalar(select(func.count()).select_from(Source)) is not None


def _interrupted_mid_statement(session_or_conn: object) -> None:
    """Ctrl-C landing while psycopg waits on a statement: one sent, its answer not read."""
    conn = getattr(session_or_conn, "connection", None)
    driver = (conn() if callable(conn) else session_or_conn).connection.driver_connection  # type: ignore[attr-defined]
    driver.pgconn.send_query(b"SELECT pg_sleep(0.2)")
    raise KeyboardInterrupt


def test_an_interrupt_while_a_transaction_opens_is_still_an_interrupt(
    svc: Tabane, user, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C in the transaction's first round trip (the scopes and settings), before the caller
    holds the session: the interrupt reaches the caller, not `store_unavailable` (an ingest
    retries past that, and finished every file after Ctrl-C under load)."""
    from tabane.storage import store as store_module

    monkeypatch.setattr(
        store_module, "_open", lambda session, *_: _interrupted_mid_statement(session)
    )
    with pytest.raises(KeyboardInterrupt), svc.store.session(user):
        pass
    monkeypatch.undo()
    with svc.store.session(user) as session:  # the pool serves the next transaction
        assert session.scalar(select(func.count()).select_from(Source)) is not None


def test_an_interrupt_while_a_transaction_commits_is_still_an_interrupt(
    svc: Tabane, user, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while the commit is under way: the interrupt reaches the caller."""
    from sqlalchemy.orm import SessionTransaction

    commit = SessionTransaction.commit
    monkeypatch.setattr(
        SessionTransaction, "commit", lambda self, *a, **k: _interrupted_mid_statement(self.session)
    )
    with pytest.raises(KeyboardInterrupt), svc.store.session(user) as session:
        session.scalar(select(func.count()).select_from(Source))
    monkeypatch.setattr(SessionTransaction, "commit", commit)
    with svc.store.session(user) as session:
        assert session.scalar(select(func.count()).select_from(Source)) is not None


def test_an_interrupt_under_the_drivers_own_error_is_still_an_interrupt(svc: Tabane, user) -> None:
    """Ctrl-C during COPY: psycopg's copy block, leaving on the interrupt, may raise an error of
    its own while handling it. That error is not the store's fault: the interrupt is what the
    caller gets (a group ingest fell back file by file past the error and finished)."""
    import psycopg

    with pytest.raises(KeyboardInterrupt), svc.store.session(user) as session:
        session.scalar(select(func.count()).select_from(Source))
        try:
            raise KeyboardInterrupt  # landed in COPY; psycopg ended the copy, then raised:
        except KeyboardInterrupt:
            raise psycopg.OperationalError("the copy could not end") from None
    with svc.store.session(user) as session:  # the pool serves the next transaction
        assert session.scalar(select(func.count()).select_from(Source)) is not None


def test_an_interrupt_in_a_savepoint_is_still_an_interrupt(
    svc: Tabane, make_user, make_context, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while a source's first row is flushed inside its savepoint: the failed flush leaves
    a session that refuses every command; the connection is still invalidated and the interrupt
    reaches the caller (an `InvalidRequestError` took its place, and a group ingest went on file
    by file past Ctrl-C)."""
    from sqlalchemy import event

    user = make_user("intr")
    context = make_context(user)

    def interrupt(conn, cursor, statement, *_):  # type: ignore[no-untyped-def]
        if statement.startswith("INSERT INTO sources"):
            raise KeyboardInterrupt

    event.listen(svc.store.app, "before_cursor_execute", interrupt)
    try:
        with pytest.raises(KeyboardInterrupt):
            svc.ingest(user, context, DocumentInput(source_id="s", paragraphs=[block("one")]))
    finally:
        event.remove(svc.store.app, "before_cursor_execute", interrupt)
    with svc.store.session(user) as session:  # the pool serves the next transaction
        assert session.scalar(select(func.count()).select_from(Source)) is not None
