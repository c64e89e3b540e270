"""Writing a source: store, replace or skip by content hash, and retract — each in the caller's
transaction, so a crash leaves the old version or the new one, never a half. A replacement keeps
the rows (and so the vectors) of the paragraphs it repeats word for word."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import BigInteger, any_, bindparam, delete, func, insert, select, update
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from tabane.contexts.contexts import bump
from tabane.errors import Forbidden, Issue, NoSource, SourceTaken
from tabane.search import postings
from tabane.storage.schema import Context, Paragraph, Section, Source
from tabane.text.documents import Block
from tabane.text.tokenize import normalize
from tabane.types import Principal

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
    state: str = "active"
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
    claims_closed: int = 0  # claims attributed to the replaced version, closed with it


@dataclass(frozen=True)
class RetractResult:
    source_id: str
    dry_run: bool
    sources: int
    paragraphs: int
    sections: int
    claims: int = 0  # claims attributed to the source that were closed with it
    associations: int = 0  # the edges whose weight those claims carried


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
        same_rows = existing.content_hash == meta.content_hash and list(existing.scopes) == list(
            meta.scopes
        )
        if same_rows and existing.retracted_at is None:
            retitled = existing.title != meta.title
            if _metadata_differs(existing, meta) or existing.raw_hash != meta.raw_hash:
                _apply_meta(existing, meta)
                session.flush()
            if retitled:  # the title is part of every paragraph's heading terms
                _reindex(session, ctx.id, existing)
            return WriteResult(
                meta.source_id, "unchanged", existing.paragraph_count, 0, existing.id, retitled
            )
        outcome: Outcome = "revived" if existing.retracted_at is not None else "replaced"
        if not principal.can_write(tuple(existing.scopes)):
            raise Forbidden(
                f"you may not replace source {meta.source_id!r}",
                issues=[Issue("source_id", "the stored version's scopes are not all writable")],
            )
        kept = _keep(session, ctx.id, existing.id, blocks, questions)
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
    sections = _write_sections(session, ctx.id, source.id, meta.scopes, blocks)
    _write_paragraphs(
        session, ctx.id, source.id, meta.scopes, meta.title, blocks, sections, questions, kept
    )
    bump(session, ctx.id, writes=1)
    return WriteResult(meta.source_id, outcome, len(blocks), len(sections), source.id)


def retract(
    session: Session,
    principal: Principal,
    ctx: Context,
    source_id: str,
    *,
    dry_run: bool = False,
    reason: str = "retracted",
) -> RetractResult:
    """Remove a source's paragraphs and sections and mark it retracted (a tombstone remains)."""
    source = session.scalar(
        select(Source).where(
            Source.context_id == ctx.id,
            Source.source_id == source_id,
            Source.retracted_at.is_(None),
        )
    )
    if source is None:
        raise NoSource(f"no source {source_id!r}", issues=[Issue("source_id", "unknown")])
    if not principal.can_write(tuple(source.scopes)):
        raise Forbidden(
            f"you may not retract source {source_id!r}",
            issues=[Issue("source_id", "its scopes are not all writable")],
        )
    paragraphs = session.scalar(
        select(func.count()).select_from(Paragraph).where(Paragraph.source_pk == source.id)
    )
    sections = session.scalar(
        select(func.count()).select_from(Section).where(Section.source_pk == source.id)
    )
    if not dry_run:
        _clear(session, ctx.id, source.id)
        source.retracted_at = func.now()
        source.retract_reason = reason
        source.paragraph_count = 0
        session.flush()
        bump(session, ctx.id, writes=1)
    return RetractResult(source_id, dry_run, 1, paragraphs or 0, sections or 0)


def _keep(
    session: Session,
    context_id: int,
    source_pk: int,
    blocks: Sequence[Block],
    questions: Sequence[Sequence[str]],
) -> dict[int, int]:
    """Before a source is replaced: its stored paragraphs whose text and questions the new version
    repeats are kept (new block index → paragraph id), and with their ids their vectors, so an
    edit embeds only what changed and the vectors' index is not written again. The rest go, with
    the old sections and postings; the kept ones wait at negative positions until the new version
    is written (`_write_paragraphs` places them)."""
    postings.remove(session, context_id, source_pk)  # reads the old lengths: first
    free: dict[tuple[str, tuple[str, ...]], list[int]] = {}
    for pid, text, asked in session.execute(
        select(Paragraph.id, Paragraph.text, Paragraph.questions)
        .where(Paragraph.source_pk == source_pk)
        .order_by(Paragraph.idx)
    ):
        free.setdefault((text, tuple(asked)), []).append(pid)
    kept: dict[int, int] = {}
    for i, block in enumerate(blocks):
        same = free.get((block.text, tuple(questions[i]) if i < len(questions) else ()))
        if same:
            kept[i] = same.pop(0)
    gone = [pid for ids in free.values() for pid in ids]
    if gone:
        session.execute(delete(Paragraph).where(Paragraph.id == any_(_ids(gone))))
    if kept:
        parked = update(Paragraph).where(Paragraph.id == any_(_ids(list(kept.values()))))
        session.execute(parked.values(idx=-1 - Paragraph.idx))
    session.execute(delete(Section).where(Section.source_pk == source_pk))
    return kept


def _ids(ids: list[int]) -> Any:
    return bindparam("ids", ids, type_=ARRAY(BigInteger))


