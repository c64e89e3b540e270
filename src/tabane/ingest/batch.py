"""Many files stored in few transactions (`tabane ingest` of a folder, `sync`).

Files are read and parsed a group at a time; the group's changed files are then stored in one
transaction, their BM25 statistics summed and written once (search/postings.py `batched`): a
transaction per small file spent most of its time on commits and on the same frequent terms'
statistics rows. The group is all or nothing, so each source in it is stored whole or not at all
(a crash leaves every source as before or after its own write); when the group's transaction
fails for any reason, its files are stored again one by one, each in its own transaction, so a
bad file is still reported alone and the others go on."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select

from tabane.contexts import contexts
from tabane.errors import BodyTooLarge, DocumentError, Issue, StoreUnavailable, TabaneError
from tabane.ingest.documents import DocumentInput, ingest_parsed, raw_hash, store_parsed
from tabane.ingest.parsing import Outcome, Parser
from tabane.principal import Principal
from tabane.search import postings
from tabane.storage.bulk import deferred
from tabane.storage.schema import Source
from tabane.storage.store import Store
from tabane.text.documents import ParsedDocument

# A group closes at this many files or paragraphs (a transaction's size stays bounded: its locks,
# its memory and what a failed group must redo file by file).
GROUP_FILES = 64
GROUP_PARAGRAPHS = 20_000


@dataclass(frozen=True)
class Item:
    """One file to store: where it is and what to store it as."""

    path: Path
    source_id: str
    doc: DocumentInput | None = None  # None: it could not be read (`failure` says why)
    failure: TabaneError | None = None


@dataclass(frozen=True)
class Stored:
    """What became of one file: an outcome of `ingest/files.py`'s `FileReport`."""

    item: Item
    outcome: str
    paragraphs: int = 0
    error: TabaneError | None = None
    warnings: tuple[Issue, ...] = ()
    parsed: ParsedDocument | None = None  # parsed, but empty: the caller drops its source


