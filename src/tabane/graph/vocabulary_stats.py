"""Vocabulary statistics for resolve: spellings per (context, kind, scope set) and bigram
document frequencies per (context, kind, bigram, scope set), kept in the transaction that mints
or removes spellings (the precedent is BM25's `bm25_corpus` / `bm25_terms`, search/postings.py).

A caller's vocabulary size N and a bigram's df are sums over the rows it can see, so they equal
counting the `vocabulary` and `vocabulary_grams` rows it can see — without reading thousands of
postings per call. Statistic rows are locked in one order (the size row, then bigrams sorted) so
concurrent writers into one context cannot deadlock.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from sqlalchemy import ARRAY, BigInteger, Text, bindparam, func, literal, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from tabane.storage.schema import VocabEntry, VocabGram, VocabGramStats, VocabSize


def bump(
    session: Session,
    context_id: int,
    kind: str,
    scopes: Sequence[str],
    entries: int,
    df: Counter[str],
) -> None:
    """Add `entries` spellings and `df[gram]` postings per bigram (negative to remove them)."""
    if not entries and not df:
        return
    size = insert(VocabSize).values(
        context_id=context_id, kind=kind, scopes=list(scopes), entries=entries
    )
    session.execute(
        size.on_conflict_do_update(
            index_elements=[VocabSize.context_id, VocabSize.kind, VocabSize.scopes],
            set_={"entries": VocabSize.entries + size.excluded.entries},
        )
    )
    grams = sorted(g for g, n in df.items() if n)
    if not grams:
        return
    ins = insert(VocabGramStats).from_select(
        ["gram", "df", "context_id", "kind", "scopes"],
        select(
            func.unnest(bindparam("grams", grams, type_=ARRAY(Text(collation="C")))).label("gram"),
            func.unnest(bindparam("dfs", [df[g] for g in grams], type_=ARRAY(BigInteger()))).label(
                "df"
            ),
            literal(context_id, type_=VocabGramStats.context_id.type),
            literal(kind, type_=VocabGramStats.kind.type),
            literal(list(scopes), type_=VocabGramStats.scopes.type),
        ),
    )
    session.execute(
        ins.on_conflict_do_update(
            index_elements=[
                VocabGramStats.context_id,
                VocabGramStats.kind,
                VocabGramStats.gram,
                VocabGramStats.scopes,
            ],
            set_={"df": VocabGramStats.df + ins.excluded.df},
        )
    )


def unbump_entries(session: Session, entry_ids: Collection[int]) -> None:
    """Take spellings out of the statistics (call before deleting their rows)."""
    if not entry_ids:
        return
    ids = sorted(entry_ids)
    e, g = VocabEntry, VocabGram
    sizes = session.execute(
        select(e.context_id, e.kind, e.scopes, func.count())
        .where(e.id.in_(ids))
        .group_by(e.context_id, e.kind, e.scopes)
    ).all()
    grams = session.execute(
        select(g.context_id, g.kind, g.scopes, g.gram, func.count())
        .where(g.entry_id.in_(ids))
        .group_by(g.context_id, g.kind, g.scopes, g.gram)
    ).all()
    df: dict[tuple[int, str, tuple[str, ...]], Counter[str]] = {}
    for context_id, kind, scopes, gram, n in grams:
        df.setdefault((context_id, kind, tuple(scopes)), Counter())[gram] -= int(n)
    for context_id, kind, scopes, count in sorted(sizes, key=lambda r: (r[0], r[1], r[2])):
        key = (context_id, kind, tuple(scopes))
        bump(session, context_id, kind, scopes, -int(count), df.get(key, Counter()))


@dataclass(frozen=True)
class Frequencies:
    """What the caller can see of one vocabulary: N spellings, and the df of some bigrams."""

    entries: int
    df: dict[str, int]

    @classmethod
    def of(cls, grams: Collection[str], rows: Iterable[tuple[str | None, int]]) -> Frequencies:
        """From the rows of `frequency_rows` (the size row's gram is None)."""
        entries, df = 0, dict.fromkeys(grams, 0)
        for gram, n in rows:
            if gram is None:
                entries = int(n)
            else:
                df[gram] = int(n)
        return cls(entries, df)


GRAMS = ARRAY(Text(collation="C"))


@cache
def frequency_rows() -> Any:
    """(gram, n) rows: N under a None gram, then the df of each of the `grams` parameter (a
    text array) that occurs, summed over the visible scope sets — index lookups on the two
    unique keys. Parameters `context_id`, `kind`, `grams`: the statement is built once and its
    text is the same for every cue (building a statement costs more than running this one)."""
    size = select(
        literal(None, type_=Text(collation="C")).label("gram"),
        func.coalesce(func.sum(VocabSize.entries), 0).label("n"),
    ).where(VocabSize.context_id == bindparam("context_id"), VocabSize.kind == bindparam("kind"))
    s = VocabGramStats
    per_gram = (
        select(s.gram, func.sum(s.df).label("n"))
        .where(
            s.context_id == bindparam("context_id"),
            s.kind == bindparam("kind"),
            s.gram == func.any(bindparam("grams", type_=GRAMS)),
        )
        .group_by(s.gram)
    )
    return size.union_all(per_gram)


def frequencies(
    session: Session, context_id: int, kind: str, grams: Collection[str]
) -> Frequencies:
    """N and the df of each of `grams` (0 when absent), summed over the visible scope sets."""
    params = {"context_id": context_id, "kind": kind, "grams": sorted(grams)}
    rows = session.execute(frequency_rows(), params)
    return Frequencies.of(grams, ((r.gram, r.n) for r in rows))
