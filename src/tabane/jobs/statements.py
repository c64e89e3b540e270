"""The `embed_claims` and `embed_turns` jobs: a context's current claims of one scope set, or a
session's turns, embedded where they lack a vector — by the default embedder (recall's claims
and turns lanes), then, where the worker has one, by e5 (`models.e5.Passages`) under its own
model name in the same tables (the second opinion reads them, recall/e5.py; decision 0044).
Vectors are checked before anything is stored; each batch is a transaction of its own.

The e5 vector is of the text recall shows (a claim's statement, else its triple), not the
default embedder's (a reply after what it answers), so it is the one recall would compute.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from sqlalchemy.orm import Session

from tabane.graph.claims import vectors as claim_vectors
from tabane.jobs import queue
from tabane.jobs.pipeline import in_batches
from tabane.memory import turn_vectors
from tabane.models.embedder import Embedder, Vectors
from tabane.storage.store import Store

E5_BATCH = 8  # e5 passages per call (~0.1 s each): a recall waiting on the engine waits < 1 s


def claims(store: Store, job: queue.Claimed, embedders: list[Embedder]) -> int:
    """Embed the current claims of the job's context and scope set lacking a vector of each of
    `embedders` (the default first); returns how many the default embedder lacked."""
    context_id, principal = job.context_id, job.principal
    assert context_id is not None
    first = 0
    for n, embedder in enumerate(embedders):
        with store.session(principal) as session:
            todo = claim_vectors.missing(
                session, context_id, job.scopes, embedder.name, shown=n > 0
            )
        if n == 0:
            first = len(todo)
        in_batches(
            store,
            job,
            principal,
            todo,
            claim_vectors.BATCH if n == 0 else E5_BATCH,
            partial(claim_vectors.embed, embedder),
            partial(_claims, embedder, context_id, job.scopes),
        )
    return first


def turns(store: Store, job: queue.Claimed, embedders: list[Embedder]) -> None:
    """Embed the turns of the job's session lacking a vector of each of `embedders`. A turn
    whose scope set the job may not write (its session was re-scoped since) is left to a job
    queued with the new set."""
    session_pk, principal = job.session_pk, job.principal
    assert session_pk is not None
    for n, embedder in enumerate(embedders):
        with store.session(principal) as session:
            todo = [
                t
                for t in turn_vectors.missing(session, session_pk, embedder.name)
                if set(t.scopes) <= principal.write
            ]
        in_batches(
            store,
            job,
            principal,
            todo,
            turn_vectors.BATCH if n == 0 else E5_BATCH,
            partial(turn_vectors.embed, embedder),
            partial(_turns, embedder, session_pk),
        )


def _claims(
    embedder: Embedder,
    context_id: int,
    scopes: Sequence[str],
    session: Session,
    batch: Sequence[claim_vectors.ClaimText],
    vecs: Vectors,
) -> int:
    return claim_vectors.store(session, embedder, context_id, scopes, batch, vecs)


def _turns(
    embedder: Embedder,
    session_pk: int,
    session: Session,
    batch: Sequence[turn_vectors.TurnText],
    vecs: Vectors,
) -> int:
    return turn_vectors.store(session, embedder, session_pk, batch, vecs)
