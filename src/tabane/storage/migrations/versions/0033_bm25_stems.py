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

from collections.abc import Sequence

from tabane.storage.migrations.bm25_rebuild import rebuild
from tabane.text.analyze import index_terms

revision: str = "0033"
down_revision: str | None = "0032"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    rebuild(index_terms)


def downgrade() -> None:
    """The postings keep their stems (a search with the old analysis misses stemmed words)."""
