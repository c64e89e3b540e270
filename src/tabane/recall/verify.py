"""The citation verifier: an answer's citations and quotes checked against one stored recall.

Each citation in a form the bundle prints — `"Title" (source_id), Section, paragraph N` (title
and section optional), or an item's number `[N]` (the recall's Nth served item) — is judged
against the recall's trace and the caller's view:

- `surfaced`: that paragraph was among the recall's served items;
- `unsurfaced_known`: it exists and the caller can see it, but the recall did not serve it;
- `unknown`: no such source or paragraph (or item number), a retracted one, or one the caller
  cannot see — one verdict for all, so an answer's citations never reveal what exists unseen.

Each quoted span ("…", “…” or 「…」; a citation's own title is not a quote) is judged against the
paragraph of the citation after it on the same line (else the one before it on that line; with
none, the recall's served paragraphs, best first): `quote` when its text appears verbatim after
whitespace and NFKC folding, `paraphrase` when at least PARAPHRASE_OVERLAP of its distinct words
(CJK text: character pairs) occur in the paragraph, `drifted` otherwise. A quote against an
`unknown` citation has no text to match: `drifted`, overlap 0.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal

from sqlalchemy import select
from sqlalchemy.orm import Session

from tabane.checks import MAX_INT4
from tabane.errors import InvalidInput, Issue
from tabane.recall.cite import DENSE
from tabane.storage.schema import Paragraph, Source

MAX_ANSWER = 100_000  # characters of one answer
PARAPHRASE_OVERLAP = 0.6  # share of a quote's distinct words found in the paragraph

CitationVerdict = Literal["surfaced", "unsurfaced_known", "unknown"]
QuoteVerdict = Literal["quote", "paraphrase", "drifted"]

# `"Title" (source_id)` (title optional), then up to one line of section path, `paragraph N`.
CITATION = re.compile(
    r'(?:"[^"\n]*"\s*)?\((?P<source>[^()\n]*[^()\s])\)'
    r"(?:,[^,\n\[\]]{0,300}?){0,16}?,\s*paragraph\s+(?P<n>\d+)"  # bounded: no backtracking blow-up
)
QUOTE = re.compile(r'"(?P<a>[^"\n]+)"|“(?P<b>[^”\n]+)”|「(?P<c>[^」\n]+)」')
WORD = re.compile(r"\w+")
INDEX = re.compile(r"\[(?P<n>\d{1,6})\]")


@dataclass(frozen=True)
class CitedVerdict:
    text: str  # the citation as written in the answer
    source: str | None  # None: an item number whose item is not a paragraph, or unknown
    paragraph: int | None
    verdict: CitationVerdict
    index: int | None = None  # `[N]`: the item number cited


@dataclass(frozen=True)
class QuotedVerdict:
    text: str  # the quoted span, without its quote marks
    source: str | None  # the citation it was checked against; None: the served paragraphs
    paragraph: int | None
    verdict: QuoteVerdict
    overlap: float  # share of its distinct words found in the paragraph (1.0 for a quote)


@dataclass(frozen=True)
class Verification:
    recall_id: int
    citations: tuple[CitedVerdict, ...]
    quotes: tuple[QuotedVerdict, ...]


@dataclass(frozen=True)
class _Cite:
    start: int
    end: int
    line: int
    text: str
    source: str | None
    paragraph: int | None
    index: int | None = None
    served: bool = False  # an item number that names a served item the caller can see


def verify(session: Session, stored: dict[str, Any], answer: str) -> Verification:
    """`answer` checked against the stored trace `stored` (`trace.load_trace`'s value, already
    the caller's own) under the caller's row-level security."""
    if not isinstance(answer, str) or not answer.strip() or len(answer) > MAX_ANSWER:
        raise InvalidInput(
            "an answer is a non-empty text", issues=[Issue("answer", f"1..{MAX_ANSWER} chars")]
        )
    order = sorted(
        (c for c in stored["trace"]["candidates"] if c["outcome"] == "served"),
        key=lambda c: int(c["position"]),
    )
    keys = [str(c["key"]) for c in order]
    served = {int(k[2:]) for k in keys if k.startswith("p:")}
    written = _citations(answer)
    named = _by_id(session, {_key(c, keys) for c in written} & {f"p:{i}" for i in served})
    cites = [_numbered(c, _key(c, keys), named) if c.index is not None else c for c in written]
    found = _paragraphs(session, {n for c in cites if (n := _named(c)) is not None})
    verdicts = tuple(_verdict(c, found, served) for c in cites)
    pool = _served_texts(session, served)
    quotes = tuple(_quote(q, cites, found, pool) for q in _quotes(answer, cites))
    return Verification(int(stored["id"]), verdicts, quotes)


def fold(text: str) -> str:
    """NFKC, whitespace runs as one space, trimmed: what `quote` compares."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


def overlap(quote: str, paragraph: str) -> float:
    """The share of the quote's distinct tokens found in the paragraph (casefolded NFKC words;
    a run of CJK characters as its character pairs)."""
    mine = _tokens(quote)
    return len(mine & _tokens(paragraph)) / len(mine) if mine else 0.0


def _tokens(text: str) -> set[str]:
    out: set[str] = set()
    for word in WORD.findall(fold(text).casefold()):
        if DENSE.search(word) and len(word) > 1:
            out.update(word[i : i + 2] for i in range(len(word) - 1))
        else:
            out.add(word)
    return out


def _citations(answer: str) -> list[_Cite]:
    """The answer's citations in order: the bundle's written form, then `[N]` outside them."""
    out = []
    masked = list(answer)
    for m in CITATION.finditer(answer):
        n = int(m["n"])
        if n <= MAX_INT4:
            line = answer.count("\n", 0, m.start())
            out.append(_Cite(m.start(), m.end(), line, m.group(0), m["source"], n))
            masked[m.start() : m.end()] = " " * (m.end() - m.start())
    for m in INDEX.finditer("".join(masked)):
        line = answer.count("\n", 0, m.start())
        out.append(_Cite(m.start(), m.end(), line, m.group(0), None, None, int(m["n"])))
    return sorted(out, key=lambda c: c.start)


def _key(cite: _Cite, keys: list[str]) -> str:
    """The served item an item number names (its key in the trace), else ''."""
    n = cite.index or 0
    return keys[n - 1] if 1 <= n <= len(keys) else ""


def _numbered(cite: _Cite, key: str, named: dict[str, tuple[str, int]]) -> _Cite:
    """An item number with its paragraph's source and index, when it names a served paragraph
    the caller can still see (source None: another kind of item, or none)."""
    if not key.startswith("p:"):
        return replace(cite, served=bool(key))
    if key not in named:
        return cite  # served then, gone or hidden now: unknown
    source, paragraph = named[key]
    return replace(cite, source=source, paragraph=paragraph, served=True)


def _by_id(session: Session, keys: set[str]) -> dict[str, tuple[str, int]]:
    """Served paragraphs (by key) the caller can still see: their source ids and indexes."""
    if not keys:
        return {}
    rows = session.execute(
        select(Paragraph.id, Source.source_id, Paragraph.idx)
        .join(Paragraph, Paragraph.source_pk == Source.id)
        .where(Paragraph.id.in_({int(k[2:]) for k in keys}), Source.retracted_at.is_(None))
    )
    return {f"p:{pid}": (source, int(idx)) for pid, source, idx in rows}


def _named(cite: _Cite) -> tuple[str, int] | None:
    """The (source_id, paragraph) a citation names, if it names one."""
    if cite.source is None or cite.paragraph is None:
        return None
    return cite.source, cite.paragraph


def _verdict(
    cite: _Cite, found: dict[tuple[str, int], list[tuple[int, str]]], served: set[int]
) -> CitedVerdict:
    verdict: CitationVerdict
    if cite.index is not None:  # an item number: the recall served it, and you can see it
        verdict = "surfaced" if cite.served else "unknown"
    else:
        verdict = _judge(found.get(_named(cite) or ("", -1), []), served)
    return CitedVerdict(cite.text, cite.source, cite.paragraph, verdict, cite.index)


def _quotes(answer: str, cites: list[_Cite]) -> Iterable[tuple[str, int, int]]:
    """Each quoted span with its offset and line, outside the citations (whose titles quote)."""
    masked = list(answer)
    for c in cites:
        masked[c.start : c.end] = " " * (c.end - c.start)
    for m in QUOTE.finditer("".join(masked)):
        span = m["a"] or m["b"] or m["c"]
        if span.strip():
            yield span, m.start(), answer.count("\n", 0, m.start())


def _paragraphs(
    session: Session, wanted: set[tuple[str, int]]
) -> dict[tuple[str, int], list[tuple[int, str]]]:
    """Each (source_id, paragraph) the caller can see, live: its rows' ids and texts (a source id
    may exist in several contexts)."""
    found: dict[tuple[str, int], list[tuple[int, str]]] = {k: [] for k in wanted}
    if not wanted:
        return found
    rows = session.execute(
        select(Source.source_id, Paragraph.idx, Paragraph.id, Paragraph.text)
        .join(Paragraph, Paragraph.source_pk == Source.id)
        .where(
            Source.retracted_at.is_(None),
            Source.source_id.in_({s for s, _ in wanted}),
            Paragraph.idx.in_({n for _, n in wanted}),
        )
    )
    for source, idx, pid, text in rows:
        if (source, idx) in found:
            found[(source, idx)].append((int(pid), text))
    return found


def _served_texts(session: Session, served: set[int]) -> list[str]:
    if not served:
        return []
    rows = session.execute(
        select(Paragraph.text)
        .join(Source, Source.id == Paragraph.source_pk)
        .where(Paragraph.id.in_(served), Source.retracted_at.is_(None))
    )
    return [r.text for r in rows]


def _judge(rows: list[tuple[int, str]], served: set[int]) -> CitationVerdict:
    if not rows:
        return "unknown"
    return "surfaced" if any(pid in served for pid, _ in rows) else "unsurfaced_known"


def _quote(
    quoted: tuple[str, int, int],
    cites: list[_Cite],
    known: dict[tuple[str, int], list[tuple[int, str]]],
    pool: list[str],
) -> QuotedVerdict:
    span, at, line = quoted
    mine = [c for c in cites if c.line == line]
    after = [c for c in mine if c.start > at]
    cited = after[0] if after else (mine[-1] if mine else None)
    named = _named(cited) if cited is not None else None
    if named is None:  # no citation on its line, or an item number that is no paragraph
        texts, source, para = pool, None, None
    else:
        texts = [t for _, t in known.get(named, [])]
        source, para = named
    verdict, share = _match(span, texts)
    return QuotedVerdict(span, source, para, verdict, share)


def _match(span: str, texts: list[str]) -> tuple[QuoteVerdict, float]:
    if any(fold(span) in fold(t) for t in texts):
        return "quote", 1.0
    share = max((overlap(span, t) for t in texts), default=0.0)
    return ("paraphrase" if share >= PARAPHRASE_OVERLAP else "drifted"), round(share, 3)
