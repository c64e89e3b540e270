"""The title lane of recall: sources whose complete title, or the name it opens with, appears in
the question.

Titles and the question are compared in one normalized form (`sources.write.title_key`: NFKC,
case folding, katakana → hiragana, whitespace runs as one space). A title's name
(`sources.write.name_key`: "git revert" of "git-revert(1)", "subprocess" of "subprocess — …")
is compared with the question's key read with hyphens as spaces. A title is *named* when its key
or its name occurs in the question's key — on word boundaries where the script separates words
with spaces (`api` is not named by "rapid"), anywhere inside scripts written without them (東京
is named by 東京都へ). The maximal-title rule: an occurrence inside an occurrence of a longer
named title is not a naming of its own, so a title named only inside a longer one loses its
direct authority (`direct=False`, `within` says by which); titles named side by side stay peers.
`whole` says whether the complete title was named, not only its name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Select, and_, bindparam, func, or_, select
from sqlalchemy.orm import Session
from sqlalchemy.types import Text

from tabane.sources.write import name_key, spaced
from tabane.storage.schema import Source
from tabane.text.tokenize import title_key

# Shorter titles ("Go", "UI", "了解") would be named by most questions that touch them at all.
MIN_TITLE = 3

# Scripts written without spaces between words: a title may start or end anywhere inside them.
_NO_SPACES = re.compile(
    "[\u3005\u3006\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f"
    "\u0e00-\u0eff\u1780-\u17ff\u1000-\u109f\U00020000-\U0002ffff]"
)


# Characters that mark the code around a name: before it ("/etc/fstab", ".gitignore", "`sed`"),
# right after it ("xargs(1)", "`sed`"); a "." after it marks code only inside a dotted name.
_CODE_BEFORE = frozenset("./`")
_CODE_AFTER = frozenset("(`")


@dataclass(frozen=True)
class TitleMatch:
    ref: str  # the caller's identifier of the title
    title: str
    key: str  # title_key(title)
    start: int  # first occurrence in the question's key
    direct: bool  # named on its own somewhere, not only inside a longer named title
    within: tuple[str, ...]  # keys of longer named titles that contain an occurrence of it
    whole: bool = True  # the complete title is named, not only the name it opens with


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


def marked(question: str, question_key: str, key: str, spans: Sequence[tuple[int, int]]) -> bool:
    """Whether a name stands out as one where it occurs, rather than as a word of the prose:
    written in code ("json.dumps", "random.random()", "/etc/fstab", ".gitignore"), in capitals
    ("CSV"), or in a script other than the words around it ("find で"). Unmarked, "string",
    "time" or "git" name a page of that title as often as they are just words."""
    for start, end in spans:
        before = question_key[start - 1] if start else ""
        after = question_key[end : end + 2]
        if before in _CODE_BEFORE or after[:1] in _CODE_AFTER:
            return True
        if after[:1] == "." and len(after) == 2 and _wordy(after[1]):
            return True
        near = (question_key[:start].rstrip()[-1:], question_key[end:].lstrip()[:1])
        if any(ch and _NO_SPACES.match(ch) for ch in near) and not _NO_SPACES.search(key):
            return True
    upper = key.upper()
    return upper != key and re.search(rf"(?<!\w){re.escape(upper)}(?!\w)", question) is not None


def named_titles(
    question: str, titles: Sequence[tuple[str, str]], names: str = "marked"
) -> list[TitleMatch]:
    """The titles (ref, title) the question names, direct ones first, then by first occurrence,
    longer keys first, then by key and ref. A title is named by its whole key, or by its name
    where the name is `marked` or holds another title's key or name ("git revert" holds "git");
    `names` "all" counts every name, "off" none. The maximal rule weighs these namings only."""
    question_key = title_key(question)
    as_name = spaced(question_key)  # same length: spans are comparable
    found: list[_Found] = []
    for ref, title in titles:
        for key, whole in ((title_key(title), True), (name_key(title), False)):
            if len(key) < MIN_TITLE or (names == "off" and not whole):
                continue
            spans = occurrences(question_key if whole else as_name, key)
            if spans:
                sign = whole or names == "all" or marked(question, question_key, key, spans)
                found.append(_Found(ref, title, key, whole, spans, sign))
    held = [f for f in found if any(o.ref != f.ref and o.inside(f) for o in found)]
    for f in held:  # a compound name: it holds another title's key or name ("git revert")
        f.sign = True
    found = [f for f in found if f.sign]
    per_ref: dict[str, TitleMatch] = {}
    for f in found:
        within = {
            o.key for o in found if o.ref != f.ref and len(o.key) > len(f.key) and f.inside(o)
        }
        alone = any(not any(o.covers(span) for o in found if o.key in within) for span in f.spans)
        match = TitleMatch(
            f.ref, f.title, f.key, f.spans[0][0], alone, tuple(sorted(within)), f.whole
        )
        seen = per_ref.get(f.ref)
        if seen is None or (match.direct, match.whole) > (seen.direct, seen.whole):
            per_ref[f.ref] = match
    matches = list(per_ref.values())
    matches.sort(key=lambda m: (not m.direct, m.start, -len(m.key), m.key, m.ref))
    return matches


@dataclass
class _Found:
    ref: str
    title: str
    key: str
    whole: bool
    spans: list[tuple[int, int]]
    sign: bool  # a naming that counts

    def covers(self, span: tuple[int, int]) -> bool:
        return any(s <= span[0] and span[1] <= e for s, e in self.spans)

    def inside(self, other: _Found) -> bool:
        """Whether an occurrence of this key lies inside one of `other`'s."""
        return len(other.key) > len(self.key) and any(other.covers(span) for span in self.spans)


def title_lane_select(context_ids: Sequence[int], question_key: str) -> Select[int, int, str, str]:
    """Live sources of the contexts whose title key, or name, occurs in the question's key (a
    superset of the named ones: word boundaries, marks and the maximal rule are applied by
    `named_titles`)."""
    question = bindparam("question_key", question_key, type_=Text())
    as_name = bindparam("question_names", spaced(question_key), type_=Text())
    return (
        select(Source.id, Source.context_id, Source.source_id, Source.title)
        .where(
            Source.context_id.in_(sorted(set(context_ids))),
            Source.retracted_at.is_(None),
            or_(
                and_(
                    func.length(Source.title_key) >= MIN_TITLE,
                    func.strpos(question, Source.title_key) > 0,
                ),
                and_(
                    func.length(Source.name_key) >= MIN_TITLE,
                    func.strpos(as_name, Source.name_key) > 0,
                ),
            ),
        )
        .order_by(Source.id)
    )


def title_lane(
    session: Session, context_ids: Sequence[int], question: str, names: str = "marked"
) -> list[TitleHit]:
    """The visible sources of the addressed contexts that the question names by title (recall
    binds them before its statement: gather.py `bind_before`)."""
    question_key = title_key(question)
    if not context_ids or len(question_key) < MIN_TITLE:
        return []
    rows = {str(r.id): r for r in session.execute(title_lane_select(context_ids, question_key))}
    named = named_titles(question, [(ref, r.title) for ref, r in rows.items()], names)
    return [
        TitleHit(
            rows[m.ref].id, rows[m.ref].context_id, rows[m.ref].source_id, m.title, m.direct, rank
        )
        for rank, m in enumerate(named, start=1)
    ]
