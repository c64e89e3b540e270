"""Derived memory: rebuilt from sources and claims, never hand-written (ARCHITECTURE.md §1).

Communities are the clusters of a context's association graph (derive/communities/communities.py). A
build
replaces every community of its context at once; each row records the graph state it was built
from (`graph_version`), so a read can say whether the graph changed since (`stale`).

Profiles summarize, per concept of a context, its heaviest live claims (derive/profiles.py); a
build replaces every profile of its context at once, and each row records its concept's claim
state (`claim_version`) and the fingerprint of the claims it read.

RAPTOR nodes summarize clusters of a context's paragraphs and notes, level by level up to a few
roots (derive/raptor/tree.py); a build replaces the whole tree, and each node records the corpus
state it was built from (`corpus_version`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pgvector.sqlalchemy import Vector
from sqlalchemy import BigInteger, Float, ForeignKey, Index, Integer, Text, UniqueConstraint
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column

from tabane.storage import rls
from tabane.storage.schema.base import Base, Scoped, _now, _same_scopes


class Community(Scoped, Base):
    """One community of a context's concept graph at one level (0: Louvain over concepts; 1:
    Louvain over the level-0 communities). `ordinal` numbers a level's communities by size,
    then smallest member name; `parent` is the ordinal of the level-above community holding it.

    Carries the context's scope set: it is built only from association rows inside that set
    (the rows every reader of the context can see), so it reveals nothing a reader could not see.
    `summary` is written by `summarizer`; `embedding` is filled later (NULL until then)."""

    __tablename__ = "communities"
    __rls__ = rls.SCOPED_IN_CONTEXT
    __extra_args__ = (
        UniqueConstraint("context_id", "level", "ordinal", "scopes"),
        UniqueConstraint("id", "scopes"),  # community_members carry their community's scope set
    )
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    context_id: Mapped[int] = mapped_column(ForeignKey("contexts.id", ondelete="CASCADE"))
    level: Mapped[int] = mapped_column(Integer)
    ordinal: Mapped[int] = mapped_column(Integer)
    parent: Mapped[int | None] = mapped_column(Integer)
    size: Mapped[int] = mapped_column(Integer)
    summary: Mapped[str] = mapped_column(Text)
    summarizer: Mapped[str] = mapped_column(Text)
    model: Mapped[str | None] = mapped_column(Text)  # of `embedding`
    dim: Mapped[int | None] = mapped_column(Integer)
    embedding: Mapped[Any | None] = mapped_column(Vector())
    graph_version: Mapped[str] = mapped_column(Text)  # derive.communities.graph_version
    graph_edges: Mapped[int] = mapped_column(Integer)  # undirected edges the build clustered
    built_at: Mapped[datetime] = _now()


class CommunityMember(Scoped, Base):
    """A concept of a community, with its weighted degree in the context's graph (the sum of
    |net weight| over its edges); `rank` orders a community's members by that weight."""

    __no_scope_index__ = True
    __tablename__ = "community_members"
    __extra_args__ = (
        Index("ix_community_members_concept", "context_id", "concept"),
        _same_scopes("community_id", "communities"),
    )
    community_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    concept: Mapped[str] = mapped_column(Text, primary_key=True)
    context_id: Mapped[int] = mapped_column(Integer)
    rank: Mapped[int] = mapped_column(Integer)
    weight: Mapped[float] = mapped_column(Float)


class Profile(Scoped, Base):
    """The profile of one concept of a context: a summary of its heaviest open claims, world
    claims first, then each perspective holder's under `<holder>: `, written by `summarizer`.

    Carries the context's scope set: it is built only from claims inside that set (the claims
    every reader of the context can see). `fingerprint` identifies the claims read (summarizer
    .fingerprint), `refs` the claims the summary cites (`c:<id>`), `claim_version` the state of
    the concept's claims at the build (derive.profiles.claim_versions), `weight` the concept's
    weighted degree. `embedding` is the summary's, when an embedder is configured."""

    __tablename__ = "profiles"
    __rls__ = rls.SCOPED_IN_CONTEXT
    __extra_args__ = (UniqueConstraint("context_id", "concept", "scopes"),)
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    context_id: Mapped[int] = mapped_column(ForeignKey("contexts.id", ondelete="CASCADE"))
    concept: Mapped[str] = mapped_column(Text)
    weight: Mapped[float] = mapped_column(Float)
    summary: Mapped[str] = mapped_column(Text)
    summarizer: Mapped[str] = mapped_column(Text)
    fingerprint: Mapped[str] = mapped_column(Text)
    refs: Mapped[list[str]] = mapped_column(ARRAY(Text))
    model: Mapped[str | None] = mapped_column(Text)  # of `embedding`
    dim: Mapped[int | None] = mapped_column(Integer)
    embedding: Mapped[Any | None] = mapped_column(Vector())
    claim_version: Mapped[str] = mapped_column(Text)
    built_at: Mapped[datetime] = _now()


class RaptorNode(Scoped, Base):
    """One node of a context's RAPTOR tree: level 1 summarizes a cluster of leaves (live
    paragraphs with a vector, remembered notes); level L+1 a cluster of level-L nodes. `ordinal`
    numbers a level's nodes (by size, then smallest member ref); `parent` is the ordinal of the
    level-above node holding it, NULL for the roots (the top level).

    Carries the context's scope set: it is built only from rows inside that set (the rows every
    reader of the context can see). `size` counts direct members, `leaves` the paragraphs and
    notes under it; `fingerprint` identifies the members read (summarizer.fingerprint), `refs`
    the member refs the summary cites; `embedding` is the summary's."""

    __tablename__ = "raptor_nodes"
    __rls__ = rls.SCOPED_IN_CONTEXT
    __extra_args__ = (
        UniqueConstraint("context_id", "level", "ordinal", "scopes"),
        UniqueConstraint("id", "scopes"),  # raptor_members carry their node's scope set
    )
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    context_id: Mapped[int] = mapped_column(ForeignKey("contexts.id", ondelete="CASCADE"))
    level: Mapped[int] = mapped_column(Integer)
    ordinal: Mapped[int] = mapped_column(Integer)
    parent: Mapped[int | None] = mapped_column(Integer)
    size: Mapped[int] = mapped_column(Integer)
    leaves: Mapped[int] = mapped_column(Integer)
    summary: Mapped[str] = mapped_column(Text)
    summarizer: Mapped[str] = mapped_column(Text)
    fingerprint: Mapped[str] = mapped_column(Text)
    refs: Mapped[list[str]] = mapped_column(ARRAY(Text))
    model: Mapped[str | None] = mapped_column(Text)  # of `embedding`
    dim: Mapped[int | None] = mapped_column(Integer)
    embedding: Mapped[Any | None] = mapped_column(Vector())
    corpus_version: Mapped[str] = mapped_column(Text)  # derive.raptor.corpus_version
    built_at: Mapped[datetime] = _now()


class RaptorMember(Scoped, Base):
    """A member of a RAPTOR node: `p:<paragraph id>`, `c:<claim id>` (a note) or
    `r:<level>.<ordinal>` (a child node); `rank` orders a node's members nearest its centre
    first. The (context_id, ref) index finds the summaries holding a paragraph."""

    __no_scope_index__ = True
    __tablename__ = "raptor_members"
    __extra_args__ = (
        Index("ix_raptor_members_ref", "context_id", "ref"),
        _same_scopes("node_id", "raptor_nodes"),
    )
    node_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    ref: Mapped[str] = mapped_column(Text, primary_key=True)
    context_id: Mapped[int] = mapped_column(Integer)
    rank: Mapped[int] = mapped_column(Integer)
