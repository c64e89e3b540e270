"""claim writers: `claims.written_by`, the id of the user who wrote the claim.

A claim's `author` is a label (the writer's name unless another speaker is named), and erasure
took the claims authored by a user in the scopes the user may read at the time: revoke a
user's grant to a team's scope first, and their claims in the team's contexts stayed. With the
writer recorded, a claim authored by the user and written by them goes whatever their grants
are then. Claims stored before have no writer (NULL) and keep the earlier rule.

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-01 07:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("claims", sa.Column("written_by", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    op.drop_column("claims", "written_by")
