"""A conversation stored as a document speaks: whose its paragraphs are, for the support check.

A session loaded as a source document (a transcript) keeps each turn as a paragraph under a
section named by its speaker (evaluation/memory_set.py `documents`, and any transcript written
the same way). A paragraph carries no author, so the support check (support.py) could not tell
whose a mention is and read every paragraph as "nobody said it": it almost never abstained with
documents loading (decision 0029). Here a served paragraph whose section is one heading speaks
as that heading when the one asking is among those headings (the asker's own turns are in the
transcript: it is a conversation, not a handbook whose chapter might share a name), and it
answers the paragraph before it in its document, as a note answers its `in_reply_to`
(decision 0045). A docs question (no speaker) is never read this way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from sqlalchemy import and_, select
from sqlalchemy.orm import Session, aliased

from tabane.recall.result import Evidence
from tabane.storage.schema import Paragraph


def _heading(item: Evidence) -> str | None:
    """A paragraph's one section heading, when nobody is known to have said it."""
    section = item.citation.section
    if item.kind == "paragraph" and not item.author and len(section) == 1 and section[0]:
        return section[0]
    return None


def voiced(items: Sequence[Evidence], speaker: str | None) -> list[Evidence]:
    """`items`, each paragraph of a transcript the asker speaks in with its heading as author;
    as they were when `speaker` heads none of them."""
    heads = {_heading(it) for it in items} - {None}
    if not speaker or speaker not in heads:
        return list(items)
    return [replace(it, author=head) if (head := _heading(it)) else it for it in items]


def before(session: Session, items: Sequence[Evidence]) -> Mapping[str, str]:
    """Paragraph key → the text of the paragraph just before it in its document, for the
    paragraphs of `items` that speak (`voiced` gave them an author)."""
    ids = [int(it.key[2:]) for it in items if it.kind == "paragraph" and it.author]
    if not ids:
        return {}
    prev = aliased(Paragraph)
    stmt = (
        select(Paragraph.id, prev.text)
        .join(prev, and_(prev.source_pk == Paragraph.source_pk, prev.idx == Paragraph.idx - 1))
        .where(Paragraph.id.in_(ids))
    )
    return {f"p:{pid}": str(text) for pid, text in session.execute(stmt)}
