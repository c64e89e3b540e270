"""The offline, deterministic default summarizer: the most central sentences of the members.

Members are split into sentences (English at `.`, `!`, `?` before a space and a letter that is not
lower case; Japanese at `。`, `！`, `？`; blank lines always end one). Each sentence becomes a
TF-IDF vector over `tabane.text.tokenize` terms (Japanese counts by character bigrams; common
function words are left out), with sublinear term frequency and smoothed IDF over the sentences.
A sentence's relevance is its cosine to the weight-averaged centroid of the *other* sentences (so
a sentence is central when others echo it, not because it echoes itself) times its member's
weight relative to the heaviest member; a sentence that shares no term with the others is picked
only when no sentence does (then the heavier members' go first). Sentences are picked by maximal
marginal relevance (λ·relevance − (1−λ)·cosine to the most similar picked sentence); one too
similar to a picked sentence is never picked, and one that no longer fits the budget is passed
over. Ties go to the smaller ref, then the earlier sentence. The picks are written in member
order, each run of sentences from one member followed by its `[ref]` marker, so the text never
exceeds `budget_chars`. When not even the best sentence fits, it is cut at a word boundary with
an ellipsis. `language_hint` is not needed and ignored. numpy and Python only.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tabane.models.summarizer import ELLIPSIS, Member, Summary, checked_members, fingerprint
from tabane.text.tokenize import tokenize

# MMR trade-off between centrality and novelty. Not measured: 0.7 is the usual setting
# (Carbonell & Goldstein 1998 report 0.7 as a good balance for single-document summaries).
MMR_LAMBDA = 0.7
# Cosine at or above which a sentence repeats a picked one and is skipped. Not measured: the same
# sentence with a word or two changed stays above it, a related sentence about the same topic
# falls well below.
DUPLICATE_COSINE = 0.8
# English function words, and Japanese particles and endings as the tokenizer cuts them (a lone
# kana, a kana bigram): they say nothing about what a sentence is about.
_FUNCTION_WORDS = """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it its
    itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them themselves
    then there these they this those through to too under until up very was we were what when
    where which while who whom why will with would you your yours yourself yourselves
    は が を に の で と も へ や か な だ です ます には では とは から まで
    した して する いる ある
"""
STOPWORDS = frozenset(_FUNCTION_WORDS.split())
# Scores are compared rounded, so the float noise of summation order never breaks a tie.
_DIGITS = 9

_CJK_END = "。！？"
_CLOSERS = "\"'”’)]」』）"
# English: terminal punctuation, closers, whitespace; Japanese: a CJK terminal, closers.
_CLOSE = f"[{re.escape(_CLOSERS)}]*"
_BOUNDARY = re.compile(rf"[.!?]+{_CLOSE}\s+|[{_CJK_END}]+{_CLOSE}\s*")
_BLANK = re.compile(r"\n\s*\n")


@dataclass(frozen=True)
class Sentence:
    member: int  # index into the members
    position: int  # index within its member
    text: str


def sentences(text: str) -> list[str]:
    """The sentences of `text`, whitespace collapsed, empty ones dropped."""
    out: list[str] = []
    for block in _BLANK.split(text):
        block = " ".join(block.split())
        start = 0
        for match in _BOUNDARY.finditer(block):
            end = match.end()
            following = block[end : end + 1]
            if match.group()[0] in ".!?" and following and following.islower():
                continue  # "e.g. the", "approx. three": not a sentence end
            out.append(block[start:end].strip())
            start = end
        out.append(block[start:].strip())
    return [s for s in out if s]


class ExtractiveSummarizer:
    """Picks and orders the most central, mutually distinct sentences; see the module docstring."""

    name = "extractive"

    def summarize(
        self, members: Sequence[Member], *, budget_chars: int, language_hint: str | None = None
    ) -> Summary:
        checked_members(members, budget_chars)
        found = [
            Sentence(m, p, s)
            for m, member in enumerate(members)
            for p, s in enumerate(sentences(member.text))
        ]
        terms = [[t for t in tokenize(s.text) if t not in STOPWORDS] for s in found]
        pool = [s for s, t in zip(found, terms, strict=True) if t]
        matrix = _tfidf([t for t in terms if t])
        picked = _pick(pool, matrix, members, budget_chars)
        text = _render(picked, members)
        refs = tuple(dict.fromkeys(members[m].ref for m in sorted(s.member for s in picked)))
        return Summary(text, refs, self.name, fingerprint(members))


@dataclass(frozen=True)
class _Rows:
    """Unit-length sparse rows: row `rows[k]` has `data[k]` at column `cols[k]`."""

    count: int
    width: int
    rows: npt.NDArray[np.int64]
    cols: npt.NDArray[np.int64]
    data: npt.NDArray[np.float64]

    def dot(self, vector: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """Each row's dot product with a dense vector."""
        return _sums(self.rows, self.data * vector[self.cols], self.count)

    def dense(self, row: int) -> npt.NDArray[np.float64]:
        out = np.zeros(self.width)
        mask = self.rows == row
        out[self.cols[mask]] = self.data[mask]
        return out


