"""recall traces: `recall_traces`, one row per recall, under row-level security.

Each row keeps what one recall did (its `RecallTrace` as JSON: lanes, ranks, scores, timings, what
rerank and budget cut) so the recall's id can be handed back and the trace read later. Its scope
set is the asking user's personal scope, so the four scope policies (`rls.scoped_table_sql`, in
the once-per-statement form of migration 0008) show it to that user alone, and the foreign key on
`users` removes it with the user.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-30 07:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from tabane.storage import rls

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "recall_traces",
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("plan", sa.Text(), nullable=False),
        sa.Column("trace", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("scopes", sa.ARRAY(sa.Text()), nullable=False),
        sa.CheckConstraint(
            "cardinality(scopes) >= 1", name=op.f("ck_recall_traces_scopes_nonempty")
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_recall_traces_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_recall_traces")),
    )  # fmt: skip
    op.create_index(
        "ix_recall_traces_recent", "recall_traces", ["user_id", "created_at"], unique=False
    )
    op.create_index(
        "ix_recall_traces_scopes", "recall_traces", ["scopes"], unique=False,
        postgresql_using="gin",
    )  # fmt: skip
    op.execute(rls.scoped_table_sql("recall_traces"))
    op.execute(rls.sequences_sql())


def downgrade() -> None:
    op.drop_table("recall_traces")  # its indexes and policies go with it
