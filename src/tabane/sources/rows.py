"""A source's rows: its sections and paragraphs written, moved and removed, with their BM25
postings, inside the caller's transaction (write.py decides when)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import BigInteger, any_, bindparam, delete, select, update
from sqlalchemy import text as sql_text
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Session

from tabane.search import postings
from tabane.storage.bulk import copy_columns, flush_deferred
from tabane.storage.schema import Paragraph, Section, Source
from tabane.text.documents import Block


def keep(
    session: Session,
    context_id: int,
    source_pk: int,
    blocks: Sequence[Block],
    questions: Sequence[Sequence[str]],
) -> dict[int, tuple[int, int]]:
    """Before a source is replaced: its stored paragraphs whose text and questions the new version
    repeats are kept (new block index → (paragraph id, old index)), and with their ids their
    vectors and the claims that cite them (ingest/documents.py), so an
    edit embeds only what changed and the vectors' index is not written again. The rest go, with
    the old sections and postings; the kept ones wait at negative positions until the new version
    is written (`write_paragraphs` places them)."""
    postings.remove(session, context_id, source_pk)  # reads the old lengths: first
    free: dict[tuple[str, tuple[str, ...]], list[tuple[int, int]]] = {}
    for pid, idx, text, asked in session.execute(
        select(Paragraph.id, Paragraph.idx, Paragraph.text, Paragraph.questions)
        .where(Paragraph.source_pk == source_pk)
        .order_by(Paragraph.idx)
    ):
        free.setdefault((text, tuple(asked)), []).append((pid, idx))
    kept: dict[int, tuple[int, int]] = {}
    for i, block in enumerate(blocks):
        same = free.get((block.text, tuple(questions[i]) if i < len(questions) else ()))
        if same:
            kept[i] = same.pop(0)
    gone = [pid for left in free.values() for pid, _ in left]
    if gone:
        session.execute(delete(Paragraph).where(Paragraph.id == any_(_ids(gone))))
    if kept:
        parked = update(Paragraph).where(Paragraph.id == any_(_ids([p for p, _ in kept.values()])))
        session.execute(parked.values(idx=-1 - Paragraph.idx))
    session.execute(delete(Section).where(Section.source_pk == source_pk))
    return kept


def _ids(ids: list[int]) -> Any:
    return bindparam("ids", ids, type_=ARRAY(BigInteger))


def clear(session: Session, context_id: int, source_pk: int) -> None:
    postings.remove(session, context_id, source_pk)
    session.execute(delete(Paragraph).where(Paragraph.source_pk == source_pk))
    session.execute(delete(Section).where(Section.source_pk == source_pk))


def _section_paths(blocks: Sequence[Block]) -> list[tuple[str, ...]]:
    """Every heading path and each of its prefixes, parents before children."""
    paths: list[tuple[str, ...]] = []
    seen: set[tuple[str, ...]] = set()
    for block in blocks:
        for depth in range(1, len(block.section) + 1):
            prefix = block.section[:depth]
            if prefix not in seen:
                seen.add(prefix)
                paths.append(prefix)
    return paths


def _draw_ids(session: Session, sections: int, paragraphs: int) -> tuple[list[int], list[int]]:
    """Ids for new sections and paragraphs from their sequences, in one round trip (so parents
    are named before one bulk insert and no `RETURNING` is needed), ascending in order."""
    if not sections and not paragraphs:
        return [], []
    drawn = session.execute(
        sql_text(
            "SELECT ARRAY(SELECT nextval('sections_id_seq') FROM generate_series(1, :s) g"
            " ORDER BY g), "
            "ARRAY(SELECT nextval('paragraphs_id_seq') FROM generate_series(1, :p) g ORDER BY g)"
        ),
        {"s": sections, "p": paragraphs},
    ).one()
    return list(drawn[0]), list(drawn[1])


def write(
    session: Session,
    context_id: int,
    source_pk: int,
    scopes: Sequence[str],
    title: str,
    blocks: Sequence[Block],
    questions: Sequence[Sequence[str]],
    kept: Mapping[int, tuple[int, int]],
) -> int:
    """A source version's sections and paragraphs (`write_paragraphs`); returns how many
    sections."""
    paths = _section_paths(blocks)
    section_ids, paragraph_ids = _draw_ids(session, len(paths), len(blocks) - len(kept))
    sections = write_sections(session, context_id, source_pk, scopes, paths, section_ids)
    write_paragraphs(
        session, context_id, source_pk, scopes, title, blocks, sections, questions, kept,
        paragraph_ids,
    )  # fmt: skip
    return len(sections)


def write_sections(
    session: Session,
    context_id: int,
    source_pk: int,
    scopes: Sequence[str],
    paths: Sequence[tuple[str, ...]],
    allocated: Sequence[int],
) -> dict[tuple[str, ...], int]:
    """One row for every heading path (`_section_paths`), under the ids drawn for them."""
    if not paths:
        return {}
    ids = dict(zip(paths, allocated, strict=True))
    columns: dict[str, list[Any]] = {
        "id": [ids[path] for path in paths],
        "ordinal": list(range(len(paths))),
        "parent_id": [ids.get(path[:-1]) for path in paths],
        "path": [list(path) for path in paths],
        "title": [path[-1] for path in paths],
        "level": [len(path) for path in paths],
    }
    constants = {"source_pk": source_pk, "context_id": context_id, "scopes": list(scopes)}
    copy_columns(session, Section.__table__, columns, constants)  # type: ignore[arg-type]
    return ids


def write_paragraphs(
    session: Session,
    context_id: int,
    source_pk: int,
    scopes: Sequence[str],
    title: str,
    blocks: Sequence[Block],
    sections: dict[tuple[str, ...], int],
    questions: Sequence[Sequence[str]],
    kept: Mapping[int, tuple[int, int]],
    new_ids: Sequence[int],
) -> None:
    """Insert the paragraphs under `new_ids` (a kept one, `keep`, is moved to its new place,
    section and locator instead) and, in the same transaction, their BM25 postings."""
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
            "kind": block.kind,
            "scopes": list(scopes),
        }
        for i, block in enumerate(blocks)
    ]
    fresh = [row for i, row in enumerate(rows) if i not in kept]
    _insert_fresh(session, fresh, new_ids)
    drawn = iter(new_ids)
    if kept:
        moved = ("idx", "section_id", "section_path", "locator", "token_count", "kind")
        placed = [{"id": pid, **{k: rows[i][k] for k in moved}} for i, (pid, _) in kept.items()]
        flush_deferred(session)  # the sections they move into are written first
        session.execute(update(Paragraph), placed)
    ids = [kept[i][0] if i in kept else next(drawn) for i in range(len(rows))]
    postings.add(session, context_id, source_pk, scopes, list(zip(ids, terms, strict=True)))


# The columns a fresh paragraph is written with by COPY (the rest: its source's, the same for all).
_FRESH: tuple[str, ...] = ("id", "idx", "text", "section_id", "section_path", "locator")
_FRESH += ("questions", "token_count", "kind")


def _insert_fresh(session: Session, fresh: list[dict[str, Any]], ids: Sequence[int]) -> None:
    """Insert new paragraph rows under `ids` by COPY through a staging table (storage/bulk.py:
    the policies still check every row)."""
    if not fresh:
        return
    first = fresh[0]
    columns: dict[str, list[Any]] = {"id": list(ids)}
    for name in _FRESH[1:]:
        columns[name] = [row[name] for row in fresh]
    copy_columns(
        session,
        Paragraph.__table__,  # type: ignore[arg-type]
        columns,
        {k: first[k] for k in ("source_pk", "context_id", "scopes")},
    )


def reindex(session: Session, context_id: int, source: Source) -> None:
    """Rewrite a stored source's BM25 postings and lengths from its paragraphs and its current
    title (the paragraphs, their ids and vectors stay)."""
    flush_deferred(session)  # a source written earlier in this transaction is read here
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
