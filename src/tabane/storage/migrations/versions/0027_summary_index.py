"""HNSW indexes over derived summaries' vectors, per width.

Recall's derived lanes (recall/lanes_derived.py) ranked community summaries, entity profiles and
RAPTOR overviews by an exact scan of every summary vector of the context. A RAPTOR tree over
100k paragraphs holds ~1,500 nodes above the first level: their scan was 4.6 ms of a 21 ms
statement (bench/recall_latency.py), the costliest lane, and it grows with the corpus. The RAPTOR
index covers only the nodes the lane serves (level 2 and up), so no filter thins its graph.

Revision ID: 0027
Revises: 0026
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0027"
down_revision: str | None = "0026"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DIMS = (384, 512, 768, 1024, 1536)  # the widths paragraph_vectors is indexed for (0002, 0009)
TABLES = (("communities", ""), ("profiles", ""), ("raptor_nodes", " AND level >= 2"))


def upgrade() -> None:
    for table, only in TABLES:
        for dim in DIMS:
            op.execute(
                f"CREATE INDEX ix_{table}_hnsw_{dim} ON {table} "
                f"USING hnsw ((embedding::vector({dim})) vector_cosine_ops) "
                f"WITH (m = 16, ef_construction = 200) WHERE dim = {dim}{only}"
            )


def downgrade() -> None:
    for table, _ in TABLES:
        for dim in DIMS:
            op.execute(f"DROP INDEX IF EXISTS ix_{table}_hnsw_{dim}")
