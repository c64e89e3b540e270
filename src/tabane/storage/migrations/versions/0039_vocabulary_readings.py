"""vocabulary readings: the keys a spelling is also found under (text/reading.py).

`reading` (the loose romaji of a spelling's kana reading) and `acronym` (the initials of a
Latin spelling of several words), one row per spelling and key, under the vocabulary's scope
set (`rls.SCOPED_IN_CONTEXT` like the graph's other tables); resolve's reading route looks cue
keys up by `ix_vocabulary_readings_lookup`. Spellings written from now on get their keys on
write; for those already stored, one `index_readings` job per context and scope set is queued
(jobs/worker.py runs `graph.readings.backfill`; the keys come from Python, text/reading.py).

Revision ID: 0039
Revises: 0038
Create Date: 2026-12-07 10:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from tabane.storage import rls

revision: str = "0039"
down_revision: str | None = "0038"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


# One job per context and scope set that holds spellings (run as the store's owner, which reads
# past row-level security).
BACKFILL = (
    "INSERT INTO jobs (kind, context_id, scopes, read_scopes)"
    " SELECT DISTINCT 'index_readings', context_id, scopes, scopes FROM vocabulary"
)


def upgrade() -> None:
    op.create_table(
        "vocabulary_readings",
        sa.Column("entry_id", sa.BigInteger(), nullable=False),
        sa.Column("how", sa.Text(), nullable=False),
        sa.Column("key", sa.Text(collation="C"), nullable=False),
        sa.Column("context_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("scopes", postgresql.ARRAY(sa.Text()), nullable=False),
        sa.CheckConstraint(
            "how in ('reading', 'acronym')", name=op.f("ck_vocabulary_readings_how_known")
        ),
        sa.CheckConstraint(
            "cardinality(scopes) >= 1", name=op.f("ck_vocabulary_readings_scopes_nonempty")
        ),
        sa.ForeignKeyConstraint(
            ["entry_id", "scopes"],
            ["vocabulary.id", "vocabulary.scopes"],
            name=op.f("fk_vocabulary_readings_entry_id_vocabulary"),
            onupdate="CASCADE",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("entry_id", "how", "key", name=op.f("pk_vocabulary_readings")),
    )
    op.create_index(
        "ix_vocabulary_readings_lookup",
        "vocabulary_readings",
        ["context_id", "kind", "how", "key"],
        postgresql_include=["entry_id", "scopes"],
    )
    op.execute(rls.table_sql("vocabulary_readings", rls.SCOPED_IN_CONTEXT, replace=False))
    op.execute(BACKFILL)


def downgrade() -> None:
    op.drop_table("vocabulary_readings")
