"""Merging a context's BM25 packs: one `bm25_merged` row per term and scope set, so a question
reads about one row per term instead of one per source holding it (migration 0020).

The packs stay the truth; a merge rebuilds the merged rows of one (context, scope set) from all
its packs and flags them `merged`. Until the next merge, packs written since are read beside the
merged rows (`fresh`), and the paragraphs of merged sources removed since are masked
(`bm25_dead`, written by postings.remove). So a read always sees exactly the packs' postings.

A merge and the writers of the same (context, scope set) exclude each other through the
statistics row both lock first (postings.py): a merge never folds in a pack whose removal is
under way, and a removal that waited for a merge sees its flags.

The job merges in steps of a term range each (`merge_in_steps`), so writers wait for a step,
not for the whole rebuild. When to merge is a budget, not a schedule: the job (jobs/worker.py)
merges when the fresh postings reach a quarter of the merged ones (at least `MIN_FRESH`), or the
masked paragraphs `MAX_DEAD`, so the merges' work stays a small multiple of the writes', and a
small context is never merged (reading its packs is cheap)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import LargeBinary, delete, func, literal, select, update
from sqlalchemy.dialects.postgresql import aggregate_order_by
from sqlalchemy.orm import Session

from tabane.search.codec import PACK, decode, encode_rows
from tabane.search.postings import DEAD_ID
from tabane.storage.binary import binary_rows
from tabane.storage.bulk import copy_columns
from tabane.storage.schema import CorpusStats, DeadPostings, MergedPack, Pack, TermStats

MIN_FRESH = 20_000  # postings (~1,000 paragraphs): below this the packs are cheap to read
MAX_DEAD = 2_000  # masked paragraph ids a read may carry before a merge drops them
# Terms rebuilt per transaction by the job: at 100k paragraphs (52,928 terms, a 5.2 s rebuild)
# a step holds the set's writers for ~0.4 s.
STEP_TERMS = 4_000
# `bm25_merged.format`: the rows' byte format (codec.py; migration 0040)
PACK_ROWS, COMPACT_ROWS = 0, 1


@dataclass(frozen=True)
class Backlog:
    """What a merge of one (context, scope set) would fold in."""

    fresh: int  # postings in packs not yet merged
    merged: int  # postings in the merged rows (those still counted: the set's df sum − fresh)
    dead: int  # masked paragraph ids
    old: int = 0  # merged rows still in the PACK format (codec.py), converted by the job

    def due(self, min_fresh: int | None = None) -> bool:
        least = MIN_FRESH if min_fresh is None else min_fresh
        return self.dead >= MAX_DEAD or (
            self.fresh > 0 and self.fresh >= max(least, self.merged // 4)
        )


@dataclass(frozen=True)
class Merged:
    merged: bool
    terms: int  # merged rows written
    packs: int  # packs newly flagged
    backlog: Backlog


def backlog(session: Session, context_id: int, scopes: Sequence[str]) -> Backlog:
    scope_set = sorted(scopes)
    mine = (MergedPack.context_id == context_id, MergedPack.scopes == scope_set)
    fresh, counted, dead, old = session.execute(
        select(
            select(func.coalesce(func.sum(func.length(Pack.postings)), 0))
            .where(Pack.context_id == context_id, Pack.scopes == scope_set, ~Pack.merged)
            .scalar_subquery(),
            # a compact row's bytes do not say its records (codec.py): the statistics do
            select(func.coalesce(func.sum(TermStats.df), 0))
            .where(TermStats.context_id == context_id, TermStats.scopes == scope_set)
            .scalar_subquery(),
            select(func.coalesce(func.sum(func.length(DeadPostings.ids)), 0))
            .where(DeadPostings.context_id == context_id, DeadPostings.scopes == scope_set)
            .scalar_subquery(),
            select(func.count()).where(*mine, MergedPack.format == PACK_ROWS).scalar_subquery(),
        )
    ).one()
    fresh = int(fresh) // PACK.itemsize
    return Backlog(fresh, max(int(counted) - fresh, 0), int(dead) // DEAD_ID.itemsize, int(old))


def merge(
    session: Session,
    context_id: int,
    scopes: Sequence[str],
    *,
    force: bool = False,
    min_fresh: int | None = None,
) -> Merged:
    """Rebuild the merged rows of one context and scope set when the backlog is due (or
    `force`), inside the caller's transaction, with the writers of that set held off."""
    scope_set = sorted(scopes)
    before, due = _locked_backlog(session, context_id, scope_set, force, min_fresh)
    if not due:
        return Merged(False, 0, 0, before)
    terms, flagged = rebuild(session, context_id, scope_set, None, None)
    _drop_dead(session, context_id, scope_set, None)
    return Merged(True, terms, flagged, before)


