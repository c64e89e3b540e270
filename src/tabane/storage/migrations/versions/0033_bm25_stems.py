"""bm25 stems: BM25's index terms are English Snowball stems (text/analyze.py `index_terms`).

Every stored paragraph's postings, lengths (`paragraphs.token_count`) and the statistics are
rebuilt from the stored text, questions, section paths and titles with the new analysis, and each
context's packs are merged again (as 0021 did for headings). A query is analysed the same way, so
an index built with the old terms would miss every stemmed word. Retracted sources keep no
paragraphs, so only live ones are indexed.

Revision ID: 0033
Revises: 0032
Create Date: 2026-12-07 00:30:00.000000
"""

from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import sqlalchemy as sa
from alembic import op

from tabane.text.analyze import index_terms

revision: str = "0033"
down_revision: str | None = "0032"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# As of this revision (search/postings.py PACK): one record per paragraph holding a term.
PACK = np.dtype([("id", ">i8"), ("tf", ">i4"), ("qtf", ">i4"), ("dl", ">i4")])
TABLES = ("paragraphs", "sources", "bm25_packs", "bm25_merged", "bm25_dead", "bm25_corpus")
TABLES += ("bm25_terms",)


def _heading(title: str | None, section: Sequence[str]) -> list[str]:
    """search/postings.py `heading_tokens` as of this revision."""
    tokens = index_terms(title) if title else []
    for heading in section:
        tokens += index_terms(heading)
    return tokens


def _sources(conn: Any, context_id: int) -> Iterator[tuple[int, list[str], list[Any]]]:
    """Each source of a context with paragraphs: (source_pk, scopes, its paragraph rows)."""
    pks = conn.execute(
        sa.text("SELECT DISTINCT source_pk FROM paragraphs WHERE context_id = :c ORDER BY 1"),
        {"c": context_id},
    ).scalars()
    for source_pk in pks.all():
        rows = conn.execute(
            sa.text(
                "SELECT p.id, p.scopes, s.title, p.section_path, p.text, p.questions "
                "FROM paragraphs p JOIN sources s ON s.id = p.source_pk "
                "WHERE p.source_pk = :s ORDER BY p.id"
            ),
            {"s": source_pk},
        ).all()
        yield source_pk, list(rows[0].scopes), rows


def _reindex(conn: Any, context_id: int) -> None:
    sizes: dict[tuple[str, ...], list[int]] = {}  # scopes -> [paragraphs, total length]
    df: dict[tuple[str, ...], Counter[str]] = {}
    packs = sa.text(
        "INSERT INTO bm25_packs (source_pk, term, context_id, postings, scopes, merged) "
        "SELECT :s, t, :c, p, :scopes, false FROM unnest(CAST(:terms AS text[]), "
        "CAST(:blobs AS bytea[])) AS u(t, p)"
    )
    lengths = sa.text(
        "UPDATE paragraphs SET token_count = u.dl FROM unnest(CAST(:ids AS bigint[]), "
        "CAST(:dls AS int[])) AS u(id, dl) WHERE paragraphs.id = u.id"
    )
    for source_pk, scopes, rows in _sources(conn, context_id):
        records: dict[str, list[tuple[int, int, int, int]]] = {}
        key = tuple(scopes)
        size = sizes.setdefault(key, [0, 0])
        seen = df.setdefault(key, Counter())
        dls = []
        for r in rows:
            text = Counter(index_terms(r.text))
            head = Counter(_heading(r.title, r.section_path))
            asked: Counter[str] = Counter()
            for q in r.questions:
                asked.update(index_terms(q))
            dl = sum(text.values()) + sum(head.values()) + sum(asked.values())
            dls.append(dl)
            size[0] += 1
            size[1] += dl
            for term in text.keys() | head.keys() | asked.keys():
                q = asked.get(term, 0)
                tf = text.get(term, 0) + head.get(term, 0) + q
                records.setdefault(term, []).append((r.id, tf, q, dl))
                seen[term] += 1
        terms = sorted(records)
        blobs = [np.array(records[t], dtype=PACK).tobytes() for t in terms]
        conn.execute(
            packs,
            {"s": source_pk, "c": context_id, "scopes": scopes, "terms": terms, "blobs": blobs},
        )
        conn.execute(lengths, {"ids": [r.id for r in rows], "dls": dls})
    for key, (count, total) in sizes.items():
        conn.execute(
            sa.text(
                "INSERT INTO bm25_corpus (context_id, scopes, paragraphs, total_length) "
                "VALUES (:c, :scopes, :n, :total)"
            ),
            {"c": context_id, "scopes": list(key), "n": count, "total": total},
        )
        terms = sorted(df[key])
        conn.execute(
            sa.text(
                "INSERT INTO bm25_terms (context_id, term, df, scopes) "
                "SELECT :c, t, n, :scopes FROM unnest(CAST(:terms AS text[]), "
                "CAST(:dfs AS bigint[])) AS u(t, n)"
            ),
            {
                "c": context_id,
                "scopes": list(key),
                "terms": terms,
                "dfs": [df[key][t] for t in terms],
            },
        )


def upgrade() -> None:
    conn = op.get_bind()
    for table in TABLES:
        op.execute(f"ALTER TABLE {table} NO FORCE ROW LEVEL SECURITY")
    for table in ("bm25_dead", "bm25_merged", "bm25_packs", "bm25_terms", "bm25_corpus"):
        op.execute(f"DELETE FROM {table}")
    contexts = conn.execute(sa.text("SELECT DISTINCT context_id FROM paragraphs")).scalars().all()
    for context_id in sorted(contexts):
        _reindex(conn, context_id)
    op.execute(
        "INSERT INTO bm25_merged (context_id, term, scopes, postings) "
        "SELECT context_id, term, scopes, string_agg(postings, ''::bytea ORDER BY source_pk) "
        "FROM bm25_packs GROUP BY context_id, term, scopes"
    )
    op.execute("UPDATE bm25_packs SET merged = true")
    for table in TABLES:
        op.execute(f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY")


def downgrade() -> None:
    """The postings keep their stems (a search with the old analysis misses stemmed words)."""
