"""parent scopes: a child row carries its parent's exact scope set (composite foreign keys), a
source or BM25 statistics row needs a visible context, and jobs come under row-level security.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30 03:52:18.028795
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from tabane.storage import rls


revision: str = '0003'
down_revision: str | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


# (child table, its key column, parent table)
CHILDREN = (
    ("group_children", "parent_id", "groups"),
    ("group_contexts", "group_id", "groups"),
    ("sections", "source_pk", "sources"),
    ("paragraphs", "source_pk", "sources"),
    ("postings", "paragraph_id", "paragraphs"),
    ("paragraph_vectors", "paragraph_id", "paragraphs"),
)
PARENTS = ("groups", "sources", "paragraphs")
IN_CONTEXT = ("sources", "bm25_corpus", "bm25_terms")


def upgrade() -> None:
    for parent in PARENTS:
        op.create_unique_constraint(op.f(f"uq_{parent}_id_scopes"), parent, ["id", "scopes"])
    for child, column, parent in CHILDREN:
        name = op.f(f"fk_{child}_{column}_{parent}")
        op.drop_constraint(name, child, type_="foreignkey")
        op.create_foreign_key(
            name, child, parent, [column, "scopes"], ["id", "scopes"],
            onupdate="CASCADE", ondelete="CASCADE",
        )
    for table in IN_CONTEXT:
        op.execute(rls.in_context_sql(table))
    op.execute(rls.jobs_sql())


def downgrade() -> None:
    op.execute(rls.jobs_sql(drop=True))
    for table in IN_CONTEXT:
        op.execute(rls.in_context_sql(table, drop=True))
    for child, column, parent in CHILDREN:
        name = op.f(f"fk_{child}_{column}_{parent}")
        op.drop_constraint(name, child, type_="foreignkey")
        op.create_foreign_key(name, child, parent, [column], ["id"], ondelete="CASCADE")
    for parent in PARENTS:
        op.drop_constraint(op.f(f"uq_{parent}_id_scopes"), parent, type_="unique")
