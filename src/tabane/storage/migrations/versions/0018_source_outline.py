"""source outline: `sources.outline` and `sources.area_key`, the corpus map's inputs per source.

`outline` is the source's top-level section titles (its level-1 headings in order of first
appearance; when the only one repeats the source's title, a document's `# Title`, the level-2
headings under it), so the corpus map reads `sources` alone instead of aggregating `sections` at
read time. `area_key` is the area normalized like a title (`sources.write.title_key`), so recall's
area catalog can tell when a question names an area. Both are written at ingest in the
transaction that writes the paragraphs (ingest/documents.py); existing rows are backfilled here,
in Python, since the normalization is tabane's own (as 0010 did for `title_key`).

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-03 12:00:00.000000
"""

import re
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from tabane.text.tokenize import normalize

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 1000  # sources per backfill round trip
_SPACES = re.compile(r"\s+")


def _norm(text: str) -> str:
    return _SPACES.sub(" ", text).strip().casefold()


def _outline(title: str, sections: list[tuple[int, str]]) -> list[str]:
    """ingest.documents.outline as of this revision, over (level, title) in ordinal order."""
    roots = [t for level, t in sections if level == 1]
    if len(roots) == 1 and _norm(roots[0]) == _norm(title):
        return [t for level, t in sections if level == 2]
    return roots


def _key(area: str | None) -> str:
    """sources.write.title_key of the area as of this revision ("" without one)."""
    return " ".join(normalize(area or "").split())


def _backfill() -> None:
    """Fill both columns of every stored source. The owner runs migrations; with the tables'
    row-level security not forced for this transaction, the owner sees every row."""
    bind = op.get_bind()
    sources = sa.table(
        "sources", sa.column("id", sa.BigInteger), sa.column("title", sa.Text),
        sa.column("area", sa.Text), sa.column("outline", sa.ARRAY(sa.Text)),
        sa.column("area_key", sa.Text),
    )  # fmt: skip
    sections = sa.table(
        "sections", sa.column("source_pk", sa.BigInteger), sa.column("ordinal", sa.Integer),
        sa.column("level", sa.Integer), sa.column("title", sa.Text),
    )  # fmt: skip
    change = (
        sa.update(sources)
        .where(sources.c.id == sa.bindparam("pk"))
        .values(outline=sa.bindparam("outline"), area_key=sa.bindparam("key"))
    )
    op.execute("ALTER TABLE sources NO FORCE ROW LEVEL SECURITY")
    op.execute("ALTER TABLE sections NO FORCE ROW LEVEL SECURITY")
    after = 0
    while True:
        rows = bind.execute(
            sa.select(sources.c.id, sources.c.title, sources.c.area)
            .where(sources.c.id > after)
            .order_by(sources.c.id)
            .limit(BATCH)
        ).all()
        if not rows:
            break
        after = rows[-1].id
        found: dict[int, list[tuple[int, str]]] = {}
        for pk, level, title in bind.execute(
            sa.select(sections.c.source_pk, sections.c.level, sections.c.title)
            .where(sections.c.source_pk.in_([r.id for r in rows]), sections.c.level <= 2)
            .order_by(sections.c.source_pk, sections.c.ordinal)
        ):
            found.setdefault(pk, []).append((level, title))
        values = [
            {"pk": r.id, "outline": _outline(r.title, found.get(r.id, [])), "key": _key(r.area)}
            for r in rows
        ]
        filled = [v for v in values if v["outline"] or v["key"]]
        if filled:
            bind.execute(change, filled)
    op.execute("ALTER TABLE sections FORCE ROW LEVEL SECURITY")
    op.execute("ALTER TABLE sources FORCE ROW LEVEL SECURITY")


def upgrade() -> None:
    op.add_column(
        "sources",
        sa.Column("outline", sa.ARRAY(sa.Text()), server_default="{}", nullable=False),
    )
    op.add_column("sources", sa.Column("area_key", sa.Text(), server_default="", nullable=False))
    _backfill()


def downgrade() -> None:
    op.drop_column("sources", "area_key")
    op.drop_column("sources", "outline")
