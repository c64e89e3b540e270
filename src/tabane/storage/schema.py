"""The schema as SQLAlchemy 2.0 typed mappings.

Reference tables (users, scopes, grants) are read-only to the application role. Every content table
mixes in `Scoped`: a non-empty scope set, indexed, compared by the row-level-security policies that
the migrations install (see storage/rls.py). Per-context tables carry `context_id` so they can
later be co-located on it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pgvector.sqlalchemy import Vector
from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    Text,
    UniqueConstraint,
    func,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, declared_attr, mapped_column

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


def _now() -> Any:
    return mapped_column(DateTime(timezone=True), server_default=func.now(), nullable=False)


def _same_scopes(column: str, parent: str) -> ForeignKeyConstraint:
    """A child row must name its parent AND carry the parent's exact scope set.

    A foreign-key check is not a read: without the scope set in the key, a caller could attach a
    row it may write under a parent it cannot see. With it, the parent's scopes equal the child's,
    which RLS has already checked against the caller's write set. Scope sets are stored sorted
    (`types.scope_set`), so equal sets compare equal."""
    return ForeignKeyConstraint(
        [column, "scopes"],
        [f"{parent}.id", f"{parent}.scopes"],
        onupdate="CASCADE",
        ondelete="CASCADE",
    )


class Scoped:
    """A content row: a non-empty set of scope names, compared by the RLS policies."""

    scopes: Mapped[list[str]] = mapped_column(ARRAY(Text), nullable=False)

    @declared_attr.directive
    def __table_args__(cls) -> tuple[Any, ...]:
        name = cls.__tablename__  # type: ignore[attr-defined]
        # Large derived tables (postings, vectors) are reached through other indexes; a GIN index
        # on their scope sets would only slow every write.
        gin = (
            ()
            if getattr(cls, "__no_scope_index__", False)
            else (Index(f"ix_{name}_scopes", "scopes", postgresql_using="gin"),)
        )
        return (
            CheckConstraint("cardinality(scopes) >= 1", name="scopes_nonempty"),
            *gin,
            *getattr(cls, "__extra_args__", ()),
        )


SCOPED_TABLES = (
    "contexts",
    "groups",
    "group_contexts",
    "group_children",
    "sources",
    "sections",
    "paragraphs",
    "postings",
    "bm25_corpus",
    "bm25_terms",
    "paragraph_vectors",
    "vocabulary",
    "vocabulary_grams",
    "vocabulary_vectors",
    "claims",
    "associations",
)


class User(Base):
    __tablename__ = "users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(Text, unique=True)
    created_at: Mapped[datetime] = _now()


class Scope(Base):
    __tablename__ = "scopes"
    name: Mapped[str] = mapped_column(Text, primary_key=True)
    description: Mapped[str] = mapped_column(Text, server_default="")
    created_at: Mapped[datetime] = _now()


class Grant(Base):
    """A user may read `scope`; with `can_write` also write it (write ⊆ read by construction)."""

    __tablename__ = "grants"
    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    scope: Mapped[str] = mapped_column(
        ForeignKey("scopes.name", ondelete="CASCADE", onupdate="CASCADE"), primary_key=True
    )
    can_write: Mapped[bool] = mapped_column(Boolean, server_default="false")


class Context(Scoped, Base):
    __tablename__ = "contexts"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(Text, unique=True)
    description: Mapped[str] = mapped_column(Text, server_default="")
    dice_floor: Mapped[float] = mapped_column(Float, server_default="0.3")
    semantic_floor: Mapped[float | None] = mapped_column(Float)
    created_at: Mapped[datetime] = _now()
    updated_at: Mapped[datetime] = _now()


class ContextUsage(Base):
    """Usage counters; anyone who can see the context may bump them (policy in rls.py)."""

    __tablename__ = "context_usage"
    context_id: Mapped[int] = mapped_column(
        ForeignKey("contexts.id", ondelete="CASCADE"), primary_key=True
    )
    reads: Mapped[int] = mapped_column(BigInteger, server_default="0")
    misses: Mapped[int] = mapped_column(BigInteger, server_default="0")
    writes: Mapped[int] = mapped_column(BigInteger, server_default="0")
    last_access: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class Group(Scoped, Base):
    __tablename__ = "groups"
    __extra_args__ = (UniqueConstraint("id", "scopes"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(Text, unique=True)
    description: Mapped[str] = mapped_column(Text, server_default="")
    created_at: Mapped[datetime] = _now()


class GroupContext(Scoped, Base):
    """Membership of a context in a group; carries the group's scope set."""

    __tablename__ = "group_contexts"
    __extra_args__ = (_same_scopes("group_id", "groups"),)
    group_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    context_id: Mapped[int] = mapped_column(
        ForeignKey("contexts.id", ondelete="CASCADE"), primary_key=True, index=True
    )


