"""Claim embeddings: the text of each claim embedded for recall's claims lane.

The text is the claim's statement when it has one, else its triple read as a phrase
(`subject label object`; a negative weight reads `subject not label object`). Vectors are written
by the `embed_claims` job, one per claim and model, with the claim's own scope set (the composite
foreign key to `claims` holds them equal). Claims never change their text, so a claim needs a
vector once per model; a closed claim is not embedded (the lane only returns current claims).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from tabane.models.embedder import Embedder, Vectors, checked
from tabane.storage.schema import Claim, ClaimVector

BATCH = 64  # claims per embedder call


@dataclass(frozen=True)
class ClaimText:
    claim_id: int
    text: str


def claim_text(
    statement: str | None,
    subject: str | None,
    label: str | None,
    obj: str | None,
    weight: float | None,
    in_reply_to: str | None = None,
) -> str:
    """What is embedded for a claim: its statement — after what it answers, when the writer
    said (a reply's topic is often only in the turn it answers: on the memory sets, embedding
    each turn after the one before it found every evidence turn of a question within the first
    10 by cosine for 0.792 / 0.595 of questions against 0.717 / 0.500; docs/journal/eval.md) — else
    its triple read as a phrase."""
    if statement is not None and statement.strip():
        if in_reply_to is not None and in_reply_to.strip():
            return f"{in_reply_to}\n{statement}"
        return statement
    if subject is None or label is None or obj is None:
        return ""
    if weight is not None and weight < 0:
        return f"{subject} not {label} {obj}"
    return f"{subject} {label} {obj}"


def shown_text(
    statement: str | None,
    subject: str | None,
    label: str | None,
    obj: str | None,
    weight: float | None,
) -> str:
    """What recall shows of a claim (and e5 reads, decision 0044): its own statement, else its
    triple; a negative triple reads "not", as edges do."""
    if statement:
        return statement
    triple = f"{subject} {label} {obj}"
    return f"NOT ({triple})" if weight is not None and weight < 0 else triple


def missing(
    session: Session, context_id: int, scopes: Sequence[str], model: str, shown: bool = False
) -> list[ClaimText]:
    """Current claims of a context stored under exactly `scopes` without a vector of `model`,
    oldest first, with the text the default embedder reads (`claim_text`), or with `shown` the
    text recall shows (`shown_text`). Run it with a principal reading only `scopes`."""
    have = select(ClaimVector.claim_id).where(
        ClaimVector.context_id == context_id, ClaimVector.model == model
    )
    rows = session.execute(
        select(
            Claim.id,
            Claim.statement,
            Claim.subject,
            Claim.label,
            Claim.object,
            Claim.weight,
            Claim.in_reply_to,
        )
        .where(
            Claim.context_id == context_id,
            Claim.scopes == sorted(scopes),
            Claim.closed_at.is_(None),
            Claim.id.not_in(have),
        )
        .order_by(Claim.id)
    )
    todo = (
        ClaimText(
            r.id,
            shown_text(r.statement, r.subject, r.label, r.object, r.weight)
            if shown
            else claim_text(r.statement, r.subject, r.label, r.object, r.weight, r.in_reply_to),
        )
        for r in rows
    )
    return [t for t in todo if t.text]


def embed(embedder: Embedder, todo: Sequence[ClaimText]) -> Vectors:
    """The claims' vectors, refused on NaN, infinities, zero rows or a wrong width."""
    raw = embedder.embed_documents([t.text for t in todo])
    return checked(raw, len(todo), embedder.dim, "claim_embeddings")


def store(
    session: Session,
    embedder: Embedder,
    context_id: int,
    scopes: Sequence[str],
    todo: Sequence[ClaimText],
    vectors: Vectors,
) -> int:
    """Write one batch's vectors (a vector already stored for the model is kept)."""
    if not todo:
        return 0
    rows = [
        {
            "claim_id": t.claim_id,
            "model": embedder.name,
            "context_id": context_id,
            "dim": embedder.dim,
            "embedding": vec,
            "scopes": sorted(scopes),
        }
        for t, vec in zip(todo, vectors, strict=True)
    ]
    session.execute(insert(ClaimVector).on_conflict_do_nothing(), rows)
    return len(rows)
