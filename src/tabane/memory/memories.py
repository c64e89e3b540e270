"""Remembered notes: claims with statement text and the speaker's perspective.

`remember` writes one claim through the graph's claim writer, so a note with a triple also feeds
its association (and a note without one is a plain statement). The speaker is the claim's author;
a personal kind (the default `observation`, or `experience`, `opinion`, `preference`) keeps the
speaker's perspective as its own partition, so two people's notes never overwrite each other.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from tabane.checks import MAX_INT8, text_problem
from tabane.errors import InvalidInput, Issue, TabaneError
from tabane.graph.claims import write as claims_mod
from tabane.graph.claims.parse import ClaimInput, parse_claim
from tabane.principal import Principal
from tabane.storage.schema import Claim, Context

MAX_PAGE = 200


@dataclass(frozen=True)
class Memory:
    id: int
    statement: str | None
    subject: str | None
    label: str | None
    object: str | None
    weight: float | None
    author: str
    role: str | None
    kind: str
    perspective: str | None  # None: the shared world partition
    source: str | None
    paragraph: int | None
    valid_from: datetime | None
    valid_until: datetime | None
    recorded_at: datetime
    closed_at: datetime | None
    close_reason: str | None
    in_reply_to: str | None = None  # what it answers (embedded with it)


@dataclass(frozen=True)
class MemoryPage:
    memories: list[Memory]
    next_after: int | None


def parse_memory(fields: Mapping[str, Any], speaker: str | None) -> ClaimInput:
    """A memory from wire fields: `text` is the statement; the rest are claim fields."""
    issues: list[Issue] = []
    item = dict(fields)
    text = item.pop("text", None)
    if not isinstance(text, str) or not text.strip():
        issues.append(Issue("text", "empty or not text"))
    item["statement"] = text
    item.setdefault("kind", "observation")
    if speaker is not None:
        item["author"] = speaker
    claim = parse_claim(item, "memory", issues, require_triple=False)
    if issues or claim is None:
        raise InvalidInput("invalid memory; nothing written", issues=_on_the_wire(issues))
    return claim


# Claim fields a memory names otherwise on the wire.
_WIRE = {"statement": "text", "author": "speaker"}


def _on_the_wire(
    issues: Iterable[Issue], prefix: str = "memory.", whole_as: str = "text"
) -> list[Issue]:
    """The claim parser's (or the batch writer's, under `prefix`) issues under the memory's own
    field names (`memory.statement` is `text`), one per field. An issue about the whole memory
    (the parser's "needs a triple or a statement") is put under `whole_as`, and left out when
    that field already has one."""
    out: list[Issue] = []
    whole: list[Issue] = []
    for issue in issues:
        if issue.path == prefix.rstrip("."):
            whole.append(Issue(whole_as, issue.problem))
            continue
        path = issue.path.removeprefix(prefix)
        field, sep, rest = path.partition(".")
        name, bracket, index = field.partition("[")
        wire = _WIRE.get(name, name) + bracket + index + sep + rest
        if not any(i.path == wire for i in out):  # `text` once, not again as the statement
            out.append(Issue(wire, issue.problem))
    named = any(i.path == whole_as for i in out)
    return out + [i for i in whole[:1] if not named]


def remember(
    session: Session,
    principal: Principal,
    ctx: Context,
    memory: ClaimInput,
    scopes: Sequence[str],
) -> int:
    """Write one memory; returns its claim id. The batch writer's issues (an unknown claim in
    `closes`, a source or paragraph that is not there) name the memory's own fields."""
    try:
        report = claims_mod.write_batch(session, principal, ctx, [memory], scopes)
    except TabaneError as exc:
        exc.issues = tuple(_on_the_wire(exc.issues, "associations[0].", whole_as="memory"))
        raise
    return report.claims[0]


def list_memories(
    session: Session,
    ctx: Context,
    *,
    author: str | None = None,
    include_closed: bool = False,
    limit: int = 50,
    after: int | None = None,
) -> MemoryPage:
    """The context's memories (claims with a statement), newest first, keyset-paged by id."""
    issues: list[Issue] = []
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE:
        issues.append(Issue("limit", f"1..{MAX_PAGE}"))
    if after is not None and (
        isinstance(after, bool) or not isinstance(after, int) or not 1 <= after <= MAX_INT8
    ):
        issues.append(Issue("after", f"a claim id in 1..{MAX_INT8}"))
    if author is not None and not isinstance(author, str):
        issues.append(Issue("author", "not text"))
    elif author is not None and (problem := text_problem(author)):
        issues.append(Issue("author", problem))
    if not isinstance(include_closed, bool):
        issues.append(Issue("include_closed", "true or false"))
    if issues:
        raise InvalidInput("invalid page of memories", issues=issues)
    stmt = select(Claim).where(Claim.context_id == ctx.id, Claim.statement.is_not(None))
    if author is not None:
        stmt = stmt.where(Claim.author == author)
    if not include_closed:
        stmt = stmt.where(Claim.closed_at.is_(None))
    if after is not None:
        stmt = stmt.where(Claim.id < after)
    rows = list(session.scalars(stmt.order_by(Claim.id.desc()).limit(limit + 1)))
    more = len(rows) > limit
    rows = rows[:limit]
    return MemoryPage([_memory(c) for c in rows], rows[-1].id if more and rows else None)


def _memory(c: Claim) -> Memory:
    return Memory(
        id=c.id,
        statement=c.statement,
        subject=c.subject,
        label=c.label,
        object=c.object,
        weight=c.weight,
        author=c.author,
        role=c.role,
        kind=c.kind,
        perspective=c.perspective or None,
        source=c.source,
        paragraph=c.paragraph,
        valid_from=c.valid_from,
        valid_until=c.valid_until,
        recorded_at=c.recorded_at,
        closed_at=c.closed_at,
        close_reason=c.close_reason,
        in_reply_to=c.in_reply_to,
    )


def replies_to(session: Session, ids: Sequence[int]) -> dict[int, str]:
    """Claim id → what the note answers (`in_reply_to`), for those of `ids` that answer
    something (recall's support check reads a served note with it)."""
    if not ids:
        return {}
    stmt = select(Claim.id, Claim.in_reply_to).where(
        Claim.id.in_(list(ids)), Claim.in_reply_to.is_not(None)
    )
    return {int(i): str(text) for i, text in session.execute(stmt)}
