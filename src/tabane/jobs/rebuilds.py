"""Which derived builds a write makes stale, queued (debounced) in the writer's transaction.

- The graph changed (claims written, closed or retracted, a source's claims closed with it):
  the context's communities and entity profiles.
- Leaves went away (a note closed or retracted, a source retracted or replaced): the RAPTOR
  tree, when the context has one. New leaves queue it themselves once their vectors are stored
  (jobs/worker.py), since the tree clusters vectors.

Nothing is queued for a write outside the shared graph the builds read (a row whose scope set is
not inside the context's), nor by a writer who may not queue work with the context's scope set;
the derived rows then read as `stale` (their GET routes and the recall trace say so) until
someone who may rebuilds them (`tabane derive`).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from tabane.graph.claims.write import closed_now
from tabane.jobs import queue
from tabane.principal import Principal
from tabane.storage.schema import Context, RaptorNode


def derived_changed(
    session: Session,
    principal: Principal,
    ctx: Context,
    *,
    graph: bool,
    leaves: bool,
    written: Sequence[str] | None = None,
) -> None:
    """Queue the rebuilds a write made stale: `graph` the communities and profiles, `leaves`
    the RAPTOR tree. `written` is the write's scope set (None: not known, as for a retraction)."""
    shared = set(ctx.scopes)
    if written is not None and not set(written) <= shared:
        return
    if not (shared <= principal.read and principal.can_write(tuple(ctx.scopes))):
        return
    scopes = list(ctx.scopes)
    if graph:
        queue.enqueue_communities(session, context_id=ctx.id, scopes=scopes)
        queue.enqueue_profiles(session, context_id=ctx.id, scopes=scopes)
    if leaves:
        tree = select(RaptorNode.id).where(RaptorNode.context_id == ctx.id).limit(1)
        if session.scalar(tree) is not None:
            queue.enqueue_raptor(session, context_id=ctx.id, scopes=scopes)


def claims_closed(
    session: Session, principal: Principal, ctx: Context, *, claims: int, embed: bool
) -> None:
    """After a retraction (of edges or of a source, or a replacement) closed `claims` claims:
    the graph's builds if any closed, the tree (its leaves may be gone), and with an embedder
    (`embed`) the glosses that quoted the closed claims."""
    derived_changed(session, principal, ctx, graph=bool(claims), leaves=True)
    if embed and claims:
        glosses_closed(session, ctx.id)


def glosses_closed(session: Session, context_id: int) -> None:
    """Queue the re-embedding of the glosses of every scope set whose claims this transaction
    closed: a gloss quotes its concept's facts, and the semantic tier would go on matching the
    closed ones (only with an embedder: the caller knows)."""
    for scopes in closed_now(session, context_id):
        queue.enqueue_glosses(session, context_id=context_id, scopes=scopes)