class GroupChild(Scoped, Base):
    """A child group inside a parent group; carries the parent's scope set."""

    __tablename__ = "group_children"
    __extra_args__ = (
        CheckConstraint("parent_id <> child_id", name="not_self"),
        _same_scopes("parent_id", "groups"),
    )
    parent_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    child_id: Mapped[int] = mapped_column(
        ForeignKey("groups.id", ondelete="CASCADE"), primary_key=True, index=True
    )


class Source(Scoped, Base):
    __tablename__ = "sources"
    __extra_args__ = (
        UniqueConstraint("context_id", "source_id"),
        UniqueConstraint("id", "scopes"),
        CheckConstraint(
            "state in ('active', 'waiting', 'someday', 'done', 'archived')", name="state_known"
        ),
    )
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    context_id: Mapped[int] = mapped_column(ForeignKey("contexts.id", ondelete="CASCADE"))
    source_id: Mapped[str] = mapped_column(Text)
    title: Mapped[str] = mapped_column(Text, server_default="")
    format: Mapped[str] = mapped_column(Text, server_default="text")
    date: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    tags: Mapped[list[str]] = mapped_column(ARRAY(Text), server_default="{}")
    area: Mapped[str | None] = mapped_column(Text)
    state: Mapped[str] = mapped_column(Text, server_default="active")
    content_hash: Mapped[str] = mapped_column(Text)
    raw_hash: Mapped[str | None] = mapped_column(Text)  # of the bytes read; skips re-parsing
    byte_size: Mapped[int] = mapped_column(BigInteger, server_default="0")
    paragraph_count: Mapped[int] = mapped_column(Integer, server_default="0")
    stored_at: Mapped[datetime] = _now()
    retracted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    retract_reason: Mapped[str | None] = mapped_column(Text)
    origin: Mapped[str | None] = mapped_column(Text)  # the folder a sync took it from


class Section(Scoped, Base):
    """A heading of a source; `path` is the full heading path, outermost first."""

    __tablename__ = "sections"
    __extra_args__ = (
        UniqueConstraint("source_pk", "ordinal"),
        _same_scopes("source_pk", "sources"),
    )
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    source_pk: Mapped[int] = mapped_column(BigInteger)
    context_id: Mapped[int] = mapped_column(Integer, index=True)
    ordinal: Mapped[int] = mapped_column(Integer)
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("sections.id", ondelete="CASCADE"))
    path: Mapped[list[str]] = mapped_column(ARRAY(Text))
    title: Mapped[str] = mapped_column(Text)
    level: Mapped[int] = mapped_column(Integer)


