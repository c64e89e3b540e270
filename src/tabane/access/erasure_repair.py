"""What an erasure leaves to repair in the rows that outlive it (access/erasure.py finds and
deletes the user's rows; the service calls these in the same transaction):

- `touched_derived`: the derived builds (communities, profiles, RAPTOR trees) that read an erased
  row in a context that stays: queued to run again over the rows left.
- `touched_edges` / `prune_edges`: the associations the erased claims netted into, re-netted from
  the claims left; an edge no claim names any more is deleted.
- `shared_spellings`: the user's aliases in scope sets that stay, whose vocabulary statistics are
  taken down before their rows go.
- `clear_writer`: the user's id leaves the claims that stay (written as another speaker).
- `strip_scope`: other users' API keys narrowed to the erased personal scope lose that scope.
- `vacuumed`: the tables to VACUUM after the commit, so no dead row version keeps the rows.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Table,
    and_,
    column,
    delete,
    exists,
    func,
    select,
    text,
    update,
)
from sqlalchemy.dialects.postgresql import array
from sqlalchemy.orm import Session

from tabane.access.erasure import DERIVED, Target, Walk, holds
from tabane.checks import EdgeKey
from tabane.storage.schema import Association, Base, Claim, RecallTraceRow

Edges = dict[tuple[int, tuple[str, ...]], set[EdgeKey]]

# Tables the erasure updates (their old row versions hold the user's id or weight): re-netted
# edges, reopened and writer-cleared claims, narrowed keys, vocabulary statistics.
REWRITTEN = frozenset(
    {"associations", "claims", "api_keys", "vocabulary_sizes", "vocabulary_gram_stats"}
)


def in_surviving_contexts(walk: Walk, context_id: Any) -> list[ColumnElement[bool]]:
    """The condition that a row's context outlives the erasure (none when no context goes)."""
    contexts = walk.rows.get("contexts")
    if contexts is None:
        return []
    return [context_id.not_in(select(Base.metadata.tables["contexts"].c.id).where(contexts))]


def touched_derived(session: Session, walk: Walk) -> dict[str, set[tuple[int, tuple[str, ...]]]]:
    """Per derived table, the (context, scope set) of the rows the erasure deletes in contexts
    that outlive it: their builds must run again over the rows left."""
    found: dict[str, set[tuple[int, tuple[str, ...]]]] = {}
    for name in sorted(DERIVED):
        table = Base.metadata.tables[name]
        stmt = (
            select(table.c.context_id, table.c.scopes)
            .where(
                walk.rows[name],
                *in_surviving_contexts(walk, table.c.context_id),
                ~holds(table.c.scopes, walk.target.scope),  # nobody's after: no rebuild
            )
            .distinct()
        )
        found[name] = {(int(r.context_id), tuple(r.scopes)) for r in session.execute(stmt)}
    return found


def touched_edges(session: Session, walk: Walk) -> Edges:
    """The associations that erased claims net into and that outlive the erasure (in a context
    and scope set that stay): they must be re-netted from the claims left."""
    stmt = select(
        Claim.context_id, Claim.scopes, Claim.perspective, Claim.subject, Claim.label, Claim.object
    ).where(
        walk.rows["claims"],
        Claim.subject.is_not(None),
        ~holds(Claim.scopes, walk.target.scope),
        *in_surviving_contexts(walk, Claim.context_id),
    )
    edges: Edges = defaultdict(set)
    for row in session.execute(stmt.distinct()):
        edges[(row.context_id, tuple(row.scopes))].add(
            (row.perspective, str(row.subject), str(row.label), str(row.object))
        )
    return dict(sorted(edges.items()))


def prune_edges(session: Session, edges: Edges) -> int:
    """Delete the re-netted associations no claim (open or closed) names any more: an edge only
    the erased user asserted goes with them. Returns how many were deleted."""
    deleted = 0
    for (ctx, scopes), keys in edges.items():
        for p, s, la, o in sorted(keys):
            same = [
                Association.context_id == ctx,
                Association.scopes == list(scopes),
                Association.perspective == p,
                Association.subject == s,
                Association.label == la,
                Association.object == o,
            ]
            left = exists().where(
                Claim.context_id == ctx,
                Claim.scopes == list(scopes),
                Claim.perspective == p,
                Claim.subject == s,
                Claim.label == la,
                Claim.object == o,
            )
            result = session.execute(
                delete(Association).where(and_(*same), Association.claims == 0, ~left)
            )
            deleted += int(result.rowcount)  # type: ignore[attr-defined]
    return deleted


def shared_spellings(session: Session, walk: Walk) -> list[int]:
    """The spellings the erasure takes from scope sets that outlive it (the user's aliases in
    shared contexts): their statistics must be taken down first (graph/vocabulary_stats.py)."""
    v = Base.metadata.tables["vocabulary"]
    stmt = select(v.c.id).where(
        walk.rows["vocabulary"],
        ~holds(v.c.scopes, walk.target.scope),
        *in_surviving_contexts(walk, v.c.context_id),
    )
    return list(session.scalars(stmt))


def clear_writer(session: Session, target: Target) -> int:
    """Clear the erased user's id from the claims that stay (written as another speaker)."""
    claims = Base.metadata.tables["claims"]
    result = session.execute(
        claims.update().where(claims.c.written_by == target.user_id).values(written_by=None)
    )
    return int(result.rowcount)  # type: ignore[attr-defined]


def strip_scope(session: Session, target: Target) -> int:
    """Take the erased personal scope out of other users' API keys that were narrowed to read
    or write it (the key stays its holder's): a user of the same name made later must not be
    read through them. Returns how many keys changed."""
    keys = Base.metadata.tables["api_keys"]
    result = session.execute(
        keys.update()
        .where(holds(keys.c.read_scopes, target.scope) | holds(keys.c.write_scopes, target.scope))
        .values(
            read_scopes=func.array_remove(keys.c.read_scopes, target.scope),
            write_scopes=func.array_remove(keys.c.write_scopes, target.scope),
        )
    )
    return int(result.rowcount)  # type: ignore[attr-defined]


def scrub_traces(session: Session, names: list[str]) -> int:
    """Take forgotten spellings out of every stored recall trace's seeds: another user's trace
    keeps its own question, but not the names only the erased user's claims gave it (a gloss
    match put them there). Returns the traces changed."""
    if not names:
        return 0
    kept = (
        select(func.coalesce(func.jsonb_agg(column("seed")), text("'[]'::jsonb")))
        .select_from(func.jsonb_array_elements_text(RecallTraceRow.trace["seeds"]).alias("seed"))
        .where(column("seed").not_in(names))
        .scalar_subquery()
    )
    result = session.execute(
        update(RecallTraceRow)
        .where(RecallTraceRow.trace["seeds"].has_any(array(names)))
        .values(trace=func.jsonb_set(RecallTraceRow.trace, text("'{seeds}'"), kept))
        .execution_options(synchronize_session=False)
    )
    return int(result.rowcount)  # type: ignore[attr-defined]


def vacuumed(deleted: Mapping[str, int]) -> list[Table]:
    """The tables to VACUUM after an erasure committed: those it deleted from or rewrote. A
    deleted row otherwise stays in its page as a dead version until autovacuum comes, which may
    be never for a large table with a few dead rows; after the VACUUM (with index cleanup) no
    row version and no index entry holds the user's rows. The bytes stay in the pages' free
    space and in the WAL until PostgreSQL writes over them."""
    names = {t for t, n in deleted.items() if n} | REWRITTEN
    return [Base.metadata.tables[t] for t in sorted(names)]
