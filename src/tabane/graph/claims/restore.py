"""Restoring claims as another store kept them, history included (an imported archive).

A claim batch (`claims.write_batch`) records claims as of now; a restore keeps each claim's own
record: when it was recorded, whether and when it was closed, and by which claim. The rows are
written as they were, then the vocabulary and the associations are made from them as a write
makes them: every spelling a claim names is minted (closed claims' too: concepts and edges
outlive their evidence), and every edge is re-netted from its open claims.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from datetime import datetime

from sqlalchemy import case, exists, select
from sqlalchemy.orm import Session, aliased

from tabane.checks import EdgeKey
from tabane.contexts.contexts import bump
from tabane.errors import Forbidden, Issue
from tabane.graph import vocabulary
from tabane.graph.claims.write import _new_ids
from tabane.graph.netting import renet
from tabane.principal import Principal
from tabane.storage.bulk import insert_columns
from tabane.storage.schema import Claim, Context


@dataclass(frozen=True)
class KeptClaim:
    """One claim as a store kept it. `key` names it inside the restore (an archive's id for it);
    `closed_by` is the key of the claim that superseded it, or None (retracted, open, or closed
    by a claim the restore does not hold). Spellings are canonical already."""

    key: int
    subject: str | None
    label: str | None
    object: str | None
    weight: float | None
    statement: str | None
    source: str | None
    paragraph: int | None
    author: str
    role: str | None
    kind: str
    perspective: str
    valid_from: datetime | None
    valid_until: datetime | None
    recorded_at: datetime
    closed_at: datetime | None
    close_reason: str | None
    closed_by: int | None
    valid_until_before: datetime | None
    scopes: tuple[str, ...]
    in_reply_to: str | None = None

    @property
    def edge(self) -> EdgeKey | None:
        if self.subject is None or self.label is None or self.object is None:
            return None
        return (self.perspective, self.subject, self.label, self.object)


# the columns written as they are; `key`, `closed_by` and `scopes` are mapped to this store
COLUMNS = tuple(f.name for f in fields(KeptClaim) if f.name not in {"key", "closed_by", "scopes"})


@dataclass(frozen=True)
class RestoreReport:
    ids: dict[int, int]  # key → the claim's id in this store
    associations: int
    scope_sets: tuple[tuple[str, ...], ...]


def restore_claims(
    session: Session,
    principal: Principal,
    ctx: Context,
    claims: Sequence[KeptClaim],
    path: str = "claims",
) -> RestoreReport:
    """Write `claims` into `ctx` as they were kept, in the caller's transaction (all or none)."""
    by_scopes: dict[tuple[str, ...], list[KeptClaim]] = defaultdict(list)
    for claim in claims:
        by_scopes[claim.scopes].append(claim)
    for scopes in by_scopes:
        if not principal.can_write(scopes):
            missing = sorted(set(scopes) - principal.write)
            raise Forbidden(
                f"you may not write claims under {list(scopes)}",
                issues=[Issue(path, f"not writable: {missing}")],
            )
    ids = dict(zip((c.key for c in claims), _new_ids(session, len(claims)), strict=True))
    for scopes, group in by_scopes.items():
        columns: dict[str, list[object]] = {
            "id": [ids[c.key] for c in group],
            "closed_by": [ids.get(c.closed_by) if c.closed_by else None for c in group],
        }
        for name in COLUMNS:
            columns[name] = [getattr(c, name) for c in group]
        insert_columns(
            session,
            Claim.__table__,  # type: ignore[arg-type]
            columns,
            {"context_id": ctx.id, "scopes": list(scopes), "written_by": principal.user_id},
        )
    edges = 0
    for scopes, group in by_scopes.items():
        keys = {e for c in group if (e := c.edge) is not None}
        vocabulary.ensure(
            session, ctx.id, "concept", {n for k in keys for n in (k[1], k[3])}, scopes
        )
        vocabulary.ensure(session, ctx.id, "label", {k[2] for k in keys}, scopes)
        renet(session, ctx.id, scopes, keys)
        edges += len(keys)
    if claims:
        bump(session, ctx.id, writes=1)
    return RestoreReport(ids, edges, tuple(sorted(by_scopes)))


def kept(session: Session, context_id: int) -> Iterator[tuple[Claim, int | None]]:
    """Every claim of the context the caller can see, closed ones included, by id, with the
    claim that closed it when the caller can see that one too (row-level security decides: an
    unseen correction's id stays unseen), else None."""
    closer = aliased(Claim)
    seen_closer = case((exists().where(closer.id == Claim.closed_by), Claim.closed_by), else_=None)
    stmt = (
        select(Claim, seen_closer.label("seen_closed_by"))
        .where(Claim.context_id == context_id)
        .order_by(Claim.id)
        .execution_options(yield_per=1000)
    )
    for row in session.execute(stmt):
        yield row[0], row[1]
