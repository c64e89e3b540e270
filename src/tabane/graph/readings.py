"""The reading keys of the vocabulary (table `vocabulary_readings`, text/reading.py): written
beside a spelling's bigrams, looked up by resolve's reading route, filled for spellings stored
before them by `backfill`."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from tabane.storage.bulk import insert_columns
from tabane.storage.schema import VocabEntry, VocabReading
from tabane.text.reading import MIN_PREFIX, acronym_key, reading_key


def keys_of(name: str) -> list[tuple[str, str]]:
    """(how, key) of one spelling: its reading and its acronym, where it has them."""
    out: list[tuple[str, str]] = []
    if (reading := reading_key(name)) is not None:
        out.append(("reading", reading))
    if (initials := acronym_key(name)) is not None:
        out.append(("acronym", initials))
    return out


def index(
    session: Session,
    context_id: int,
    kind: str,
    scopes: Sequence[str],
    entries: Sequence[tuple[int, str]],
) -> int:
    """Write the reading keys of freshly stored spellings ((id, spelling) pairs); how many."""
    ids: list[int] = []
    hows: list[str] = []
    keys: list[str] = []
    for entry_id, name in entries:
        for how, key in keys_of(name):
            ids.append(entry_id)
            hows.append(how)
            keys.append(key)
    insert_columns(
        session,
        VocabReading.__table__,  # type: ignore[arg-type]
        {"entry_id": ids, "how": hows, "key": keys},
        {"context_id": context_id, "kind": kind, "scopes": list(scopes)},
    )
    return len(ids)


def backfill(
    session: Session,
    context_id: int,
    scopes: Sequence[str] | None = None,
    batch: int = 1000,
) -> int:
    """Reading keys for the context's spellings (of the scope set `scopes`, when given) that
    have none yet — stored before the table, or before the analyzer was installed; how many keys
    were written. Idempotent (a spelling with no key to give is read again each time)."""
    e, r = VocabEntry, VocabReading
    written = 0
    last = 0
    while True:
        stmt = select(e.id, e.name, e.kind, e.scopes).where(
            e.context_id == context_id,
            e.id > last,
            ~select(r.entry_id).where(r.entry_id == e.id).exists(),
        )
        if scopes is not None:
            stmt = stmt.where(e.scopes == sorted(scopes))
        rows = session.execute(stmt.order_by(e.id).limit(batch)).all()
        if not rows:
            return written
        last = rows[-1].id
        for row in rows:
            written += index(session, context_id, row.kind, row.scopes, [(row.id, row.name)])


def look_up(
    session: Session, context_id: int, kind: str, how: str, keys: Sequence[str]
) -> list[tuple[str, str | None, str]]:
    """(name, alias_of, stored key) of the spellings stored under one of `keys` as `how`, or,
    for readings of at least MIN_PREFIX letters, under a key they begin (a family name for a
    full name)."""
    e, r = VocabEntry, VocabReading
    match = [r.key == k for k in keys]
    if how == "reading":
        match += [r.key.startswith(k, autoescape=True) for k in keys if len(k) >= MIN_PREFIX]
    stmt = (
        select(e.name, e.alias_of, r.key)
        .join(e, e.id == r.entry_id)
        .where(r.context_id == context_id, r.kind == kind, r.how == how, or_(*match))
        .order_by(e.name)
        .limit(200)
    )
    return [(row.name, row.alias_of, row.key) for row in session.execute(stmt)]
