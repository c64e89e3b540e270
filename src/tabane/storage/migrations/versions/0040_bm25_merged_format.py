"""bm25_merged format: which byte format a merged row's postings are in (search/codec.py).

0 for the rows written before (PACK, 20 bytes a record), 1 for the compact records the merge
writes since (decision 0038). A catalog default: no row is rewritten here. One `merge_bm25` job
per context and scope set that holds merged rows is queued; the job converts the set's PACK rows
in steps of a term range (search/merge.py `convert_in_steps`), reading them correctly until then.

Revision ID: 0040
Revises: 0039
Create Date: 2026-12-07 12:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0040"
down_revision: str | None = "0039"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# One job per context and scope set with merged rows (run as the store's owner, which reads past
# row-level security).
CONVERT = (
    "INSERT INTO jobs (kind, context_id, scopes, read_scopes)"
    " SELECT DISTINCT 'merge_bm25', context_id, scopes, scopes FROM bm25_merged"
)


def upgrade() -> None:
    op.add_column(
        "bm25_merged",
        sa.Column("format", sa.SmallInteger(), server_default="0", nullable=False),
    )
    op.execute(CONVERT)


def downgrade() -> None:
    op.drop_column("bm25_merged", "format")