class Paragraph(Scoped, Base):
    """One paragraph; `scopes` is its source's set (denormalized so scans filter cheaply)."""

    __tablename__ = "paragraphs"
    __extra_args__ = (
        UniqueConstraint("source_pk", "idx"),
        UniqueConstraint("id", "scopes"),
        _same_scopes("source_pk", "sources"),
    )
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    source_pk: Mapped[int] = mapped_column(BigInteger)
    context_id: Mapped[int] = mapped_column(Integer, index=True)
    idx: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    section_id: Mapped[int | None] = mapped_column(ForeignKey("sections.id", ondelete="SET NULL"))
    section_path: Mapped[list[str]] = mapped_column(ARRAY(Text), server_default="{}")
    locator: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    questions: Mapped[list[str]] = mapped_column(ARRAY(Text), server_default="{}")
    token_count: Mapped[int] = mapped_column(Integer, server_default="0")  # BM25 document length


class Posting(Scoped, Base):
    """One term of one paragraph (text and doc2query questions), written with the paragraph.

    `tf` counts the term in the text and the questions, `qtf` in the questions alone, `dl` is the
    paragraph's length in terms. The covering index answers a BM25 query without the heap."""

    __no_scope_index__ = True
    __tablename__ = "postings"
    __extra_args__ = (
        Index(
            "ix_postings_lookup",
            "context_id",
            "term",
            postgresql_include=["paragraph_id", "source_pk", "tf", "qtf", "dl", "scopes"],
        ),
        _same_scopes("paragraph_id", "paragraphs"),
    )
    paragraph_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    term: Mapped[str] = mapped_column(Text(collation="C"), primary_key=True)
    context_id: Mapped[int] = mapped_column(Integer)
    source_pk: Mapped[int] = mapped_column(BigInteger, index=True)
    tf: Mapped[int] = mapped_column(Integer)
    qtf: Mapped[int] = mapped_column(Integer, server_default="0")
    dl: Mapped[int] = mapped_column(Integer)


class CorpusStats(Scoped, Base):
    """BM25 corpus statistics of one context, one row per scope set: a caller's statistics are
    the sums over the rows it can see, so they never count what it cannot see."""

    __no_scope_index__ = True
    __tablename__ = "bm25_corpus"
    __extra_args__ = (UniqueConstraint("context_id", "scopes"),)
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    context_id: Mapped[int] = mapped_column(ForeignKey("contexts.id", ondelete="CASCADE"))
    paragraphs: Mapped[int] = mapped_column(BigInteger, server_default="0")
    total_length: Mapped[int] = mapped_column(BigInteger, server_default="0")


class TermStats(Scoped, Base):
    """Document frequency of a term in one context and scope set (see CorpusStats)."""

    __no_scope_index__ = True
    __tablename__ = "bm25_terms"
    __extra_args__ = (UniqueConstraint("context_id", "term", "scopes"),)
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    context_id: Mapped[int] = mapped_column(ForeignKey("contexts.id", ondelete="CASCADE"))
    term: Mapped[str] = mapped_column(Text(collation="C"))
    df: Mapped[int] = mapped_column(BigInteger, server_default="0")


class ParagraphVector(Scoped, Base):
    """An embedding of a paragraph (`ord` 0) or of its doc2query question `ord` (1-based).

    The column has no fixed width; per-width HNSW indexes cover `embedding::vector(dim)`."""

    __no_scope_index__ = True
    __tablename__ = "paragraph_vectors"
    __extra_args__ = (_same_scopes("paragraph_id", "paragraphs"),)
    paragraph_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    ord: Mapped[int] = mapped_column(Integer, primary_key=True)
    context_id: Mapped[int] = mapped_column(Integer, index=True)
    source_pk: Mapped[int] = mapped_column(BigInteger, index=True)
    model: Mapped[str] = mapped_column(Text, primary_key=True)  # models coexist until re-embedded
    dim: Mapped[int] = mapped_column(Integer)
    embedding: Mapped[Any] = mapped_column(Vector())


