"""Reading sources: list with keyset paging, look one up, and cite a paragraph."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from tabane.checks import MAX_INT4, is_paragraph_index, text_problem
from tabane.errors import InvalidInput, Issue, NoParagraph, NoSource
from tabane.storage.schema import Context, Paragraph, Source

MAX_PAGE = 500


@dataclass(frozen=True)
class SourceInfo:
    source_id: str
    title: str
    format: str
    date: datetime | None
    tags: tuple[str, ...]
    area: str | None
    state: str | None
    stored_at: datetime
    content_hash: str
    byte_size: int
    paragraphs: int
    scopes: tuple[str, ...]
    retracted_at: datetime | None


@dataclass(frozen=True)
class ParagraphView:
    index: int
    text: str
    section: tuple[str, ...]
    locator: dict[str, Any] | None
    questions: tuple[str, ...]


@dataclass(frozen=True)
class Citation:
    source_id: str
    paragraph: int
    text: str
    title: str
    section: tuple[str, ...]
    locator: dict[str, Any] | None


@dataclass(frozen=True)
class SourcePage:
    sources: list[SourceInfo]
    next_after: str | None


def to_info(s: Source) -> SourceInfo:
    return SourceInfo(
        source_id=s.source_id,
        title=s.title,
        format=s.format,
        date=s.date,
        tags=tuple(s.tags),
        area=s.area,
        state=s.state,
        stored_at=s.stored_at,
        content_hash=s.content_hash,
        byte_size=s.byte_size,
        paragraphs=s.paragraph_count,
        scopes=tuple(s.scopes),
        retracted_at=s.retracted_at,
    )


def list_sources(
    session: Session,
    ctx: Context,
    *,
    limit: int = 100,
    after: str | None = None,
    include_retracted: bool = False,
    state: str | None = None,
) -> SourcePage:
    """Sources ordered by id; pass `next_after` back as `after` for the next page."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE:
        raise InvalidInput("limit is out of range", issues=[Issue("limit", f"1..{MAX_PAGE}")])
    stmt = select(Source).where(Source.context_id == ctx.id).order_by(Source.source_id)
    if not include_retracted:
        stmt = stmt.where(Source.retracted_at.is_(None))
    if state is not None:
        stmt = stmt.where(Source.state == state)
    if after is not None:
        problem = text_problem(after) if isinstance(after, str) else "not a text"
        if problem:
            raise InvalidInput(f"after: {problem}", issues=[Issue("after", problem)])
        stmt = stmt.where(Source.source_id > after)
    rows = list(session.scalars(stmt.limit(limit + 1)))
    more = len(rows) > limit
    rows = rows[:limit]
    return SourcePage([to_info(s) for s in rows], rows[-1].source_id if more and rows else None)


def live(session: Session, context_id: int) -> list[Source]:
    """The context's sources not retracted (that the session's caller can see)."""
    stmt = select(Source).where(Source.context_id == context_id, Source.retracted_at.is_(None))
    return list(session.scalars(stmt))


def live_with_paragraphs(
    session: Session, context_id: int, batch: int = 200
) -> Iterator[tuple[Source, list[Paragraph]]]:
    """Every live source of the context with its paragraphs in order, by row id; the paragraphs
    of `batch` sources are read in one query."""
    rows = session.scalars(
        select(Source)
        .where(Source.context_id == context_id, Source.retracted_at.is_(None))
        .order_by(Source.id)
        .execution_options(yield_per=batch)
    )
    for sources in rows.partitions():
        paragraphs: dict[int, list[Paragraph]] = {s.id: [] for s in sources}
        for p in session.scalars(
            select(Paragraph)
            .where(Paragraph.source_pk.in_(list(paragraphs)))
            .order_by(Paragraph.source_pk, Paragraph.idx)
        ):
            paragraphs[p.source_pk].append(p)
        for s in sources:
            yield s, paragraphs[s.id]


def find(session: Session, ctx: Context, source_id: str, *, live: bool = True) -> Source:
    stmt = select(Source).where(Source.context_id == ctx.id, Source.source_id == source_id)
    if live:
        stmt = stmt.where(Source.retracted_at.is_(None))
    source = session.scalar(stmt)
    if source is None:
        raise NoSource(
            f"no source {source_id!r} in context {ctx.name!r}",
            issues=[Issue("source_id", "unknown, retracted or not visible")],
        )
    return source


def lookup(
    session: Session, ctx: Context, source_id: str, *, offset: int = 0, limit: int = MAX_PAGE
) -> tuple[SourceInfo, list[ParagraphView]]:
    """A source's metadata and a window of its paragraphs."""
    for name, value, lo in (("offset", offset, 0), ("limit", limit, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < lo or value > 10**9:
            raise InvalidInput(f"{name} is out of range", issues=[Issue(name, f">= {lo}")])
    limit = min(limit, MAX_PAGE)
    source = find(session, ctx, source_id)
    rows = session.scalars(
        select(Paragraph)
        .where(Paragraph.source_pk == source.id, Paragraph.idx >= offset)
        .order_by(Paragraph.idx)
        .limit(limit)
    )
    return to_info(source), [_view(p) for p in rows]


def cite(session: Session, ctx: Context, source_id: str, paragraph: int) -> Citation:
    """The citation of one paragraph: its text, the source title, its section and locator."""
    if not is_paragraph_index(paragraph):  # no paragraph has such an index, in any source
        raise InvalidInput(
            f"paragraph {paragraph!r} is not a paragraph index",
            issues=[Issue("paragraph", f"not an integer in 0..{MAX_INT4}")],
        )
    source = find(session, ctx, source_id)
    row = session.scalar(
        select(Paragraph).where(Paragraph.source_pk == source.id, Paragraph.idx == paragraph)
    )
    if row is None:
        raise NoParagraph(
            f"source {source_id!r} has no paragraph {paragraph}",
            issues=[Issue("paragraph", f"out of range 0..{source.paragraph_count - 1}")],
        )
    return Citation(
        source_id=source.source_id,
        paragraph=row.idx,
        text=row.text,
        title=source.title,
        section=tuple(row.section_path),
        locator=row.locator,
    )


def _view(p: Paragraph) -> ParagraphView:
    return ParagraphView(p.idx, p.text, tuple(p.section_path), p.locator, tuple(p.questions))
