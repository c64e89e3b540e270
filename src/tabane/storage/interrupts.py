"""Ctrl-C or an exit in the middle of a transaction (storage/store.py `Store.session`): the
connection may be left mid-statement, where no rollback can be sent, and an error raised while
the interrupt was handled must not take its place (a caller could retry past a `store_unavailable`
and go on after Ctrl-C)."""

from __future__ import annotations

from sqlalchemy import Connection
from sqlalchemy.orm import Session


def invalidate(session: Session, held: Connection) -> None:
    """Close the transaction's connection for good: an interrupt may have left it mid-statement.
    A session whose flush the interrupt failed (inside a savepoint) refuses every command, the
    connection it returns included: then the one it was opened with."""
    try:
        session.connection().invalidate()
    except Exception:
        held.invalidate()


def interrupt_under(exc: BaseException) -> BaseException | None:
    """The Ctrl-C or exit that a failure was raised while handling (a rollback sent on a
    connection the interrupt left mid-statement), if any: it is what the caller must get."""
    seen: BaseException | None = exc.__context__
    while seen is not None:
        if not isinstance(seen, Exception):
            return seen
        seen = seen.__context__
    return None
