"""The graph's tables: the vocabulary (spellings, their bigrams and gloss vectors), claims and
the associations they net into. Mixed with `Scoped` like every content table (see
storage/schema/)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pgvector.sqlalchemy import Vector
from sqlalchemy import (
    ARRAY,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    Text,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from tabane.storage import rls
from tabane.storage.schema.base import Base, Scoped, _now, _same_scopes


class VocabEntry(Scoped, Base):
    """A spelling in a context's graph vocabulary: a concept or a label, canonical or an alias.

    One row per (spelling, scope set): who may see a spelling is who may see the claims that
    minted it. `norm` is the normalized form (NFKC, case folding, katakana → hiragana); `key`
    is `norm` without separators, the form resolve matches exactly and cuts into bigrams. An alias
    row names its canonical spelling in `alias_of` and is entry-only."""

    __tablename__ = "vocabulary"
    __rls__ = rls.SCOPED_IN_CONTEXT
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
    # the user who added an alias (erasure takes it with them); None for canonical spellings,
    # which claims mint, and for aliases added before migration 0028
    written_by: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = _now()


class VocabGram(Scoped, Base):
    """One character bigram of a vocabulary key: the inverted index of resolve's fuzzy tier.

    `size` repeats the key's distinct bigram count (VocabEntry.grams), so the covering index
    bounds a spelling's Dice with the cue before its row is read (0: unknown, no bound)."""

    __no_scope_index__ = True
    __tablename__ = "vocabulary_grams"
    __extra_args__ = (
        Index(
            "ix_vocabulary_grams_lookup",
            "context_id",
            "kind",
            "gram",
            postgresql_include=["entry_id", "scopes", "size"],
        ),
        Index(
            "ix_vocabulary_grams_fresh",
            "context_id",
            "kind",
            "gram",
            postgresql_include=["entry_id", "scopes", "size"],
            postgresql_where=text("NOT merged"),
        ),
        _same_scopes("entry_id", "vocabulary"),
    )
    entry_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    gram: Mapped[str] = mapped_column(Text(collation="C"), primary_key=True)
    context_id: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(Text)
    size: Mapped[int] = mapped_column(Integer, server_default="0")
    # folded into the `vocabulary_gram_packs` row of its gram and scope set (graph/gram_merge.py)
    merged: Mapped[bool] = mapped_column(Boolean, server_default=false())


class VocabReading(Scoped, Base):
    """A key a spelling is also found under (text/reading.py): `reading`, the loose romaji of
    its kana reading (藤野雪 → fujinoyuki), or `acronym`, the initials of a Latin spelling of
    several words (BlobStoreWriter → bsw). Computed when the spelling is written; resolve's
    reading route looks a cue's keys up here (exactly, or a reading by its prefix)."""

    __no_scope_index__ = True
    __tablename__ = "vocabulary_readings"
    __rls__ = rls.SCOPED_IN_CONTEXT
    __extra_args__ = (
        Index(
            "ix_vocabulary_readings_lookup",
            "context_id",
            "kind",
            "how",
            "key",
            postgresql_include=["entry_id", "scopes"],
        ),
        CheckConstraint("how in ('reading', 'acronym')", name="how_known"),
        _same_scopes("entry_id", "vocabulary"),
    )
    entry_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    how: Mapped[str] = mapped_column(Text, primary_key=True)
    key: Mapped[str] = mapped_column(Text(collation="C"), primary_key=True)
    context_id: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(Text)


class VocabGramPack(Scoped, Base):
    """One bigram's postings in one context, kind and scope set, packed (graph/gram_merge.py
    `RECORD`: entry id, key bigram count; ascending by id): resolve's top mode reads one row per
    gram of the cue and counts in numpy. Derived from `vocabulary_grams`, whose rows stay the
    truth; postings written since (not `merged`) are read beside it, and the ids of spellings
    removed since stay in it until the next merge (their keys are no longer found)."""

    __no_scope_index__ = True
    __tablename__ = "vocabulary_gram_packs"
    __rls__ = rls.SCOPED_IN_CONTEXT
    __extra_args__ = (CheckConstraint("kind in ('concept', 'label')", name="kind_known"),)
    context_id: Mapped[int] = mapped_column(
        ForeignKey("contexts.id", ondelete="CASCADE"), primary_key=True
    )
    kind: Mapped[str] = mapped_column(Text, primary_key=True)
    gram: Mapped[str] = mapped_column(Text(collation="C"), primary_key=True)
    scopes: Mapped[list[str]] = mapped_column(ARRAY(Text), primary_key=True)
    records: Mapped[bytes] = mapped_column(LargeBinary)


