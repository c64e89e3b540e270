"""vacuum jobs: `jobs.tables`, the tables a `vacuum` job VACUUMs.

Erasure VACUUMs the tables it touched after its transaction commits, so that no dead row
version of the erased user stays in a page. A process that died between the commit and the
VACUUM (or a VACUUM that failed) left them there, and a second erasure of the same user cannot
run (the user is gone). The erasure now queues a `vacuum` job with the tables in its own
transaction, and clears it once its own VACUUM succeeded; otherwise a worker runs it.

Revision ID: 0030
Revises: 0029
Create Date: 2026-12-01 14:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0030"
down_revision: str | None = "0029"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("jobs", sa.Column("tables", postgresql.ARRAY(sa.Text()), nullable=True))


def downgrade() -> None:
    op.drop_column("jobs", "tables")
