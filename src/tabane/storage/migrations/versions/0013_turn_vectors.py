"""turn vectors: `turn_vectors`, one embedding per session turn and model, under row-level security.

recall's turns lane ranks a session's working-memory window by similarity to the question. Each
vector carries its turn's scope set through the composite foreign key (like `claim_vectors` →
`claims`, so `session_turns` gains a unique (id, scopes)); deleting a turn, its session or its
user removes it. The lane reaches vectors through `session_pk` (indexed) and compares the few
dozen of a window exactly, so unlike `claim_vectors` there are no per-width HNSW indexes: they
would only slow every turn's write. The four scope policies come from `rls.scoped_table_sql`
(the once-per-statement form of migration 0008).

`jobs.session_pk` names the session an `embed_turns` job embeds; deleting the session removes
its queued job.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-30 08:00:00.000000
"""

from collections.abc import Sequence

import pgvector.sqlalchemy
import sqlalchemy as sa
from alembic import op

from tabane.storage import rls

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # The unique (id, scopes) of session_turns comes before the foreign key that needs it.
    op.create_unique_constraint(
        op.f("uq_session_turns_id_scopes"), "session_turns", ["id", "scopes"]
    )
    op.create_table(
        "turn_vectors",
        sa.Column("turn_id", sa.BigInteger(), nullable=False),
        sa.Column("model", sa.Text(), nullable=False),
        sa.Column("session_pk", sa.BigInteger(), nullable=False),
        sa.Column("dim", sa.Integer(), nullable=False),
        sa.Column("embedding", pgvector.sqlalchemy.vector.VECTOR(), nullable=False),
        sa.Column("scopes", sa.ARRAY(sa.Text()), nullable=False),
        sa.CheckConstraint(
            "cardinality(scopes) >= 1", name=op.f("ck_turn_vectors_scopes_nonempty")
        ),
        sa.ForeignKeyConstraint(
            ["turn_id", "scopes"],
            ["session_turns.id", "session_turns.scopes"],
            name=op.f("fk_turn_vectors_turn_id_session_turns"),
            onupdate="CASCADE",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("turn_id", "model", name=op.f("pk_turn_vectors")),
    )
    op.create_index(
        op.f("ix_turn_vectors_session_pk"), "turn_vectors", ["session_pk"], unique=False
    )
    op.add_column("jobs", sa.Column("session_pk", sa.BigInteger(), nullable=True))
    op.create_foreign_key(
        op.f("fk_jobs_session_pk_sessions"), "jobs", "sessions", ["session_pk"], ["id"],
        ondelete="CASCADE",
    )  # fmt: skip
    op.create_index(op.f("ix_jobs_session_pk"), "jobs", ["session_pk"], unique=False)
    op.execute(rls.scoped_table_sql("turn_vectors"))
    op.execute(rls.sequences_sql())


def downgrade() -> None:
    op.drop_index(op.f("ix_jobs_session_pk"), table_name="jobs")
    op.drop_constraint(op.f("fk_jobs_session_pk_sessions"), "jobs", type_="foreignkey")
    op.drop_column("jobs", "session_pk")
    op.drop_table("turn_vectors")  # its indexes and policies go with it
    op.drop_constraint(op.f("uq_session_turns_id_scopes"), "session_turns", type_="unique")
