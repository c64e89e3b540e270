"""Working memory: conversation sessions and their turns. Remembered notes are claims
(schema_graph.Claim with a statement and no triple), so they need no table of their own."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from tabane.storage.schema_base import Base, Scoped, _now, _same_scopes


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
