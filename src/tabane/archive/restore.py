"""Importing an archive as a new context, in one transaction: all of it or, on any problem,
nothing (a process killed part-way leaves the store as it was).

Scope sets are carried over through a map (`user:laptop` → `user:alice`): by default the
exporter's personal scope becomes the importer's, every other scope keeps its name, and the
importer must be able to write every set the map gives, or nothing is written. Sources are
stored through the ingest's own path (paragraphs, sections and BM25 postings in the transaction,
embeddings queued), keeping when they were stored and the hashes that let a later sync or
re-ingest of the same file skip it; claims keep their history (graph/claims/restore.py); aliases are
added as `aliases add` adds them. Then the jobs a write queues are queued: embeddings of
paragraphs, claims and glosses, and the derived builds.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace

from tabane.archive.lines import AliasRecord, ClaimRecord, SourceRecord
from tabane.archive.records import Header, Record, Summary
from tabane.checks import check_scope
from tabane.contexts import contexts
from tabane.errors import Forbidden, InvalidInput, Issue, TabaneError
from tabane.graph import aliases as alias_rows
from tabane.graph import vocabulary
from tabane.graph.claims.restore import KeptClaim, restore_claims
from tabane.ingest.documents import content_hash, parse, store_parsed
from tabane.jobs import queue, rebuilds
from tabane.principal import Principal, personal_scope
from tabane.search import postings
from tabane.sources.write import keep_stored
from tabane.storage.schema import Context
from tabane.storage.store import Session
from tabane.text.blocks import ParsedDocument


@dataclass(frozen=True)
class ImportReport:
    """What an import wrote: the new context and its counts, and the scope map it applied."""

    context: str
    sources: int
    paragraphs: int
    claims: int
    open_claims: int
    associations: int
    aliases: int
    scope_map: dict[str, str]


def scope_pairs(items: Sequence[str], path: str) -> dict[str, str]:
    """`OLD=NEW` texts (a surface's repeated option) as a scope map; InvalidInput naming each
    malformed or repeated one, at `path[i]`."""
    chosen: dict[str, str] = {}
    issues: list[Issue] = []
    for i, item in enumerate(items):
        old, sep, new = (part.strip() for part in item.partition("="))
        if not sep or not old or not new:
            issues.append(Issue(f"{path}[{i}]", f"{item!r} is not OLD=NEW"))
        elif old in chosen:
            issues.append(Issue(f"{path}[{i}]", f"{old!r} is mapped twice"))
        else:
            chosen[old] = new
    if issues:
        raise InvalidInput("a scope map is OLD=NEW pairs, each scope once", issues=issues)
    return chosen


def scope_map(
    summary: Summary, principal: Principal, given: Mapping[str, str] | None
) -> dict[str, str]:
    """The map to apply (`given`, plus the exporter's personal scope to the importer's unless
    `given` names it); Forbidden, naming each scope, when a set it makes is not writable."""
    carried = {s for scopes in summary.scope_sets for s in scopes}
    chosen: dict[str, str] = {}
    for old, new in (given or {}).items():
        chosen[check_scope(old, "scope_map")] = check_scope(new, f"scope_map.{old}")
        if old not in carried:  # a misspelt scope would leave the one meant unmapped
            raise InvalidInput(
                f"no row of the archive carries scope {old!r}",
                issues=[Issue(f"scope_map.{old}", f"not in the archive: {sorted(carried)}")],
            )
    assert summary.header is not None  # a checked archive has one
    exporter = summary.header.exported_by
    mine = personal_scope(exporter) if exporter and exporter != principal.name else None
    if mine in carried and mine not in chosen:
        chosen[mine] = personal_scope(principal.name)
    missing = sorted(
        {s for scopes in summary.scope_sets for s in mapped(scopes, chosen)} - principal.write
    )
    if missing:
        raise Forbidden(
            f"the archive's rows would carry scopes you may not write: {', '.join(missing)}",
            issues=[
                Issue("scope_map", f"{scope}: not writable; map it to one you may write")
                for scope in missing
            ],
        )
    return chosen


def mapped(scopes: Sequence[str], chosen: Mapping[str, str]) -> tuple[str, ...]:
    """A scope set through the map, sorted and without repeats (two scopes may map to one)."""
    return tuple(sorted({chosen.get(s, s) for s in scopes}))


def restore(
    session: Session,
    principal: Principal,
    rows: Iterator[Record],
    chosen: Mapping[str, str],
    *,
    name: str | None = None,
    embed: bool = False,
) -> ImportReport:
    """Write a checked archive's records as a new context (`name`, or the archive's own)."""
    header = next(rows)
    assert isinstance(header, Header)
    ctx = _context(session, principal, header, chosen, name)
    sources = paragraphs = 0
    claims: list[KeptClaim] = []
    aliases: list[AliasRecord] = []
    with postings.batched(session):  # the BM25 statistics: one write for all the sources
        for row in rows:
            if isinstance(row, SourceRecord):
                with _at(f"line {row.line}.source"):
                    paragraphs += _source(session, principal, ctx, row, chosen, embed)
                sources += 1
            elif isinstance(row, ClaimRecord):
                claims.append(replace(row.claim, scopes=mapped(row.claim.scopes, chosen)))
            elif isinstance(row, AliasRecord):
                aliases.append(row)
    with _at("claims"):
        report = restore_claims(session, principal, ctx, claims)
    spelt = set(report.scope_sets)  # the scope sets whose vocabulary grew
    for alias in aliases:
        with _at(f"line {alias.line}.alias"):
            scopes = mapped(alias.scopes, chosen)
            kind = vocabulary.check_kind(alias.kind)
            alias_rows.add_alias(session, principal, ctx, kind, alias.name, alias.alias_of, scopes)
        spelt.add(scopes)
    for scopes in sorted(spelt):
        queue.enqueue_gram_merge(session, context_id=ctx.id, scopes=scopes)
    for scopes in report.scope_sets:
        if embed:
            queue.enqueue_glosses(session, context_id=ctx.id, scopes=scopes)
            queue.enqueue_claims(session, context_id=ctx.id, scopes=scopes)
        if report.associations:
            rebuilds.derived_changed(
                session, principal, ctx, graph=True, leaves=False, written=scopes
            )
    return ImportReport(
        context=ctx.name,
        sources=sources,
        paragraphs=paragraphs,
        claims=len(claims),
        open_claims=sum(1 for c in claims if c.closed_at is None),
        associations=report.associations,
        aliases=len(aliases),
        scope_map=dict(chosen),
    )


def _context(
    session: Session,
    principal: Principal,
    header: Header,
    chosen: Mapping[str, str],
    name: str | None,
) -> Context:
    """The new context, with the archive's settings; a refused name is at `context` when the
    caller chose it, at the header's `name` when the archive did."""
    meta = header.context
    try:
        info = contexts.create(
            session,
            principal,
            name if name is not None else meta.name,
            description=meta.description,
            dice_floor=meta.dice_floor,
            semantic_floor=meta.semantic_floor,
            scopes=list(mapped(meta.scopes, chosen)),
        )
    except TabaneError as exc:
        exc.issues = tuple(
            Issue("context", i.problem)
            if i.path == "name" and name is not None
            else Issue(f"line 1.context.{i.path}", i.problem)
            for i in exc.issues
        )
        raise
    return contexts.resolve(session, info.name)


