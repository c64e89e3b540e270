"""Claims and the source they cite: closed with a retracted source, following a replaced one."""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy import and_, case, false, or_, select, update
from sqlalchemy.orm import Session

from tabane.errors import Forbidden, Issue
from tabane.graph.claims.write import CloseReport, close_where
from tabane.principal import Principal
from tabane.storage.schema import Claim, Context


def close_by_source(
    session: Session,
    principal: Principal,
    ctx: Context,
    source_id: str,
    *,
    dry_run: bool = False,
) -> CloseReport:
    """Retracting a source closes every claim attributed to it (weights drop; edges stay)."""
    return close_where(session, principal, ctx, Claim.source == source_id, dry_run=dry_run)


def follow_replacement(
    session: Session,
    principal: Principal,
    ctx: Context,
    source_id: str,
    kept_at: Mapping[int, int],
) -> CloseReport:
    """A replaced source's open claims: one citing a paragraph the new version repeats word for
    word (`kept_at`: old index → new index) still has its evidence, stays open and follows the
    paragraph to its new index; the others close — their paragraph is gone, or they cite the
    source as a whole, whose text changed. Claims the caller may see but not write refuse the
    whole replacement (`Forbidden`), as a retraction does."""
    grounded = Claim.paragraph.in_(list(kept_at)) if kept_at else false()
    closed = close_where(
        session,
        principal,
        ctx,
        and_(Claim.source == source_id, or_(Claim.paragraph.is_(None), ~grounded)),
        reason="replaced",
    )
    moves = {old: new for old, new in kept_at.items() if old != new}
    if not moves:
        return closed
    moving = session.scalars(
        select(Claim).where(
            Claim.context_id == ctx.id,
            Claim.closed_at.is_(None),
            Claim.source == source_id,
            Claim.paragraph.in_(list(moves)),
        )
    ).all()
    if any(not principal.can_write(tuple(c.scopes)) for c in moving):
        raise Forbidden(
            "some claims citing the source are not writable by you",
            issues=[Issue("scopes", "some claims' scopes are not all writable; nothing written")],
        )
    if moving:
        session.execute(
            update(Claim)
            .where(Claim.id.in_([c.id for c in moving]))
            .values(paragraph=case(moves, value=Claim.paragraph))
        )
    return closed
