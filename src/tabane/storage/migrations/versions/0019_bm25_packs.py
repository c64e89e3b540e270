"""bm25 packs: the BM25 postings packed per (source, term) in `bm25_packs`, replacing `postings`.

A row of `postings` held one term of one paragraph, so a question of common words read ~100k
index tuples at 100k paragraphs and summed them in the executor (~55 ms). A pack holds every
paragraph of one source that contains the term as fixed-width big-endian records (paragraph id
int8, tf int4, qtf int4, dl int4 — search/postings.py `PACK`), ascending by id: the same
question reads one row per source holding each term (~6k rows) and is scored in numpy
(search/bm25.py). The packs are stored uncompressed (STORAGE EXTERNAL): they are read far more
often than written and compress poorly. They carry the source's scope set through the composite
foreign key (deleted and re-scoped with the source) and the same four policies `postings` had.
Existing postings are packed here by the server with `int8send`/`int4send`, which write the
records' byte order.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-04 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from tabane.storage import rls

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_PACK = (
    "string_agg(int8send(paragraph_id) || int4send(tf) || int4send(qtf) || int4send(dl), "
    "''::bytea ORDER BY paragraph_id)"
)


def upgrade() -> None:
    op.create_table(
        "bm25_packs",
        sa.Column("source_pk", sa.BigInteger(), nullable=False),
        sa.Column("term", sa.Text(collation="C"), nullable=False),
        sa.Column("context_id", sa.Integer(), nullable=False),
        sa.Column("postings", sa.LargeBinary(), nullable=False),
        sa.Column("scopes", sa.ARRAY(sa.Text()), nullable=False),
        sa.CheckConstraint(
            "cardinality(scopes) >= 1", name=op.f("ck_bm25_packs_scopes_nonempty")
        ),
        sa.ForeignKeyConstraint(
            ["source_pk", "scopes"],
            ["sources.id", "sources.scopes"],
            name=op.f("fk_bm25_packs_source_pk_sources"),
            onupdate="CASCADE",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("source_pk", "term", name=op.f("pk_bm25_packs")),
    )
    op.create_index("ix_bm25_packs_lookup", "bm25_packs", ["context_id", "term"], unique=False)
    op.execute("ALTER TABLE bm25_packs ALTER COLUMN postings SET STORAGE EXTERNAL")
    op.execute(rls.scoped_table_sql("bm25_packs"))
    op.execute(rls.once_per_statement_sql("bm25_packs", in_context=False))
    op.execute("ALTER TABLE postings NO FORCE ROW LEVEL SECURITY")
    op.execute("ALTER TABLE bm25_packs NO FORCE ROW LEVEL SECURITY")
    op.execute(
        "INSERT INTO bm25_packs (source_pk, term, context_id, postings, scopes) "
        f"SELECT source_pk, term, context_id, {_PACK}, scopes FROM postings "
        "GROUP BY source_pk, term, context_id, scopes"
    )
    op.execute("ALTER TABLE bm25_packs FORCE ROW LEVEL SECURITY")
    op.drop_table("postings")  # its indexes and policies go with it


def downgrade() -> None:
    op.create_table(
        "postings",
        sa.Column("paragraph_id", sa.BigInteger(), nullable=False),
        sa.Column("term", sa.Text(collation="C"), nullable=False),
        sa.Column("context_id", sa.Integer(), nullable=False),
        sa.Column("source_pk", sa.BigInteger(), nullable=False),
        sa.Column("tf", sa.Integer(), nullable=False),
        sa.Column("qtf", sa.Integer(), server_default="0", nullable=False),
        sa.Column("dl", sa.Integer(), nullable=False),
        sa.Column("scopes", sa.ARRAY(sa.Text()), nullable=False),
        sa.CheckConstraint("cardinality(scopes) >= 1", name=op.f("ck_postings_scopes_nonempty")),
        sa.ForeignKeyConstraint(
            ["paragraph_id", "scopes"],
            ["paragraphs.id", "paragraphs.scopes"],
            name=op.f("fk_postings_paragraph_id_paragraphs"),
            onupdate="CASCADE",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("paragraph_id", "term", name=op.f("pk_postings")),
    )
    op.create_index(
        "ix_postings_lookup",
        "postings",
        ["context_id", "term"],
        unique=False,
        postgresql_include=["paragraph_id", "source_pk", "tf", "qtf", "dl", "scopes"],
    )
    op.create_index(op.f("ix_postings_source_pk"), "postings", ["source_pk"], unique=False)
    op.execute(rls.scoped_table_sql("postings"))
    op.execute(rls.once_per_statement_sql("postings", in_context=False))
    op.execute("ALTER TABLE postings NO FORCE ROW LEVEL SECURITY")
    op.execute("ALTER TABLE bm25_packs NO FORCE ROW LEVEL SECURITY")
    # Unpack each record: offset 20·i, id 8 bytes then tf, qtf, dl 4 bytes each.
    op.execute(
        "INSERT INTO postings (paragraph_id, term, context_id, source_pk, tf, qtf, dl, scopes) "
        "SELECT ('x' || encode(substring(postings FROM 20*i+1 FOR 8), 'hex'))::bit(64)::bigint, "
        "term, context_id, source_pk, "
        "('x' || encode(substring(postings FROM 20*i+9 FOR 4), 'hex'))::bit(32)::int, "
        "('x' || encode(substring(postings FROM 20*i+13 FOR 4), 'hex'))::bit(32)::int, "
        "('x' || encode(substring(postings FROM 20*i+17 FOR 4), 'hex'))::bit(32)::int, scopes "
        "FROM bm25_packs, generate_series(0, length(postings)/20 - 1) AS i"
    )
    op.execute("ALTER TABLE postings FORCE ROW LEVEL SECURITY")
    op.drop_table("bm25_packs")
