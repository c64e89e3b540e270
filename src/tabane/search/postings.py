"""BM25 postings (packed per source and term) and statistics, written and removed in the same
transaction as the paragraphs.

Statistics are kept per (context, scope set): a caller's N, average length and document
frequencies are sums over the rows it can see, so a search never counts what it cannot see and a
filter never changes them. Statistic rows are always locked in one order (the corpus row, then
terms sorted) so concurrent writers into one context cannot deadlock.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import (
    ARRAY,
    BigInteger,
    BindParameter,
    LargeBinary,
    Text,
    bindparam,
    delete,
    func,
    literal,
    select,
)
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from tabane.search.codec import PACK, Records, decode, pack
from tabane.storage.bulk import copy_columns, flush_deferred
from tabane.storage.schema import CorpusStats, DeadPostings, Pack, Paragraph, TermStats
from tabane.text.analyze import index_terms


@dataclass(frozen=True)
class Terms:
    """The index terms of one paragraph: counts from its text, from its heading (the source's
    title and the paragraph's section path) and from its questions. A term's tf sums the
    three; `qtf` keeps the questions' share apart (explain shows what a question matched)."""

    text: Counter[str]
    questions: Counter[str]
    heading: Counter[str] = field(default_factory=Counter)

    @property
    def length(self) -> int:
        return sum(self.text.values()) + sum(self.heading.values()) + sum(self.questions.values())


def heading_tokens(title: str | None, section: Sequence[str]) -> list[str]:
    """The tokens a paragraph inherits from its place: the source's title, then each heading
    of its section path. An option description, an "Example:" block or a reply in a
    conversation rarely repeats the command, module or person its headings name, while the
    questions asked about it do (docs/journal/eval.md, "headings")."""
    tokens = index_terms(title) if title else []
    for heading in section:
        tokens += index_terms(heading)
    return tokens


def terms_of(text: str, questions: Sequence[str] = (), heading: Sequence[str] = ()) -> Terms:
    asked: Counter[str] = Counter()
    for q in questions:
        asked.update(index_terms(q))
    return Terms(Counter(index_terms(text)), asked, Counter(heading))


# A masked paragraph id in `bm25_dead.ids` (search/merge.py), in the same byte order.
DEAD_ID = np.dtype(">i8")


def add(
    session: Session,
    context_id: int,
    source_pk: int,
    scopes: Sequence[str],
    paragraphs: Sequence[tuple[int, Terms]],
) -> None:
    """Write the packed postings of a source's freshly inserted paragraphs (one row per term)
    and add them to the statistics. Called once per source version: re-ingest clears first."""
    if not paragraphs:
        return
    names, packs, df, total = _packed(paragraphs)
    _bump(session, context_id, list(scopes), len(paragraphs), total, df)
    copy_columns(
        session,
        Pack.__table__,  # type: ignore[arg-type]
        {"term": names, "postings": packs},
        {"context_id": context_id, "source_pk": source_pk, "scopes": list(scopes)},
    )


def _packed(
    paragraphs: Sequence[tuple[int, Terms]],
) -> tuple[list[str], list[bytes], Counter[str], int]:
    """The packs of `paragraphs` (terms sorted, each pack's records by paragraph id), their
    document frequencies and total length. One flat record array is built and cut per term:
    a list of tuples per term made into an array each cost more than the analysis."""
    index: dict[str, int] = {}
    term_of: list[int] = []
    fields: list[int] = []  # id, tf, qtf, dl per record, flat
    total = 0
    for pid, terms in sorted(paragraphs, key=lambda item: item[0]):
        dl = terms.length
        total += dl
        asked = terms.questions
        counts = dict(terms.text)
        for extra in (terms.heading, asked):
            for term, n in extra.items():
                counts[term] = counts.get(term, 0) + n
        for term, tf in counts.items():
            term_of.append(index.setdefault(term, len(index)))
            fields += (pid, tf, asked.get(term, 0) if asked else 0, dl)
    names = sorted(index)
    rank = np.empty(len(names), dtype=np.int64)
    rank[[index[name] for name in names]] = np.arange(len(names))
    keys = rank[np.asarray(term_of, dtype=np.int64)]
    order = np.argsort(keys, kind="stable")  # by term, then (stable) by paragraph id
    flat = np.asarray(fields, dtype=np.int64).reshape(-1, 4)[order]
    counts_per_term = np.bincount(keys, minlength=len(names))
    bounds = np.concatenate(([0], np.cumsum(counts_per_term))) * PACK.itemsize
    blob = pack(Records(*flat.T))  # codec.py: fresh packs are PACK records
    packs = [blob[bounds[i] : bounds[i + 1]] for i in range(len(names))]
    df = Counter(dict(zip(names, counts_per_term.tolist(), strict=True)))
    return names, packs, df, total


def unpack(blob: bytes) -> Records:
    """The records of one or more concatenated packs, or of a merged row (codec.py)."""
    return decode(blob)


def remove(session: Session, context_id: int, source_pk: int) -> None:
    """Take a source's paragraphs out of the statistics and delete its packs (call before the
    paragraphs themselves are deleted); the paragraphs of packs already merged are recorded in
    `bm25_dead` (search/merge.py)."""
    flush_deferred(session)  # a source written earlier in this transaction is read here
    sizes = session.execute(
        select(Paragraph.scopes, func.count(), func.coalesce(func.sum(Paragraph.token_count), 0))
        .where(Paragraph.source_pk == source_pk)
        .group_by(Paragraph.scopes)
    ).all()
    for scopes, count, length in sizes:
        rows = session.execute(
            select(Pack.term, func.length(Pack.postings) / PACK.itemsize).where(
                Pack.source_pk == source_pk, Pack.scopes == scopes
            )
        ).all()
        df = Counter({term: -int(n) for term, n in rows})
        _bump(session, context_id, list(scopes), -count, -int(length), df)
    # Read after _bump holds the statistics row, so a merge that committed meanwhile is seen.
    folded = session.execute(
        select(Pack.scopes, func.string_agg(Pack.postings, literal(b"", LargeBinary)))
        .where(Pack.source_pk == source_pk, Pack.merged)
        .group_by(Pack.scopes)
    ).all()
    for scopes, blob in folded:  # merged packs: mask their paragraphs until the next merge
        ids = np.unique(unpack(bytes(blob))["id"].astype(np.int64))
        session.add(
            DeadPostings(
                context_id=context_id, scopes=list(scopes), ids=ids.astype(DEAD_ID).tobytes()
            )
        )
    session.flush()
    session.execute(delete(Pack).where(Pack.source_pk == source_pk))


_BATCH = "tabane.postings.batch"  # session.info key of the statistics summed in `batched`


@dataclass
class _Sums:
    paragraphs: int = 0
    length: int = 0
    df: Counter[str] = field(default_factory=Counter)


@contextmanager
def batched(session: Session) -> Iterator[None]:
    """Within the block, the statistics of the sources written in this transaction are summed
    in memory and written once, on the way out, a row per term and scope set. Updating a term's
    row once per source made a transaction that writes hundreds of sources (an import) read
    ever longer chains of its own row versions: a frequent term's row had one per source."""
    sums: dict[tuple[int, tuple[str, ...]], _Sums] = {}
    session.info[_BATCH] = sums
    try:
        yield
    finally:
        del session.info[_BATCH]
    for (context_id, scopes), total in sorted(sums.items()):
        _bump(session, context_id, list(scopes), total.paragraphs, total.length, total.df)


def _bump(
    session: Session,
    context_id: int,
    scopes: list[str],
    paragraphs: int,
    length: int,
    df: Counter[str],
) -> None:
    batch: dict[tuple[int, tuple[str, ...]], _Sums] | None = session.info.get(_BATCH)
    if batch is not None:
        total = batch.setdefault((context_id, tuple(scopes)), _Sums())
        total.paragraphs += paragraphs
        total.length += length
        total.df.update(df)
        return
    stmt = insert(CorpusStats).values(
        context_id=context_id, scopes=scopes, paragraphs=paragraphs, total_length=length
    )
    session.execute(
        stmt.on_conflict_do_update(
            index_elements=[CorpusStats.context_id, CorpusStats.scopes],
            set_={
                "paragraphs": CorpusStats.paragraphs + stmt.excluded.paragraphs,
                "total_length": CorpusStats.total_length + stmt.excluded.total_length,
            },
        )
    )
    if not df:
        return
    terms = sorted(df)
    ins = insert(TermStats).from_select(
        ["term", "df", "context_id", "scopes"],
        select(
            func.unnest(_array("terms", terms, Text(collation="C"))).label("term"),
            func.unnest(_array("dfs", [df[t] for t in terms], BigInteger())).label("df"),
            literal(context_id, type_=TermStats.context_id.type),
            literal(scopes, type_=TermStats.scopes.type),
        ),
    )
    session.execute(
        ins.on_conflict_do_update(
            index_elements=[TermStats.context_id, TermStats.term, TermStats.scopes],
            set_={"df": TermStats.df + ins.excluded.df},
        )
    )


def _array(name: str, values: Sequence[Any], item: Any) -> BindParameter[Any]:
    return bindparam(name, list(values), type_=ARRAY(item))