class VocabEntry(Scoped, Base):
    """A spelling in a context's graph vocabulary: a concept or a label, canonical or an alias.

    One row per (spelling, scope set): who may see a spelling is who may see the claims that
    minted it. `norm` is the normalized form (NFKC, case folding, katakana → hiragana); `key`
    is `norm` without separators, the form resolve matches exactly and cuts into bigrams. An alias
    row names its canonical spelling in `alias_of` and is entry-only."""

    __tablename__ = "vocabulary"
    __extra_args__ = (
        UniqueConstraint("context_id", "kind", "name", "scopes"),
        UniqueConstraint("id", "scopes"),
        Index("ix_vocabulary_key", "context_id", "kind", "key"),
        CheckConstraint("kind in ('concept', 'label')", name="kind_known"),
        CheckConstraint("name <> ''", name="name_nonempty"),
    )
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    context_id: Mapped[int] = mapped_column(ForeignKey("contexts.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(Text)
    name: Mapped[str] = mapped_column(Text)
    norm: Mapped[str] = mapped_column(Text)
    key: Mapped[str] = mapped_column(Text(collation="C"))
    grams: Mapped[int] = mapped_column(Integer, server_default="0")  # distinct bigrams of key
    alias_of: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = _now()


class VocabGram(Scoped, Base):
    """One character bigram of a vocabulary key: the inverted index of resolve's fuzzy tier."""

    __no_scope_index__ = True
    __tablename__ = "vocabulary_grams"
    __extra_args__ = (
        Index(
            "ix_vocabulary_grams_lookup",
            "context_id",
            "kind",
            "gram",
            postgresql_include=["entry_id", "scopes"],
        ),
        _same_scopes("entry_id", "vocabulary"),
    )
    entry_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    gram: Mapped[str] = mapped_column(Text(collation="C"), primary_key=True)
    context_id: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(Text)


class VocabVector(Scoped, Base):
    """The embedding of a concept's gloss (its name plus its heaviest facts): the semantic tier."""

    __no_scope_index__ = True
    __tablename__ = "vocabulary_vectors"
    __extra_args__ = (_same_scopes("entry_id", "vocabulary"),)
    entry_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    model: Mapped[str] = mapped_column(Text, primary_key=True)
    context_id: Mapped[int] = mapped_column(Integer, index=True)
    dim: Mapped[int] = mapped_column(Integer)
    gloss: Mapped[str] = mapped_column(Text)
    embedding: Mapped[Any] = mapped_column(Vector())
    updated_at: Mapped[datetime] = _now()


EPISTEMIC_KINDS = ("world", "experience", "observation", "opinion", "preference")


class Claim(Scoped, Base):
    """One assertion. With a triple it feeds the association (subject, label, object) of its
    context and perspective; without one it is a plain remembered note (`statement` only).

    `perspective` is '' for world claims (one shared partition) and the holder's key for the
    personal kinds. Closing never deletes: `closed_at` with `close_reason` 'retracted' (never
    true) or 'superseded' (true until `valid_until`, replaced by `closed_by`)."""

    __tablename__ = "claims"
    __extra_args__ = (
        Index("ix_claims_triple", "context_id", "subject", "label", "object"),
        Index("ix_claims_source", "context_id", "source"),
        CheckConstraint(
            "kind in ('world', 'experience', 'observation', 'opinion', 'preference')",
            name="kind_known",
        ),
        CheckConstraint(
            "(subject IS NULL) = (label IS NULL) AND (label IS NULL) = (object IS NULL)",
            name="triple_whole",
        ),
        CheckConstraint("subject IS NULL OR weight IS NOT NULL", name="triple_weighted"),
        # NaN compares greater than every number in PostgreSQL, so this refuses NaN and ±inf too.
        CheckConstraint("weight IS NULL OR abs(weight) <= 1e6", name="weight_bounded"),
        CheckConstraint("subject IS NOT NULL OR statement IS NOT NULL", name="says_something"),
    )
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    context_id: Mapped[int] = mapped_column(ForeignKey("contexts.id", ondelete="CASCADE"))
    subject: Mapped[str | None] = mapped_column(Text)
    label: Mapped[str | None] = mapped_column(Text)
    object: Mapped[str | None] = mapped_column(Text)
    weight: Mapped[float | None] = mapped_column(Float)
    statement: Mapped[str | None] = mapped_column(Text)
    source: Mapped[str | None] = mapped_column(Text)
    paragraph: Mapped[int | None] = mapped_column(Integer)
    author: Mapped[str] = mapped_column(Text)
    role: Mapped[str | None] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(Text, server_default="world")
    perspective: Mapped[str] = mapped_column(Text, server_default="")
    valid_from: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    valid_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    recorded_at: Mapped[datetime] = _now()
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    close_reason: Mapped[str | None] = mapped_column(Text)
    closed_by: Mapped[int | None] = mapped_column(BigInteger)
    access_count: Mapped[int] = mapped_column(Integer, server_default="0")
    last_access: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class Association(Scoped, Base):
    """The net edge of a context and perspective, one row per scope set of its open claims:
    `weight` is their sum and `claims` their count, kept in the transaction that changes a claim.
    A caller's edge is the sum over the rows it can see. A row whose claims all closed stays
    (weight 0, count 0): concepts and edges outlive their evidence."""

    __no_scope_index__ = True
    __tablename__ = "associations"
    __extra_args__ = (
        UniqueConstraint("context_id", "perspective", "subject", "label", "object", "scopes"),
        Index("ix_associations_subject", "context_id", "subject"),
        Index("ix_associations_object", "context_id", "object"),
        Index("ix_associations_label", "context_id", "label"),
    )
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    context_id: Mapped[int] = mapped_column(ForeignKey("contexts.id", ondelete="CASCADE"))
    perspective: Mapped[str] = mapped_column(Text, server_default="")
    subject: Mapped[str] = mapped_column(Text)
    label: Mapped[str] = mapped_column(Text)
    object: Mapped[str] = mapped_column(Text)
    weight: Mapped[float] = mapped_column(Float, server_default="0")
    claims: Mapped[int] = mapped_column(Integer, server_default="0")
    updated_at: Mapped[datetime] = _now()


class ContextModel(Base):
    """An embedding model whose vectors a context holds (visible with the context; rls.py)."""

    __tablename__ = "context_models"
    context_id: Mapped[int] = mapped_column(
        ForeignKey("contexts.id", ondelete="CASCADE"), primary_key=True
    )
    model: Mapped[str] = mapped_column(Text, primary_key=True)
    dim: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = _now()


class Job(Base):
    """Background work (embedding, derived memory, sync), claimed with FOR UPDATE SKIP LOCKED.

    Not a content table: it holds ids and the scope set the work runs with, never text. A worker
    acts with exactly that scope set, so it never has more authority than its data needs."""

    __tablename__ = "jobs"
    __table_args__ = (
        Index("ix_jobs_ready", "state", "run_after"),
        CheckConstraint("state in ('queued', 'running', 'done', 'failed')", name="state_known"),
    )
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    kind: Mapped[str] = mapped_column(Text)
    context_id: Mapped[int | None] = mapped_column(ForeignKey("contexts.id", ondelete="CASCADE"))
    source_pk: Mapped[int | None] = mapped_column(ForeignKey("sources.id", ondelete="CASCADE"))
    scopes: Mapped[list[str]] = mapped_column(ARRAY(Text))  # what the work may write
    read_scopes: Mapped[list[str]] = mapped_column(ARRAY(Text))  # what it may read
    state: Mapped[str] = mapped_column(Text, server_default="queued")
    attempts: Mapped[int] = mapped_column(Integer, server_default="0")
    done_items: Mapped[int] = mapped_column(Integer, server_default="0")
    total_items: Mapped[int] = mapped_column(Integer, server_default="0")
    last_error: Mapped[str | None] = mapped_column(Text)
    run_after: Mapped[datetime] = _now()
    created_at: Mapped[datetime] = _now()
    updated_at: Mapped[datetime] = _now()
