"""The schema as SQLAlchemy 2.0 typed mappings.

Reference tables (users, scopes, grants) are read-only to the application role. Every content table
mixes in `Scoped`: a non-empty scope set, indexed, compared by the row-level-security policies of
the rule each table declares in `__rls__` (storage/rls.py; `rules()` collects them). Per-context
tables carry `context_id` so they can later be co-located on it.
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
    Index,
    Integer,
    Text,
    UniqueConstraint,
)
from sqlalchemy import text as sql
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.orm import Mapped, mapped_column

from tabane.storage import rls
from tabane.storage.schema.base import Base as Base
from tabane.storage.schema.base import Scoped as Scoped
from tabane.storage.schema.base import _now, _same_scopes

# The BM25 index's, graph's, derived memory's and working memory's tables live in their own
# modules; re-exported so every table imports from here.
from tabane.storage.schema.bm25 import CorpusStats as CorpusStats
from tabane.storage.schema.bm25 import DeadPostings as DeadPostings
from tabane.storage.schema.bm25 import MergedPack as MergedPack
from tabane.storage.schema.bm25 import Pack as Pack
from tabane.storage.schema.bm25 import TermStats as TermStats
from tabane.storage.schema.derived import Community as Community
from tabane.storage.schema.derived import CommunityMember as CommunityMember
from tabane.storage.schema.derived import Profile as Profile
from tabane.storage.schema.derived import RaptorMember as RaptorMember
from tabane.storage.schema.derived import RaptorNode as RaptorNode
from tabane.storage.schema.graph import EPISTEMIC_KINDS as EPISTEMIC_KINDS
from tabane.storage.schema.graph import Association as Association
from tabane.storage.schema.graph import Claim as Claim
from tabane.storage.schema.graph import ClaimVector as ClaimVector
from tabane.storage.schema.graph import ContextSchema as ContextSchema
from tabane.storage.schema.graph import VocabEntry as VocabEntry
from tabane.storage.schema.graph import VocabGram as VocabGram
from tabane.storage.schema.graph import VocabGramPack as VocabGramPack
from tabane.storage.schema.graph import VocabGramStats as VocabGramStats
from tabane.storage.schema.graph import VocabReading as VocabReading
from tabane.storage.schema.graph import VocabSize as VocabSize
from tabane.storage.schema.graph import VocabVector as VocabVector
from tabane.storage.schema.memory import ChatSession as ChatSession
from tabane.storage.schema.memory import RecallTraceRow as RecallTraceRow
from tabane.storage.schema.memory import SessionTurn as SessionTurn
from tabane.storage.schema.memory import TurnVector as TurnVector

SCOPED_TABLES = (
    "contexts",
    "groups",
    "group_contexts",
    "group_children",
    "sources",
    "sections",
    "paragraphs",
    "bm25_packs",
    "bm25_merged",
    "bm25_dead",
    "bm25_corpus",
    "bm25_terms",
    "paragraph_vectors",
    "vocabulary",
    "vocabulary_grams",
    "vocabulary_readings",
    "vocabulary_gram_packs",
    "vocabulary_vectors",
    "vocabulary_sizes",
    "vocabulary_gram_stats",
    "claims",
    "claim_vectors",
    "associations",
    "context_schemas",
    "sessions",
    "session_turns",
    "turn_vectors",
    "recall_traces",
    "communities",
    "community_members",
    "profiles",
    "raptor_nodes",
    "raptor_members",
)


class User(Base):
    __tablename__ = "users"
    __rls__ = rls.REFERENCE
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(Text, unique=True)
    created_at: Mapped[datetime] = _now()


class Scope(Base):
    __tablename__ = "scopes"
    __rls__ = rls.REFERENCE
    name: Mapped[str] = mapped_column(Text, primary_key=True)
    description: Mapped[str] = mapped_column(Text, server_default="")
    created_at: Mapped[datetime] = _now()


class Grant(Base):
    """A user may read `scope`; with `can_write` also write it (write ⊆ read by construction)."""

    __tablename__ = "grants"
    __rls__ = rls.REFERENCE
    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    scope: Mapped[str] = mapped_column(
        ForeignKey("scopes.name", ondelete="CASCADE", onupdate="CASCADE"), primary_key=True
    )
    can_write: Mapped[bool] = mapped_column(Boolean, server_default="false")


class ApiKey(Base):
    """An API key of a user: only the sha256 of its token is stored. `read_scopes`/`write_scopes`
    NULL mean the user's own sets; at use time they are intersected with the user's current
    grants. A reference table: the application role may only read it (access/keys.py)."""

    __tablename__ = "api_keys"
    __rls__ = rls.REFERENCE
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    prefix: Mapped[str] = mapped_column(Text, unique=True)
    hash: Mapped[str] = mapped_column(Text)
    read_scopes: Mapped[list[str] | None] = mapped_column(ARRAY(Text))
    write_scopes: Mapped[list[str] | None] = mapped_column(ARRAY(Text))
    created_at: Mapped[datetime] = _now()
    expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


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
    __rls__ = rls.child("contexts", "context_id")
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
    __rls__ = rls.SCOPED_IN_CONTEXT
    __extra_args__ = (
        UniqueConstraint("context_id", "source_id"),
        UniqueConstraint("id", "scopes"),
        # recall's title lane: a source whose whole title appears in the question (recall/titles)
        Index("ix_sources_title_key", "context_id", "title_key"),
        CheckConstraint(
            "state in ('active', 'waiting', 'someday', 'done', 'archived')", name="state_known"
        ),
    )
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    context_id: Mapped[int] = mapped_column(ForeignKey("contexts.id", ondelete="CASCADE"))
    source_id: Mapped[str] = mapped_column(Text)
    title: Mapped[str] = mapped_column(Text, server_default="")
    title_key: Mapped[str] = mapped_column(Text, server_default="")  # sources.write.title_key
    name_key: Mapped[str] = mapped_column(Text, server_default="")  # sources.write.name_key
    format: Mapped[str] = mapped_column(Text, server_default="text")
    date: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    tags: Mapped[list[str]] = mapped_column(ARRAY(Text), server_default="{}")
    area: Mapped[str | None] = mapped_column(Text)
    state: Mapped[str | None] = mapped_column(Text)  # None: not stated (migration 0035)
    content_hash: Mapped[str] = mapped_column(Text)
    raw_hash: Mapped[str | None] = mapped_column(Text)  # of the bytes read; skips re-parsing
    byte_size: Mapped[int] = mapped_column(BigInteger, server_default="0")
    paragraph_count: Mapped[int] = mapped_column(Integer, server_default="0")
    # the corpus map's inputs, written at ingest (ingest/documents.py `outline`, `title_key`)
    outline: Mapped[list[str]] = mapped_column(ARRAY(Text), server_default="{}")
    area_key: Mapped[str] = mapped_column(Text, server_default="")
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
    kind: Mapped[str] = mapped_column(Text, server_default="text")  # text.blocks.BlockKind


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


class ContextModel(Base):
    """An embedding model whose vectors a context holds (visible with the context; rls.py)."""

    __tablename__ = "context_models"
    __rls__ = rls.child("contexts", "context_id")
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
    __rls__ = rls.JOBS
    __table_args__ = (
        Index("ix_jobs_ready", "state", "run_after"),
        Index(  # a claim's turns: the next owner, its next context, its oldest job (jobs/turns.py)
            "ix_jobs_turns",
            "scopes",
            sql("coalesce(context_id, 0)"),
            "id",
            postgresql_where=sql("state IN ('queued', 'running')"),
        ),
        CheckConstraint("state in ('queued', 'running', 'done', 'failed')", name="state_known"),
    )
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    kind: Mapped[str] = mapped_column(Text)
    context_id: Mapped[int | None] = mapped_column(ForeignKey("contexts.id", ondelete="CASCADE"))
    source_pk: Mapped[int | None] = mapped_column(ForeignKey("sources.id", ondelete="CASCADE"))
    session_pk: Mapped[int | None] = mapped_column(  # embed_turns: the session whose turns
        ForeignKey("sessions.id", ondelete="CASCADE"), index=True
    )
    scopes: Mapped[list[str]] = mapped_column(ARRAY(Text))  # what the work may write
    read_scopes: Mapped[list[str]] = mapped_column(ARRAY(Text))  # what it may read
    tables: Mapped[list[str] | None] = mapped_column(ARRAY(Text))  # vacuum: what it VACUUMs
    state: Mapped[str] = mapped_column(Text, server_default="queued")
    attempts: Mapped[int] = mapped_column(Integer, server_default="0")
    done_items: Mapped[int] = mapped_column(Integer, server_default="0")
    total_items: Mapped[int] = mapped_column(Integer, server_default="0")
    last_error: Mapped[str | None] = mapped_column(Text)
    run_after: Mapped[datetime] = _now()
    created_at: Mapped[datetime] = _now()
    updated_at: Mapped[datetime] = _now()


def rules() -> dict[str, rls.Rule]:
    """Every mapped table's row-level-security rule, by table name (each table must name one)."""
    found: dict[str, rls.Rule] = {}
    for mapper in Base.registry.mappers:
        rule = getattr(mapper.class_, "__rls__", None)
        if not isinstance(rule, rls.Rule):
            raise TypeError(f"{mapper.class_.__name__} declares no __rls__ rule")
        found[mapper.class_.__tablename__] = rule
    return found
