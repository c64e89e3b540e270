"""A context's write log since a cursor (`changes`), read from what the store already records:
a source's `stored_at` and `retracted_at`, a claim's `recorded_at` and `closed_at` (an edge
changes only through its claims: each event names the claim's triple), an alias's
`created_at`. No table of its own: row-level security decides which events a caller sees, as
it decides which rows. What no row keeps is not logged: a removed alias, an erased user's rows.

Events are ordered by (time, kind, row id) and a cursor is that key of the last one served,
opaque to the caller. A page only serves events older than the oldest transaction still
open (its start time is the `now()` its rows get), so a write that commits later can never
land before a cursor already handed out: the same cursor always gives the same page, and a
cursor passed on later gives the events that came after it."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    CompoundSelect,
    Select,
    String,
    cast,
    func,
    literal,
    null,
    select,
    text,
    tuple_,
    union_all,
)
from sqlalchemy.orm import Session

from tabane.errors import InvalidInput, Issue
from tabane.storage.schema import Claim, Source, VocabEntry

MAX_LIMIT = 1000
# each kind's place among events of the same instant (a cursor's second part)
KINDS = ("source_stored", "source_retracted", "claim_recorded", "claim_closed", "alias_added")
_BEGINNING = (datetime(1970, 1, 1, tzinfo=UTC), -1, 0)


@dataclass(frozen=True)
class Change:
    at: datetime
    kind: str  # one of KINDS
    source: str | None = None  # a source's id (source_* events; a claim's attribution)
    claim: int | None = None  # claim_* events
    subject: str | None = None  # a claim's triple; an alias_added: the alias
    label: str | None = None  # an alias_added: its kind (concept | label)
    # an alias_added: its canonical spelling
    object: str | None = None
    statement: str | None = None  # a note's text
    reason: str | None = None  # claim_closed: retracted | superseded; source_retracted: why


@dataclass(frozen=True)
class ChangePage:
    context: str
    changes: tuple[Change, ...]
    next: str  # the cursor to pass as `since` for what comes after this page
    more: bool  # more events are already waiting: ask again at once


def encode(key: tuple[datetime, int, int]) -> str:
    raw = json.dumps([key[0].isoformat(), key[1], key[2]]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode(cursor: str) -> tuple[datetime, int, int]:
    """A cursor `encode` made; anything else is `invalid_input` at `since`."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        at, kind, row = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
        when = datetime.fromisoformat(at)
        if when.tzinfo is None or not isinstance(kind, int) or not isinstance(row, int):
            raise ValueError(cursor)
        return when, kind, row
    except (ValueError, TypeError, binascii.Error, UnicodeEncodeError):
        raise InvalidInput(
            "not a changes cursor",
            issues=[Issue("since", "not a cursor a changes page returned (pass its `next`)")],
        ) from None


COLUMNS = (
    "at",
    "ord",
    "row",
    "source",
    "claim",
    "subject",
    "label",
    "object",
    "statement",
    "reason",
)


def _shape(*values: Any) -> list[Any]:
    return [v.label(name) for v, name in zip(values, COLUMNS, strict=True)]


def _events(context_id: int) -> CompoundSelect[Any]:
    """Every event of the context in one row shape (COLUMNS)."""
    text_ = cast(null(), String)
    no_claim = cast(null(), BigInteger)

    def claims(at: Any, kind: int, reason: Any) -> Select[Any]:
        shape = _shape(
            at,
            literal(kind),
            Claim.id,
            Claim.source,
            Claim.id,
            Claim.subject,
            Claim.label,
            Claim.object,
            Claim.statement,
            reason,
        )
        return select(*shape).where(Claim.context_id == context_id, at.is_not(None))

    def sources(at: Any, kind: int, reason: Any) -> Select[Any]:
        shape = _shape(
            at,
            literal(kind),
            Source.id,
            Source.source_id,
            no_claim,
            text_,
            text_,
            text_,
            text_,
            reason,
        )
        return select(*shape).where(Source.context_id == context_id, at.is_not(None))

    v = VocabEntry
    aliases = select(
        *_shape(
            v.created_at,
            literal(4),
            v.id,
            text_,
            no_claim,
            v.name,
            v.kind,
            v.alias_of,
            text_,
            text_,
        )
    ).where(v.context_id == context_id, v.alias_of.is_not(None))
    return union_all(
        sources(Source.stored_at, 0, text_),
        sources(Source.retracted_at, 1, Source.retract_reason),
        claims(Claim.recorded_at, 2, text_),
        claims(Claim.closed_at, 3, Claim.close_reason),
        aliases,
    )


def horizon(session: Session) -> datetime:
    """The start of the oldest transaction still open (this one's own start at the latest):
    every row stamped before it has committed or never will. A transaction that has only read
    so far counts too, since it may still write; a long one (an export) holds pages back."""
    oldest = session.scalar(
        text(
            "SELECT min(xact_start) FROM pg_stat_activity WHERE datname = current_database()"
            " AND pid <> pg_backend_pid()"
        )
    )
    now: datetime = session.execute(select(func.now())).scalar_one()
    return min(now, oldest) if isinstance(oldest, datetime) else now


def page(
    session: Session, context: str, context_id: int, since: str | None, limit: int, tail: bool
) -> ChangePage:
    """The events after `since` (None: from the first), at most `limit`; with `tail`, none:
    only a cursor for what comes from now on."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(
            f"limit {limit!r}", issues=[Issue("limit", f"not an integer in 1..{MAX_LIMIT}")]
        )
    until = horizon(session)
    if tail:
        return ChangePage(context, (), encode((until, -1, 0)), False)
    after = decode(since) if since is not None else _BEGINNING
    events = _events(context_id).subquery()
    c = events.c
    rows = session.execute(
        select(events)
        .where(tuple_(c.at, c.ord, c.row) > tuple_(*after), c.at < until)
        .order_by(c.at, c.ord, c.row)
        .limit(limit + 1)
    ).all()
    more, rows = len(rows) > limit, rows[:limit]
    changes = tuple(_change(r) for r in rows)
    last = (rows[-1].at, rows[-1].ord, rows[-1].row) if rows else after
    return ChangePage(context, changes, encode(last), more)


def _change(r: Any) -> Change:
    kind = KINDS[r.ord]
    if kind == "alias_added":  # the alias, its kind (concept | label) and its canonical
        return Change(r.at, kind, subject=r.subject, label=r.label, object=r.object)
    return Change(
        r.at,
        kind,
        source=r.source,
        claim=r.claim,
        subject=r.subject,
        label=r.label,
        object=r.object,
        statement=r.statement,
        reason=r.reason,
    )
