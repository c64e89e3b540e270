"""gram packs: each bigram's vocabulary postings packed per (context, kind, gram, scope set).

resolve's top mode read a Latin typo's ~12.5k postings through the executor (index-only scan,
hash aggregate: ~8 ms at 100k concepts). A pack holds one gram's postings of a scope set as
(entry id, key bigram count) records, so the cue's grams are one row each and the counting runs
in numpy (graph/resolve_arrays.py). The postings stay the truth; `merged` flags those packed,
and a partial index finds the others (graph/gram_merge.py). Existing vocabularies are packed here.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-07 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from tabane.storage import rls

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Every existing posting is packed below: the column is added as true (a catalog default,
    # no table rewrite and no dead tuples), then new rows default to false.
    op.add_column(
        "vocabulary_grams",
        sa.Column("merged", sa.Boolean(), server_default=sa.true(), nullable=False),
    )
    op.alter_column("vocabulary_grams", "merged", server_default=sa.false())
    op.create_index(
        "ix_vocabulary_grams_fresh",
        "vocabulary_grams",
        ["context_id", "kind", "gram"],
        unique=False,
        postgresql_include=["entry_id", "scopes", "size"],
        postgresql_where=sa.text("NOT merged"),
    )
    op.create_table(
        "vocabulary_gram_packs",
        sa.Column("context_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("gram", sa.Text(collation="C"), nullable=False),
        sa.Column("scopes", sa.ARRAY(sa.Text()), nullable=False),
        sa.Column("records", sa.LargeBinary(), nullable=False),
        sa.CheckConstraint(
            "kind in ('concept', 'label')", name=op.f("ck_vocabulary_gram_packs_kind_known")
        ),
        sa.CheckConstraint(
            "cardinality(scopes) >= 1", name=op.f("ck_vocabulary_gram_packs_scopes_nonempty")
        ),
        sa.ForeignKeyConstraint(
            ["context_id"],
            ["contexts.id"],
            name=op.f("fk_vocabulary_gram_packs_context_id_contexts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "context_id", "kind", "gram", "scopes", name=op.f("pk_vocabulary_gram_packs")
        ),
    )
    op.execute("ALTER TABLE vocabulary_gram_packs ALTER COLUMN records SET STORAGE EXTERNAL")
    op.execute(rls.scoped_table_sql("vocabulary_gram_packs"))
    op.execute(rls.once_per_statement_sql("vocabulary_gram_packs", in_context=True))
    op.execute(rls.sequences_sql())
    for table in ("vocabulary_grams", "vocabulary_gram_packs"):
        op.execute(f"ALTER TABLE {table} NO FORCE ROW LEVEL SECURITY")
    op.execute(
        "INSERT INTO vocabulary_gram_packs (context_id, kind, gram, scopes, records) "
        "SELECT context_id, kind, gram, scopes, "
        "string_agg(int8send(entry_id) || int4send(size), ''::bytea ORDER BY entry_id) "
        "FROM vocabulary_grams GROUP BY context_id, kind, gram, scopes"
    )
    for table in ("vocabulary_grams", "vocabulary_gram_packs"):
        op.execute(f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY")


def downgrade() -> None:
    op.drop_table("vocabulary_gram_packs")
    op.drop_index("ix_vocabulary_grams_fresh", table_name="vocabulary_grams")
    op.drop_column("vocabulary_grams", "merged")
