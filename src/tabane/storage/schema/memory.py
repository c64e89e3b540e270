"""Working memory: conversation sessions, their turns and the turns' embeddings, and the
persisted trace of each recall. Remembered notes are claims (schema_graph.Claim with a statement
and no triple), so they need no table of their own."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pgvector.sqlalchemy import Vector
from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    Text,
    UniqueConstraint,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from tabane.storage.schema.base import Base, Scoped, _now, _same_scopes


class ChatSession(Scoped, Base):
    """A conversation of one user, named by that user (`name` is unique per user, so two people
    can both have a session called "main"). Its scope set is the owner's personal scope unless the
    owner chose another it may write: a shared session is visible to that scope's readers."""

    __tablename__ = "sessions"
    __extra_args__ = (
        UniqueConstraint("user_id", "name"),
        UniqueConstraint("id", "scopes"),
        CheckConstraint("name <> ''", name="name_nonempty"),
    )
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(Text)
    turns: Mapped[int] = mapped_column(Integer, server_default="0")  # the last turn's seq
    created_at: Mapped[datetime] = _now()
    updated_at: Mapped[datetime] = _now()


class SessionTurn(Scoped, Base):
    """One message of a session: who said it (speaker, role), what, and when. `seq` orders the
    turns of a session (1, 2, …); `at` is when it was said (default: when it was appended)."""

    __tablename__ = "session_turns"
    __extra_args__ = (
        UniqueConstraint("session_pk", "seq"),
        UniqueConstraint("id", "scopes"),  # turn_vectors carry their turn's scope set
        Index("ix_session_turns_recent", "session_pk", "at"),
        CheckConstraint("text <> ''", name="text_nonempty"),
        _same_scopes("session_pk", "sessions"),
    )
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    session_pk: Mapped[int] = mapped_column(BigInteger)
    seq: Mapped[int] = mapped_column(Integer)
    speaker: Mapped[str] = mapped_column(Text)
    role: Mapped[str] = mapped_column(Text, server_default="user")
    text: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = _now()


class TurnVector(Scoped, Base):
    """The embedding of a turn's text: recall's turns lane ranks a session's working-memory
    window by its similarity to the question. Carries its turn's scope set (so deleting the
    turn, its session or its user removes it); written by the `embed_turns` job.

    The column has no fixed width (`dim` says it, `model` names the embedder). The lane reads a
    session's window through `session_pk` and compares a few dozen vectors exactly, so there is
    no HNSW index (migration 0013)."""

    __no_scope_index__ = True
    __tablename__ = "turn_vectors"
    __extra_args__ = (_same_scopes("turn_id", "session_turns"),)
    turn_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    model: Mapped[str] = mapped_column(Text, primary_key=True)  # models coexist until re-embedded
    session_pk: Mapped[int] = mapped_column(BigInteger, index=True)
    dim: Mapped[int] = mapped_column(Integer)
    embedding: Mapped[Any] = mapped_column(Vector())


class RecallTraceRow(Scoped, Base):
    """What one recall did (lanes, ranks, scores, timings, what rerank and budget cut), kept so
    its id can be handed back and the trace read later (recall/trace.py). Its scope set is the
    asking user's personal scope, and only that user reads it back (recall/trace.py
    `load_trace`, whoever else may read the scope); deleting the user removes it."""

    __tablename__ = "recall_traces"
    __extra_args__ = (Index("ix_recall_traces_recent", "user_id", "created_at"),)
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    question: Mapped[str] = mapped_column(Text)
    plan: Mapped[str] = mapped_column(Text)
    trace: Mapped[dict[str, Any]] = mapped_column(JSONB)
    created_at: Mapped[datetime] = _now()