class VocabSize(Scoped, Base):
    """How many spellings (rows of `vocabulary`, aliases included) a context holds of one kind
    under one scope set, kept in the transaction that adds or removes them. A caller's vocabulary
    size is the sum over the rows it can see (like `bm25_corpus`)."""

    __no_scope_index__ = True
    __tablename__ = "vocabulary_sizes"
    __rls__ = rls.SCOPED_IN_CONTEXT
    __extra_args__ = (
        UniqueConstraint("context_id", "kind", "scopes"),
        CheckConstraint("kind in ('concept', 'label')", name="kind_known"),
    )
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    context_id: Mapped[int] = mapped_column(ForeignKey("contexts.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(Text)
    entries: Mapped[int] = mapped_column(BigInteger, server_default="0")


class VocabGramStats(Scoped, Base):
    """Document frequency of one bigram among a context's spellings of one kind under one scope
    set (the rows of `vocabulary_grams` it counts; see VocabSize): resolve reads it instead of
    counting postings."""

    __no_scope_index__ = True
    __tablename__ = "vocabulary_gram_stats"
    __rls__ = rls.SCOPED_IN_CONTEXT
    __extra_args__ = (
        UniqueConstraint("context_id", "kind", "gram", "scopes"),
        CheckConstraint("kind in ('concept', 'label')", name="kind_known"),
    )
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    context_id: Mapped[int] = mapped_column(ForeignKey("contexts.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(Text)
    gram: Mapped[str] = mapped_column(Text(collation="C"))
    df: Mapped[int] = mapped_column(BigInteger, server_default="0")


class VocabVector(Scoped, Base):
    """The embedding of a gloss — a concept's name plus its heaviest facts, or a label's name plus
    its heaviest uses (`kind`): resolve's semantic tier, and recall's gloss seeds (concepts)."""

    __no_scope_index__ = True
    __tablename__ = "vocabulary_vectors"
    __extra_args__ = (_same_scopes("entry_id", "vocabulary"),)
    entry_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    model: Mapped[str] = mapped_column(Text, primary_key=True)
    context_id: Mapped[int] = mapped_column(Integer, index=True)
    dim: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(Text, server_default="concept")  # concept | label
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
    __rls__ = rls.SCOPED_IN_CONTEXT
    __extra_args__ = (
        UniqueConstraint("id", "scopes"),  # claim_vectors carry their claim's scope set
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
    # what the note answers (the turn before it in its conversation): embedded with it, so a
    # reply without the topic's words ("Yes, signed it yesterday!") is found (migration 0031)
    in_reply_to: Mapped[str | None] = mapped_column(Text)
    source: Mapped[str | None] = mapped_column(Text)
    paragraph: Mapped[int | None] = mapped_column(Integer)
    author: Mapped[str] = mapped_column(Text)
    # the user who wrote it (whoever `author` names): erasure finds the user's own claims by it
    # even where their grants were revoked first; None for claims written before migration 0025
    written_by: Mapped[int | None] = mapped_column(BigInteger)
    role: Mapped[str | None] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(Text, server_default="world")
    perspective: Mapped[str] = mapped_column(Text, server_default="")
    valid_from: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    valid_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    recorded_at: Mapped[datetime] = _now()
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    close_reason: Mapped[str | None] = mapped_column(Text)
    closed_by: Mapped[int | None] = mapped_column(BigInteger)
    # `valid_until` as it was before a correction ended it (graph/forget.py undoes a correction
    # that is erased); NULL otherwise
    valid_until_before: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    access_count: Mapped[int] = mapped_column(Integer, server_default="0")
    last_access: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class Association(Scoped, Base):
    """The net edge of a context and perspective, one row per scope set of its open claims:
    `weight` is their sum and `claims` their count, kept in the transaction that changes a claim.
    A caller's edge is the sum over the rows it can see. A row whose claims all closed stays
    (weight 0, count 0): concepts and edges outlive their evidence."""

    __no_scope_index__ = True
    __tablename__ = "associations"
    __rls__ = rls.SCOPED_IN_CONTEXT
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


class ClaimVector(Scoped, Base):
    """The embedding of a claim's text (its statement, else `subject label object`): the claims
    lane of recall. Carries its claim's scope set; written by the `embed_claims` job.

    The column has no fixed width; per-width HNSW indexes cover `embedding::vector(dim)`
    (migration 0010), like `paragraph_vectors`."""

    __no_scope_index__ = True
    __tablename__ = "claim_vectors"
    __extra_args__ = (_same_scopes("claim_id", "claims"),)
    claim_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    model: Mapped[str] = mapped_column(Text, primary_key=True)  # models coexist until re-embedded
    context_id: Mapped[int] = mapped_column(Integer, index=True)
    dim: Mapped[int] = mapped_column(Integer)
    embedding: Mapped[Any] = mapped_column(Vector())


class ContextSchema(Scoped, Base):
    """A context's declared schema (graph/schema.py): its labels, with the kinds each end may
    have, its concept kinds, and whether writes are checked (`strict`). One row per context,
    carrying the context's scope set: readable with the context, replaced only by who may write
    it. `version` counts replacements; a writer names the version it read (migration 0038)."""

    __no_scope_index__ = True
    __tablename__ = "context_schemas"
    __rls__ = rls.SCOPED_IN_CONTEXT
    __extra_args__ = (CheckConstraint("version >= 1", name="version_positive"),)
    context_id: Mapped[int] = mapped_column(
        ForeignKey("contexts.id", ondelete="CASCADE"), primary_key=True
    )
    version: Mapped[int] = mapped_column(Integer)
    document: Mapped[dict[str, Any]] = mapped_column(JSONB)
    updated_at: Mapped[datetime] = _now()
