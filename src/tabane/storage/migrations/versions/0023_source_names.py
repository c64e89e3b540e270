"""source names: what a title names, matched by recall's title lane besides the whole title.

A stored title is rarely what a question writes: "git-revert(1)", "XXD(1)", "subprocess —
Subprocess management — Python 3.11.2 documentation". `sources.name_key` is the title's key up to
its first separator, without a manual page's section, hyphens read as spaces ("git revert",
"xxd", "subprocess"; `sources.write.name_key`); "" when that is the whole title. Existing titles
are backfilled here, in Python, since the normalization is tabane's own.

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-01 06:40:00.000000
"""

import re
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from tabane.text.tokenize import normalize

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 1000  # sources per backfill round trip
_SEPARATOR = re.compile(r"\s+[—–|-]\s+|:\s")
_SECTION = re.compile(r"\s*\(\s*[0-9][0-9a-z]*\s*\)$")


def _name(title: str) -> str:
    """sources.write.name_key as of this revision."""
    key = " ".join(normalize(title).split())
    head = _SECTION.sub("", _SEPARATOR.split(key, maxsplit=1)[0]).strip().replace("-", " ")
    return "" if head == key else head


def _backfill() -> None:
    """Fill `name_key` of every stored source. The owner runs migrations; with the table's
    row-level security not forced for this transaction, the owner sees every row."""
    bind = op.get_bind()
    sources = sa.table(
        "sources", sa.column("id", sa.BigInteger), sa.column("title", sa.Text),
        sa.column("name_key", sa.Text),
    )  # fmt: skip
    change = (
        sa.update(sources)
        .where(sources.c.id == sa.bindparam("pk"))
        .values(name_key=sa.bindparam("key"))
    )
    op.execute("ALTER TABLE sources NO FORCE ROW LEVEL SECURITY")
    after = 0
    while True:
        rows = bind.execute(
            sa.select(sources.c.id, sources.c.title)
            .where(sources.c.id > after, sources.c.title != "")
            .order_by(sources.c.id)
            .limit(BATCH)
        ).all()
        if not rows:
            break
        after = rows[-1].id
        keys = [{"pk": r.id, "key": _name(r.title)} for r in rows]
        if any(k["key"] for k in keys):
            bind.execute(change, [k for k in keys if k["key"]])
    op.execute("ALTER TABLE sources FORCE ROW LEVEL SECURITY")


def upgrade() -> None:
    op.add_column("sources", sa.Column("name_key", sa.Text(), server_default="", nullable=False))
    _backfill()


def downgrade() -> None:
    op.drop_column("sources", "name_key")
