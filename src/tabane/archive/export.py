"""Writing one context as an archive (records.py has the format): what the caller can see of
it, read in one snapshot, so a write committed meanwhile is wholly in or wholly out.

Exported: the context's settings; every live source with its paragraphs (sections, locators,
doc2query questions); every claim and note, closed ones included, with its history (recorded,
closed, by which claim); every alias. Left out, because the importing store remakes them: vectors
(its embedder embeds again), BM25 postings, derived memory, usage counters; and what is not
the context's: sessions (they belong to users), groups (they span contexts), retracted sources'
tombstones. A claim closed by a correction the caller cannot see keeps its closing, not the
correction's id.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from tabane.archive.records import VERSION
from tabane.graph import aliases
from tabane.graph.claims.restore import kept
from tabane.principal import Principal
from tabane.sources.read import live_with_paragraphs
from tabane.storage.schema import Context, Paragraph, Source
from tabane.storage.store import Session, now

SOURCE_BATCH = 200  # sources whose paragraphs are read in one query


def archive(session: Session, principal: Principal, ctx: Context) -> Iterator[dict[str, Any]]:
    """The archive's lines as objects: the header, sources, claims, aliases, the end."""
    counts = {"sources": 0, "paragraphs": 0, "claims": 0, "aliases": 0}
    yield {
        "tabane_archive": VERSION,
        "exported_at": _iso(now(session)),
        "exported_by": principal.name,
        "context": {
            "name": ctx.name,
            "description": ctx.description,
            "dice_floor": ctx.dice_floor,
            "semantic_floor": ctx.semantic_floor,
            "scopes": list(ctx.scopes),
        },
    }
    for source in _sources(session, ctx):
        counts["sources"] += 1
        counts["paragraphs"] += len(source["paragraphs"])
        yield {"source": source}
    for claim in _claims(session, ctx):
        counts["claims"] += 1
        yield {"claim": claim}
    for alias in _aliases(session, ctx):
        counts["aliases"] += 1
        yield {"alias": alias}
    yield {"end": counts}


def _sources(session: Session, ctx: Context) -> Iterator[dict[str, Any]]:
    for s, paragraphs in live_with_paragraphs(session, ctx.id, SOURCE_BATCH):
        if paragraphs:  # no write leaves a live source empty; its line would be refused
            yield _source(s, [_paragraph(p) for p in paragraphs])


def _source(s: Source, paragraphs: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "source_id": s.source_id,
        "title": s.title,
        "format": s.format,
        "date": _iso(s.date),
        "tags": list(s.tags),
        "area": s.area,
        "state": s.state,
        "scopes": list(s.scopes),
        "origin": s.origin,
        "stored_at": _iso(s.stored_at),
        "raw_hash": s.raw_hash,
        "content_hash": s.content_hash,
        "paragraphs": paragraphs,
    }


def _paragraph(p: Paragraph) -> dict[str, Any]:
    out: dict[str, Any] = {"text": p.text}
    if p.section_path:
        out["section"] = list(p.section_path)
    if p.locator:
        out["locator"] = p.locator
    if p.kind != "text":
        out["kind"] = p.kind
    if p.questions:
        out["questions"] = list(p.questions)
    return out


def _claims(session: Session, ctx: Context) -> Iterator[dict[str, Any]]:
    for c, closed_by in kept(session, ctx.id):
        out: dict[str, Any] = {"id": c.id}
        if c.subject is not None:
            out.update(subject=c.subject, label=c.label, object=c.object, weight=c.weight)
        if c.statement is not None:
            out["statement"] = c.statement
        if c.in_reply_to is not None:
            out["in_reply_to"] = c.in_reply_to
        if c.source is not None:
            out["source"] = c.source
        if c.paragraph is not None:
            out["paragraph"] = c.paragraph
        out.update(author=c.author, kind=c.kind)
        if c.role is not None:
            out["role"] = c.role
        if c.kind != "world":
            out["perspective"] = c.perspective
        for name in ("valid_from", "valid_until", "recorded_at", "closed_at"):
            value = getattr(c, name)
            if value is not None:
                out[name] = _iso(value)
        if c.close_reason is not None:
            out["close_reason"] = c.close_reason
        if closed_by is not None:
            out["closed_by"] = closed_by
        if c.valid_until_before is not None:
            out["valid_until_before"] = _iso(c.valid_until_before)
        out["scopes"] = list(c.scopes)
        yield out


def _aliases(session: Session, ctx: Context) -> Iterator[dict[str, Any]]:
    for a in aliases.pointing(session, ctx.id):
        yield {"kind": a.kind, "name": a.name, "alias_of": a.alias_of, "scopes": list(a.scopes)}


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()
