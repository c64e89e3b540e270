"""raptor: `raptor_nodes` and `raptor_members`, the RAPTOR tree of derived memory under RLS.

A RAPTOR node summarizes a cluster of a context's leaves (live paragraphs with a vector and
remembered notes, level 1) or of the level below's nodes (level 2 and up; derive/raptor.py).
Its members are refs (`p:<paragraph id>`, `c:<claim id>`, `r:<level>.<ordinal>`) ranked by
nearness to the cluster centre. Both carry the context's scope set (members through the
composite foreign key on (id, scopes), like `community_members` → `communities`); deleting the
context removes them. The four scope policies come from `rls.scoped_table_sql` in the
once-per-statement form (like 0015), and writing a node also needs its context to be visible.
`embedding` is the summary's, when an embedder is configured.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-03 09:00:00.000000
"""

from collections.abc import Sequence

import pgvector.sqlalchemy
import sqlalchemy as sa
from alembic import op

from tabane.storage import rls

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "raptor_nodes",
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.Column("context_id", sa.Integer(), nullable=False),
        sa.Column("level", sa.Integer(), nullable=False),
        sa.Column("ordinal", sa.Integer(), nullable=False),
        sa.Column("parent", sa.Integer(), nullable=True),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("leaves", sa.Integer(), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("summarizer", sa.Text(), nullable=False),
        sa.Column("fingerprint", sa.Text(), nullable=False),
        sa.Column("refs", sa.ARRAY(sa.Text()), nullable=False),
        sa.Column("model", sa.Text(), nullable=True),
        sa.Column("dim", sa.Integer(), nullable=True),
        sa.Column("embedding", pgvector.sqlalchemy.vector.VECTOR(), nullable=True),
        sa.Column("corpus_version", sa.Text(), nullable=False),
        sa.Column(
            "built_at", sa.DateTime(timezone=True), server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("scopes", sa.ARRAY(sa.Text()), nullable=False),
        sa.CheckConstraint(
            "cardinality(scopes) >= 1", name=op.f("ck_raptor_nodes_scopes_nonempty")
        ),
        sa.ForeignKeyConstraint(
            ["context_id"], ["contexts.id"], name=op.f("fk_raptor_nodes_context_id_contexts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_raptor_nodes")),
        sa.UniqueConstraint(
            "context_id", "level", "ordinal", "scopes",
            name=op.f("uq_raptor_nodes_context_id_level_ordinal_scopes"),
        ),
        sa.UniqueConstraint("id", "scopes", name=op.f("uq_raptor_nodes_id_scopes")),
    )  # fmt: skip
    op.create_index(
        "ix_raptor_nodes_scopes", "raptor_nodes", ["scopes"], unique=False, postgresql_using="gin"
    )
    op.create_table(
        "raptor_members",
        sa.Column("node_id", sa.BigInteger(), nullable=False),
        sa.Column("ref", sa.Text(), nullable=False),
        sa.Column("context_id", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("scopes", sa.ARRAY(sa.Text()), nullable=False),
        sa.CheckConstraint(
            "cardinality(scopes) >= 1", name=op.f("ck_raptor_members_scopes_nonempty")
        ),
        sa.ForeignKeyConstraint(
            ["node_id", "scopes"],
            ["raptor_nodes.id", "raptor_nodes.scopes"],
            name=op.f("fk_raptor_members_node_id_raptor_nodes"),
            onupdate="CASCADE",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("node_id", "ref", name=op.f("pk_raptor_members")),
    )
    op.create_index(
        "ix_raptor_members_ref", "raptor_members", ["context_id", "ref"], unique=False
    )
    for table in ("raptor_nodes", "raptor_members"):
        op.execute(rls.scoped_table_sql(table))
    op.execute(rls.once_per_statement_sql("raptor_nodes", in_context=True))
    op.execute(rls.sequences_sql())


def downgrade() -> None:
    op.drop_table("raptor_members")  # its indexes and policies go with it
    op.drop_table("raptor_nodes")
