"""The question in the named holder's own voice.

A question that names the person it asks about ("Where does Marta work now?") is answered by
what that person said, and people speak of themselves in the first person ("I have a job. Head
nurse at …"), never by their own name. Recall serves the named person's statements first
(order.py `voiced`); among them, the question's name pulls towards the statements that also
carry it (someone greeting them, a question put to them) and away from the plain first-person
answer. So the named holder's statements are ordered by their similarity to the question said
as the holder would say it — the name read as "I" (私 in a script without spaces), a possessive
as "my" — embedded once more per recall (`in_voice`, `voice_scores`, `blend`; Tunables
`holder_voice`). Off by default, kept for measurement: the unseen memory set gained at every
weight, the dev set lost at every weight (docs/decisions/0014-conversation-memory.md)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence

import numpy as np
from sqlalchemy.orm import Session

from tabane.recall import current
from tabane.recall.cite import DENSE
from tabane.recall.order import voiced
from tabane.recall.plan import Tunables
from tabane.recall.result import Evidence

Embed = Callable[[str], "current.Vec | None"]
# Honorifics that follow a Japanese name and go with it ("悠真くん" → "私").
_HONORIFIC = "(?:さん|くん|君|ちゃん|様|さま|先生)?"


def holder(question: str, items: Sequence[Evidence]) -> str | None:
    """The one speaker among `items` the question names, or None (nobody, or several)."""
    named = {str(it.author) for it in items if it.author and voiced(question, it.author)}
    return named.pop() if len(named) == 1 else None


def in_voice(question: str, name: str) -> str:
    """`question` as `name` would ask it of themselves: their name read as the first person."""
    text = unicodedata.normalize("NFKC", question)
    who = re.escape(unicodedata.normalize("NFKC", name).strip())
    if DENSE.search(name):
        return re.sub(who + _HONORIFIC, "私", text)
    text = re.sub(rf"(?<!\w){who}['’]s(?!\w)", "my", text, flags=re.IGNORECASE)
    return re.sub(rf"(?<!\w){who}(?!\w)", "I", text, flags=re.IGNORECASE)


def voice_scores(
    session: Session,
    question: str,
    items: Sequence[Evidence],
    embed: Embed,
    model: str | None,
) -> Mapping[str, float]:
    """The named holder's claims and turns among `items` → their cosine to the question in the
    holder's voice; empty when the question names no single holder or nothing can be embedded."""
    who = holder(question, items)
    if who is None or model is None:
        return {}
    vector = embed(in_voice(question, who))
    if vector is None:
        return {}
    q = np.asarray(vector, dtype=np.float32)
    mine = [it for it in items if it.author == who]
    return {key: float(v @ q) for key, v in current.vectors(session, mine, model).items()}


def blend(
    scores: Mapping[str, float], items: Sequence[Evidence], k: float, weight: float
) -> dict[str, float]:
    """Each scored item's reciprocal rank (constant `k`) among the scored items in recall's
    order, plus `weight` times its reciprocal rank by `scores`: the holder's voice moves an
    item among the holder's statements without discarding what the lanes found."""
    placed = [it.key for it in items if it.key in scores]
    heard = sorted(placed, key=lambda key: -scores[key])
    at = {key: n for n, key in enumerate(heard, start=1)}
    return {key: 1 / (k + n) + weight / (k + at[key]) for n, key in enumerate(placed, start=1)}


def heard(
    session: Session,
    question: str,
    items: Sequence[Evidence],
    embed: Embed,
    model: str | None,
    t: Tunables,
) -> Mapping[str, float]:
    """What `named_first` orders the named holder's statements by: `blend` of their order and
    `voice_scores` at weight `holder_voice`; empty (their order) when it or `voices` is off."""
    if not t.voices or t.holder_voice <= 0:  # off: it lost on memory.json (decision 0014)
        return {}
    return blend(
        voice_scores(session, question, items, embed, model), items, t.rrf_k, t.holder_voice
    )
