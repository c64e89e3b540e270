"""The user guard: a user's transactions against the erasure of that user.

Every transaction acting for a user calls `tabane_hold_user` (migration 0029) first, which tries
a shared advisory lock on the user and then checks that the user still exists; erasure takes the
same lock exclusively before it reads anything, so it waits for the user's transactions in flight
and sees what they wrote, and a transaction begun during or after it is refused: `store_busy`
while it runs (retry), `unauthorized` once the user is gone.
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, Text, func, select
from sqlalchemy.orm import Session

from tabane.errors import Issue, StoreBusy, Unauthorized

# The advisory lock of user `uid` is USER_LOCK + uid ("user" in the high 32 bits).
USER_LOCK = 0x7573_6572 << 32


def hold(user_id: int) -> ColumnElement[str]:
    """The guard's call, for the first statement of a user's transaction (its value: 'ok',
    'busy' or 'gone', for `check`)."""
    return func.tabane_hold_user(user_id, type_=Text)


def check(state: str, name: str) -> None:
    if state == "busy":
        raise StoreBusy(
            f"user {name} is being erased; nothing done",
            issues=[Issue("user", "an erasure of this user is running")],
        )
    if state == "gone":
        raise Unauthorized(f"user {name} no longer exists", issues=[Issue("user", "erased")])


def take(session: Session, user_id: int) -> None:
    """Erasure's side: the user's lock, exclusively, waiting for their transactions in flight."""
    session.execute(select(func.pg_advisory_xact_lock(USER_LOCK + user_id)))
