"""Writing a source: store, replace or skip by content hash, and retract — each in the caller's
transaction, so a crash leaves the old version or the new one, never a half. A replacement keeps
the rows (and so the vectors) of the paragraphs it repeats word for word."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from tabane.contexts.contexts import bump
from tabane.errors import Forbidden, Issue, NoSource, SourceTaken
from tabane.principal import Principal
from tabane.sources import rows
from tabane.storage.schema import Context, Paragraph, Section, Source
from tabane.text.documents import Block
from tabane.text.tokenize import title_key

Outcome = Literal["created", "replaced", "unchanged", "revived"]


@dataclass(frozen=True)
class SourceMeta:
    """What the caller says about a source besides its text."""

    source_id: str
    title: str
    format: str
    content_hash: str
    byte_size: int
    scopes: tuple[str, ...]
    date: datetime | None = None
    tags: tuple[str, ...] = ()
    area: str | None = None
    state: str | None = None  # only as stated: a source nobody gave a state has none
    origin: str | None = None
    raw_hash: str | None = None


@dataclass(frozen=True)
class WriteResult:
    source_id: str
    outcome: Outcome
    paragraphs: int
    sections: int
    source_pk: int = 0
    reindexed: bool = False  # unchanged text under a new title: its BM25 postings were rewritten
    updated: tuple[str, ...] = ()  # unchanged text: the metadata fields it took (title, tags, …)
    # metadata the document declares that could not be read: stored without it (ingest/documents)
    warnings: tuple[Issue, ...] = ()
    claims_closed: int = 0  # claims the replacement closed (ingest/documents.py)
    # (old index, new index) of each paragraph a replacement repeats word for word: kept, with
    # the claims that cite it
    kept_at: tuple[tuple[int, int], ...] = ()

    @property
    def kept(self) -> int:
        """Paragraphs a replacement kept with their vectors: not embedded again."""
        return len(self.kept_at)


@dataclass(frozen=True)
class RetractResult:
    source_id: str
    dry_run: bool
    sources: int
    paragraphs: int
    sections: int
    claims: int = 0  # claims attributed to the source that were closed with it
    associations: int = 0  # the edges whose weight those claims carried


def _unchanged(
    session: Session, ctx: Context, existing: Source, meta: SourceMeta
) -> WriteResult | None:
    """When the stored version is live with the same rows (hash and scopes): its metadata
    refreshed (and its heading terms, retitled) and the `unchanged` result; else None."""
    same_rows = existing.content_hash == meta.content_hash and list(existing.scopes) == list(
        meta.scopes
    )
    if not (same_rows and existing.retracted_at is None):
        return None
    retitled = existing.title != meta.title
    updated = _metadata_changed(existing, meta)
    if updated or existing.raw_hash != meta.raw_hash:
        _apply_meta(existing, meta)
        session.flush()
    if retitled:  # the title is part of every paragraph's heading terms
        rows.reindex(session, ctx.id, existing)
    return WriteResult(
        meta.source_id,
        "unchanged",
        existing.paragraph_count,
        0,
        existing.id,
        retitled,
        updated,
    )


def store(
    session: Session,
    principal: Principal,
    ctx: Context,
    meta: SourceMeta,
    blocks: Sequence[Block],
    questions: Sequence[Sequence[str]] = (),
) -> WriteResult:
    """Store a parsed document. Same hash and live → unchanged; otherwise the source's sections and
    paragraphs are replaced inside this transaction."""
    if not principal.can_write(meta.scopes):
        missing = sorted(set(meta.scopes) - principal.write)
        raise Forbidden(
            f"you may not write source {meta.source_id!r}",
            issues=[Issue("scopes", f"not writable: {missing}")],
        )
    existing = session.scalar(
        select(Source)
        .where(Source.context_id == ctx.id, Source.source_id == meta.source_id)
        .with_for_update()
    )
    if existing is not None:
        unchanged = _unchanged(session, ctx, existing, meta)
        if unchanged is not None:
            return unchanged
        outcome: Outcome = "revived" if existing.retracted_at is not None else "replaced"
        if not principal.can_write(tuple(existing.scopes)):
            raise Forbidden(
                f"you may not replace source {meta.source_id!r}",
                issues=[Issue("source_id", "the stored version's scopes are not all writable")],
            )
        kept = rows.keep(session, ctx.id, existing.id, blocks, questions)
        source = existing
        _apply_meta(source, meta)
        source.retracted_at = None
        source.retract_reason = None
        source.stored_at = func.now()
    else:
        kept = {}
        outcome = "created"
        source = Source(context_id=ctx.id, source_id=meta.source_id, content_hash=meta.content_hash)
        _apply_meta(source, meta)
        session.add(source)
    source.paragraph_count = len(blocks)
    if outcome == "created":
        _insert_new(session, ctx, meta.source_id)
    session.flush()
    sections = rows.write(
        session, ctx.id, source.id, meta.scopes, meta.title, blocks, questions, kept
    )
    bump(session, ctx.id, writes=1)
    moves = tuple(sorted((old, new) for new, (_, old) in kept.items()))
    return WriteResult(meta.source_id, outcome, len(blocks), sections, source.id, kept_at=moves)


def retract(
    session: Session,
    principal: Principal,
    ctx: Context,
    source_id: str,
    *,
    dry_run: bool = False,
    reason: str = "retracted",
) -> RetractResult:
    """Remove a source's paragraphs and sections and mark it retracted (a tombstone remains).

    The source row is locked first, as ingest locks it before the BM25 statistics: a second
    retract (or an ingest) of the same source waits here, then finds the source as the first
    left it (already retracted: `no_source`) instead of subtracting its paragraphs again."""
    live = select(Source).where(
        Source.context_id == ctx.id,
        Source.source_id == source_id,
        Source.retracted_at.is_(None),
    )
    source = session.scalar(live)
    if source is None:
        raise NoSource(f"no source {source_id!r}", issues=[Issue("source_id", "unknown")])
    if not principal.can_write(tuple(source.scopes)):
        raise Forbidden(
            f"you may not retract source {source_id!r}",
            issues=[Issue("source_id", "its scopes are not all writable")],
        )
    locked = live.with_for_update().execution_options(populate_existing=True)
    if not dry_run and session.scalar(locked) is None:  # retracted while this one waited
        raise NoSource(f"no source {source_id!r}", issues=[Issue("source_id", "unknown")])
    paragraphs = session.scalar(
        select(func.count()).select_from(Paragraph).where(Paragraph.source_pk == source.id)
    )
    sections = session.scalar(
        select(func.count()).select_from(Section).where(Section.source_pk == source.id)
    )
    if not dry_run:
        rows.clear(session, ctx.id, source.id)
        source.retracted_at = func.now()
        source.retract_reason = reason
        source.paragraph_count = 0
        session.flush()
        bump(session, ctx.id, writes=1)
    return RetractResult(source_id, dry_run, 1, paragraphs or 0, sections or 0)


# What separates a title's name from the rest: "subprocess — Subprocess management — Python 3.11.2
# documentation", "Futures: …", "a | b"; then a manual page's section, "git-revert(1)", "XXD(1)".
_SEPARATOR = re.compile(r"\s+[—–|-]\s+|:\s")
_SECTION = re.compile(r"\s*\(\s*[0-9][0-9a-z]*\s*\)$")


def keep_stored(
    session: Session,
    source_pk: int,
    stored_at: datetime,
    raw_hash: str | None,
    content_hash: str,
) -> None:
    """Give a source the stored time and hashes another store kept for it (an imported archive),
    so a later sync or re-ingest of the same file finds it unchanged."""
    session.execute(
        update(Source)
        .where(Source.id == source_pk)
        .values(stored_at=stored_at, raw_hash=raw_hash, content_hash=content_hash)
        .execution_options(synchronize_session=False)
    )


def spaced(key: str) -> str:
    """A key with hyphens read as spaces: a name is written "git-revert" and "git revert"."""
    return key.replace("-", " ")


def name_key(title: str) -> str:
    """What a title names, matched inside a question besides the whole title (`spaced`): the
    title's key up to its first separator, without a manual page's section ("git-revert(1)" →
    "git revert", "subprocess — Subprocess management — …" → "subprocess"); "" when that is the
    whole title as it is matched already."""
    key = title_key(title)
    head = spaced(_SECTION.sub("", _SEPARATOR.split(key, maxsplit=1)[0]).strip())
    return "" if head == key else head


def _apply_meta(source: Source, meta: SourceMeta) -> None:
    source.title = meta.title
    source.title_key = title_key(meta.title)
    source.name_key = name_key(meta.title)
    source.format = meta.format
    source.content_hash = meta.content_hash
    source.raw_hash = meta.raw_hash
    source.byte_size = meta.byte_size
    source.scopes = list(meta.scopes)
    source.date = meta.date
    source.tags = list(meta.tags)
    source.area = meta.area
    source.state = meta.state
    source.origin = meta.origin


def _metadata_changed(source: Source, meta: SourceMeta) -> tuple[str, ...]:
    """The metadata fields in which `meta` differs from the stored source."""
    stored_and_new = {
        "title": (source.title, meta.title),
        "tags": (list(source.tags), list(meta.tags)),
        "date": (source.date, meta.date),
        "area": (source.area, meta.area),
        "state": (source.state, meta.state),
    }
    return tuple(name for name, (old, new) in stored_and_new.items() if old != new)


def _insert_new(session: Session, ctx: Context, source_id: str) -> None:
    """Insert the new source in a savepoint: a source id is unique in its context for everyone,
    and one held by a source the caller cannot see (row-level security hid it from the lookup)
    is refused as `source_taken`, not a failed transaction."""
    name = ctx.name  # read before: a failed flush expires the session's objects
    try:
        with session.begin_nested():
            session.flush()
    except IntegrityError as exc:
        if "uq_sources_context_id_source_id" not in str(exc.orig):
            raise
        raise SourceTaken(
            f"source id {source_id!r} is taken in context {name!r} by a source you cannot "
            "see; nothing written",
            issues=[Issue("source_id", "taken by a source you cannot see")],
        ) from None
