"""merged masks: each merged BM25 row records the newest mask it already accounts for.

`bm25_merged.masked_upto` is the largest `bm25_dead.id` of its context and scope set when the row
was rebuilt (search/merge.py); a read masks the row only with the masks written after it. A
paragraph re-indexed in place (a replaced source's kept paragraph: same id, a new pack) was
folded into the rows a merge step rebuilt while its old mask, dropped only after the last step,
still hid it there (search/bm25.py). Existing rows get 0: every mask applies to them, as before.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-01 06:45:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "bm25_merged",
        sa.Column("masked_upto", sa.BigInteger(), server_default="0", nullable=False),
    )


def downgrade() -> None:
    op.drop_column("bm25_merged", "masked_upto")
