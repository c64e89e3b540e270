"""user guard: `tabane_hold_user(uid)`, called by every transaction acting for a user.

Erasing a user ran beside that user's own transactions: a claim the user was writing committed
after the erasure and stayed, and a `Principal` of the erased user could go on writing rows that
nobody would ever erase. Every transaction for a user now first takes a shared advisory lock on
the user (erasure takes it exclusively, waiting for the transactions in flight) and then checks
that the user still exists. The check must see what committed after the statement began (an
erasure that ended while the lock was awaited), so it runs inside a VOLATILE function, whose
queries take a fresh snapshot. The lock is only tried: a transaction that would queue behind an
erasure answers 'busy' at once (no wait that a caller's own open transaction could deadlock).

Returns 'ok', 'busy' (an erasure holds or awaits the lock) or 'gone' (no such user).

Revision ID: 0029
Revises: 0028
Create Date: 2026-12-01 12:00:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0029"
down_revision: str | None = "0028"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# storage/guard.py USER_LOCK, frozen here as the function was created
HOLD = """
CREATE OR REPLACE FUNCTION tabane_hold_user(uid bigint) RETURNS text
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF NOT pg_try_advisory_xact_lock_shared(8463219665059971072 + uid) THEN
    RETURN 'busy';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM users WHERE id = uid) THEN
    RETURN 'gone';
  END IF;
  RETURN 'ok';
END $$;
GRANT EXECUTE ON FUNCTION tabane_hold_user(bigint) TO tabane_app;
"""


def upgrade() -> None:
    op.execute(HOLD)


def downgrade() -> None:
    op.execute("DROP FUNCTION IF EXISTS tabane_hold_user(bigint)")
