"""context schemas: a context's declared labels and concept kinds (graph/schema.py).

One row per context with the context's scope set, under `rls.SCOPED_IN_CONTEXT` like the
graph's other tables; `version` counts replacements so two writers do not clobber each other.
Nothing existing changes: a context without a row has no schema and its writes are unchecked.

Revision ID: 0038
Revises: 0037
Create Date: 2026-12-07 06:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from tabane.storage import rls

revision: str = "0038"
down_revision: str | None = "0037"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "context_schemas",
        sa.Column("context_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("document", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column(
            "updated_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("scopes", sa.ARRAY(sa.Text()), nullable=False),
        sa.CheckConstraint("version >= 1", name=op.f("ck_context_schemas_version_positive")),
        sa.CheckConstraint(
            "cardinality(scopes) >= 1", name=op.f("ck_context_schemas_scopes_nonempty")
        ),
        sa.ForeignKeyConstraint(
            ["context_id"],
            ["contexts.id"],
            name=op.f("fk_context_schemas_context_id_contexts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("context_id", name=op.f("pk_context_schemas")),
    )
    op.execute(rls.table_sql("context_schemas", rls.SCOPED_IN_CONTEXT, replace=False))


def downgrade() -> None:
    op.drop_table("context_schemas")
