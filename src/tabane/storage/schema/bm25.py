"""The BM25 index's tables: packed postings per (source, term), their merged copies per
(context, term, scope set), and the statistics (search/postings.py, search/merge.py)."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    SmallInteger,
    Text,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column

from tabane.storage import rls
from tabane.storage.schema.base import Base, Scoped, _same_scopes


class Pack(Scoped, Base):
    """The BM25 postings of one term in one source, packed: one fixed-width record per paragraph
    that holds the term (search/postings.py `PACK`: paragraph id, tf, qtf, dl), ascending by
    paragraph id. Written in the transaction that writes the source's paragraphs and deleted with
    them. `tf` counts the term in the text and the doc2query questions, `qtf` in the questions
    alone, `dl` is the paragraph's length in terms. One row per (source, term) keeps a query's
    read to one row per source holding each term, however many paragraphs hold it."""

    __no_scope_index__ = True
    __tablename__ = "bm25_packs"
    __extra_args__ = (
        Index("ix_bm25_packs_lookup", "context_id", "term"),
        Index("ix_bm25_packs_fresh", "context_id", "term", postgresql_where=text("NOT merged")),
        _same_scopes("source_pk", "sources"),
    )
    source_pk: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    term: Mapped[str] = mapped_column(Text(collation="C"), primary_key=True)
    context_id: Mapped[int] = mapped_column(Integer)
    postings: Mapped[bytes] = mapped_column(LargeBinary)
    # folded into the context's `bm25_merged` rows of its scope set (search/merge.py)
    merged: Mapped[bool] = mapped_column(Boolean, server_default=false())


class MergedPack(Scoped, Base):
    """Every pack of one term in one context and scope set, concatenated (search/merge.py): a
    question reads one row per term instead of one per source. Derived from `bm25_packs`, whose
    rows stay the truth; the packs folded in are flagged `merged`. Paragraphs removed since are
    masked by `bm25_dead` until the next merge rebuilds the rows: a row is masked only by the
    masks written after it was rebuilt (`masked_upto`: the newest mask id it already accounts
    for), so a paragraph re-indexed in place (same id, new pack) folded in by one step of a
    merge is not hidden by its own older mask."""

    __no_scope_index__ = True
    __tablename__ = "bm25_merged"
    __rls__ = rls.SCOPED_IN_CONTEXT
    context_id: Mapped[int] = mapped_column(
        ForeignKey("contexts.id", ondelete="CASCADE"), primary_key=True
    )
    term: Mapped[str] = mapped_column(Text(collation="C"), primary_key=True)
    scopes: Mapped[list[str]] = mapped_column(ARRAY(Text), primary_key=True)
    postings: Mapped[bytes] = mapped_column(LargeBinary)
    masked_upto: Mapped[int] = mapped_column(BigInteger, server_default="0")
    # the postings' byte format (search/codec.py): 0 PACK (rows written before migration 0040),
    # 1 compact; the merge writes 1 and converts the 0s in steps (search/merge.py)
    format: Mapped[int] = mapped_column(SmallInteger, server_default="0")


class DeadPostings(Scoped, Base):
    """The paragraph ids (big-endian int8) of a merged source that was removed or replaced
    after its packs were merged: masked out of `bm25_merged` until the next merge."""

    __no_scope_index__ = True
    __tablename__ = "bm25_dead"
    __rls__ = rls.SCOPED_IN_CONTEXT
    __extra_args__ = (Index("ix_bm25_dead_context", "context_id"),)
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    context_id: Mapped[int] = mapped_column(ForeignKey("contexts.id", ondelete="CASCADE"))
    ids: Mapped[bytes] = mapped_column(LargeBinary)


class CorpusStats(Scoped, Base):
    """BM25 corpus statistics of one context, one row per scope set: a caller's statistics are
    the sums over the rows it can see, so they never count what it cannot see."""

    __no_scope_index__ = True
    __tablename__ = "bm25_corpus"
    __rls__ = rls.SCOPED_IN_CONTEXT
    __extra_args__ = (UniqueConstraint("context_id", "scopes"),)
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    context_id: Mapped[int] = mapped_column(ForeignKey("contexts.id", ondelete="CASCADE"))
    paragraphs: Mapped[int] = mapped_column(BigInteger, server_default="0")
    total_length: Mapped[int] = mapped_column(BigInteger, server_default="0")


class TermStats(Scoped, Base):
    """Document frequency of a term in one context and scope set (see CorpusStats)."""

    __no_scope_index__ = True
    __tablename__ = "bm25_terms"
    __rls__ = rls.SCOPED_IN_CONTEXT
    __extra_args__ = (UniqueConstraint("context_id", "term", "scopes"),)
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    context_id: Mapped[int] = mapped_column(ForeignKey("contexts.id", ondelete="CASCADE"))
    term: Mapped[str] = mapped_column(Text(collation="C"))
    df: Mapped[int] = mapped_column(BigInteger, server_default="0")