def _sums(
    index: npt.NDArray[np.int64], values: npt.NDArray[np.float64], size: int
) -> npt.NDArray[np.float64]:
    """`out[i]` = the sum of the values whose index is i."""
    return np.bincount(index, weights=values, minlength=size).astype(np.float64)


def _tfidf(docs: list[list[str]]) -> _Rows:
    """Sublinear TF × smoothed IDF, each row scaled to unit length; columns in first-seen order."""
    vocab: dict[str, int] = {}
    counts = [Counter(vocab.setdefault(t, len(vocab)) for t in doc) for doc in docs]
    df = np.zeros(len(vocab))
    for count in counts:
        df[list(count)] += 1
    idf = np.log((1 + len(docs)) / (1 + df)) + 1.0
    rows, cols, data = [], [], []
    for r, count in enumerate(counts):
        ids = sorted(count)
        values = np.array([(1.0 + math.log(count[i])) * idf[i] for i in ids])
        values /= np.linalg.norm(values)
        rows.extend([r] * len(ids))
        cols.extend(ids)
        data.extend(values.tolist())
    return _Rows(
        len(docs),
        len(vocab),
        np.array(rows, dtype=np.int64),
        np.array(cols, dtype=np.int64),
        np.array(data, dtype=np.float64),
    )


def _pick(
    pool: list[Sentence], matrix: _Rows, members: Sequence[Member], budget: int
) -> list[Sentence]:
    """MMR picks within the budget (see the module docstring)."""
    if not pool:
        return []
    heaviest = max(m.weight for m in members)
    weight = np.array([members[s.member].weight / heaviest for s in pool])
    total = _sums(matrix.cols, matrix.data * weight[matrix.rows], matrix.width)
    # The centroid of the others is total - w·x: its dot product with x (unit length) is
    # x·total - w, and its squared norm |total|² - 2w·(x·total) + w².
    echo = matrix.dot(total)
    norms = np.sqrt(np.maximum(total @ total - 2 * weight * echo + weight**2, 0.0))
    cosine = np.maximum(echo - weight, 0.0) / np.where(norms > 1e-12, norms, 1.0)
    relevance = np.round(cosine, _DIGITS) * weight
    ref_rank = {ref: k for k, ref in enumerate(sorted(m.ref for m in members))}
    refs = np.array([ref_rank[members[s.member].ref] for s in pool])
    positions = np.array([s.position for s in pool])
    lengths = np.array([len(s.text) for s in pool])
    nearest = np.zeros(len(pool))  # cosine to the most similar picked sentence
    if not (relevance > 0).any():  # no sentence shares a term with another: by weight alone
        relevance = weight
    open_ = relevance > 0
    picked: list[Sentence] = []
    first: Sentence | None = None
    while open_.any():
        score = np.round(MMR_LAMBDA * relevance - (1 - MMR_LAMBDA) * nearest, _DIGITS)
        order = np.lexsort((positions, refs, -score))
        best = int(next(i for i in order if open_[i]))
        open_[best] = False
        if first is None:
            first = pool[best]
        if len(_render([*picked, pool[best]], members)) > budget:
            continue  # passed over: a shorter sentence may still fit
        picked.append(pool[best])
        open_ &= lengths <= budget - len(_render(picked, members))  # cannot fit any more
        nearest = np.maximum(nearest, matrix.dot(matrix.dense(best)))
        open_ &= np.round(nearest, _DIGITS) < DUPLICATE_COSINE
    if not picked and first is not None:
        cut = _cut(first, members[first.member].ref, budget)
        return [cut] if cut is not None else []
    return picked


def _cut(sentence: Sentence, ref: str, budget: int) -> Sentence | None:
    """The sentence cut at a word boundary so that it and its marker fit, or None."""
    room = budget - len(f" [{ref}]") - len(ELLIPSIS)
    if room < 1:
        return None
    head = sentence.text[:room]
    space = head.rfind(" ")
    if space > room // 2:
        head = head[:space]
    return Sentence(sentence.member, sentence.position, head.rstrip() + ELLIPSIS)


def _render(picked: Sequence[Sentence], members: Sequence[Member]) -> str:
    """Sentences in member order; each run from one member followed by its `[ref]` marker. No
    space is written after a CJK sentence end."""
    out, cjk = "", False
    ordered = sorted(picked, key=lambda s: (s.member, s.position))
    for k, sentence in enumerate(ordered):
        if out and not cjk:
            out += " "
        out += sentence.text
        cjk = sentence.text[-1] in _CJK_END
        if k + 1 == len(ordered) or ordered[k + 1].member != sentence.member:
            out += ("" if cjk else " ") + f"[{members[sentence.member].ref}]"
    return out
