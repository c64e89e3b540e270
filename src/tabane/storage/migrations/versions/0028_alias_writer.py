"""alias writers: `vocabulary.written_by`, the id of the user who added an alias.

An alias (`alias_of` set) is a spelling a user wrote, unlike a canonical spelling, which the
claims that name it mint. Without its writer, erasing a user left their aliases behind in shared
contexts, still resolving the user's spellings for everyone. With the writer recorded, erasure
takes the aliases the user added, wherever they are. Aliases added before this revision have no
writer (NULL) and stay, as before; canonical spellings never have one.

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-01 11:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0028"
down_revision: str | None = "0027"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("vocabulary", sa.Column("written_by", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    op.drop_column("vocabulary", "written_by")