def _source(
    session: Session,
    principal: Principal,
    ctx: Context,
    row: SourceRecord,
    chosen: Mapping[str, str],
    embed: bool,
) -> int:
    """Store one source as the ingest does, then give it back its stored time and hashes."""
    doc = replace(row.doc, scopes=mapped(row.doc.scopes or (), chosen))
    parsed = parse(doc)
    result = store_parsed(session, principal, ctx, doc, parsed, embed=embed)
    if result.outcome != "created":
        raise InvalidInput(
            f"source {doc.source_id!r} twice", issues=[Issue("source_id", "a second source")]
        )
    keep_stored(session, result.source_pk, row.stored_at, row.raw_hash, _kept_hash(row, parsed))
    return result.paragraphs


def _kept_hash(row: SourceRecord, parsed: ParsedDocument) -> str:
    """The archived content hash when it is the hash of these paragraphs (as the ingest that
    stored them computed it, with a question list for every paragraph or only up to the last
    that has one), so re-ingesting the same document later finds it unchanged; the hash of the
    paragraphs as they are when they were edited since."""
    asked = list(row.doc.questions)
    while asked and not asked[-1]:
        asked.pop()
    full = content_hash(parsed, row.doc.questions)
    if row.content_hash in (full, content_hash(parsed, asked)):
        return row.content_hash
    return full


@contextmanager
def _at(prefix: str) -> Iterator[None]:
    """An error raised inside names where in the archive it arose (`line 7.source.scopes`)."""
    try:
        yield
    except TabaneError as exc:
        exc.issues = tuple(Issue(f"{prefix}.{i.path}", i.problem) for i in exc.issues) or (
            Issue(prefix, exc.message),
        )
        raise
