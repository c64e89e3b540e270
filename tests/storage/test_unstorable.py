"""A value PostgreSQL cannot take, from any caller of the Python API: bad input, nothing written,
never an internal error. (HTTP and MCP refuse it earlier, naming the field.)"""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import update

from tabane.errors import InvalidInput, StoreBusy
from tabane.ingest.documents import DocumentInput, block
from tabane.service import Tabane
from tabane.storage.schema import Context

from helpers import race


@pytest.mark.parametrize(
    ("text", "problem"),
    [("tea\x00pot", "NUL character"), ("tea\udcffpot", "lone surrogate")],
)
def test_an_unstorable_text_writes_nothing(svc: Tabane, user, context, text, problem):
    doc = DocumentInput(source_id="pot", paragraphs=[block("A fine teapot."), block(text)])
    with pytest.raises(InvalidInput) as err:
        svc.ingest(user, context, doc)
    assert err.value.written == "nothing" and problem in err.value.issues[0].problem
    assert svc.list_sources(user, context).sources == []


def test_other_data_errors_are_not_taken_for_bad_input():
    from tabane.storage.store import unstorable

    assert unstorable(ZeroDivisionError()) is None
    assert unstorable(UnicodeEncodeError("utf-8", "\udcff", 0, 1, "surrogates not allowed"))


def test_sessions_read_instants_in_utc_whatever_the_server_zone(svc: Tabane, user, context):
    """The years 1–9999 inputs are checked against are UTC's: the last instant a note may hold
    reads back, on connections whose server default is another zone."""
    from sqlalchemy import text

    with svc.store.admin() as session:
        name = session.scalar(text("SELECT current_database()"))
        session.execute(text(f"ALTER DATABASE \"{name}\" SET TimeZone = 'Asia/Tokyo'"))
    try:
        svc.store.app.dispose()  # new connections take the database's default, then tabane's
        latest = "9999-12-31T20:00:00Z"  # 10000-01-01 05:00 in Tokyo
        claim = svc.remember(user, context, {"text": "far future", "valid_from": latest})
        (note,) = [m for m in svc.memories(user, context).memories if m.id == claim]
        assert note.valid_from is not None and note.valid_from.year == 9999
        with svc.store.session(user) as session:
            assert session.scalar(text("SHOW TimeZone")) == "UTC"
    finally:
        with svc.store.admin() as session:
            session.execute(text(f'ALTER DATABASE "{name}" RESET TimeZone'))
        svc.store.app.dispose()


def test_a_deadlock_with_a_concurrent_write_is_store_busy(svc: Tabane, user, make_context):
    """Two transactions that lock the same rows in opposite orders: PostgreSQL ends one, which
    answers `store_busy` (retry; nothing written), not an internal error."""
    names = [make_context(user), make_context(user)]
    both_locked = threading.Barrier(2, timeout=30)

    def write(first: str, second: str) -> None:
        with svc.store.session(user) as session:
            for n, name in enumerate((first, second)):
                change = update(Context).where(Context.name == name).values(description=first)
                session.execute(change)
                if n == 0:
                    both_locked.wait()

    outcomes = race(lambda: write(*names), lambda: write(*reversed(names)))
    assert sorted(type(o).__name__ for o in outcomes) == ["NoneType", "StoreBusy"]
    busy = next(o for o in outcomes if isinstance(o, StoreBusy))
    assert busy.code == "store_busy" and busy.status == 503 and busy.written == "nothing"
