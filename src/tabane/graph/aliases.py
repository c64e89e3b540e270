"""Reading a context's aliases whole, as an archive carries them (vocabulary.py adds, lists
and removes them one use case at a time)."""

from __future__ import annotations

from collections.abc import Iterator

from sqlalchemy import exists, select
from sqlalchemy.orm import Session, aliased

from tabane.storage.schema import VocabEntry


def pointing(session: Session, context_id: int) -> Iterator[VocabEntry]:
    """Every alias row of the context the caller can see whose target spelling it can see too
    (an alias of a spelling the caller cannot see points nowhere), by kind, name and row id."""
    target = aliased(VocabEntry)
    stmt = (
        select(VocabEntry)
        .where(
            VocabEntry.context_id == context_id,
            VocabEntry.alias_of.is_not(None),
            exists().where(
                target.context_id == context_id,
                target.kind == VocabEntry.kind,
                target.name == VocabEntry.alias_of,
                target.alias_of.is_(None),
            ),
        )
        .order_by(VocabEntry.kind, VocabEntry.name, VocabEntry.id)
    )
    yield from session.scalars(stmt)
