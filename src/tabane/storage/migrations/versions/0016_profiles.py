"""profiles: `profiles`, entity profiles of derived memory under row-level security.

A profile summarizes one concept of a context: its heaviest open claims, world claims first and
then each perspective holder's under `<holder>: ` (derive/profiles.py). It carries the context's
scope set; deleting the context removes it. The four scope policies come from
`rls.scoped_table_sql` in the once-per-statement form (like 0015), and writing a profile also
needs its context to be visible. `embedding` is NULL when no embedder is configured.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-02 09:00:00.000000
"""

from collections.abc import Sequence

import pgvector.sqlalchemy
import sqlalchemy as sa
from alembic import op

from tabane.storage import rls

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "profiles",
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.Column("context_id", sa.Integer(), nullable=False),
        sa.Column("concept", sa.Text(), nullable=False),
        sa.Column("weight", sa.Float(), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("summarizer", sa.Text(), nullable=False),
        sa.Column("fingerprint", sa.Text(), nullable=False),
        sa.Column("refs", sa.ARRAY(sa.Text()), nullable=False),
        sa.Column("model", sa.Text(), nullable=True),
        sa.Column("dim", sa.Integer(), nullable=True),
        sa.Column("embedding", pgvector.sqlalchemy.vector.VECTOR(), nullable=True),
        sa.Column("claim_version", sa.Text(), nullable=False),
        sa.Column(
            "built_at", sa.DateTime(timezone=True), server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("scopes", sa.ARRAY(sa.Text()), nullable=False),
        sa.CheckConstraint("cardinality(scopes) >= 1", name=op.f("ck_profiles_scopes_nonempty")),
        sa.ForeignKeyConstraint(
            ["context_id"], ["contexts.id"], name=op.f("fk_profiles_context_id_contexts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_profiles")),
        sa.UniqueConstraint(
            "context_id", "concept", "scopes", name=op.f("uq_profiles_context_id_concept_scopes")
        ),
    )  # fmt: skip
    op.create_index(
        "ix_profiles_scopes", "profiles", ["scopes"], unique=False, postgresql_using="gin"
    )
    op.execute(rls.scoped_table_sql("profiles"))
    op.execute(rls.once_per_statement_sql("profiles", in_context=True))
    op.execute(rls.sequences_sql())


def downgrade() -> None:
    op.drop_table("profiles")  # its index and policies go with it
