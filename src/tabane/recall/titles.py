"""The title lane of recall: sources whose complete title appears in the question.

Titles and the question are compared in one normalized form (`sources.write.title_key`: NFKC,
case folding, katakana → hiragana, whitespace runs as one space). A title is *named* when its key
occurs in the question's key — on word boundaries where the script separates words with spaces
(`api` is not named by "rapid"), anywhere inside scripts written without them (東京 is named by
東京都へ). The maximal-title rule: an occurrence inside an occurrence of a longer named title is
not a naming of its own, so a title named only inside a longer one loses its direct authority
(`direct=False`, `within` says by which); titles named side by side stay peers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Select, bindparam, func, select
from sqlalchemy.orm import Session
from sqlalchemy.types import Text

from tabane.sources.write import title_key
from tabane.storage.schema import Source

# Shorter titles ("Go", "UI", "了解") would be named by most questions that touch them at all.
MIN_TITLE = 3

# Scripts written without spaces between words: a title may start or end anywhere inside them.
_NO_SPACES = re.compile(
    "[\u3005\u3006\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f"
    "\u0e00-\u0eff\u1780-\u17ff\u1000-\u109f\U00020000-\U0002ffff]"
)


@dataclass(frozen=True)
class TitleMatch:
    ref: str  # the caller's identifier of the title
    title: str
    key: str  # title_key(title)
    start: int  # first occurrence in the question's key
    direct: bool  # named on its own somewhere, not only inside a longer named title
    within: tuple[str, ...]  # keys of longer named titles that contain an occurrence of it


@dataclass(frozen=True)
class TitleHit:
    source_pk: int
    context_id: int
    source_id: str
    title: str
    direct: bool
    rank: int  # 1-based, in named_titles' order


def _wordy(ch: str) -> bool:
    """A character of a word in a script that separates words with spaces."""
    return (ch.isalnum() or ch == "_") and not _NO_SPACES.match(ch)


def occurrences(question_key: str, key: str) -> list[tuple[int, int]]:
    """The spans (start, end) where `key` occurs in `question_key` on word boundaries."""
    spans: list[tuple[int, int]] = []
    if not key:
        return spans
    at = question_key.find(key)
    while at >= 0:
        end = at + len(key)
        left_ok = at == 0 or not (_wordy(question_key[at - 1]) and _wordy(key[0]))
        right_ok = end == len(question_key) or not (_wordy(key[-1]) and _wordy(question_key[end]))
        if left_ok and right_ok:
            spans.append((at, end))
        at = question_key.find(key, at + 1)
    return spans


def named_titles(question: str, titles: Sequence[tuple[str, str]]) -> list[TitleMatch]:
    """The titles (ref, title) the question names, direct ones first, then by first occurrence,
    longer keys first, then by key and ref."""
    question_key = title_key(question)
    found: list[tuple[str, str, str, list[tuple[int, int]]]] = []
    for ref, title in titles:
        key = title_key(title)
        if len(key) < MIN_TITLE:
            continue
        spans = occurrences(question_key, key)
        if spans:
            found.append((ref, title, key, spans))
    spans_of: dict[str, list[tuple[int, int]]] = {key: spans for _, _, key, spans in found}
    matches: list[TitleMatch] = []
    for ref, title, key, spans in found:
        longer = [k for k in spans_of if len(k) > len(key)]
        within: set[str] = set()
        alone = False
        for s, e in spans:
            covers = {k for k in longer if any(s2 <= s and e <= e2 for s2, e2 in spans_of[k])}
            within |= covers
            alone = alone or not covers
        matches.append(TitleMatch(ref, title, key, spans[0][0], alone, tuple(sorted(within))))
    matches.sort(key=lambda m: (not m.direct, m.start, -len(m.key), m.key, m.ref))
    return matches


def title_lane_select(context_ids: Sequence[int], question_key: str) -> Select[int, int, str, str]:
    """Live sources of the contexts whose title key occurs in the question's key (a superset
    of the named ones: word boundaries and the maximal rule are applied by `named_titles`)."""
    question = bindparam("question_key", question_key, type_=Text())
    return (
        select(Source.id, Source.context_id, Source.source_id, Source.title)
        .where(
            Source.context_id.in_(sorted(set(context_ids))),
            Source.retracted_at.is_(None),
            func.length(Source.title_key) >= MIN_TITLE,
            func.strpos(question, Source.title_key) > 0,
        )
        .order_by(Source.id)
    )


def title_lane(session: Session, context_ids: Sequence[int], question: str) -> list[TitleHit]:
    """The visible sources of the addressed contexts that the question names by title."""
    question_key = title_key(question)
    if not context_ids or len(question_key) < MIN_TITLE:
        return []
    rows = {str(r.id): r for r in session.execute(title_lane_select(context_ids, question_key))}
    named = named_titles(question, [(ref, r.title) for ref, r in rows.items()])
    return [
        TitleHit(
            rows[m.ref].id, rows[m.ref].context_id, rows[m.ref].source_id, m.title, m.direct, rank
        )
        for rank, m in enumerate(named, start=1)
    ]
