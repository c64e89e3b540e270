"""source state only when stated: `sources.state` nullable, no default (issue 34).

A source with an area and no explicit state was listed as an active project: the column said
`active` for every source nobody gave a state. Now NULL means "not stated", and only `active`
or `waiting` sources make the project catalog. Existing rows keep their value until their
source is read again (PARSER_VERSION 6 makes the next ingest or sync of a file do so, and a
file that states nothing then gets NULL).

Revision ID: 0035
Revises: 0034
Create Date: 2026-12-07 00:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0035"
down_revision: str | None = "0034"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.alter_column("sources", "state", existing_type=sa.Text(), nullable=True, server_default=None)


def downgrade() -> None:
    op.execute("UPDATE sources SET state = 'active' WHERE state IS NULL")
    op.alter_column(
        "sources", "state", existing_type=sa.Text(), nullable=False, server_default="active"
    )
