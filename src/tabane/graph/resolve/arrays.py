"""resolve's top mode over packed bigram postings (graph/gram_merge.py): the best `top`
canonical spellings of a cue, exact, without aggregating its postings in the executor.

A Latin typo shares a word with ~1,000 stored identifiers, and proving its top 10 needs ~8k of
its ~12.5k postings whatever the bound (docs/journal/benchmarks.md): counted by PostgreSQL's hash
aggregate that was ~8 ms. Here the cue's informative grams are read as one row each (their pack
and the postings written since, in one binary round trip), the number s of informative grams
every spelling shares with the cue is counted exactly in numpy, and Dice's upper bound
2s/(a + max(s, size − |stop|)) (b, the spelling's informative grams, is at least its bigram count
less the cue's over-common grams) orders the spellings. Their keys are then fetched and scored by
`score_key`, a batch at a time, until the `top`-th best canonical spelling scores above the next
bound: no spelling left can reach it. Ids of spellings removed since the last merge fetch no key.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any, NamedTuple, Protocol

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

from tabane.graph.gram_merge import RECORD, record
from tabane.graph.resolve.cue import Cue, Scored, best_per_canonical
from tabane.graph.resolve.sql import slack
from tabane.graph.vocabulary_stats import GRAMS
from tabane.storage.binary import binary_rows
from tabane.storage.schema import VocabEntry, VocabGram, VocabGramPack

BATCH = 48  # keys fetched and scored per round trip (one round for most Latin typos)


@cache
def _postings() -> Any:
    """The packs of the grams and the postings written since, as records (compiled once)."""
    ctx = bindparam("context_id", type_=Integer)
    kind = bindparam("kind", type_=Text)
    grams = bindparam("grams", type_=GRAMS)
    g, packed = VocabGram, VocabGramPack
    return union_all(
        select(packed.records).where(
            packed.context_id == ctx, packed.kind == kind, packed.gram == func.any(grams)
        ),
        select(func.string_agg(record(g), literal(b"", LargeBinary))).where(
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
    ids, first, counts = np.unique(
        records["id"].astype(np.int64), return_index=True, return_counts=True
    )
    return ids, counts.astype(np.int64), records["size"][first].astype(np.int64)


class Scores(Protocol):
    """What `rank_top` adds the fetched keys to (resolve_lexical's scored spellings)."""

    scored: dict[tuple[str, str], Scored]

    def add(self, rows: Sequence[Any]) -> None: ...


def rank_top(
    session: Session,
    context_id: int,
    kind: str,
    cue: Cue,
    floor: float,
    top: int,
    seen: Scores,
) -> bool:
    """Score (`seen.add`) the fuzzy candidates in bound order until the best `top` canonical
    spellings of everything in `seen` are proven; True when every candidate reaching `floor` was
    scored (the ranking is then complete, not only its top)."""
    ids, s, size = shared(session, context_id, kind, sorted(cue.informative))
    a = len(cue.informative)
    bound = 2 * s / (a + np.maximum(s, size - len(cue.stop)))
    keep = bound >= slack(floor)
    order = np.argsort(-bound[keep], kind="stable")  # ties by id: ids come sorted
    ids, bound = ids[keep][order], bound[keep][order]
    at = 0
    while at < len(ids):
        batch = ids[at : at + BATCH].tolist()
        at += BATCH
        seen.add([Spelling(*r) for r in binary_rows(session, _keys(), {"ids": batch})])
        if at < len(ids):
            ranked = best_per_canonical(list(seen.scored.values()), cue.text)
            if len(ranked) >= top and ranked[top - 1].score > bound[at]:
                return False
    return True
