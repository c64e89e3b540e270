"""Packing resolve's bigram postings: one `vocabulary_gram_packs` row per (context, kind, gram,
scope set), so resolve's top mode reads one row per gram of the cue and counts the spellings
that share it in numpy (graph/resolve/arrays.py) instead of aggregating thousands of postings
in the executor (migration 0022).

The `vocabulary_grams` rows stay the truth: a merge rebuilds the packs of one (context, scope
set) from them and flags them `merged`; rows written since are read beside the packs through a
partial index. A spelling removed since keeps its id in the packs until the next merge; its key
is no longer found when resolve fetches the candidates' keys, so it never reaches a result.

A merge and the writers of the same (context, scope set) exclude each other through the
vocabulary size rows both lock first (`vocabulary_stats.bump` upserts them before a writer
inserts or deletes postings), so a merge never flags a row its rebuild did not read. When to
merge is a budget: the postings written since reach a quarter of the packed ones, and at least
`MIN_FRESH` (a small vocabulary's rows are cheap to read as they are).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import LargeBinary, delete, func, insert, literal, select, update
from sqlalchemy.dialects.postgresql import aggregate_order_by
from sqlalchemy.orm import Session

from tabane.storage.schema import VocabGram, VocabGramPack, VocabSize

# One record per spelling carrying the gram, big-endian as int8send/int4send write them.
RECORD = np.dtype([("id", ">i8"), ("size", ">i4")])
MIN_FRESH = 5_000  # postings (~350 spellings): below this the fresh rows are cheap to read


@dataclass(frozen=True)
class Backlog:
    fresh: int  # postings not yet packed
    packed: int  # postings in the packs (removed spellings' included)

    def due(self, min_fresh: int | None = None) -> bool:
        least = MIN_FRESH if min_fresh is None else min_fresh
        return self.fresh > 0 and self.fresh >= max(least, self.packed // 4)


def backlog(session: Session, context_id: int, scopes: Sequence[str]) -> Backlog:
    scope_set = sorted(scopes)
    fresh, packed = session.execute(
        select(
            select(func.count())
            .where(
                VocabGram.context_id == context_id,
                VocabGram.scopes == scope_set,
                ~VocabGram.merged,
            )
            .scalar_subquery(),
            select(func.coalesce(func.sum(func.length(VocabGramPack.records)), 0))
            .where(VocabGramPack.context_id == context_id, VocabGramPack.scopes == scope_set)
            .scalar_subquery(),
        )
    ).one()
    return Backlog(int(fresh), int(packed) // RECORD.itemsize)


def record(g: type[VocabGram]) -> Any:
    """A posting as its `RECORD` bytes, in SQL (the packs and the fresh rows read beside them)."""
    return func.int8send(g.entry_id).op("||")(func.int4send(g.size))


def _rebuild(context_id: int, scope_set: list[str]) -> Any:
    g = VocabGram
    rows = (
        select(
            g.context_id,
            g.kind,
            g.gram,
            g.scopes,
            func.string_agg(record(g), aggregate_order_by(literal(b"", LargeBinary), g.entry_id)),
        )
        .where(g.context_id == context_id, g.scopes == scope_set)
        .group_by(g.context_id, g.kind, g.gram, g.scopes)
    )
    return insert(VocabGramPack).from_select(
        ["context_id", "kind", "gram", "scopes", "records"], rows
    )


def merge(
    session: Session,
    context_id: int,
    scopes: Sequence[str],
    *,
    force: bool = False,
    min_fresh: int | None = None,
) -> bool:
    """Rebuild the packs of one context and scope set when the backlog is due (or `force`),
    inside the caller's transaction, with the writers of that set held off; True if it did."""
    scope_set = sorted(scopes)
    locked = session.scalars(
        select(VocabSize.id)
        .where(VocabSize.context_id == context_id, VocabSize.scopes == scope_set)
        .order_by(VocabSize.kind)
        .with_for_update()
    ).all()
    if not locked or not (force or backlog(session, context_id, scope_set).due(min_fresh)):
        return False
    session.execute(
        delete(VocabGramPack)
        .where(VocabGramPack.context_id == context_id, VocabGramPack.scopes == scope_set)
        .execution_options(synchronize_session=False)
    )
    session.execute(_rebuild(context_id, scope_set))
    session.execute(
        update(VocabGram)
        .where(
            VocabGram.context_id == context_id,
            VocabGram.scopes == scope_set,
            ~VocabGram.merged,
        )
        .values(merged=True)
        .execution_options(synchronize_session=False)
    )
    return True


def scope_sets(session: Session, context_id: int) -> list[tuple[str, ...]]:
    """The scope sets of a context's vocabulary bigram postings the session sees."""
    rows = session.scalars(
        select(VocabGram.scopes).where(VocabGram.context_id == context_id).distinct()
    )
    return sorted({tuple(sorted(s)) for s in rows})
