"""What a worker with an embedder queues when it starts: the embedding of the claims and session
turns that lack a vector of its model. Notes remembered while no embedder was configured (or
under another model) would otherwise stay out of recall's claims lane until a new note happened
to queue their context's job; paragraphs need no sweep (a search of a context that lacks its
model's vectors queues them, service/search.py).

One statement per kind finds the (context, scope set) of current claims and the sessions whose
turns lack a vector of the model; the jobs themselves skip what is embedded by then.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from tabane.jobs import queue
from tabane.storage.schema import ChatSession, Claim, ClaimVector, SessionTurn, TurnVector


def queue_missing(session: Session, model: str) -> int:
    """Queue `embed_claims` per (context, scope set) and `embed_turns` per session holding rows
    without a vector of `model`; returns how many sets and sessions it found. Run as the owner
    (it looks across every user's rows)."""
    claimed = select(ClaimVector.claim_id).where(ClaimVector.model == model)
    sets = session.execute(
        select(Claim.context_id, Claim.scopes)
        .where(Claim.closed_at.is_(None), Claim.id.not_in(claimed))
        .distinct()
    ).all()
    for context_id, scopes in sets:
        queue.enqueue_claims(session, context_id=context_id, scopes=scopes)
    turned = select(TurnVector.turn_id).where(TurnVector.model == model)
    chats = session.execute(
        select(ChatSession.id, ChatSession.scopes).where(
            ChatSession.id.in_(
                select(SessionTurn.session_pk).where(SessionTurn.id.not_in(turned)).distinct()
            )
        )
    ).all()
    for session_pk, scopes in chats:
        queue.enqueue_turns(session, session_pk=session_pk, scopes=scopes)
    return len(sets) + len(chats)
