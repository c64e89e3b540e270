"""A follow-up read with the turn it follows.

Asked inside a conversation, "which one should I use?" names nothing of its own: what it asks
about is in the turn before it. A question asked with a session (`RecallRequest.session`) that
`follows` is embedded after the newest turn of that session's working memory (`read_as`), as a
note is embedded after what it answers (graph/claims/vectors.py); the question itself is what
the trace, the bundle and every other lane read. A question that names its own topic is read
alone, so recall of a self-contained question never depends on what was said last.

`follows` is deterministic: the question holds at most one content word (a word of four or
more letters that is not a function word, a run of kanji, or of two or more katakana) and a word
that points back (it, that, one, それ, どれ…), or no content word at all.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from sqlalchemy.orm import Session

from tabane.memory import sessions
from tabane.principal import Principal
from tabane.recall.plan import RecallRequest

_WORD = re.compile(r"[^\W\d_]{4,}")
_CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")  # kana or kanji
_DENSE = re.compile(r"[\u4e00-\u9fff]+|[\u30a0-\u30ff]{2,}")  # kanji, katakana runs
_FUNCTION = frozenset(
    [
        "what",
        "which",
        "when",
        "where",
        "whom",
        "whose",
        "does",
        "have",
        "about",
        "from",
        "they",
        "their",
        "there",
        "were",
        "been",
        "would",
        "could",
        "should",
        "your",
        "just",
        "like",
        "into",
        "then",
        "than",
        "them",
        "this",
        "that",
        "these",
        "those",
        "with",
        "also",
        "still",
        "shall",
        "might",
        "must",
        "will",
        "much",
        "many",
        "some",
        "other",
        "else",
        "more",
        "most",
        "best",
        "better",
        "really",
        "very",
    ]
)
_POINTS_BACK = re.compile(
    r"\b(it|its|that|this|those|these|one|ones|they|them|there|same|then)\b"
    r"|それ|あれ|これ|その|あの|この|どれ|どっち|どちら|そこ|あそこ"
)
MAX_BEFORE = 2000  # characters of the turn before that are read with the question


def content_words(question: str) -> list[str]:
    """The question's content words, as `follows` counts them."""
    text = unicodedata.normalize("NFKC", question).casefold()
    spaced = [w for w in _WORD.findall(text) if w not in _FUNCTION and not _CJK.search(w)]
    return spaced + _DENSE.findall(text)


def follows(question: str) -> bool:
    """Whether `question` names nothing of its own and so continues the turn before it."""
    words = content_words(question)
    text = unicodedata.normalize("NFKC", question).casefold()
    return not words or (len(words) == 1 and _POINTS_BACK.search(text) is not None)


def turn_before(question: str, newest_first: Sequence[str]) -> str | None:
    """The turn a follow-up continues: the newest of the window that is not the question itself
    (a caller may add the user's turn before it recalls)."""
    asked = question.strip()
    return next((t for t in newest_first if t.strip() and t.strip() != asked), None)


def read_as(question: str, before: str | None) -> str:
    """What is embedded for `question`: after the turn it follows, when it follows one."""
    if before is None or not follows(question):
        return question
    return f"{before.strip()[-MAX_BEFORE:]}\n{question}"


def before(
    session: Session, user: Principal, request: RecallRequest, hours: float | None
) -> str | None:
    """The turn `request`'s question follows, read from its session's working memory (None: no
    session named, or a question that names its own topic — no read at all)."""
    if request.session is None or not follows(request.question):
        return None
    window = sessions.Window(turns=TURNS_READ, hours=hours)
    turns = sessions.working_memory(session, user, request.session, window)
    return turn_before(request.question, [t.text for t in reversed(turns)])


TURNS_READ = 2  # the newest turns read: the question itself, if the caller added it, and one more
