"""Turn embeddings: the text of each session turn embedded for recall's turns lane.

Vectors are written by the `embed_turns` job, one per turn and model, with the turn's own scope
set (the composite foreign key to `session_turns` holds them equal, and removes the vector with
its turn, session or user). Turns never change their text, so a turn needs a vector once per
model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from tabane.models.embedder import Embedder, Vectors, checked
from tabane.storage.schema import SessionTurn, TurnVector

BATCH = 64  # turns per embedder call


@dataclass(frozen=True)
class TurnText:
    turn_id: int
    scopes: tuple[str, ...]
    text: str


def missing(session: Session, session_pk: int, model: str) -> list[TurnText]:
    """The visible turns of a session without a vector of `model`, in `seq` order."""
    have = select(TurnVector.turn_id).where(
        TurnVector.session_pk == session_pk, TurnVector.model == model
    )
    rows = session.execute(
        select(SessionTurn.id, SessionTurn.scopes, SessionTurn.text)
        .where(SessionTurn.session_pk == session_pk, SessionTurn.id.not_in(have))
        .order_by(SessionTurn.seq)
    )
    return [TurnText(r.id, tuple(r.scopes), r.text) for r in rows if r.text.strip()]


def embed(embedder: Embedder, todo: Sequence[TurnText]) -> Vectors:
    """The turns' vectors, refused on NaN, infinities, zero rows or a wrong width."""
    raw = embedder.embed_documents([t.text for t in todo])
    return checked(raw, len(todo), embedder.dim, "turn_embeddings")


def store(
    session: Session,
    embedder: Embedder,
    session_pk: int,
    todo: Sequence[TurnText],
    vectors: Vectors,
) -> int:
    """Write one batch's vectors, each with its turn's scope set (a vector already stored for
    the model is kept)."""
    if not todo:
        return 0
    rows = [
        {
            "turn_id": t.turn_id,
            "model": embedder.name,
            "session_pk": session_pk,
            "dim": embedder.dim,
            "embedding": vec,
            "scopes": sorted(t.scopes),
        }
        for t, vec in zip(todo, vectors, strict=True)
    ]
    session.execute(insert(TurnVector).on_conflict_do_nothing(), rows)
    return len(rows)
