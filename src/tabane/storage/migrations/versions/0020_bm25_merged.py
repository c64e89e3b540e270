"""bm25 merged: each context's packs concatenated per (term, scope set) in `bm25_merged`.

At 100k paragraphs a question's terms are held by ~6,400 packs (one per source and term), and
reading them — one index entry, one heap tuple and one policy check each — was most of the BM25
lane (~10 ms). A merged row holds every pack of one term in one context and scope set, so the
same question reads about one row per term. The packs stay the truth (statistics, explain,
filtered reads); `merged` flags those folded in, and a partial index finds the others. A merged
source removed later leaves its paragraph ids in `bm25_dead`, masked at read time until the next
merge (search/merge.py). Existing packs are merged here.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-05 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from tabane.storage import rls

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "bm25_packs",
        sa.Column("merged", sa.Boolean(), server_default=sa.false(), nullable=False),
    )
    op.create_index(
        "ix_bm25_packs_fresh",
        "bm25_packs",
        ["context_id", "term"],
        unique=False,
        postgresql_where=sa.text("NOT merged"),
    )
    op.create_table(
        "bm25_merged",
        sa.Column("context_id", sa.Integer(), nullable=False),
        sa.Column("term", sa.Text(collation="C"), nullable=False),
        sa.Column("scopes", sa.ARRAY(sa.Text()), nullable=False),
        sa.Column("postings", sa.LargeBinary(), nullable=False),
        sa.CheckConstraint(
            "cardinality(scopes) >= 1", name=op.f("ck_bm25_merged_scopes_nonempty")
        ),
        sa.ForeignKeyConstraint(
            ["context_id"],
            ["contexts.id"],
            name=op.f("fk_bm25_merged_context_id_contexts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("context_id", "term", "scopes", name=op.f("pk_bm25_merged")),
    )
    op.execute("ALTER TABLE bm25_merged ALTER COLUMN postings SET STORAGE EXTERNAL")
    op.create_table(
        "bm25_dead",
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.Column("context_id", sa.Integer(), nullable=False),
        sa.Column("ids", sa.LargeBinary(), nullable=False),
        sa.Column("scopes", sa.ARRAY(sa.Text()), nullable=False),
        sa.CheckConstraint("cardinality(scopes) >= 1", name=op.f("ck_bm25_dead_scopes_nonempty")),
        sa.ForeignKeyConstraint(
            ["context_id"],
            ["contexts.id"],
            name=op.f("fk_bm25_dead_context_id_contexts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bm25_dead")),
    )
    op.create_index("ix_bm25_dead_context", "bm25_dead", ["context_id"], unique=False)
    for table in ("bm25_merged", "bm25_dead"):
        op.execute(rls.scoped_table_sql(table))
        op.execute(rls.once_per_statement_sql(table, in_context=True))
    op.execute(rls.sequences_sql())
    for table in ("bm25_packs", "bm25_merged"):
        op.execute(f"ALTER TABLE {table} NO FORCE ROW LEVEL SECURITY")
    op.execute(
        "INSERT INTO bm25_merged (context_id, term, scopes, postings) "
        "SELECT context_id, term, scopes, string_agg(postings, ''::bytea ORDER BY source_pk) "
        "FROM bm25_packs GROUP BY context_id, term, scopes"
    )
    op.execute("UPDATE bm25_packs SET merged = true")
    for table in ("bm25_packs", "bm25_merged"):
        op.execute(f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY")


def downgrade() -> None:
    op.drop_table("bm25_dead")
    op.drop_table("bm25_merged")
    op.drop_index("ix_bm25_packs_fresh", table_name="bm25_packs")
    op.drop_column("bm25_packs", "merged")
