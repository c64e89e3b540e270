"""`describe` (one concept's label counts per role) and `labels` (the label vocabulary with its
use counts, paged). Both count live edges only (at least one claim behind them)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from tabane.errors import Issue
from tabane.graph import aliases
from tabane.graph import edges as edges_mod
from tabane.graph.query.pattern import check_int, decode_cursor, encode_cursor, raise_if
from tabane.plain import shown_weight
from tabane.storage.schema import Association, Context, VocabEntry
from tabane.text.tokenize import normalize

MAX_LABEL_PAGE = 1000


@dataclass(frozen=True)
class LabelCount:
    """Edges carrying `label` in one role: how many, their net weight and Σ|weight|."""

    label: str
    edges: int
    weight: float
    strength: float


@dataclass(frozen=True)
class ConceptDescription:
    context: str
    concept: str
    aliases: tuple[str, ...]
    as_subject: tuple[LabelCount, ...]
    as_object: tuple[LabelCount, ...]
    degree: int  # distinct live edges touching it (a self-loop once)
    strength: float  # Σ|weight| over those edges


def describe(session: Session, ctx: Context, concept: str) -> ConceptDescription:
    """`concept` must be canonical and known (the service checks); counts per label and role,
    strongest labels first (Σ|weight| descending, then label)."""
    e = edges_mod.net([ctx.id], None)
    is_s = (e.c.subject == concept).label("is_s")
    is_o = (e.c.object == concept).label("is_o")
    rows = session.execute(
        select(
            e.c.label,
            is_s,
            is_o,
            func.count().label("n"),
            func.sum(e.c.weight).label("w"),
            func.sum(func.abs(e.c.weight)).label("a"),
        )
        .where(e.c.claims > 0, or_(e.c.subject == concept, e.c.object == concept))
        .group_by(e.c.label, is_s, is_o)
    ).all()
    roles: dict[str, dict[str, list[float]]] = {
        "s": defaultdict(lambda: [0, 0.0, 0.0]),
        "o": defaultdict(lambda: [0, 0.0, 0.0]),
    }
    degree, strength = 0, 0.0
    for row in rows:
        degree += int(row.n)
        strength += float(row.a)
        for role, flag in (("s", row.is_s), ("o", row.is_o)):
            if flag:
                acc = roles[role][row.label]
                acc[0] += int(row.n)
                acc[1] += float(row.w)
                acc[2] += float(row.a)

    def counts(role: str) -> tuple[LabelCount, ...]:
        items = [
            LabelCount(k, int(v[0]), shown_weight(v[1]), shown_weight(v[2]))
            for k, v in roles[role].items()
        ]
        return tuple(sorted(items, key=lambda c: (-c.strength, c.label)))

    spelled = tuple(a.alias for a in aliases.list_aliases(session, ctx.id, "concept", concept))
    return ConceptDescription(
        ctx.name, concept, spelled, counts("s"), counts("o"), degree, shown_weight(strength)
    )


@dataclass(frozen=True)
class LabelUse:
    label: str
    edges: int  # live edges carrying it


@dataclass(frozen=True)
class LabelPage:
    context: str
    labels: tuple[LabelUse, ...]
    next: str | None


def labels(
    session: Session,
    ctx: Context,
    *,
    prefix: str | None = None,
    limit: int = 100,
    after: str | None = None,
) -> LabelPage:
    """Canonical labels in name order (a keyset page), each with its live edge count. `prefix`
    matches the spelling or its normalized form (case and width folded)."""
    issues: list[Issue] = []
    check_int(limit, "limit", 1, MAX_LABEL_PAGE, issues)
    if prefix is not None and not isinstance(prefix, str):
        issues.append(Issue("prefix", "not a string"))
    raise_if(issues, "labels request")
    v = VocabEntry
    stmt = (
        select(v.name)
        .where(v.context_id == ctx.id, v.kind == "label", v.alias_of.is_(None))
        .distinct()
    )
    if prefix:
        stmt = stmt.where(
            or_(
                v.name.startswith(prefix, autoescape=True),
                v.norm.startswith(normalize(prefix), autoescape=True),
            )
        )
    start = decode_cursor(after, "l", (str,))
    if start is not None:
        stmt = stmt.where(v.name > start[0])
    names = list(session.scalars(stmt.order_by(v.name).limit(limit + 1)))
    more = len(names) > limit
    names = names[:limit]
    counts: dict[str, int] = {}
    if names:
        a = Association
        live = (
            select(a.label)
            .where(a.context_id == ctx.id, a.label.in_(names), a.claims > 0)
            .group_by(a.perspective, a.subject, a.label, a.object)
            .subquery()
        )
        counts = {
            row.label: int(row.n)
            for row in session.execute(
                select(live.c.label, func.count().label("n")).group_by(live.c.label)
            )
        }
    return LabelPage(
        ctx.name,
        tuple(LabelUse(n, counts.get(n, 0)) for n in names),
        encode_cursor("l", [names[-1]]) if more and names else None,
    )
