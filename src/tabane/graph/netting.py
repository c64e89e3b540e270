"""Netting: an association row holds, per scope set, the sum and count of its open claims, and
every change to a claim re-nets the touched rows from the claims themselves in the same
transaction (no drift from adding and subtracting floats).

Concurrent writers of one edge take turns. The re-netting statement sums the claims its snapshot
sees; a writer whose snapshot began before another writer's claim on the same edge committed
would wait for that writer's row, then overwrite it with a sum that lacks the claim (a lost
update). So each writer first locks the edge rows it will re-net (creating missing ones empty,
which waits for a concurrent creator to commit), then sums in a statement that begins after the
locks are held: it sees every claim whose writer held them before. Row locks live in the rows,
not in PostgreSQL's shared lock table, so a batch or an erasure that re-nets thousands of edges
cannot exhaust it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import ARRAY, Text, bindparam, func, literal, select, true
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from tabane.checks import EdgeKey
from tabane.storage.schema import Association, Claim

EDGE = ["context_id", "perspective", "subject", "label", "object", "scopes"]


def _keys(keys: Sequence[EdgeKey]) -> Any:
    """The edge keys as a table (`k`: p, s, l, o), from four bound arrays."""
    cols = list(zip(*keys, strict=True))
    arrays = [
        bindparam(f"k_{name}", list(values), type_=ARRAY(Text))
        for name, values in zip(("p", "s", "l", "o"), cols, strict=True)
    ]
    return func.unnest(*arrays).table_valued("p", "s", "l", "o").render_derived(name="k")


def lock_edges(
    session: Session, context_id: int, scopes: Sequence[str], keys: Sequence[EdgeKey]
) -> None:
    """Lock the association rows of `keys` in this scope set, creating the missing ones empty
    (created in key order, locked in id order: two writers of overlapping edges queue rather
    than deadlock, and a deadlock PostgreSQL still finds rolls back as `store_busy`)."""
    k = _keys(keys)
    empty = select(
        literal(context_id),
        k.c.p,
        k.c.s,
        k.c.l,
        k.c.o,
        literal(list(scopes), type_=ARRAY(Text)),
        literal(0.0),
        literal(0),
    )
    session.execute(
        insert(Association)
        .from_select([*EDGE, "weight", "claims"], empty)
        .on_conflict_do_nothing(index_elements=EDGE)
    )
    session.execute(
        select(Association.id)
        .join(
            k,
            (Association.perspective == k.c.p)
            & (Association.subject == k.c.s)
            & (Association.label == k.c.l)
            & (Association.object == k.c.o),
        )
        .where(Association.context_id == context_id, Association.scopes == list(scopes))
        .order_by(Association.id)
        .with_for_update(of=Association)
    ).all()


def renet(
    session: Session, context_id: int, scopes: Sequence[str], keys: Iterable[EdgeKey]
) -> None:
    """Set each touched association row of this scope set to the sum and count of its open
    claims (a row whose claims all closed keeps weight 0 and count 0)."""
    ordered = sorted(set(keys))
    if not ordered:
        return
    lock_edges(session, context_id, scopes, ordered)
    k = _keys(ordered)
    agg = (
        select(
            func.coalesce(func.sum(Claim.weight), 0.0).label("w"),
            func.count().label("n"),
        )
        .where(
            Claim.context_id == context_id,
            Claim.scopes == list(scopes),
            Claim.closed_at.is_(None),
            Claim.perspective == k.c.p,
            Claim.subject == k.c.s,
            Claim.label == k.c.l,
            Claim.object == k.c.o,
        )
        .lateral("agg")
    )
    rows = select(
        literal(context_id).label("context_id"),
        k.c.p,
        k.c.s,
        k.c.l,
        k.c.o,
        literal(list(scopes), type_=ARRAY(Text)).label("scopes"),
        agg.c.w,
        agg.c.n,
    ).select_from(k.join(agg, true()))
    stmt = insert(Association).from_select([*EDGE, "weight", "claims"], rows)
    stmt = stmt.on_conflict_do_update(
        index_elements=EDGE,
        set_={
            "weight": stmt.excluded.weight,
            "claims": stmt.excluded.claims,
            "updated_at": func.now(),
        },
    )
    session.execute(stmt)
