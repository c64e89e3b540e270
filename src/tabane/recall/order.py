"""Ordering and budget, after the statement: directly named sources first, the reranker orders
each identity group (direct, then the rest) by answer quality on the complete text, within each
group the items said by someone the question names come first (`voiced`), the best
`max_items` are kept (a RAPTOR overview cut to its share of the budget), and then the longest
prefix that fits the token budget.

`arrange` returns every candidate with its outcome, so recall and its explain twin read the same
decisions."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tabane.derive.raptor import topics
from tabane.errors import RerankerUnavailable, TabaneError
from tabane.models.extractive import sentences
from tabane.models.reranker import Reranker, checked_scores
from tabane.recall import chains, current, earned, latest
from tabane.recall.cite import DENSE, block, estimate
from tabane.recall.evidence import Candidate
from tabane.recall.result import CandidateTrace, Evidence, Fact, Outcome


@dataclass(frozen=True)
class Placed:
    item: Evidence
    fused_position: int  # 1-based position in the statement's fused order
    position: int  # 1-based position after ordering
    rerank: float | None
    outcome: Outcome
    voiced: bool = False
    newest_first: bool = False  # moved by the newest-first order of a question about the present


def voiced(question: str, author: str | None) -> bool:
    """The question names the item's speaker or perspective holder ("What does Hannah think of
    horror films?" and a turn Hannah said, a note she holds): their own words speak for them.
    A name of a script written with spaces must be a whole word of the question; one written
    without (花, 翔) may sit anywhere in it. Case and width do not matter."""
    name = unicodedata.normalize("NFKC", author or "").casefold().strip()
    if not name:
        return False
    asked = unicodedata.normalize("NFKC", question).casefold()
    if DENSE.search(name):
        return name in asked
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", asked) is not None


def named_first(
    group: Sequence[Evidence], named: set[str], voice: Mapping[str, float] | None = None
) -> list[Evidence]:
    """The items with a speaker, in the places they hold, reordered: those in `named` first.
    Items nobody said (paragraphs, summaries) keep their places — the voice a question names
    ranks among voices, not above evidence that has none. With `voice` (voice.py: a named
    item's similarity to the question in its holder's voice), the named items it scores come
    first among them, most similar first."""
    said = [it for it in group if it.author]
    first = [it for it in said if it.key in named]
    if voice:
        scored = sorted((it for it in first if it.key in voice), key=lambda it: -voice[it.key])
        first = scored + [it for it in first if it.key not in voice]
    queue = iter(first + [it for it in said if it.key not in named])
    return [next(queue) if it.author else it for it in group]


def tokens(item: Evidence, chars_per_token: float) -> int:
    """The budget's estimate of the item as the bundle writes it (`cite.block`: the line with
    its provenance, citation and scopes, the question it replies to, its text)."""
    return max(1, estimate(block(item), chars_per_token))


def fit_share(item: Evidence, share: int, chars_per_token: float) -> Evidence:
    """A RAPTOR overview cut to its share of the budget (`budget / max_items` tokens): its
    longest run of whole sentences (the summarizer's own sentence split) within the share, at
    least its first sentence. An overview points at a region the paragraphs below it cover; its
    leading sentences (an extractive summary puts the most central first) say which region, and
    the rest of the budget stays with grounded evidence. Other items are served whole."""
    if item.kind != "raptor" or tokens(item, chars_per_token) <= share:
        return item
    said = sentences(item.text)
    kept = said[:1]
    for sentence in said[1:]:
        longer = Evidence(**{**item.__dict__, "text": " ".join([*kept, sentence])})
        if tokens(longer, chars_per_token) > share:
            break
        kept.append(sentence)
    return Evidence(**{**item.__dict__, "text": " ".join(kept)})


# The shortest sentence whose repetition inside an overview counts as quoting it.
_QUOTED_MIN = 20


def grounded_first(ordered: Sequence[Evidence], max_items: int) -> list[Evidence]:
    """Each RAPTOR overview most of whose sentences repeat items ahead of the cut (the first
    `max_items`) moved to just after the last of those items: an extractive overview repeats
    sentences of the paragraphs and notes below it, and when those are served anyway they are
    read first, as themselves, with their citations, and the overview follows them. An overview
    that says mostly something else (a broad question's map of a large corpus) keeps its place."""
    out = list(ordered)
    for item in [it for it in ordered if it.kind == "raptor"]:
        at = out.index(item)
        own = [  # its summary's sentences, not its topic line
            t.casefold() for t in sentences(topics.split(item.text)) if len(t) >= _QUOTED_MIN
        ]
        ahead = [(n, other) for n, other in enumerate(out[:max_items]) if other.kind != "raptor"]
        said = {n: " ".join(o.text.split()).casefold() for n, o in ahead}
        repeated = [max((n for n in said if s in said[n]), default=-1) for s in own]
        if own and 2 * sum(n >= 0 for n in repeated) > len(own) and max(repeated) > at:
            out.insert(max(repeated), out.pop(at))
    return out


# Summaries of the graph: a profile (a concept's heaviest claims) or a community (a cluster's).
GRAPH_SUMMARIES = ("profile", "community")


def summaries_last(
    ordered: Sequence[Evidence], kinds: Sequence[str] = GRAPH_SUMMARIES
) -> list[Evidence]:
    """The profiles and communities (`kinds`) moved behind every other item: a summary of edges
    and claims is read after the evidence it summarises and takes only a place that no direct
    evidence wants (on the graph sets they took 5–6 of 20 places and cost 0.05–0.10 of the
    questions with every needed triple; docs/journal/eval.md, "Supersession and summaries")."""
    return [it for it in ordered if it.kind not in kinds] + [
        it for it in ordered if it.kind in kinds
    ]


def derived_last(
    question: str,
    ordered: Sequence[Evidence],
    after: Sequence[str],
    max_items: int,
    earn: tuple[float, int],
    notes: list[str] | None,
) -> list[Evidence]:
    """The kinds `after` moved behind the rest (`summaries_last`), and the RAPTOR overviews too
    when an item of direct evidence answers (earned.py, `earn[0]` the share of the question's
    terms it must mention; 0: off); then up to `earn[1]` edges that continue a served path moved
    up to it (chains.py). Issue 30 item 4: derived items earn their place."""
    need, most = earn
    if "raptor" not in after and earned.overviews_after(question, ordered, max_items, need, notes):
        after = (*after, "raptor")
    ordered = summaries_last(ordered, after) if after else list(ordered)
    return chains.complete(ordered, max_items, most, notes)


def read_after(summaries: bool, overviews: bool) -> tuple[str, ...]:
    """The kinds `arrange` serves after every other item: the graph's summaries (`summaries`)
    and, with `overviews`, the RAPTOR overviews (issue 30 item 4, decision 0043)."""
    return (*(GRAPH_SUMMARIES if summaries else ()), *(("raptor",) if overviews else ()))


def _same(text: str) -> str:
    """Text as compared for repeats: case-folded, without whitespace (a question's closing
    sentences are rejoined with spaces, which a script written without them never had)."""
    return "".join(text.casefold().split())


def answers_first(ordered: Sequence[Evidence]) -> list[Evidence]:
    """Each reply (an item served in place of the question before it, `in_reply_to`) moved up
    to the first item that repeats that question word for word (a note made from the asking
    turn): the exchange is served once, where it ranked first, and the repeat is a duplicate."""
    out = list(ordered)
    for item in [it for it in ordered if it.in_reply_to]:
        asked = _same(item.in_reply_to or "")
        at = out.index(item)
        first = next((n for n, o in enumerate(out[:at]) if _same(o.text) == asked), None)
        if first is not None:
            out.insert(first, out.pop(at))
    return out


def edges_first(ordered: Sequence[Evidence]) -> list[Evidence]:
    """Each edge moved up to the first item that asserts its fact (a claim that only states
    the edge's triple): the fact is served once, where it ranked first, as the edge, which nets
    every claim of it; the claim is a duplicate."""
    out = list(ordered)
    for item in [it for it in ordered if it.kind == "association" and it.fact is not None]:
        at = out.index(item)
        first = next((n for n, o in enumerate(out[:at]) if o.fact == item.fact), None)
        if first is not None:
            out.insert(first, out.pop(at))
    return out


def _rerank_groups(
    question: str,
    items: Sequence[Evidence],
    reranker: Reranker | None,
    *,
    voices: bool,
    notes: list[str] | None,
    voice: Mapping[str, float] | None,
) -> tuple[list[Evidence], dict[str, float], set[str], bool]:
    """The direct items, then the rest, each group reranked (when it can be) and its voiced
    items first: (order, rerank scores by key, keys of the voiced items, whether any reranked)."""
    fused_at = {it.key: n for n, it in enumerate(items, start=1)}
    scores: dict[str, float] = {}
    spoken: set[str] = set()  # keys of the items the question names the speaker of
    groups = [[it for it in items if it.direct], [it for it in items if not it.direct]]
    ordered: list[Evidence] = []
    reranked = False
    for group in groups:
        got = _scores(reranker, question, group, notes) if len(group) > 1 else None
        if got is None and len(group) > 1:
            reranker = None  # it failed: the other group is not sent to it again
        if got is not None:
            reranked = True
            scores.update({it.key: s for it, s in zip(group, got, strict=True)})
            group = sorted(group, key=lambda it: (-scores[it.key], fused_at[it.key]))
        elif reranker is not None and len(group) == 1:
            scores[group[0].key] = 0.0
        named = {it.key for it in group if voices and voiced(question, it.author)}
        ordered += named_first(group, named, voice if got is None else None)
        spoken |= named
    return ordered, scores, spoken, reranked


def _place(
    ordered: Sequence[Evidence],
    fused_at: Mapping[str, int],
    scores: Mapping[str, float],
    spoken: set[str],
    moved: set[str],
    *,
    reranked: bool,
    max_items: int,
    budget: int,
    chars_per_token: float,
    facts_once: bool,
    fill: bool = False,
) -> list[Placed]:
    """Every item of `ordered` with its outcome: a repeat of a served item is a duplicate, the
    first `max_items` others are kept, and the longest prefix of those within `budget` served
    (`fill`: each of them in order that still fits, an item too long for what is left cut and
    the next tried)."""
    placed: list[Placed] = []
    used = 0
    full = False
    seen: set[str] = set()
    facts: set[Fact] = set()
    position = 0
    share = max(1, budget // max(1, max_items))
    for it in ordered:
        it = fit_share(it, share, chars_per_token)
        sized = Evidence(**{**it.__dict__, "tokens": tokens(it, chars_per_token)})
        outcome: Outcome
        same, at = _same(it.text), fused_at[it.key]
        # a turn and the note or paragraph made from it say one thing once; so do an edge and
        # a claim that only states the edge's triple. Only a served item makes a repeat a
        # duplicate: after one that was cut, every later item is cut too, and says so.
        if same in seen or (facts_once and it.fact is not None and it.fact in facts):
            placed.append(
                Placed(
                    sized, at, 0, scores.get(it.key), "duplicate", it.key in spoken, it.key in moved
                )
            )
            continue
        position += 1
        if position > max_items:
            outcome = "cut_by_rerank" if reranked else "cut_by_max_items"
        elif full or used + sized.tokens > budget:
            full = not fill  # a prefix: nothing after the first item that does not fit
            outcome = "cut_by_budget"
        else:
            used += sized.tokens
            outcome = "served"
            seen.update([same, _same(it.in_reply_to)] if it.in_reply_to else [same])
            if it.fact is not None:
                facts.add(it.fact)
        placed.append(
            Placed(
                sized, at, position, scores.get(it.key), outcome, it.key in spoken, it.key in moved
            )
        )
    return placed


def arrange(
    question: str,
    items: Sequence[Evidence],
    reranker: Reranker | None,
    *,
    max_items: int,
    budget: int,
    chars_per_token: float,
    voices: bool = True,
    facts_once: bool = True,
    vectors: Mapping[str, current.Vec] | None = None,
    supersede: tuple[float, int] | None = None,
    after: Sequence[str] = GRAPH_SUMMARIES,
    latest_of: tuple[float, int] | None = None,
    now_span: int = 0,
    now_always: bool = False,
    notes: list[str] | None = None,
    voice: Mapping[str, float] | None = None,
    fill: bool = False,
    earn: tuple[float, int] = (0.0, 0),
) -> list[Placed]:
    """Order (with `supersede` = (tau, span): the current statement of a revised value first;
    with `now_span`, a question about the present reads each holder's latest statement first:
    current.py; last, with `latest_of` = (floor, span), of two statements of one subject the
    later first: latest.py), drop items whose text or fact repeats an earlier one's (outcome
    `duplicate`, position 0), cut to `max_items` (`cut_by_rerank` where the reranker ordered
    them, else `cut_by_max_items`), then keep the longest prefix within `budget` tokens. A
    reranker that fails orders nothing: the fused order stands and `notes` gets the reason
    (`_scores`).
    `voice` orders the named speaker's items where no reranker did (`named_first`); `earn`:
    `derived_last`."""
    ordered, scores, spoken, reranked = _rerank_groups(
        question, items, reranker, voices=voices, notes=notes, voice=voice
    )
    ordered = answers_first(ordered)
    if supersede is not None:
        ordered = current.current_first(ordered, vectors or {}, *supersede)
    moved: set[str] = set()
    if now_span > 0 and (now_always or current.asks_now(question)):
        ordered, moved = current.newest_first(ordered, now_span)
    ordered = grounded_first(edges_first(ordered) if facts_once else ordered, max_items)
    ordered = derived_last(question, ordered, after, max_items, earn, notes)
    if latest_of is not None:  # last: only places among the first served change
        ordered, later = latest.latest_first(ordered, vectors or {}, *latest_of)
        ordered = latest.mark(ordered, later)
    fused_at = {it.key: n for n, it in enumerate(items, start=1)}
    return _place(
        ordered,
        fused_at,
        scores,
        spoken,
        moved,
        reranked=reranked,
        max_items=max_items,
        budget=budget,
        chars_per_token=chars_per_token,
        facts_once=facts_once,
        fill=fill,
    )


def _scores(
    reranker: Reranker | None, question: str, group: Sequence[Evidence], notes: list[str] | None
) -> list[float] | None:
    """The reranker's scores for `group`, or None: no reranker, or one that failed — a read
    degrades to the fused order rather than fail, and says why in `notes`
    (`reranker_unavailable`: it cannot be reached or keeps failing; `reranker_refused`)."""
    if reranker is None:
        return None
    try:
        return checked_scores(reranker.rerank(question, [it.text for it in group]), len(group))
    except TabaneError as exc:
        code = (
            "reranker_unavailable" if isinstance(exc, RerankerUnavailable) else "reranker_refused"
        )
        if notes is not None:
            notes.append(f"{code}: {exc.message}; served in fused order")
        return None


def served(placed: Sequence[Placed]) -> list[Evidence]:
    return [p.item for p in placed if p.outcome == "served"]


def traces(placed: Sequence[Placed], found: dict[str, Candidate]) -> tuple[CandidateTrace, ...]:
    return tuple(
        CandidateTrace(
            key=p.item.key,
            kind=p.item.kind,
            lanes=found[p.item.key].lanes,
            fused=found[p.item.key].fused,
            direct=p.item.direct,
            position=p.position,
            rerank=p.rerank,
            outcome=p.outcome,
            tokens=p.item.tokens,
            reply_to=found[p.item.key].asked,
            voiced=p.voiced,
            superseded_by=p.item.superseded_by,
            newest_first=p.newest_first,
        )
        for p in placed
    )
