"""Vectors kept across a source's replacement: a paragraph stored again with the same text and
the same doc2query questions keeps the vectors it had, of every model, so editing one paragraph
of a long document embeds that paragraph again, not the document (the embedding job finds only
the paragraphs still without a vector).

`hold` reads the old version's vectors before its paragraphs are removed; `restore` writes them
for the new paragraphs, in the same transaction, with the new version's scopes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from tabane.search.vectors import insert_vectors
from tabane.storage.schema import Paragraph, ParagraphVector

Key = tuple[str, tuple[str, ...]]  # a paragraph's text and its questions
Held = dict[Key, list[tuple[int, str, int, Any]]]  # → (ord, model, width, vector) rows


def hold(session: Session, source_pk: int) -> Held:
    """The stored vectors of a source's paragraphs, by paragraph text and questions."""
    v = ParagraphVector
    rows = session.execute(
        select(Paragraph.text, Paragraph.questions, v.ord, v.model, v.dim, v.embedding)
        .join(v, v.paragraph_id == Paragraph.id)
        .where(Paragraph.source_pk == source_pk)
    )
    held: Held = {}
    for text, questions, ord_, model, dim, embedding in rows:
        held.setdefault((text, tuple(questions)), []).append((ord_, model, dim, embedding))
    return held


def restore(
    session: Session,
    context_id: int,
    source_pk: int,
    scopes: Sequence[str],
    paragraphs: Sequence[tuple[int, str, Sequence[str]]],
    held: Held,
) -> int:
    """Write the held vectors for the new (id, text, questions) paragraphs that match one;
    returns how many paragraphs kept their vectors."""
    by_model: dict[tuple[str, int], tuple[list[tuple[int, int]], list[Any]]] = {}
    kept = 0
    for pid, text, questions in paragraphs:
        found = held.get((text, tuple(questions)), ())
        kept += bool(found)
        for ord_, model, dim, embedding in found:
            keys, vectors = by_model.setdefault((model, dim), ([], []))
            keys.append((pid, ord_))
            vectors.append(embedding)
    for which, (keys, vectors) in by_model.items():
        stacked = np.stack([np.asarray(x, dtype=np.float32) for x in vectors])
        insert_vectors(session, context_id, source_pk, scopes, which, keys, stacked)
    return kept