def merge_in_steps(
    sessions: Callable[[], AbstractContextManager[Session]],
    context_id: int,
    scopes: Sequence[str],
    *,
    force: bool = False,
    min_fresh: int | None = None,
    step_terms: int | None = None,
    between: Callable[[int], None] | None = None,
) -> Merged:
    """`merge` one range of about `step_terms` terms per transaction (`sessions()` opens one),
    so the set's writers wait for a step, not for the whole rebuild (the job's way; `between`
    runs after each committed step, for tests). The read stays exact meanwhile: every merged
    row comes from flagged packs, a removal masks the ids of its flagged packs whichever steps
    are done, and a rebuilt row is masked only by the masks written after it (`masked_upto`):
    a paragraph re-indexed in place keeps its id, and the row that folded its new pack in must
    not lose it to its old mask. At the end only the masks older than the merge are dropped:
    every row is rebuilt past them."""
    scope_set = sorted(scopes)
    with sessions() as session:
        before, due = _locked_backlog(session, context_id, scope_set, force, min_fresh)
        if not due:
            return Merged(False, 0, 0, before)
        older = session.scalar(
            select(func.max(DeadPostings.id)).where(
                DeadPostings.context_id == context_id, DeadPostings.scopes == scope_set
            )
        )
        cuts = _cuts(session, context_id, scope_set, step_terms or STEP_TERMS)
    edges: list[str | None] = [None, *cuts, None]
    terms = flagged = 0
    for step, (lo, hi) in enumerate(itertools.pairwise(edges)):
        with sessions() as session:
            _lock(session, context_id, scope_set)
            done = rebuild(session, context_id, scope_set, lo, hi)
        terms, flagged = terms + done[0], flagged + done[1]
        if between is not None:
            between(step)
    if older is not None:
        with sessions() as session:
            _lock(session, context_id, scope_set)
            _drop_dead(session, context_id, scope_set, int(older))
    return Merged(True, terms, flagged, before)


def convert_in_steps(
    sessions: Callable[[], AbstractContextManager[Session]],
    context_id: int,
    scopes: Sequence[str],
    *,
    step_terms: int | None = None,
    between: Callable[[int], None] | None = None,
) -> int:
    """Rebuild the set's merged rows still in the PACK format (written before migration 0040)
    in the compact one, about `step_terms` terms per transaction (`rebuild` over the range from
    the first to the last of them), each step holding the set's writers as a merge step does;
    the terms rebuilt. The read stays exact between steps (codec.decode reads both formats) and
    an interrupted conversion goes on where it stopped: each step picks the rows still PACK.
    The masks stay: rows outside the steps may still need them."""
    scope_set = sorted(scopes)
    step = step_terms or STEP_TERMS
    done = 0
    for n in itertools.count():
        with sessions() as session:
            if not _lock(session, context_id, scope_set):
                return done
            terms = session.scalars(
                select(MergedPack.term)
                .where(
                    MergedPack.context_id == context_id,
                    MergedPack.scopes == scope_set,
                    MergedPack.format == PACK_ROWS,
                )
                .order_by(MergedPack.term)
                .limit(step)
            ).all()
            if not terms:
                return done
            # no term lies between the last one and it followed by \x01 (C order, no NUL)
            done += rebuild(session, context_id, scope_set, terms[0], terms[-1] + "\x01")[0]
        if between is not None:
            between(n)
    return done  # pragma: no cover - the loop returns


