"""Ingest one document: validate its metadata, parse it, and store it in one transaction."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, cast

from sqlalchemy import Text, literal, or_, select, update
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Session

from tabane.checks import SOURCE_STATES, parse_date, scope_set
from tabane.contexts import contexts
from tabane.errors import InvalidInput, Issue, NoSource, SourceTaken
from tabane.graph.claims import sources as claim_sources
from tabane.ingest.inputs import MAX_PARAGRAPHS as MAX_PARAGRAPHS
from tabane.ingest.inputs import MAX_SOURCE_ID as MAX_SOURCE_ID
from tabane.ingest.inputs import DocumentInput as DocumentInput
from tabane.ingest.inputs import check_source_id as check_source_id
from tabane.ingest.inputs import parse as parse
from tabane.jobs import queue, rebuilds
from tabane.principal import Principal
from tabane.sources import read
from tabane.sources.write import (
    RetractResult,
    SourceMeta,
    WriteResult,
    retract,
    store,
)
from tabane.storage.schema import Context, Source
from tabane.storage.store import Store
from tabane.text.blocks import BLOCK_KINDS, BlockKind, LocatorError
from tabane.text.documents import PARSER_VERSION, Block, Locator, ParsedDocument
from tabane.text.tokenize import title_key

MAX_TAGS = 64
MAX_TAGS_SENT = 4 * MAX_TAGS  # tags one request may send (repeats count once after)
_SPACES = re.compile(r"\s+")


def ingest_parsed(
    store_: Store,
    principal: Principal,
    context: str,
    doc: DocumentInput,
    parsed: ParsedDocument,
    *,
    embed: bool = False,
) -> WriteResult:
    """Store one parsed document in its own transaction; with `embed`, queue the embedding of
    its paragraphs in the same transaction (ingest never waits on a model).

    Two writes of one new source id at once both find no source and insert; the loser's insert
    fails once the winner commits. When the caller can see the winner's row, it was their own
    concurrent request, not a hidden holder (`source_taken`): the write runs again, now as an
    update of that row, as if the requests had come one after the other."""
    for again in (False, True):
        try:
            with store_.session(principal) as session:
                ctx = contexts.resolve(session, context)
                return store_parsed(session, principal, ctx, doc, parsed, embed)
        except SourceTaken:
            if again or not _visible(store_, principal, context, doc.source_id):
                raise
    raise AssertionError("unreachable: the second attempt returns or raises")


def _visible(store_: Store, principal: Principal, context: str, source_id: str) -> bool:
    """The caller sees a source with this id (retracted or not) in the context."""
    with store_.session(principal) as session:
        try:
            read.find(session, contexts.resolve(session, context), source_id, live=False)
        except NoSource:
            return False
    return True


def store_parsed(
    session: Session,
    principal: Principal,
    ctx: Context,
    doc: DocumentInput,
    parsed: ParsedDocument,
    embed: bool,
) -> WriteResult:
    scopes = scope_set(list(doc.scopes), "scopes") if doc.scopes is not None else tuple(ctx.scopes)
    meta = SourceMeta(
        source_id=doc.source_id,
        title=(doc.title or parsed.title or _default_title(doc.source_id)).strip(),
        format=parsed.format,
        content_hash=content_hash(parsed, doc.questions),
        byte_size=len(doc.data)
        if doc.data is not None
        else sum(len(b.text) for b in parsed.blocks),
        scopes=scopes,
        date=parse_date(doc.date or parsed.date, "date"),
        tags=check_tags(doc.tags if doc.tags is not None else parsed.tags),
        area=doc.area if doc.area is not None else parsed.area,
        state=check_state(doc.state if doc.state is not None else parsed.state),
        origin=doc.origin,
        raw_hash=raw_hash(doc.data) if doc.data is not None else None,
    )
    result = store(session, principal, ctx, meta, parsed.blocks, doc.questions)
    said = [
        f for f, value in (("title", doc.title), ("date", doc.date), ("state", doc.state)) if value
    ]
    warnings = [w for w in parsed.warnings if not any(f in w.path for f in said)]  # theirs wins
    result = replace(result, warnings=tuple(warnings))
    _describe(session, result.source_pk, outline(meta.title, parsed.blocks), meta.area)
    if result.outcome == "replaced":  # claims cite the old version's paragraphs
        closed = claim_sources.follow_replacement(
            session, principal, ctx, meta.source_id, dict(result.kept_at)
        )
        result = replace(result, claims_closed=closed.claims)
        # Paragraphs it did not repeat are gone (a replacement that only removes or moves
        # paragraphs writes no vector, which would queue the tree's rebuild itself), and the
        # claims it closed leave the graph the communities and profiles summarize.
        rebuilds.claims_closed(session, principal, ctx, claims=closed.claims, embed=embed)
    if embed and result.outcome != "unchanged" and result.paragraphs:
        queue.enqueue_embedding(
            session,
            context_id=ctx.id,
            context_scopes=ctx.scopes,
            source_pk=result.source_pk,
            source_scopes=meta.scopes,
        )
    if result.outcome != "unchanged" or result.reindexed:  # after the embedding job
        queue.enqueue_merge(session, context_id=ctx.id, scopes=meta.scopes)
    return result


def outline(title: str, blocks: Sequence[Block]) -> list[str]:
    """A source's top-level section titles, as the corpus map lists them: its level-1 headings
    in order of first appearance; when the only one repeats the title (a document's `# Title`),
    the level-2 headings under it."""
    roots: list[str] = []
    seconds: list[tuple[str, ...]] = []
    for b in blocks:
        if b.section and b.section[0] not in roots:
            roots.append(b.section[0])
        if len(b.section) >= 2 and b.section[:2] not in seconds:
            seconds.append(b.section[:2])
    if len(roots) == 1 and _norm(roots[0]) == _norm(title):
        return [path[1] for path in seconds]
    return roots


def _norm(text: str) -> str:
    return _SPACES.sub(" ", text).strip().casefold()


def _describe(session: Session, source_pk: int, titles: list[str], area: str | None) -> None:
    """Write what the corpus map and the area catalog read of a source (its outline and its
    area's key) in the ingest's transaction; a row that already says so is not touched."""
    new_outline = literal(titles, ARRAY(Text))
    key = title_key(area or "")
    session.execute(
        update(Source)
        .where(
            Source.id == source_pk,
            or_(Source.outline.is_distinct_from(new_outline), Source.area_key != key),
        )
        .values(outline=new_outline, area_key=key)
        .execution_options(synchronize_session=False)
    )


def raw_hash(data: bytes) -> str:
    """The bytes' hash under this version of the parsers: new parsers never skip a file."""
    return hashlib.sha256(b"parser %d\0" % PARSER_VERSION + data).hexdigest()


def stored_unchanged(
    store_: Store, principal: Principal, context: str, doc: DocumentInput
) -> WriteResult | None:
    """The stored result when `doc` is byte-for-byte what is stored and says nothing else about
    itself (no explicit metadata or scopes): then it need not even be parsed."""
    explicit = (doc.title, doc.date, doc.tags, doc.area, doc.state, doc.scopes, doc.format)
    if doc.data is None or doc.questions or any(v is not None for v in explicit):
        return None
    digest = raw_hash(doc.data)
    with store_.session(principal) as session:
        ctx = contexts.resolve(session, context)
        row = session.execute(
            select(Source.id, Source.paragraph_count, Source.origin).where(
                Source.context_id == ctx.id,
                Source.source_id == doc.source_id,
                Source.raw_hash == digest,
                Source.retracted_at.is_(None),
            )
        ).first()
    if row is None or row.origin != doc.origin:
        return None
    return WriteResult(doc.source_id, "unchanged", row.paragraph_count, 0, row.id)


def content_hash(parsed: ParsedDocument, questions: Sequence[Sequence[str]] = ()) -> str:
    """A hash of what is stored (paragraph text, sections, locators, kinds, questions), not of
    the raw bytes: a re-ingest that would store the same rows is skipped."""
    h = hashlib.sha256()
    for i, block in enumerate(parsed.blocks):
        if i < len(questions):
            h.update("\x1d".join(questions[i]).encode() + b"\x1d")
        h.update(block.text.encode())
        h.update(b"\x00" + "\x1f".join(block.section).encode() + b"\x00")
        h.update(repr(block.locator.to_json() if block.locator else None).encode())
        h.update(b"\x1dcode\x1e" if block.kind == "code" else b"\x1e")  # text hashes as before
    return h.hexdigest()


def check_state(value: str | None) -> str | None:
    """A source's state as stated, or None when none was (then it is no project)."""
    if value is not None and value not in SOURCE_STATES:
        raise InvalidInput(
            f"unknown state {value!r}",
            issues=[Issue("state", f"one of {', '.join(SOURCE_STATES)}")],
        )
    return value


def check_tags(tags: Sequence[str]) -> tuple[str, ...]:
    if isinstance(tags, str):
        raise InvalidInput("tags must be a list", issues=[Issue("tags", "not a list")])
    if len(tags) > MAX_TAGS_SENT:  # before any tag is read: the work stays linear and small
        raise InvalidInput(
            "too many tags", issues=[Issue("tags", f"{len(tags)} sent, at most {MAX_TAGS_SENT}")]
        )
    out: dict[str, None] = {}  # distinct tags in the order given
    for i, tag in enumerate(tags):
        if not isinstance(tag, str) or not tag.strip() or len(tag) > 128:
            raise InvalidInput(
                "invalid tag", issues=[Issue(f"tags[{i}]", "empty or over 128 chars")]
            )
        out[tag.strip()] = None
    if len(out) > MAX_TAGS:
        raise InvalidInput("too many tags", issues=[Issue("tags", f"{len(out)} > {MAX_TAGS}")])
    return tuple(out)


def block(
    text: str,
    section: Sequence[str] = (),
    locator: dict[str, Any] | None = None,
    path: str = "paragraph",
    kind: object = "text",
) -> Block:
    """A Block from wire fields (used by the HTTP and MCP surfaces and archives); `path`
    prefixes issues."""
    if kind not in BLOCK_KINDS:
        raise InvalidInput(
            "invalid paragraph kind",
            issues=[Issue(f"{path}.kind", f"one of {', '.join(BLOCK_KINDS)}")],
        )
    loc = None
    if locator is not None:
        try:
            loc = Locator.from_json(locator)
        except LocatorError as exc:
            where = f"{path}.locator.{exc.field}"
            raise InvalidInput("invalid locator", issues=[Issue(where, str(exc))]) from None
        except (ValueError, TypeError, KeyError) as exc:
            raise InvalidInput(
                "invalid locator", issues=[Issue(f"{path}.locator", str(exc))]
            ) from None
    try:
        return Block(
            text=text.strip(), section=tuple(section), locator=loc, kind=cast(BlockKind, kind)
        )
    except ValueError as exc:
        raise InvalidInput("invalid paragraph", issues=[Issue(f"{path}.text", str(exc))]) from None


def _default_title(source_id: str) -> str:
    tail = source_id.rstrip("/").rsplit("/", 1)[-1]
    return tail or source_id


def retract_source(
    session: Session,
    principal: Principal,
    ctx: Context,
    source_id: str,
    *,
    dry_run: bool = False,
    reason: str = "retracted",
    embed: bool = False,
) -> RetractResult:
    """Retract a source and close every claim attributed to it, in the caller's transaction;
    with `embed` (there is an embedder), the glosses that quoted those claims are re-embedded."""
    scopes = session.scalar(
        select(Source.scopes).where(Source.context_id == ctx.id, Source.source_id == source_id)
    )
    result = retract(session, principal, ctx, source_id, dry_run=dry_run, reason=reason)
    if not dry_run and scopes is not None:  # its merged postings are masked until a merge
        queue.enqueue_merge(session, context_id=ctx.id, scopes=scopes)
    if not dry_run:  # a tombstone keeps no outline, as it keeps no paragraphs
        session.execute(
            update(Source)
            .where(
                Source.context_id == ctx.id,
                Source.source_id == source_id,
                Source.outline != literal([], ARRAY(Text)),
            )
            .values(outline=[])
            .execution_options(synchronize_session=False)
        )
    closed = claim_sources.close_by_source(session, principal, ctx, source_id, dry_run=dry_run)
    if not dry_run:  # its paragraphs were leaves of the tree; its claims were in the graph
        rebuilds.claims_closed(session, principal, ctx, claims=closed.claims, embed=embed)
    return replace(result, claims=closed.claims, associations=closed.associations)
