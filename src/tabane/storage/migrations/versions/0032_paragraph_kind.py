"""paragraph kind: `paragraphs.kind`, `text` or `code` (issue 28).

Code (an HTML `<pre>`, a fenced Markdown block, roff's no-fill text) keeps its line breaks; the
kind tells a reader of a search hit or a citation to show it verbatim. Existing rows are `text`
until their source is read again (PARSER_VERSION 4 makes the next ingest or sync do so).

Revision ID: 0032
Revises: 0031
Create Date: 2026-12-06 22:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0032"
down_revision: str | None = "0031"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "paragraphs", sa.Column("kind", sa.Text(), server_default="text", nullable=False)
    )


def downgrade() -> None:
    op.drop_column("paragraphs", "kind")