def read(
    path: Path, source_id: str, max_bytes: int, make: Callable[[bytes], DocumentInput]
) -> Item:
    """A file's bytes as the document `make` builds, or why they cannot be read."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise BodyTooLarge(
                f"{path} is larger than {max_bytes} bytes (TABANE_MAX_BODY_BYTES)",
                issues=[Issue(str(path), f"{size} bytes, at most {max_bytes}")],
            )
        return Item(path, source_id, make(path.read_bytes()))
    except TabaneError as exc:
        return Item(path, source_id, failure=exc)
    except OSError as exc:
        unreadable = DocumentError(
            f"{path} cannot be read", issues=[Issue(str(path), exc.strerror or str(exc))]
        )
        return Item(path, source_id, failure=unreadable)


@dataclass(frozen=True)
class Prepared:
    """A group whose unchanged files are known and whose other files are being parsed."""

    items: Sequence[Item]
    done: dict[int, Stored]  # settled before the store: unreadable, unchanged
    parsing: dict[int, Callable[[], Outcome]]  # the rest: their parse, taken in order


def store_group(
    store: Store,
    principal: Principal,
    context: str,
    items: Sequence[Item],
    *,
    max_paragraphs: int,
    embed: bool,
) -> list[Stored]:
    """Store `items` (in order): unchanged files skipped before parsing, the changed ones in one
    transaction, or file by file when that transaction fails."""
    with Parser(0) as parser:
        ready = prepare(store, principal, context, items, parser, max_paragraphs)
        return store_prepared(store, principal, context, ready, embed=embed)


def prepare(
    store: Store,
    principal: Principal,
    context: str,
    items: Sequence[Item],
    parser: Parser,
    max_paragraphs: int,
) -> Prepared:
    """Find the group's unchanged files (one read) and hand the others to `parser`: with a
    pool, they are parsed while the group before is stored."""
    done: dict[int, Stored] = {}
    try:
        unchanged = _unchanged(store, principal, context, items)
    except StoreUnavailable:  # the failed call started the server again; the write will tell
        unchanged = {}  # what is unchanged by content hash, as for a file with new bytes
    parsing: dict[int, Callable[[], Outcome]] = {}
    for i, item in enumerate(items):
        if item.doc is None:
            done[i] = Stored(item, "error", error=item.failure)
        elif item.source_id in unchanged:
            done[i] = Stored(item, "unchanged", unchanged[item.source_id])
        else:
            parsing[i] = parser.submit(item.doc, str(item.path), max_paragraphs)
    return Prepared(items, done, parsing)


def store_prepared(
    store: Store, principal: Principal, context: str, ready: Prepared, *, embed: bool
) -> list[Stored]:
    """Store a prepared group's parsed files in one transaction, or file by file when that
    transaction fails."""
    items, done = ready.items, dict(ready.done)
    todo: list[tuple[int, DocumentInput, ParsedDocument]] = []
    for i, parse_of in ready.parsing.items():
        parsed = parse_of()
        doc = items[i].doc
        assert doc is not None  # only read files are parsed
        if isinstance(parsed, TabaneError):
            done[i] = Stored(items[i], "error", error=parsed)
        elif not parsed.blocks:
            done[i] = Stored(items[i], "empty", parsed=parsed)
        else:
            todo.append((i, doc, parsed))
    try:
        with (
            store.session(principal) as session,
            postings.batched(session),
            contexts.counted(session),
            deferred(session),
        ):
            ctx = contexts.resolve(session, context)
            for i, doc, parsed in todo:
                result = store_parsed(session, principal, ctx, doc, parsed, embed)
                done[i] = Stored(
                    items[i], result.outcome, result.paragraphs, warnings=result.warnings
                )
    except Exception:
        for i, doc, parsed in todo:
            done[i] = _alone(store, principal, context, items[i], doc, parsed, embed)
    return [done[i] for i in range(len(items))]


def _alone(
    store: Store,
    principal: Principal,
    context: str,
    item: Item,
    doc: DocumentInput,
    parsed: ParsedDocument,
    embed: bool,
) -> Stored:
    """One file in its own transaction, once more when the database went away under it (the
    content hash makes the second try skip what the first committed)."""
    for last in (False, True):
        try:
            result = ingest_parsed(store, principal, context, doc, parsed, embed=embed)
            return Stored(item, result.outcome, result.paragraphs, warnings=result.warnings)
        except TabaneError as exc:
            if last or exc.code != "store_unavailable":
                return Stored(item, "error", error=exc)
    raise AssertionError("unreachable: the second try returns")


def _unchanged(
    store: Store, principal: Principal, context: str, items: Sequence[Item]
) -> dict[str, int]:
    """Source id → paragraph count of the files whose bytes are stored unchanged and which say
    nothing else about themselves (ingest/documents.py `stored_unchanged`, for a group in one
    read)."""
    plain = {
        item.source_id: (raw_hash(item.doc.data), item.doc.origin)
        for item in items
        if item.doc is not None and item.doc.data is not None and _only_bytes(item.doc)
    }
    if not plain:
        return {}
    with store.session(principal) as session:
        ctx = contexts.resolve(session, context)
        rows = session.execute(
            select(Source.source_id, Source.raw_hash, Source.origin, Source.paragraph_count).where(
                Source.context_id == ctx.id,
                Source.source_id.in_(list(plain)),
                Source.retracted_at.is_(None),
            )
        ).all()
    return {sid: count for sid, digest, origin, count in rows if plain[sid] == (digest, origin)}


def _only_bytes(doc: DocumentInput) -> bool:
    explicit = (doc.title, doc.date, doc.tags, doc.area, doc.state, doc.scopes, doc.format)
    return not doc.questions and all(v is None for v in explicit)


def groups(items: Iterable[Item]) -> Iterator[list[Item]]:
    """Consecutive items cut at `GROUP_FILES` files or about `GROUP_PARAGRAPHS` paragraphs
    (estimated from the bytes before parsing: one paragraph per 200 bytes), taken from `items`
    only as each group is needed (files are read as they come, not all first)."""
    group: list[Item] = []
    size = 0
    for item in items:
        weight = len(item.doc.data or b"") // 200 + 1 if item.doc is not None else 1
        if group and (len(group) >= GROUP_FILES or size + weight > GROUP_PARAGRAPHS):
            yield group
            group, size = [], 0
        group.append(item)
        size += weight
    if group:
        yield group
