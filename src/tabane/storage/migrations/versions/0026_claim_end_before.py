"""claims' end before a correction: `claims.valid_until_before`.

A correction (`closes`) sets the claim it supersedes to end where the correction begins. Erasing
the user who wrote the correction reopens that claim (graph/forget.py), and it must get back the
end it had, not none: a fact that held until 2020 does not hold for ever because the correction
of it is gone. Claims closed before this revision have no record (NULL): reopened, they end
nowhere, as before.

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-01 07:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0026"
down_revision: str | None = "0025"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "claims", sa.Column("valid_until_before", sa.DateTime(timezone=True), nullable=True)
    )


def downgrade() -> None:
    op.drop_column("claims", "valid_until_before")
