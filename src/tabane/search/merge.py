"""Merging a context's BM25 packs: one `bm25_merged` row per term and scope set, so a question
reads about one row per term instead of one per source holding it (migration 0020).

The packs stay the truth; a merge rebuilds the merged rows of one (context, scope set) from all
its packs and flags them `merged`. Until the next merge, packs written since are read beside the
merged rows (`fresh`), and the paragraphs of merged sources removed since are masked
(`bm25_dead`, written by postings.remove). So a read always sees exactly the packs' postings.

A merge and the writers of the same (context, scope set) exclude each other through the
statistics row both lock first (postings.py): a merge never folds in a pack whose removal is
under way, and a removal that waited for a merge sees its flags.

When to merge is a budget, not a schedule: the job (jobs/worker.py) merges when the fresh
postings reach a quarter of the merged ones (at least `MIN_FRESH`), or the masked paragraphs
`MAX_DEAD`, so the merges' work stays a small multiple of the writes', and a small context
is never merged (reading its packs is cheap)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import LargeBinary, delete, func, literal, select, update
from sqlalchemy.dialects.postgresql import aggregate_order_by
from sqlalchemy.orm import Session

from tabane.search.postings import DEAD_ID, PACK
from tabane.storage.schema import CorpusStats, DeadPostings, MergedPack, Pack

MIN_FRESH = 20_000  # postings (~1,000 paragraphs): below this the packs are cheap to read
MAX_DEAD = 2_000  # masked paragraph ids a read may carry before a merge drops them


@dataclass(frozen=True)
class Backlog:
    """What a merge of one (context, scope set) would fold in."""

    fresh: int  # postings in packs not yet merged
    merged: int  # postings in the merged rows
    dead: int  # masked paragraph ids

    def due(self, min_fresh: int = MIN_FRESH) -> bool:
        return self.dead >= MAX_DEAD or (
            self.fresh > 0 and self.fresh >= max(min_fresh, self.merged // 4)
        )


@dataclass(frozen=True)
class Merged:
    merged: bool
    terms: int  # merged rows written
    packs: int  # packs newly flagged
    backlog: Backlog


def backlog(session: Session, context_id: int, scopes: Sequence[str]) -> Backlog:
    scope_set = sorted(scopes)
    fresh, merged, dead = session.execute(
        select(
            select(func.coalesce(func.sum(func.length(Pack.postings)), 0))
            .where(Pack.context_id == context_id, Pack.scopes == scope_set, ~Pack.merged)
            .scalar_subquery(),
            select(func.coalesce(func.sum(func.length(MergedPack.postings)), 0))
            .where(MergedPack.context_id == context_id, MergedPack.scopes == scope_set)
            .scalar_subquery(),
            select(func.coalesce(func.sum(func.length(DeadPostings.ids)), 0))
            .where(DeadPostings.context_id == context_id, DeadPostings.scopes == scope_set)
            .scalar_subquery(),
        )
    ).one()
    return Backlog(
        int(fresh) // PACK.itemsize, int(merged) // PACK.itemsize, int(dead) // DEAD_ID.itemsize
    )


def merge(
    session: Session,
    context_id: int,
    scopes: Sequence[str],
    *,
    force: bool = False,
    min_fresh: int = MIN_FRESH,
) -> Merged:
    """Rebuild the merged rows of one context and scope set when the backlog is due (or
    `force`), inside the caller's transaction, with the writers of that set held off."""
    scope_set = sorted(scopes)
    locked = session.scalar(
        select(CorpusStats.id)
        .where(CorpusStats.context_id == context_id, CorpusStats.scopes == scope_set)
        .with_for_update()
    )
    before = backlog(session, context_id, scope_set)
    if locked is None or not (force or before.due(min_fresh)):
        return Merged(False, 0, 0, before)
    mine = (MergedPack.context_id == context_id, MergedPack.scopes == scope_set)
    session.execute(delete(MergedPack).where(*mine))
    session.execute(
        MergedPack.__table__.insert().from_select(  # type: ignore[attr-defined]
            ["context_id", "term", "scopes", "postings"],
            select(
                literal(context_id, MergedPack.context_id.type),
                Pack.term,
                literal(scope_set, MergedPack.scopes.type),
                func.string_agg(
                    Pack.postings, aggregate_order_by(literal(b"", LargeBinary), Pack.source_pk)
                ),
            )
            .where(Pack.context_id == context_id, Pack.scopes == scope_set)
            .group_by(Pack.term),
        )
    )
    flagged = session.execute(
        update(Pack)
        .where(Pack.context_id == context_id, Pack.scopes == scope_set, ~Pack.merged)
        .values(merged=True)
    )
    session.execute(
        delete(DeadPostings).where(
            DeadPostings.context_id == context_id, DeadPostings.scopes == scope_set
        )
    )
    terms = session.scalar(select(func.count()).select_from(MergedPack).where(*mine))
    return Merged(True, int(terms or 0), _count(flagged), before)


def _count(result: Any) -> int:
    return int(result.rowcount or 0)  # a CursorResult: rows the statement wrote
