"""The contexts a search reaches, with what its plan reports of each — the embedding jobs still
pending, the vector models held — read in one round trip instead of one per question asked of
them (a search's fixed cost, bench/search_overhead.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Session

from tabane.checks import text_problem
from tabane.contexts import groups as groups_mod
from tabane.contexts.contexts import resolve as resolve_context
from tabane.storage.schema import Context, ContextModel, Job


@dataclass(frozen=True)
class Reached:
    """The contexts in first-reached order; per context id, its pending jobs and its models
    (model name → width)."""

    contexts: list[Context]
    pending: dict[int, int]
    models: dict[int, dict[str, int]]


def reach(
    session: Session, contexts: Sequence[str], groups: Sequence[str], pending_kind: str
) -> Reached:
    """`groups.expand`'s contexts (the same order, the same errors) with their queued or
    running `pending_kind` jobs and their vector models. Contexts named without groups take
    one statement; a name not found is looked up again by `resolve`, for its error."""
    pending = select(func.count()).where(
        Job.context_id == Context.id,
        Job.state.in_(("queued", "running")),
        Job.kind == pending_kind,
    )
    held = select(func.jsonb_object_agg(ContextModel.model, ContextModel.dim, type_=JSONB)).where(
        ContextModel.context_id == Context.id
    )
    facts = select(Context, pending.scalar_subquery(), held.scalar_subquery())
    if groups or any(not isinstance(n, str) or text_problem(n) for n in contexts):
        found = groups_mod.expand(session, contexts, groups)
        return _reached(found, session.execute(facts.where(Context.id.in_([c.id for c in found]))))
    rows = session.execute(facts.where(Context.name.in_(list(contexts)))).all()
    by_name = {r[0].name: r[0] for r in rows}
    seen: dict[int, Context] = {}
    for i, name in enumerate(contexts):
        ctx = by_name.get(name) or resolve_context(session, name, f"contexts[{i}]")
        seen.setdefault(ctx.id, ctx)
    return _reached(list(seen.values()), rows)


def _reached(found: list[Context], rows: Any) -> Reached:
    pending: dict[int, int] = {}
    models: dict[int, dict[str, int]] = {}
    for ctx, n, held in rows:
        if n:
            pending[ctx.id] = int(n)
        models[ctx.id] = {str(m): int(d) for m, d in (held or {}).items()}
    return Reached(found, pending, models)
