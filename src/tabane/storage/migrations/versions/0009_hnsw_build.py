"""paragraph vector indexes rebuilt with a better-built graph (ef_construction 200, m 16).

Measured at 100k paragraphs (bench/search_latency.py's synthetic vectors, 60 questions, pool 50):
with the default build (ef_construction 64) recall@10 against an exact scan levelled off at ~0.94
whatever ef_search; rebuilt with ef_construction 200 it reached 0.952 at ef_search 400 (about
19 ms). The search raises ef_search to 8·pool to match (search/vectors.py). The rebuild costs
about 100 s per 100k vectors of a width, once, at this upgrade.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-30 06:05:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DIMS = (384, 512, 768, 1024, 1536)  # the widths migration 0002 indexed


def _index(dim: int, options: str) -> str:
    return (
        f"CREATE INDEX ix_paragraph_vectors_hnsw_{dim} ON paragraph_vectors "
        f"USING hnsw ((embedding::vector({dim})) vector_cosine_ops){options} WHERE dim = {dim}"
    )


def upgrade() -> None:
    for dim in DIMS:
        op.execute(f"DROP INDEX IF EXISTS ix_paragraph_vectors_hnsw_{dim}")
        op.execute(_index(dim, " WITH (m = 16, ef_construction = 200)"))


def downgrade() -> None:
    for dim in DIMS:
        op.execute(f"DROP INDEX IF EXISTS ix_paragraph_vectors_hnsw_{dim}")
        op.execute(_index(dim, ""))