def rebuild(
    session: Session, context_id: int, scope_set: list[str], lo: str | None, hi: str | None
) -> tuple[int, int]:
    """Rebuild the merged rows of the terms in [lo, hi) (None: unbounded) from all their packs
    and flag those packs (the caller holds the statistics row): (rows written, packs flagged)."""

    def within(term: Any) -> list[Any]:
        bounds = []
        if lo is not None:
            bounds.append(term >= lo)
        if hi is not None:
            bounds.append(term < hi)
        return bounds

    mine = (MergedPack.context_id == context_id, MergedPack.scopes == scope_set)
    session.execute(delete(MergedPack).where(*mine, *within(MergedPack.term)))
    packs = (Pack.context_id == context_id, Pack.scopes == scope_set, *within(Pack.term))
    # the masks written so far are accounted for: the packs of their sources are gone
    upto = session.scalar(
        select(func.coalesce(func.max(DeadPostings.id), 0)).where(
            DeadPostings.context_id == context_id, DeadPostings.scopes == scope_set
        )
    )
    every = (
        select(
            Pack.term,
            func.string_agg(
                Pack.postings, aggregate_order_by(literal(b"", LargeBinary), Pack.source_pk)
            ),
        )
        .where(*packs)
        .group_by(Pack.term)
    )
    rows = binary_rows(session, every)
    # the merged rows in the compact format (codec.py) from the packs' PACK records, all the
    # step's terms decoded and encoded at once
    blobs = [bytes(b) for _, b in rows]
    sizes = [len(b) // PACK.itemsize for b in blobs]
    copy_columns(
        session,
        MergedPack.__table__,  # type: ignore[arg-type]
        {"term": [t for t, _ in rows], "postings": encode_rows(decode(b"".join(blobs)), sizes)},
        {
            "context_id": context_id,
            "scopes": scope_set,
            "masked_upto": int(upto or 0),
            "format": COMPACT_ROWS,
        },
    )
    flagged = session.execute(update(Pack).where(*packs, ~Pack.merged).values(merged=True))
    return len(rows), _count(flagged)


def _locked_backlog(
    session: Session, context_id: int, scope_set: list[str], force: bool, min_fresh: int | None
) -> tuple[Backlog, bool]:
    """Hold the set's writers off, then its backlog and whether a merge is due (or forced)."""
    locked = _lock(session, context_id, scope_set)
    before = backlog(session, context_id, scope_set)
    return before, locked and (force or before.due(min_fresh))


def _lock(session: Session, context_id: int, scope_set: list[str]) -> bool:
    """Hold the statistics row every writer of the set locks first; False when there is none."""
    locked = session.scalar(
        select(CorpusStats.id)
        .where(CorpusStats.context_id == context_id, CorpusStats.scopes == scope_set)
        .with_for_update()
    )
    return locked is not None


def _drop_dead(session: Session, context_id: int, scope_set: list[str], upto: int | None) -> None:
    """Drop the set's masks (those with an id up to `upto`, when given)."""
    where = [DeadPostings.context_id == context_id, DeadPostings.scopes == scope_set]
    if upto is not None:
        where.append(DeadPostings.id <= upto)
    session.execute(delete(DeadPostings).where(*where))


def _cuts(session: Session, context_id: int, scope_set: list[str], step: int) -> list[str]:
    """Every `step`-th term of the set's packs, in order: the steps' boundaries."""
    distinct = (
        select(Pack.term)
        .where(Pack.context_id == context_id, Pack.scopes == scope_set)
        .distinct()
        .subquery()
    )
    numbered = select(
        distinct.c.term, func.row_number().over(order_by=distinct.c.term).label("n")
    ).subquery()
    stmt = (
        select(numbered.c.term)
        .where(numbered.c.n % step == 1, numbered.c.n > 1)
        .order_by(numbered.c.term)
    )
    return list(session.scalars(stmt))


def _count(result: Any) -> int:
    return int(result.rowcount or 0)  # a CursorResult: rows the statement wrote


def scope_sets(session: Session, context_id: int) -> list[tuple[str, ...]]:
    """The scope sets of a context's BM25 packs, merged rows and masks the session sees."""
    found: set[tuple[str, ...]] = set()
    for table in (Pack, MergedPack, DeadPostings):
        rows = session.scalars(
            select(table.scopes).where(table.context_id == context_id).distinct()
        )
        found |= {tuple(sorted(s)) for s in rows}
    return sorted(found)
