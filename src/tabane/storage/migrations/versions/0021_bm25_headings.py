"""bm25 headings: a paragraph's BM25 terms include its source's title and its section path.

A paragraph is indexed with the headings it sits under (search/postings.py `heading_tokens`),
so every stored paragraph's postings, lengths (`paragraphs.token_count`) and the statistics are
rebuilt here from the stored text, questions, section paths and titles, and each context's
packs are merged again (as 0020 did). Retracted sources keep no paragraphs, so only live ones
are indexed.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-06 09:00:00.000000
"""

from collections.abc import Sequence

from tabane.storage.migrations.bm25_rebuild import rebuild
from tabane.text.tokenize import tokenize

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    rebuild(tokenize)


def downgrade() -> None:
    """The postings keep their heading terms (a search still works; only the scores differ)."""
