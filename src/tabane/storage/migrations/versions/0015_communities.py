"""communities: `communities` and `community_members`, derived memory under row-level security.

A community is a cluster of a context's concept graph (Louvain, derive/communities.py) with a
deterministic summary; its members are concepts with their weighted degree. Both carry the
context's scope set (members through the composite foreign key on (id, scopes), like
`claim_vectors` → `claims`); deleting the context removes them. The four scope policies come
from `rls.scoped_table_sql` (the once-per-statement form of migration 0008), and writing a
community also needs its context to be visible (`rls.in_context_sql`'s rule, in that form).
`embedding` stays NULL until a later job embeds the summary.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-01 09:00:00.000000
"""

from collections.abc import Sequence

import pgvector.sqlalchemy
import sqlalchemy as sa
from alembic import op

from tabane.storage import rls

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "communities",
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.Column("context_id", sa.Integer(), nullable=False),
        sa.Column("level", sa.Integer(), nullable=False),
        sa.Column("ordinal", sa.Integer(), nullable=False),
        sa.Column("parent", sa.Integer(), nullable=True),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("summarizer", sa.Text(), nullable=False),
        sa.Column("model", sa.Text(), nullable=True),
        sa.Column("dim", sa.Integer(), nullable=True),
        sa.Column("embedding", pgvector.sqlalchemy.vector.VECTOR(), nullable=True),
        sa.Column("graph_version", sa.Text(), nullable=False),
        sa.Column("graph_edges", sa.Integer(), nullable=False),
        sa.Column(
            "built_at", sa.DateTime(timezone=True), server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("scopes", sa.ARRAY(sa.Text()), nullable=False),
        sa.CheckConstraint("cardinality(scopes) >= 1", name=op.f("ck_communities_scopes_nonempty")),
        sa.ForeignKeyConstraint(
            ["context_id"], ["contexts.id"], name=op.f("fk_communities_context_id_contexts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_communities")),
        sa.UniqueConstraint(
            "context_id", "level", "ordinal", "scopes",
            name=op.f("uq_communities_context_id_level_ordinal_scopes"),
        ),
        sa.UniqueConstraint("id", "scopes", name=op.f("uq_communities_id_scopes")),
    )  # fmt: skip
    op.create_index(
        "ix_communities_scopes", "communities", ["scopes"], unique=False, postgresql_using="gin"
    )
    op.create_table(
        "community_members",
        sa.Column("community_id", sa.BigInteger(), nullable=False),
        sa.Column("concept", sa.Text(), nullable=False),
        sa.Column("context_id", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("weight", sa.Float(), nullable=False),
        sa.Column("scopes", sa.ARRAY(sa.Text()), nullable=False),
        sa.CheckConstraint(
            "cardinality(scopes) >= 1", name=op.f("ck_community_members_scopes_nonempty")
        ),
        sa.ForeignKeyConstraint(
            ["community_id", "scopes"],
            ["communities.id", "communities.scopes"],
            name=op.f("fk_community_members_community_id_communities"),
            onupdate="CASCADE",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("community_id", "concept", name=op.f("pk_community_members")),
    )
    op.create_index(
        "ix_community_members_concept", "community_members", ["context_id", "concept"],
        unique=False,
    )  # fmt: skip
    for table in ("communities", "community_members"):
        op.execute(rls.scoped_table_sql(table))
    op.execute(rls.once_per_statement_sql("communities", in_context=True))
    op.execute(rls.sequences_sql())


def downgrade() -> None:
    op.drop_table("community_members")  # its indexes and policies go with it
    op.drop_table("communities")
