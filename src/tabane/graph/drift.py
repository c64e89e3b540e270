"""audit_drift: how a context's graph moved in a window [since, until) of recorded time — read
from the claims the caller can see (claims are never deleted, only closed, so the log is the
claims table itself). Nothing is written. Three sections, each ordered and paged by offset,
with its total:

- `labels`: labels used by claims recorded in the window that the schema does not declare, or
  (with no schema) that were first used in the window — vocabulary drift;
- `weights`: the edges whose net weight moved most in the window (claims recorded in it add
  their weight, claims closed in it take theirs away), largest |change| first;
- `retracted`: claims retracted in the window, newest first (superseded ones are corrections,
  not drift, and stay out).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, and_, case, func, or_, select
from sqlalchemy.orm import Session

from tabane.graph.schema import Schema
from tabane.plain import shown_weight
from tabane.storage.schema import Claim, Context

SECTIONS = ("labels", "weights", "retracted")


@dataclass(frozen=True)
class LabelDrift:
    label: str
    claims: int  # claims recorded in the window under it
    first_used: datetime
    declared: bool
    reason: str


@dataclass(frozen=True)
class WeightMove:
    subject: str
    label: str
    object: str
    change: float  # net weight added in the window (negative: taken away)
    weight: float  # the net weight now
    added: int  # claims recorded in the window
    closed: int  # claims closed in the window
    reason: str


@dataclass(frozen=True)
class Retraction:
    claim: int
    subject: str | None
    label: str | None
    object: str | None
    statement: str | None
    weight: float | None
    source: str | None
    closed_at: datetime


@dataclass(frozen=True)
class Page:
    total: int
    next_cursor: int | None


@dataclass(frozen=True)
class Drift:
    context: str
    since: datetime
    until: datetime
    schema_version: int
    labels: list[LabelDrift]
    weights: list[WeightMove]
    retracted: list[Retraction]
    pages: dict[str, Page]  # per section asked for
    cursor: int
    limit: int


def _page(total: int, cursor: int, got: int) -> Page:
    return Page(total=total, next_cursor=cursor + got if cursor + got < total else None)


def labels(
    session: Session,
    ctx: Context,
    schema: Schema,
    since: datetime,
    until: datetime,
    limit: int,
    cursor: int,
) -> tuple[list[LabelDrift], Page]:
    c = Claim
    inside = and_(c.recorded_at >= since, c.recorded_at < until)
    used = (
        select(
            c.label,
            func.count().filter(inside).label("n"),
            func.min(c.recorded_at).label("first"),
        )
        .where(c.context_id == ctx.id, c.label.is_not(None))
        .group_by(c.label)
        .having(func.count().filter(inside) > 0)
        .subquery()
    )
    declared = sorted({d.name for d in schema.labels} | {schema.kind_label})
    drifted: ColumnElement[bool] = (
        used.c.label.not_in(declared) if schema.version else used.c.first >= since
    )
    where = select(used).where(drifted)
    total = session.scalar(select(func.count()).select_from(where.subquery())) or 0
    rows = session.execute(
        where.order_by(used.c.n.desc(), used.c.label).limit(limit).offset(cursor)
    ).all()
    found = [
        LabelDrift(
            label=r.label,
            claims=int(r.n),
            first_used=r.first,
            declared=r.label in declared,
            reason=(
                f"used by {r.n} claim(s) in the window and not declared by the schema"
                if schema.version
                else f"first used in the window ({r.n} claim(s)); the context declares no schema"
            ),
        )
        for r in rows
    ]
    return found, _page(int(total), cursor, len(found))


def weights(
    session: Session, ctx: Context, since: datetime, until: datetime, limit: int, cursor: int
) -> tuple[list[WeightMove], Page]:
    c = Claim
    added = and_(c.recorded_at >= since, c.recorded_at < until)
    closed = and_(c.closed_at >= since, c.closed_at < until)
    change = func.coalesce(func.sum(c.weight).filter(added), 0.0) - func.coalesce(
        func.sum(c.weight).filter(closed), 0.0
    )
    moves = (
        select(
            c.subject,
            c.label,
            c.object,
            change.label("change"),
            func.coalesce(func.sum(case((c.closed_at.is_(None), c.weight))), 0.0).label("now"),
            func.count().filter(added).label("added"),
            func.count().filter(closed).label("closed"),
        )
        .where(c.context_id == ctx.id, c.subject.is_not(None), or_(added, closed))
        .group_by(c.subject, c.label, c.object)
        .having(func.abs(change) > 1e-12)
        .subquery()
    )
    total = session.scalar(select(func.count()).select_from(moves)) or 0
    rows = session.execute(
        select(moves)
        .order_by(func.abs(moves.c.change).desc(), moves.c.subject, moves.c.label, moves.c.object)
        .limit(limit)
        .offset(cursor)
    ).all()
    found = [
        WeightMove(
            subject=r.subject,
            label=r.label,
            object=r.object,
            change=shown_weight(r.change),
            weight=shown_weight(r.now),
            added=int(r.added),
            closed=int(r.closed),
            reason=f"{r.added} claim(s) added and {r.closed} closed in the window",
        )
        for r in rows
    ]
    return found, _page(int(total), cursor, len(found))


def retracted(
    session: Session, ctx: Context, since: datetime, until: datetime, limit: int, cursor: int
) -> tuple[list[Retraction], Page]:
    c = Claim
    where = (
        c.context_id == ctx.id,
        c.close_reason == "retracted",
        c.closed_at >= since,
        c.closed_at < until,
    )
    total = session.scalar(select(func.count()).select_from(c).where(*where)) or 0
    rows = session.execute(
        select(c).where(*where).order_by(c.closed_at.desc(), c.id).limit(limit).offset(cursor)
    ).scalars()
    found = [
        Retraction(
            claim=r.id,
            subject=r.subject,
            label=r.label,
            object=r.object,
            statement=r.statement,
            weight=None if r.weight is None else shown_weight(r.weight),
            source=r.source,
            closed_at=r.closed_at,  # type: ignore[arg-type]
        )
        for r in rows
    ]
    return found, _page(int(total), cursor, len(found))
