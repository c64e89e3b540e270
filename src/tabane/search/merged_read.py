"""The BM25 postings read through the merged rows (search/merge.py) in one statement: each
term's merged rows and the packs written since, the paragraphs removed since masked out, and the
corpus row's N and total length the caller can see."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
from sqlalchemy import (
    ARRAY,
    BigInteger,
    Boolean,
    CompoundSelect,
    Integer,
    LargeBinary,
    Text,
    bindparam,
    cast,
    false,
    func,
    literal,
    null,
    select,
    true,
    union_all,
)
from sqlalchemy.orm import Session

from tabane.search import postings
from tabane.search.codec import Records, decode
from tabane.storage.binary import binary_rows
from tabane.storage.schema import CorpusStats, DeadPostings, MergedPack, Pack


def read_merged(
    session: Session, context_id: int, terms: Sequence[str]
) -> tuple[dict[str, Records], tuple[int, int]]:
    """The same postings through the merged rows (search/merge.py): each term's merged rows and
    the packs written since, then the paragraphs removed since masked out; and the corpus
    row's N and total length the caller can see — one statement."""
    rows = binary_rows(session, _statement(), {"bm25_ctx": context_id, "bm25_terms": list(terms)})
    masks = [(tuple(sc), int(at), blob) for term, _, at, sc, blob in rows if term is None and blob]
    parts: dict[str, list[Records]] = {}
    corpus = (0, 0)
    for term, merged, upto, scopes, blob in rows:
        if term == CORPUS_ROW:
            n, total = np.frombuffer(bytes(blob), dtype=">i8").tolist()
            corpus = (int(n), int(total))
        elif term is not None:
            recs = decode(blob)  # a merged row compact or PACK (codec.py), fresh packs PACK
            # a mask hides merged records only (a source re-indexed in place writes fresh packs,
            # same ids), of its own scope set, and of rows rebuilt before it was written
            own = tuple(scopes or ())
            later = [b for sc, at, b in masks if merged and sc == own and at > upto]
            dead = masked_ids(later) if later else ()
            if len(dead):
                recs = recs[~np.isin(recs.id, dead)]
            parts.setdefault(term, []).append(recs)
    out = {t: Records.concat(p) for t, p in parts.items()}
    return out, corpus


# The merged read's row of corpus sums carries this term (the tokenizer never yields it).
CORPUS_ROW = ""


@functools.cache
def _statement() -> CompoundSelect[Any]:
    """Built and compiled once (binary_rows): per term, its merged rows (one per scope set and
    `masked_upto`) and its fresh packs (flagged `merged` or not), one row with a NULL term per
    `bm25_dead` row of the context (its id, scope set and masked ids), and one (`CORPUS_ROW`)
    holding the visible corpus rows' N and total length as two int8."""
    ctx = bindparam("bm25_ctx", type_=Integer)
    wanted = bindparam("bm25_terms", type_=ARRAY(Text(collation="C")))
    both = union_all(
        select(
            MergedPack.term,
            true().label("merged"),
            MergedPack.masked_upto,
            MergedPack.scopes,
            MergedPack.postings,
        ).where(MergedPack.context_id == ctx, MergedPack.term == func.any(wanted)),
        select(Pack.term, false(), literal(0, BigInteger), Pack.scopes, Pack.postings).where(
            Pack.context_id == ctx, Pack.term == func.any(wanted), ~Pack.merged
        ),
    ).subquery("postings")
    blank = literal(b"", LargeBinary)

    def int8(column: Any) -> Any:
        return func.int8send(cast(func.coalesce(func.sum(column), 0), BigInteger))

    return union_all(
        select(
            both.c.term,
            both.c.merged,
            both.c.masked_upto,
            both.c.scopes,
            func.string_agg(both.c.postings, blank),
        ).group_by(both.c.term, both.c.merged, both.c.masked_upto, both.c.scopes),
        select(
            null().label("term"),
            null().cast(Boolean),
            DeadPostings.id,
            DeadPostings.scopes,
            DeadPostings.ids,
        ).where(DeadPostings.context_id == ctx),
        select(
            literal(CORPUS_ROW, Text(collation="C")),
            null().cast(Boolean),
            literal(0, BigInteger),
            null().cast(ARRAY(Text)),
            int8(CorpusStats.paragraphs).op("||")(int8(CorpusStats.total_length)),
        ).where(CorpusStats.context_id == ctx),
    )


def masked_ids(blobs: Sequence[bytes | None]) -> np.ndarray[Any, np.dtype[np.int64]]:
    """Masked paragraph ids (`bm25_dead.ids`, big-endian int8) of the blobs read."""
    raw = b"".join(bytes(b) for b in blobs if b)
    return np.frombuffer(raw, dtype=postings.DEAD_ID).astype(np.int64)
