"""The people a question names are a prior, not content.

A question that names someone ("Where does Marta work now?") is answered by what that person
said, and recall serves the statements of the people a question names first (order.py
`voiced`). Among them, the name itself says nothing about which statement answers: it pulls
towards the statements embedded after a turn that greets or asks the person by name ("Marta!",
"Marta, how was the weekend?") and away from the plain first-person answer, which never says its
speaker's name. So the named people's statements are ordered by their similarity to the question
with the names taken out (`without_names`), each statement read two ways — as it is stored (after
what it answers, the claims and turns lanes' vectors) and alone (embedded once more per recall,
in one call) — the mean of the two cosines, blended with their order by reciprocal rank at weight
`Tunables.unnamed` (`blend`). Without an embedder, or when a name is all the question asks,
nothing moves. Off by default, kept for measurement: on the memory sets it served the evidence
earlier but lost recall@10 on the dev set (docs/decisions/0028-named-people-as-a-prior.md)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Protocol

import numpy as np
from sqlalchemy.orm import Session

from tabane.models.embedder import Vectors
from tabane.recall import current
from tabane.recall.cite import DENSE
from tabane.recall.order import voiced
from tabane.recall.plan import Tunables
from tabane.recall.result import Evidence

# Honorifics that follow a Japanese name and go with it ("悠真くん").
_HONORIFIC = "(?:さん|くん|君|ちゃん|様|さま|先生)?"


class Embeds(Protocol):
    """The service's embedder as recall reads it (prepare.py `Setup`): None where it cannot."""

    def embed(self, text: str) -> Vectors | None: ...

    def embed_texts(self, texts: Sequence[str]) -> Vectors | None: ...


def named(question: str, items: Sequence[Evidence]) -> list[str]:
    """The speakers among `items` the question names, sorted."""
    return sorted({str(it.author) for it in items if it.author and voiced(question, it.author)})


def without_names(question: str, names: Sequence[str]) -> str:
    """`question` with each of `names` taken out (a possessive and an honorific with it), or
    the question as it was when nothing else is left of it."""
    text = unicodedata.normalize("NFKC", question)
    for name in names:
        who = re.escape(unicodedata.normalize("NFKC", name).strip())
        if DENSE.search(name):
            text = re.sub(who + _HONORIFIC, "", text)
        else:
            text = re.sub(rf"(?<!\w){who}(?:['’]s)?(?!\w)", "", text, flags=re.IGNORECASE)
    text = re.sub(r"\s+([?？!！.,;:、。])", r"\1", " ".join(text.split()))
    return text if any(ch.isalnum() for ch in text) else question


def unnamed_scores(
    session: Session,
    question: str,
    items: Sequence[Evidence],
    embeds: Embeds,
    model: str | None,
) -> Mapping[str, float]:
    """The named people's statements among `items` → the mean cosine of their stored vector
    (claims and turns) and of their text alone to the question without the names; empty when
    the question names nobody, nothing is left of it, or nothing can be embedded."""
    names = named(question, items)
    asked = without_names(question, names) if names else question
    if asked == question or model is None:
        return {}
    theirs = [it for it in items if it.author in names]
    q = embeds.embed(asked)
    alone = embeds.embed_texts([it.text for it in theirs])
    if q is None or alone is None:
        return {}
    qv = np.asarray(q, dtype=np.float32)
    stored = current.vectors(session, theirs, model)
    out: dict[str, float] = {}
    for it, vec in zip(theirs, np.asarray(alone, dtype=np.float32), strict=True):
        cosines = [float(vec @ qv)] + ([float(stored[it.key] @ qv)] if it.key in stored else [])
        out[it.key] = sum(cosines) / len(cosines)
    return out


def blend(
    scores: Mapping[str, float], items: Sequence[Evidence], k: float, weight: float
) -> dict[str, float]:
    """Each scored item's reciprocal rank (constant `k`) among the scored items in recall's
    order, plus `weight` times its reciprocal rank by `scores`: the scores move an item among
    the named people's statements without discarding what the lanes found."""
    placed = [it.key for it in items if it.key in scores]
    heard = sorted(placed, key=lambda key: -scores[key])
    at = {key: n for n, key in enumerate(heard, start=1)}
    return {key: 1 / (k + n) + weight / (k + at[key]) for n, key in enumerate(placed, start=1)}


def heard(
    session: Session,
    question: str,
    items: Sequence[Evidence],
    embeds: Embeds,
    model: str | None,
    t: Tunables,
) -> Mapping[str, float]:
    """What `named_first` orders the named people's statements by: `blend` of their order and
    `unnamed_scores` at weight `unnamed`; empty (their order) when it or `voices` is off."""
    if not t.voices or t.unnamed <= 0:
        return {}
    scores = unnamed_scores(session, question, items, embeds, model)
    return blend(scores, items, t.rrf_k, t.unnamed) if scores else {}
