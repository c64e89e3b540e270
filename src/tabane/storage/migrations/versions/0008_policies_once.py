"""every scope policy evaluates the caller's scope sets once per statement, not per row.

Migration 0006 did this for the read policies of the four tables the search lanes scan; this one
does it for the four policies of every scoped table (reads, and the checks of bulk inserts such as
an ingest's postings), in the form `rls.scoped_table_sql` now writes for new tables. Which rows
pass each policy is unchanged; the RLS property test checks it against its oracle.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-30 06:00:00
"""

from collections.abc import Sequence

from alembic import op

from tabane.storage import rls

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Every scoped table at this revision, and those whose writes also need a visible context.
TABLES = (
    "contexts", "groups", "group_contexts", "group_children", "sources", "sections", "paragraphs",
    "postings", "bm25_corpus", "bm25_terms", "paragraph_vectors", "vocabulary", "vocabulary_grams",
    "vocabulary_vectors", "vocabulary_sizes", "vocabulary_gram_stats", "claims", "associations",
    "sessions", "session_turns",
)  # fmt: skip
IN_CONTEXT = (
    "sources", "bm25_corpus", "bm25_terms", "vocabulary", "claims", "associations",
    "vocabulary_sizes", "vocabulary_gram_stats",
)  # fmt: skip
_MINE_ONCE = (
    "(scopes <@ (SELECT tabane_write_scopes()) AND read_scopes <@ (SELECT tabane_read_scopes()))"
)
_MINE = "(scopes <@ tabane_write_scopes() AND read_scopes <@ tabane_read_scopes())"
_READ = "(scopes <@ tabane_read_scopes() OR scopes = ARRAY['public']::text[])"
_WRITE = "(scopes <@ tabane_write_scopes())"


def upgrade() -> None:
    for table in TABLES:
        op.execute(rls.once_per_statement_sql(table, in_context=table in IN_CONTEXT))
    op.execute(f"ALTER POLICY jobs_own ON jobs USING {_MINE_ONCE} WITH CHECK {_MINE_ONCE}")


def downgrade() -> None:
    op.execute(f"ALTER POLICY jobs_own ON jobs USING {_MINE} WITH CHECK {_MINE}")
    for table in TABLES:
        visible = f" AND {rls.IN_VISIBLE_CONTEXT}" if table in IN_CONTEXT else ""
        op.execute(f"""
ALTER POLICY {table}_select ON {table} USING {_READ};
ALTER POLICY {table}_insert ON {table} WITH CHECK ({_WRITE}{visible});
ALTER POLICY {table}_update ON {table} USING {_WRITE} WITH CHECK ({_WRITE}{visible});
ALTER POLICY {table}_delete ON {table} USING {_WRITE};
""")
