"""The declarative base and the mixin every content table shares (see storage/schema/)."""

from __future__ import annotations

from typing import Any, ClassVar

from sqlalchemy import (
    ARRAY,
    CheckConstraint,
    DateTime,
    ForeignKeyConstraint,
    Index,
    MetaData,
    Text,
    func,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, declared_attr, mapped_column

from tabane.storage import rls

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
    """A content row: a non-empty set of scope names, compared by the RLS policies of its rule
    (`rls.SCOPED` unless the table names another: `rls.SCOPED_IN_CONTEXT` for rows keyed on a
    context rather than on a parent row)."""

    __rls__: ClassVar[rls.Rule] = rls.SCOPED

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
