"""claims.in_reply_to: what a note answers (the turn before it in its conversation).

The claims lane embeds a note after what it answers (graph/claim_vectors.py), so a reply that
does not repeat the topic's words is found by it. Existing notes have none and keep their vectors.

Revision ID: 0031
Revises: 0030
Create Date: 2026-12-06 21:55:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0031"
down_revision: str | None = "0030"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("claims", sa.Column("in_reply_to", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("claims", "in_reply_to")
