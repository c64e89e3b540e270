"""baseline: the whole schema of migration 0035 in one step, for a new store.

The 35 migrations that built tabane 0.1's schema were squashed into this one (docs/decisions/
0009-policies-and-baseline.md). Its SQL (0036_baseline.sql) is pg_dump's schema of a store the
old chain made, with every table's row-level security written by its declared rule
(`rls.tables_sql`). A store at 0035 is stamped to this revision without change
(`storage.migrate.upgrade`); an older one is refused with `store_too_old`.

Revision ID: 0036
Revises:
Create Date: 2026-12-07 03:00:00
"""

from collections.abc import Sequence
from pathlib import Path

from alembic import op

from tabane.storage import rls

revision: str = "0036"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SQL = Path(__file__).with_suffix(".sql")


def upgrade() -> None:
    op.execute("CREATE EXTENSION IF NOT EXISTS vector")
    op.execute(rls.role_sql())
    op.get_bind().exec_driver_sql(SQL.read_text())


def downgrade() -> None:
    raise NotImplementedError("the baseline has no downgrade: drop the database instead")
