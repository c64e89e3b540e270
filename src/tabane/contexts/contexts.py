"""Contexts: create, get, list, update, rename, delete; machine and usage statistics.

Every statement runs under the caller's row-level security: a context the caller cannot see does
not exist for them (`no_context`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ARRAY, BigInteger, Integer, Text, bindparam, func, literal, not_, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from tabane.checks import check_name, scope_set, text_problem
from tabane.errors import Forbidden, InvalidInput, Issue, NameTaken, NoContext
from tabane.graph.stats import graph_stats
from tabane.principal import Principal
from tabane.storage.schema import Claim, Context, ContextUsage, Paragraph, Section, Source


@dataclass(frozen=True)
class ContextStats:
    sources: int
    paragraphs: int
    sections: int
    concepts: int = 0
    labels: int = 0
    associations: int = 0  # distinct live edges the caller can see
    top_concepts: tuple[str, ...] = ()  # by degree
    label_samples: tuple[str, ...] = ()  # most used labels


@dataclass(frozen=True)
class ContextUsageStats:
    reads: int
    misses: int
    writes: int
    last_access: datetime | None


@dataclass(frozen=True)
class ContextInfo:
    name: str
    description: str
    dice_floor: float
    semantic_floor: float | None
    scopes: tuple[str, ...]
    created_at: datetime
    stats: ContextStats
    usage: ContextUsageStats


def check_floor(value: object, path: str, lo: float, hi: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidInput(f"{path} must be a number", issues=[Issue(path, "not a number")])
    f = float(value)
    if math.isnan(f) or not lo <= f <= hi:
        raise InvalidInput(
            f"{path} is out of range", issues=[Issue(path, f"{f} not in [{lo}, {hi}]")]
        )
    return f


def writable_scopes(principal: Principal, scopes: object | None, path: str = "scopes") -> list[str]:
    chosen = principal.default_scopes if scopes is None else scope_set(scopes, path)
    if not chosen and principal.write:  # a key that may not write its user's personal scope
        raise InvalidInput(
            "say which scopes: this key may not write your personal scope, the default",
            issues=[Issue(path, f"required; writable: {sorted(principal.write)}")],
        )
    if not chosen:  # a key whose write set is empty has no default to fall back on
        raise Forbidden("you may write no scope", issues=[Issue(path, "nothing writable")])
    if not principal.can_write(chosen):
        missing = sorted(set(chosen) - principal.write)
        raise Forbidden(
            "you may not write these scopes", issues=[Issue(path, f"not writable: {missing}")]
        )
    return list(chosen)


def resolve(session: Session, name: str, path: str = "context") -> Context:
    if isinstance(name, str) and (problem := text_problem(name)):  # no stored name has it
        raise InvalidInput(f"invalid context name: {problem}", issues=[Issue(path, problem)])
    ctx = session.scalar(select(Context).where(Context.name == name))
    if ctx is None:
        raise NoContext(f"no context {name!r}", issues=[Issue(path, "unknown or not visible")])
    return ctx


def ids_named(session: Session, names: Sequence[str]) -> list[int]:
    """The ids of the contexts named (those the session sees; an unknown name is skipped)."""
    return list(session.scalars(select(Context.id).where(Context.name.in_(list(names)))))


def writable(session: Session, principal: Principal) -> list[Context]:
    """The contexts the session sees that `principal` may write, by name."""
    found = session.scalars(select(Context).order_by(Context.name))
    return [c for c in found if principal.can_write(tuple(c.scopes))]


def _for_change(session: Session, principal: Principal, name: str) -> Context:
    """The context `name`, writable by `principal` and locked until the transaction ends, so
    concurrent renames, updates and deletes of it take turns: one that waited finds the name
    gone (renamed or deleted meanwhile) and answers `no_context`, never a stale write."""
    ctx = resolve(session, name)
    require_writable(principal, ctx)
    held = select(Context.id).where(Context.id == ctx.id, Context.name == name).with_for_update()
    if session.scalar(held) is None:
        raise NoContext(f"no context {name!r}", issues=[Issue("context", "renamed or deleted")])
    session.refresh(ctx)
    return ctx


def require_writable(principal: Principal, ctx: Context) -> None:
    if not principal.can_write(tuple(ctx.scopes)):
        raise Forbidden(
            f"you may not change context {ctx.name!r}",
            issues=[Issue("context", f"scopes {sorted(ctx.scopes)} are not all writable")],
        )


def create(
    session: Session,
    principal: Principal,
    name: str,
    *,
    description: str = "",
    dice_floor: float = 0.3,
    semantic_floor: float | None = None,
    scopes: object | None = None,
) -> ContextInfo:
    name = check_name(name, "name", "context name")
    values = {
        "name": name,
        "description": check_description(description),
        "dice_floor": check_floor(dice_floor, "dice_floor", 0.0, 1.0),
        "semantic_floor": None
        if semantic_floor is None
        else check_floor(semantic_floor, "semantic_floor", -1.0, 1.0),
        "scopes": writable_scopes(principal, scopes),
    }
    try:
        with session.begin_nested():
            ctx = Context(**values)
            session.add(ctx)
            session.flush()
    except IntegrityError:
        raise NameTaken(f"context {name!r} exists", issues=[Issue("name", "taken")]) from None
    session.add(ContextUsage(context_id=ctx.id))
    session.flush()
    return info(session, ctx)


def get(session: Session, name: str) -> ContextInfo:
    return info(session, resolve(session, name))


def list_all(session: Session) -> list[ContextInfo]:
    return [info(session, c) for c in session.scalars(select(Context).order_by(Context.name))]


def update(
    session: Session, principal: Principal, name: str, changes: Mapping[str, object]
) -> ContextInfo:
    ctx = _for_change(session, principal, name)
    allowed = {"description", "dice_floor", "semantic_floor"}
    unknown = sorted(set(changes) - allowed)
    if unknown:
        raise InvalidInput(
            "unknown context settings", issues=[Issue(k, "not a context setting") for k in unknown]
        )
    if "description" in changes:
        ctx.description = check_description(changes["description"])
    if "dice_floor" in changes:
        ctx.dice_floor = check_floor(changes["dice_floor"], "dice_floor", 0.0, 1.0)
    if "semantic_floor" in changes:
        v = changes["semantic_floor"]
        ctx.semantic_floor = None if v is None else check_floor(v, "semantic_floor", -1.0, 1.0)
    ctx.updated_at = func.now()
    session.flush()
    session.refresh(ctx)
    return info(session, ctx)


def rename(session: Session, principal: Principal, name: str, new_name: str) -> ContextInfo:
    ctx = _for_change(session, principal, name)
    new_name = check_name(new_name, "new_name", "context name")
    try:
        with session.begin_nested():
            ctx.name = new_name
            session.flush()
    except IntegrityError:
        raise NameTaken(
            f"context {new_name!r} exists", issues=[Issue("new_name", "taken")]
        ) from None
    return info(session, ctx)


def delete(
    session: Session,
    principal: Principal,
    name: str,
    foreign: Callable[[int], int] | None = None,
) -> ContextStats:
    """Delete a context with everything in it; group memberships go with it. `foreign` counts,
    past row-level security, the sources and claims in it that the caller may not write: a
    context holding someone else's rows is refused (`forbidden`), since the cascade would remove
    rows the caller can neither see nor change."""
    ctx = _for_change(session, principal, name)
    if foreign is not None and foreign(ctx.id):
        raise Forbidden(
            f"context {name!r} holds sources or claims that are not yours to delete; nothing "
            "deleted",
            issues=[Issue("context", "holds rows in scopes you may not write")],
        )
    stats = _stats(session, ctx.id)
    session.delete(ctx)
    session.flush()
    return stats


def foreign_rows(admin: Session, context_id: int, writable: frozenset[str]) -> int:
    """Sources and claims of the context outside `writable`, counted in an owner transaction
    (it sees past row-level security; only the count leaves it)."""
    scopes = sorted(writable)
    total = 0
    for table in (Source, Claim):
        total += (
            admin.scalar(
                select(func.count())
                .select_from(table)
                .where(
                    table.context_id == context_id,
                    not_(table.scopes.op("<@", is_comparison=True)(literal(scopes, ARRAY(Text)))),
                )
            )
            or 0
        )
    return total


def bump(
    session: Session, context_id: int, *, reads: int = 0, misses: int = 0, writes: int = 0
) -> None:
    """Count a read, a miss (a read that found nothing) or a write; anyone who can see it may.
    Inside `counted`, summed and written once at its end."""
    held: dict[int, list[int]] | None = session.info.get(_COUNTED)
    if held is not None:
        for i, n in enumerate((reads, misses, writes)):
            held.setdefault(context_id, [0, 0, 0])[i] += n
        return
    bump_many(session, [(context_id, reads, misses, writes)])


_COUNTED = "tabane.contexts.counted"  # session.info key of the counts `counted` holds


@contextmanager
def counted(session: Session) -> Iterator[None]:
    """Within the block, `bump` sums its counts and they are written in one statement on the
    way out: a group of files (ingest/batch.py) counts a write per source without updating the
    same usage row once per source."""
    held: dict[int, list[int]] = {}
    session.info[_COUNTED] = held
    try:
        yield
    finally:
        del session.info[_COUNTED]
    bump_many(session, [(cid, *counts) for cid, counts in sorted(held.items())])  # type: ignore[misc]


def bump_many(session: Session, counts: Sequence[tuple[int, int, int, int]]) -> None:
    """Add (context id, reads, misses, writes) to the usage counters in one statement, for the
    contexts that still exist and the session's user can still see (a batched count can
    outlive either: contexts/usage.py)."""
    if not counts:
        return
    rows = (
        func.unnest(
            bindparam("usage_ids", [c[0] for c in counts], type_=ARRAY(Integer)),
            bindparam("usage_reads", [c[1] for c in counts], type_=ARRAY(BigInteger)),
            bindparam("usage_misses", [c[2] for c in counts], type_=ARRAY(BigInteger)),
            bindparam("usage_writes", [c[3] for c in counts], type_=ARRAY(BigInteger)),
        )
        .table_valued("context_id", "reads", "misses", "writes")
        .render_derived(name="counts")
    )
    visible = (
        select(rows.c.context_id, rows.c.reads, rows.c.misses, rows.c.writes, func.now())
        .select_from(rows)
        .join(Context, Context.id == rows.c.context_id)
    )
    stmt = insert(ContextUsage).from_select(
        ["context_id", "reads", "misses", "writes", "last_access"], visible
    )
    session.execute(
        stmt.on_conflict_do_update(
            index_elements=[ContextUsage.context_id],
            set_={
                "reads": ContextUsage.reads + stmt.excluded.reads,
                "misses": ContextUsage.misses + stmt.excluded.misses,
                "writes": ContextUsage.writes + stmt.excluded.writes,
                "last_access": func.now(),
            },
        )
    )


def info(session: Session, ctx: Context) -> ContextInfo:
    usage = session.get(ContextUsage, ctx.id)
    return ContextInfo(
        name=ctx.name,
        description=ctx.description,
        dice_floor=ctx.dice_floor,
        semantic_floor=ctx.semantic_floor,
        scopes=tuple(ctx.scopes),
        created_at=ctx.created_at,
        stats=_stats(session, ctx.id),
        usage=ContextUsageStats(
            reads=usage.reads if usage else 0,
            misses=usage.misses if usage else 0,
            writes=usage.writes if usage else 0,
            last_access=usage.last_access if usage else None,
        ),
    )


def _stats(session: Session, context_id: int) -> ContextStats:
    live = Source.retracted_at.is_(None)
    sources = session.scalar(
        select(func.count()).select_from(Source).where(Source.context_id == context_id, live)
    )
    paragraphs = session.scalar(
        select(func.count()).select_from(Paragraph).where(Paragraph.context_id == context_id)
    )
    sections = session.scalar(
        select(func.count()).select_from(Section).where(Section.context_id == context_id)
    )
    graph = graph_stats(session, context_id)
    return ContextStats(
        sources or 0,
        paragraphs or 0,
        sections or 0,
        graph.concepts,
        graph.labels,
        graph.associations,
        graph.top_concepts,
        graph.label_samples,
    )


def check_description(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidInput(
            "description must be a string", issues=[Issue("description", "not text")]
        )
    if len(value) > 4000:
        raise InvalidInput(
            "description is too long", issues=[Issue("description", f"{len(value)} > 4000 chars")]
        )
    return value
