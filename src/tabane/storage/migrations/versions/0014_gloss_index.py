"""HNSW indexes over concept glosses, per width.

Recall seeds its graph walk from the concepts whose glosses are nearest the question (as resolve's
semantic tier ranks them). Without an index that was a sequential scan of every gloss vector of
the context: 68 ms of a 315 ms statement at 19k concepts (bench/recall_latency.py).

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DIMS = (384, 512, 768, 1024, 1536)  # the widths paragraph_vectors is indexed for (0002, 0009)


def upgrade() -> None:
    for dim in DIMS:
        op.execute(
            f"CREATE INDEX ix_vocabulary_vectors_hnsw_{dim} ON vocabulary_vectors "
            f"USING hnsw ((embedding::vector({dim})) vector_cosine_ops) "
            f"WITH (m = 16, ef_construction = 200) WHERE dim = {dim}"
        )


def downgrade() -> None:
    for dim in DIMS:
        op.execute(f"DROP INDEX IF EXISTS ix_vocabulary_vectors_hnsw_{dim}")
