"""gloss kind: `vocabulary_vectors.kind`, `concept` or `label` (issue 35).

Labels are embedded like concepts (a label's gloss is its heaviest uses), so resolve_label has a
semantic tier and the audit finds label twins. The kind is kept on the vector row so the readers
that want concepts only — recall's gloss seeds, read in the HNSW index's order — filter on a
column of the scanned table instead of joining the vocabulary. Existing rows are concepts.

Revision ID: 0034
Revises: 0033
Create Date: 2026-12-07 00:20:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0034"
down_revision: str | None = "0033"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "vocabulary_vectors",
        sa.Column("kind", sa.Text(), server_default="concept", nullable=False),
    )


def downgrade() -> None:
    op.execute("DELETE FROM vocabulary_vectors WHERE kind <> 'concept'")
    op.drop_column("vocabulary_vectors", "kind")
