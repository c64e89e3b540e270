"""resolve's top mode over packed bigram postings (graph/gram_merge.py): the best `top`
canonical spellings of a cue, exact, without aggregating its postings in the executor.

A Latin typo shares a word with ~1,000 stored identifiers, and proving its top 10 needs ~8k of
its ~12.5k postings whatever bound is guessed (docs/benchmarks.md): counted by PostgreSQL's hash
aggregate that was ~8 ms. Here the cue's informative grams are read as one row each (their pack
and the postings written since, in one binary round trip), the number s of informative grams
every spelling shares with the cue is counted exactly in numpy, and Dice's upper bound
2s/(a + max(s, size − |stop|)) (b, the spelling's informative grams, is at least its bigram count
less the cue's over-common grams) orders the spellings. Their keys are then fetched and scored by
`score_key`, a batch at a time, until the `top`-th best canonical spelling scores above the next
bound: no spelling left can reach it. Ids of spellings removed since the last merge fetch no key.
"""

from __future__ import annotations

from functools import cache
from typing import Any, NamedTuple

import numpy as np
from sqlalchemy import (
    ARRAY,
    BigInteger,
    Integer,
    LargeBinary,
    Text,
    bindparam,
    func,
    literal,
    select,
    union_all,
)
from sqlalchemy.orm import Session

from tabane.graph.gram_merge import RECORD
from tabane.graph.resolve_cue import Cue, best_per_canonical
from tabane.graph.resolve_sql import slack
from tabane.graph.vocabulary_stats import GRAMS
from tabane.storage.binary import binary_rows
from tabane.storage.schema import VocabEntry, VocabGram, VocabGramPack

BATCH = 48  # keys fetched and scored per round trip (one round for most Latin typos)
# Count by id offset (np.bincount) when the ids span at most DENSE times as many values as there
# are postings, else sort them (np.unique): both exact, the first ~2× faster for a context's ids.
DENSE = 16


@cache
def _postings() -> Any:
    """The packs of the grams and the postings written since, as records (compiled once)."""
    ctx = bindparam("context_id", type_=Integer)
    kind = bindparam("kind", type_=Text)
    grams = bindparam("grams", type_=GRAMS)
    g, packed = VocabGram, VocabGramPack
    record = func.int8send(g.entry_id).op("||")(func.int4send(g.size))
    return union_all(
        select(packed.records).where(
            packed.context_id == ctx, packed.kind == kind, packed.gram == func.any(grams)
        ),
        select(func.string_agg(record, literal(b"", LargeBinary))).where(
            g.context_id == ctx, g.kind == kind, g.gram == func.any(grams), ~g.merged
        ),
    )


class Spelling(NamedTuple):
    name: str
    alias_of: str | None
    key: str


@cache
def _keys() -> Any:
    v = VocabEntry
    ids = bindparam("ids", type_=ARRAY(BigInteger))
    return select(v.name, v.alias_of, v.key).where(v.id == func.any(ids))


def shared(
    session: Session, context_id: int, kind: str, grams: list[str]
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """(ids, s, size): every spelling carrying one of `grams`, how many of them it carries, and
    its bigram count."""
    params = {"context_id": context_id, "kind": kind, "grams": grams}
    blobs = [bytes(r[0]) for r in binary_rows(session, _postings(), params) if r[0]]
    if not blobs:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    records = np.frombuffer(b"".join(blobs), dtype=RECORD)
    every = records["id"].astype(np.int64)
    low = int(every.min())
    span = int(every.max()) - low + 1
    if span > DENSE * len(every):  # ids spread thin (a store of many contexts): sort them
        ids, first, counts = np.unique(every, return_index=True, return_counts=True)
        return ids, counts.astype(np.int64), records["size"][first].astype(np.int64)
    counts = np.bincount(every - low, minlength=span)  # a context's ids are mostly dense
    sizes = np.zeros(span, dtype=np.int64)
    sizes[every - low] = records["size"]
    at = np.flatnonzero(counts)
    return at + low, counts[at].astype(np.int64), sizes[at]


def rank_top(
    session: Session,
    context_id: int,
    kind: str,
    cue: Cue,
    floor: float,
    top: int,
    seen: Any,
) -> bool:
    """Score (`seen.add`) the fuzzy candidates in bound order until the best `top` canonical
    spellings of everything in `seen` are proven; True when every candidate reaching `floor` was
    scored (the ranking is then complete, not only its top)."""
    ids, s, size = shared(session, context_id, kind, sorted(cue.informative))
    a = len(cue.informative)
    bound = 2 * s / (a + np.maximum(s, size - len(cue.stop)))
    keep = bound >= slack(floor)
    ids, bound = ids[keep], bound[keep]
    # The first batch by partial selection (most cues need one); the rest sorted if needed.
    head = np.argpartition(-bound, BATCH)[:BATCH] if len(ids) > BATCH else np.arange(len(ids))
    head = head[np.lexsort((ids[head], -bound[head]))]
    others = np.ones(len(ids), dtype=bool)
    others[head] = False
    rest = np.flatnonzero(others)
    ids = np.concatenate([ids[head], ids[rest]])
    bound = np.concatenate([bound[head], bound[rest]])
    sorted_rest = False
    at = 0
    while at < len(ids):
        if at >= BATCH and not sorted_rest:  # a second round: order the rest as well
            order = np.lexsort((ids[at:], -bound[at:])) + at
            ids[at:], bound[at:] = ids[order], bound[order]
            sorted_rest = True
        batch = ids[at : at + BATCH].tolist()
        at += BATCH
        seen.add([Spelling(*r) for r in binary_rows(session, _keys(), {"ids": batch})])
        if at < len(ids):
            ranked = best_per_canonical(list(seen.scored.values()))
            best_left = bound[at] if sorted_rest else bound[at:].max()
            if len(ranked) >= top and ranked[top - 1].score > best_left:
                return False
    return True