def _clear(session: Session, context_id: int, source_pk: int) -> None:
    postings.remove(session, context_id, source_pk)
    session.execute(delete(Paragraph).where(Paragraph.source_pk == source_pk))
    session.execute(delete(Section).where(Section.source_pk == source_pk))


def title_key(title: str) -> str:
    """A title as matched inside a question (recall's title lane): normalized (NFKC, case
    folding, katakana → hiragana) with each run of whitespace one space, so word boundaries
    still mean something (titles are phrases, not spellings)."""
    return " ".join(normalize(title).split())


def _apply_meta(source: Source, meta: SourceMeta) -> None:
    source.title = meta.title
    source.title_key = title_key(meta.title)
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


def _metadata_differs(source: Source, meta: SourceMeta) -> bool:
    return (
        source.title != meta.title
        or list(source.tags) != list(meta.tags)
        or source.area != meta.area
        or source.state != meta.state
        or source.date != meta.date
    )


def _write_sections(
    session: Session,
    context_id: int,
    source_pk: int,
    scopes: Sequence[str],
    blocks: Sequence[Block],
) -> dict[tuple[str, ...], int]:
    """One row for every heading path and each of its prefixes, parents before children."""
    paths: list[tuple[str, ...]] = []
    seen: set[tuple[str, ...]] = set()
    for block in blocks:
        for depth in range(1, len(block.section) + 1):
            prefix = block.section[:depth]
            if prefix not in seen:
                seen.add(prefix)
                paths.append(prefix)
    if not paths:
        return {}
    # Take every id from the sequence at once so parents can be named before one bulk insert.
    allocated = session.scalars(
        select(func.nextval("sections_id_seq")).select_from(func.generate_series(1, len(paths)))
    ).all()
    ids = dict(zip(paths, allocated, strict=True))
    rows = [
        {
            "id": ids[path],
            "source_pk": source_pk,
            "context_id": context_id,
            "ordinal": ordinal,
            "parent_id": ids.get(path[:-1]),
            "path": list(path),
            "title": path[-1],
            "level": len(path),
            "scopes": list(scopes),
        }
        for ordinal, path in enumerate(paths)
    ]
    session.execute(insert(Section), rows)
    return ids


def _write_paragraphs(
    session: Session,
    context_id: int,
    source_pk: int,
    scopes: Sequence[str],
    title: str,
    blocks: Sequence[Block],
    sections: dict[tuple[str, ...], int],
    questions: Sequence[Sequence[str]],
    kept: Mapping[int, int],
) -> None:
    """Insert the paragraphs (a kept one, `_keep`, is moved to its new place, section and
    locator instead) and, in the same transaction, their BM25 postings."""
    if not blocks:
        return
    asked = [list(questions[i]) if i < len(questions) else [] for i in range(len(blocks))]
    terms = _terms(title, [(b.text, asked[i], b.section) for i, b in enumerate(blocks)])
    rows = [
        {
            "source_pk": source_pk,
            "context_id": context_id,
            "idx": i,
            "text": block.text,
            "section_id": sections.get(block.section),
            "section_path": list(block.section),
            "locator": block.locator.to_json() if block.locator else None,
            "questions": asked[i],
            "token_count": terms[i].length,
            "scopes": list(scopes),
        }
        for i, block in enumerate(blocks)
    ]
    fresh = [row for i, row in enumerate(rows) if i not in kept]
    new_ids = iter(
        session.scalars(
            insert(Paragraph).returning(Paragraph.id, sort_by_parameter_order=True), fresh
        ).all()
        if fresh
        else ()
    )
    if kept:
        moved = ("idx", "section_id", "section_path", "locator", "token_count")
        placed = [{"id": pid, **{k: rows[i][k] for k in moved}} for i, pid in kept.items()]
        session.execute(update(Paragraph), placed)
    ids = [kept[i] if i in kept else next(new_ids) for i in range(len(rows))]
    postings.add(session, context_id, source_pk, scopes, list(zip(ids, terms, strict=True)))


def _reindex(session: Session, context_id: int, source: Source) -> None:
    """Rewrite a stored source's BM25 postings and lengths from its paragraphs and its current
    title (the paragraphs, their ids and vectors stay)."""
    rows = session.execute(
        select(Paragraph.id, Paragraph.text, Paragraph.questions, Paragraph.section_path)
        .where(Paragraph.source_pk == source.id)
        .order_by(Paragraph.idx)
    ).all()
    postings.remove(session, context_id, source.id)  # reads the old lengths: before the update
    terms = _terms(source.title, [(r.text, r.questions, tuple(r.section_path)) for r in rows])
    if rows:
        session.execute(
            update(Paragraph),
            [{"id": r.id, "token_count": t.length} for r, t in zip(rows, terms, strict=True)],
        )
    postings.add(
        session,
        context_id,
        source.id,
        source.scopes,
        [(r.id, t) for r, t in zip(rows, terms, strict=True)],
    )


def _terms(
    title: str, paragraphs: Sequence[tuple[str, Sequence[str], tuple[str, ...]]]
) -> list[postings.Terms]:
    """The BM25 terms of (text, questions, section path) paragraphs under `title`; the heading
    of a section shared by many paragraphs is tokenized once."""
    headings: dict[tuple[str, ...], list[str]] = {}
    for _, _, section in paragraphs:
        if section not in headings:
            headings[section] = postings.heading_tokens(title, section)
    return [
        postings.terms_of(text, asked, headings[section]) for text, asked, section in paragraphs
    ]


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
