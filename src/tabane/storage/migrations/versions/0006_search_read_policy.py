"""search read policies evaluate the caller's read scopes once per statement, not per row.

`tabane_read_scopes()` is a STABLE SQL function, so PostgreSQL inlines it into the policy and
re-parses the `tabane.read_scopes` setting for every row a scan visits: on the BM25 lane's
postings (~100k index tuples for a long question at 100k paragraphs) that was about half of the
scan. Wrapped in a scalar sub-select it becomes an InitPlan, computed once per statement. The
rows each caller can read are unchanged. Applied to the tables the search lanes scan.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30 05:50:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("postings", "bm25_corpus", "bm25_terms", "paragraph_vectors")
_ONCE = "(scopes <@ (SELECT tabane_read_scopes()) OR scopes = ARRAY['public']::text[])"
_PER_ROW = "(scopes <@ tabane_read_scopes() OR scopes = ARRAY['public']::text[])"


def upgrade() -> None:
    for table in TABLES:
        op.execute(f"ALTER POLICY {table}_select ON {table} USING {_ONCE}")


def downgrade() -> None:
    for table in TABLES:
        op.execute(f"ALTER POLICY {table}_select ON {table} USING {_PER_ROW}")
