"""One batch of Taguru's stream (archive/stream.py) applied in the caller's transaction:
retract-then-apply of one source (decision 0027).

The context is created from the batch's `create` block when it does not exist (refused as
`no_context` without one); the source's live claims are closed (they are what it said before);
then its passage is stored (replacing the stored version, or retracting it when the batch has
none: the batch is the source's whole truth, so a header alone retracts the source), its claims
written with the header's source stamped on each, and its aliases added (after the claims, so an
alias may name a concept the batch introduces). The jobs a write queues are queued as the
service's writes queue them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tabane.archive.stream import Batch
from tabane.contexts import contexts
from tabane.errors import Issue, NoContext, NoSource, TabaneError
from tabane.graph import aliases as alias_rows
from tabane.graph import vocabulary
from tabane.graph.claims import sources as claim_sources
from tabane.graph.claims.write import write_batch
from tabane.ingest.documents import parse, retract_source, store_parsed
from tabane.jobs import queue, rebuilds
from tabane.principal import Principal
from tabane.storage.schema import Context
from tabane.storage.store import Session


@dataclass(frozen=True)
class BatchOutcome:
    """What one batch did: Taguru's counts (`retracted`: the source's claims closed first)."""

    line: int
    context: str
    source: str
    created: bool
    retracted: int
    associations: int
    aliases: int
    passage_stored: bool
    passage_removed: bool
    questions_dropped: int
    sections_dropped: int
    locators_dropped: int


def apply(
    session: Session, principal: Principal, batch: Batch, *, embed: bool, create: bool = True
) -> BatchOutcome:
    """Apply `batch` (a problem raises, naming its line, and the caller's transaction writes
    nothing of it)."""
    try:
        return _apply(session, principal, batch, embed, create)
    except TabaneError as exc:
        exc.issues = tuple(_relined(batch, i) for i in exc.issues) or (
            Issue(f"line {batch.line}", exc.message),
        )
        raise


def _relined(batch: Batch, issue: Issue) -> Issue:
    """An issue of a claim, an alias or the passage at the line that carried it."""
    if issue.path.startswith("line "):
        return issue
    found = re.match(r"associations\[(\d+)\]\.?(.*)", issue.path)
    if found and int(found[1]) < len(batch.claim_lines):
        rest = f".{found[2]}" if found[2] else ""
        return Issue(f"line {batch.claim_lines[int(found[1])]}{rest}", issue.problem)
    return Issue(f"line {batch.line}.{issue.path}", issue.problem)


def _apply(
    session: Session, principal: Principal, batch: Batch, embed: bool, create: bool
) -> BatchOutcome:
    ctx, created = _context(session, principal, batch, create)
    contexts.require_writable(principal, ctx)
    closed = claim_sources.close_by_source(session, principal, ctx, batch.source)
    rebuilds.claims_closed(session, principal, ctx, claims=closed.claims, embed=embed)
    removed = False
    if batch.passage is not None:
        store_parsed(session, principal, ctx, batch.passage, parse(batch.passage), embed)
    else:
        try:
            retract_source(session, principal, ctx, batch.source, embed=embed)
            removed = True
        except NoSource:
            pass  # nothing stored under the name: nothing to remove
    associations = 0
    if batch.claims:
        report = write_batch(session, principal, ctx, batch.claims, tuple(ctx.scopes))
        associations = report.associations
    for (alias, canonical, kind), line in zip(batch.aliases, batch.alias_lines, strict=True):
        try:
            kind_ = vocabulary.check_kind(kind)
            alias_rows.add_alias(session, principal, ctx, kind_, alias, canonical, None)
        except TabaneError as exc:
            exc.issues = tuple(Issue(f"line {line}.{i.path}", i.problem) for i in exc.issues)
            raise
    _queue(session, principal, ctx, batch, embed, bool(associations or closed.claims))
    return BatchOutcome(
        line=batch.line,
        context=ctx.name,
        source=batch.source,
        created=created,
        retracted=closed.claims,
        associations=associations,
        aliases=len(batch.aliases),
        passage_stored=batch.passage is not None,
        passage_removed=removed,
        questions_dropped=batch.dropped.get("questions", 0),
        sections_dropped=batch.dropped.get("sections", 0),
        locators_dropped=batch.dropped.get("locators", 0),
    )


def _context(
    session: Session, principal: Principal, batch: Batch, create: bool
) -> tuple[Context, bool]:
    try:
        return contexts.resolve(session, batch.context), False
    except NoContext as exc:
        if batch.create is None or not create:
            exc.message = f"no context {batch.context!r}, and the batch has no create block"
            raise
    settings = {k: v for k, v in batch.create.items() if k != "pinned"}  # no pinning here
    try:
        info = contexts.create(session, principal, batch.context, **settings)
    except TabaneError as exc:
        exc.issues = tuple(
            Issue(
                f"line {batch.line}.{'context' if i.path == 'name' else 'create.' + i.path}",
                i.problem,
            )
            for i in exc.issues
        )
        raise
    return contexts.resolve(session, info.name), True


def _queue(
    session: Session,
    principal: Principal,
    ctx: Context,
    batch: Batch,
    embed: bool,
    changed: bool,
) -> None:
    scopes = tuple(ctx.scopes)
    if batch.claims or batch.aliases:
        queue.enqueue_gram_merge(session, context_id=ctx.id, scopes=scopes)  # when due
    if embed and batch.claims:
        queue.enqueue_glosses(session, context_id=ctx.id, scopes=scopes)
        queue.enqueue_claims(session, context_id=ctx.id, scopes=scopes)
    if changed:
        rebuilds.derived_changed(session, principal, ctx, graph=True, leaves=False, written=scopes)
