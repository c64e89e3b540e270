"""Rebuild BM25's postings from the stored paragraphs with one analysis: the upgrade step of
every migration that changes what a paragraph is indexed by (0021: headings; 0033: English
stems). Each migration passes the analysis it introduces, so a store upgraded from any revision
ends with the postings ingest writes now.
"""

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import sqlalchemy as sa
from alembic import op

Analyze = Callable[[str], list[str]]

# As of revisions 0021 and 0033 (search/postings.py PACK): one record per paragraph holding a term.
PACK = np.dtype([("id", ">i8"), ("tf", ">i4"), ("qtf", ">i4"), ("dl", ">i4")])
TABLES = ("paragraphs", "sources", "bm25_packs", "bm25_merged", "bm25_dead", "bm25_corpus")
TABLES += ("bm25_terms",)


def _heading(analyze: Analyze, title: str | None, section: Sequence[str]) -> list[str]:
    """search/postings.py `heading_tokens` with the given analysis."""
    tokens = analyze(title) if title else []
    for heading in section:
        tokens += analyze(heading)
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


def _reindex(conn: Any, context_id: int, analyze: Analyze) -> None:
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
            text = Counter(analyze(r.text))
            head = Counter(_heading(analyze, r.title, r.section_path))
            asked: Counter[str] = Counter()
            for q in r.questions:
                asked.update(analyze(q))
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


def rebuild(analyze: Analyze) -> None:
    """Wipe and rebuild every context's postings, lengths and statistics from the stored
    paragraphs with `analyze`, then merge the packs (an alembic upgrade step)."""
    conn = op.get_bind()
    for table in TABLES:
        op.execute(f"ALTER TABLE {table} NO FORCE ROW LEVEL SECURITY")
    for table in ("bm25_dead", "bm25_merged", "bm25_packs", "bm25_terms", "bm25_corpus"):
        op.execute(f"DELETE FROM {table}")
    contexts = conn.execute(sa.text("SELECT DISTINCT context_id FROM paragraphs")).scalars().all()
    for context_id in sorted(contexts):
        _reindex(conn, context_id, analyze)
    op.execute(
        "INSERT INTO bm25_merged (context_id, term, scopes, postings) "
        "SELECT context_id, term, scopes, string_agg(postings, ''::bytea ORDER BY source_pk) "
        "FROM bm25_packs GROUP BY context_id, term, scopes"
    )
    op.execute("UPDATE bm25_packs SET merged = true")
    for table in TABLES:
        op.execute(f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY")
