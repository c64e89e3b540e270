"""job turns: an index that walks the waiting jobs by owner, context and age.

A worker's claim gives owners (a job's scope set) and then their contexts turns (jobs/queue.py
`Turns`). Finding the next owner and the next context of it scanned every waiting job — about
11× an oldest-first claim at 100,000 queued (bench/claim_order.py); this partial index on the
waiting and running jobs lets each step read the first matching entry instead.

Revision ID: 0037
Revises: 0036
Create Date: 2026-12-07 06:20:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0037"
down_revision: str | None = "0036"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute(
        "CREATE INDEX ix_jobs_turns ON jobs (scopes, (coalesce(context_id, 0)), id)"
        " WHERE state IN ('queued', 'running')"
    )


def downgrade() -> None:
    op.execute("DROP INDEX ix_jobs_turns")
