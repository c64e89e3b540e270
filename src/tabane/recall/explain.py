"""recall/explain: why an expected item (a paragraph or a claim) is or is not in a recall's
evidence — the first verdict that applies, from the same statement, ordering and budget:

1. `not_visible` — not stored in the addressed contexts, or not visible to the caller (one
   verdict: an invisible item is never told apart from a missing one);
2. `closed` — a claim that was closed (superseded by a newer one, or retracted): recall reads
   current claims only, whatever the question;
3. `gated` — the relevance gate answered the turn with no evidence;
4. `not_found` — no lane found it within its pool; `lanes` gives each lane's rank for it under a
   wide pool (`WIDE_POOL`), if any lane ranks it at all;
5. `below_candidates` — lanes found it, but its fused score ranked past the candidates kept;
6. `answered` — it asks a question, and its reply (the next paragraph or turn) carries it (in its
   place when it was found); the detail says what became of the reply (served, cut, …);
7. `duplicate` — the same text is served as another item (a turn and the note made from it);
8. `cut_by_rerank` / `cut_by_max_items` — the reranker's order / the fused order (no
   reranker, or one that failed) put it past `max_items`;
9. `cut_by_budget` — it did not fit the token budget;
10. `served`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from sqlalchemy import exists, select
from sqlalchemy.orm import Session, aliased

from tabane.checks import MAX_INT4, MAX_INT8, is_paragraph_index, only_context, text_problems
from tabane.errors import InvalidInput, Issue
from tabane.models.reranker import Reranker
from tabane.principal import Principal
from tabane.recall import order, second_opinion
from tabane.recall.gather import TurnWindow, gather
from tabane.recall.order import Placed
from tabane.recall.pipeline import Outcome, bundle, run
from tabane.recall.plan import RecallRequest, Tunables
from tabane.recall.prepare import Prepared, Setup
from tabane.recall.result import LaneRank
from tabane.recall.support import why_unsupported
from tabane.recall.voice import Embeds
from tabane.search.search import QueryVector
from tabane.storage.schema import Claim, ClaimVector, Context, Paragraph, Source

WIDE_POOL = 1000  # explain's pool per lane when the item was not among the candidates


@dataclass(frozen=True)
class Expected:
    """The item explain looks for: a source's paragraph (context, source, paragraph; paragraph
    None = any paragraph of the source) or a claim (claim id)."""

    context: str | None = None
    source: str | None = None
    paragraph: int | None = None
    claim: int | None = None

    def check(self) -> None:
        by_source = self.source is not None
        if by_source == (self.claim is not None):
            both = "not both" if by_source else "neither was given"
            raise InvalidInput(
                "name either a source (with its context) or a claim",
                issues=[Issue("expected", f"give source (and context) or claim: {both}")],
            )
        texts = {"source": self.source, "context": self.context}
        found = [Issue(path, problem) for path, problem in text_problems(texts, "expected")]
        if found:
            raise InvalidInput("invalid expected item", issues=found)
        if by_source and not (self.source or "").strip():
            raise InvalidInput(
                "a source id cannot be empty", issues=[Issue("expected.source", "empty")]
            )
        if by_source and not self.context:
            raise InvalidInput(
                "say which context the expected source is in",
                issues=[
                    Issue("expected.context", "required unless one context (and no group) is read")
                ],
            )
        if self.paragraph is not None and not is_paragraph_index(self.paragraph):
            raise InvalidInput(
                "invalid paragraph",
                issues=[Issue("expected.paragraph", f"not a paragraph index in 0..{MAX_INT4}")],
            )
        if self.claim is not None and not _within(self.claim, 1, MAX_INT8):
            raise InvalidInput(
                "invalid claim id",
                issues=[Issue("expected.claim", f"not a claim id in 1..{MAX_INT8}")],
            )


def _within(value: object, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


@dataclass(frozen=True)
class Explanation:
    verdict: str
    detail: str
    key: str | None = None  # the item's key in the trace ("p:<id>", "c:<id>")
    lanes: tuple[LaneRank, ...] = ()
    position: int | None = None  # after ordering
    fused_position: int | None = None
    rerank: float | None = None
    tokens: int | None = None
    budget: int | None = None
    used_tokens: int | None = None


def _keys(session: Session, contexts: Sequence[Context], expected: Expected) -> list[str]:
    ids = [c.id for c in contexts]
    if expected.claim is not None:
        found = session.scalars(
            select(Claim.id).where(Claim.id == expected.claim, Claim.context_id.in_(ids))
        )
        return [f"c:{cid}" for cid in found]
    stmt = (
        select(Paragraph.id)
        .join(Source, Source.id == Paragraph.source_pk)
        .join(Context, Context.id == Source.context_id)
        .where(
            Context.name == expected.context,
            Context.id.in_(ids),
            Source.source_id == expected.source,
            Source.retracted_at.is_(None),
        )
        .order_by(Paragraph.idx)
    )
    if expected.paragraph is not None:
        stmt = stmt.where(Paragraph.idx == expected.paragraph)
    keys = [f"p:{pid}" for pid in session.scalars(stmt)]
    if expected.paragraph is None:  # the source itself, as a catalog or navigation item
        source = select(Source.id).join(Context, Context.id == Source.context_id)
        source = source.where(
            Context.name == expected.context,
            Context.id.in_(ids),
            Source.source_id == expected.source,
            Source.retracted_at.is_(None),
        )
        keys += [f"s:{pk}" for pk in session.scalars(source)]
    return keys


def _closed(session: Session, expected: Expected) -> str | None:
    """Why a claim recall can never serve was closed, or None for anything else."""
    if expected.claim is None:
        return None
    closer = aliased(Claim, name="closer")
    seen = exists().where(closer.id == Claim.closed_by)  # row-level security decides
    row = session.execute(
        select(Claim.closed_at, Claim.close_reason, Claim.closed_by, seen.label("seen")).where(
            Claim.id == expected.claim
        )
    ).one_or_none()
    if row is None or row.closed_at is None:
        return None
    # the claim that closed it is named only to whoever may read it
    by = f" by claim {row.closed_by}" if row.closed_by is not None and row.seen else ""
    when = row.closed_at.strftime("%Y-%m-%dT%H:%M:%SZ")
    return f"{row.close_reason or 'closed'}{by} at {when}: recall reads current claims only"


def _voices(best: Placed, placed: Sequence[Placed]) -> str:
    """What the voices did to its place: it came first among the items people said (the
    question names who said it), or items said by someone the question names went before it."""
    if best.voiced:
        return f"; the question names {best.item.author}, who said it: first among what people said"
    names = sorted({p.item.author for p in placed if p.voiced and p.item.author})
    if names and best.item.author and best.outcome != "served":
        return f"; items said by {', '.join(names)}, whom the question names, went before it"
    return ""


def explain(
    session: Session,
    question: str,
    contexts: Sequence[Context],
    floors: Sequence[float | None],
    qv: QueryVector,
    window: TurnWindow | None,
    expected: Expected,
    *,
    gated: str | None,
    reranker: Reranker | None,
    budget: int,
    chars_per_token: float,
    plan: str = "maximal",
    tunables: Tunables | None = None,
    rendered: Callable[[Outcome], object] | None = None,
    embed: Embeds | None = None,
    speaker: str | None = None,
) -> Explanation:
    """The first verdict that applies to `expected`. `rendered` renders an outcome as recall
    would (its template's error is raised as recall raises it: no verdict for a bundle that
    cannot be written)."""
    expected.check()
    t = tunables or Tunables()
    keys = _keys(session, contexts, expected)
    if not keys:
        return Explanation(
            "not_visible", "no such item in the addressed contexts that you can see", budget=budget
        )
    closed = _closed(session, expected)
    if closed is not None:
        return Explanation("closed", closed, key=keys[0], budget=budget)
    if gated is not None:
        return Explanation(
            "gated",
            f"the relevance gate answered with no evidence: {gated}",
            key=keys[0],
            budget=budget,
        )
    outcome = run(
        *(session, question, contexts, floors, qv, window),
        reranker=reranker,
        budget=budget,
        chars_per_token=chars_per_token,
        plan=plan,
        tunables=t,
        embed=embed,
        speaker=speaker,
    )
    if rendered is not None:
        rendered(outcome)
    placed = [p for p in outcome.placed if p.item.key in keys]
    replies = [p for p in outcome.placed if outcome.found[p.item.key].asked in keys]
    if placed or replies:
        best = min(placed or replies, key=lambda p: (p.outcome == "duplicate", p.position))
        return _placed(best, asks=not placed, outcome=outcome, t=t, budget=budget)
    reads = (session, question, contexts, floors, qv, window)
    return _unplaced(reads, keys, plan=plan, t=t, budget=budget)


Window = TurnWindow | None


def _placed(best: Placed, *, asks: bool, outcome: Outcome, t: Tunables, budget: int) -> Explanation:
    """The verdict of an item recall placed (or whose reply it placed, when `asks`): served,
    duplicate, cut by the reranker, max_items or the budget — or answered by its reply."""
    details = {
        "served": "in the evidence",
        "duplicate": "its text is served as another item (a turn and its note say one thing, "
        "an edge and the claim that only states its triple, or it repeats the question a "
        "served reply answers)",
        "cut_by_rerank": f"reranked to position {best.position}, past max_items {t.max_items}",
        "cut_by_max_items": f"at position {best.position} of the fused order, past max_items "
        f"{t.max_items}",
        "cut_by_budget": f"{best.item.tokens} tokens did not fit: {outcome.used_tokens} of "
        f"{budget} were used by the items before it",
        "unsupported": why_unsupported(outcome.support),
    }
    verdict: str = best.outcome
    detail, key = details[best.outcome] + _voices(best, outcome.placed), best.item.key
    if best.voiced:  # second_opinion.py: the named people's statements read by e5
        detail += second_opinion.reason(outcome.notes)
    if best.item.superseded_by:  # current.py: a later statement of its holder revises it
        detail += f"; earlier, superseded by {best.item.superseded_by}: served after it"
    if best.newest_first:  # current.py: a question about the present reads the latest first
        detail += "; moved: the question asks about the present, so its holder's statements "
        detail += "are ordered newest first"
    asked = outcome.found[best.item.key].asked
    if asks and asked is not None:  # it asks: what became of its reply answers
        verdict, key = "answered", asked
        detail = (
            f"it asks a question; its reply {best.item.key} carries it (in its place when "
            f"it was found): {best.outcome}"
        )
    return Explanation(
        verdict,
        detail,
        key=key,
        lanes=outcome.found[best.item.key].lanes,
        position=best.position,
        fused_position=best.fused_position,
        rerank=best.rerank,
        tokens=best.item.tokens,
        budget=budget,
        used_tokens=outcome.used_tokens,
    )


def _unplaced(
    reads: tuple[Session, str, Sequence[Context], Sequence[float | None], QueryVector, Window],
    keys: Sequence[str],
    *,
    plan: str,
    t: Tunables,
    budget: int,
) -> Explanation:
    """The verdict of an item recall did not place: below the candidates kept, or not found by
    any lane within its pool (with each lane's rank under a wide pool, if any ranks it)."""
    session, question, contexts, floors, qv, window = reads
    # The same lanes and pools, every fused row kept: found there, it was cut by the candidates'
    # limit (a lane's rank is on the common scale of scale.py, so it says nothing of the pool).
    every = replace(t, candidates=WIDE_POOL * 8)
    fused = gather(session, question, contexts, floors, qv, window, plan=plan, tunables=every)
    for position, c in enumerate(fused.candidates, start=1):
        if c.key in keys or c.asked in keys:
            return Explanation(
                "below_candidates",
                f"found by {', '.join(c.lane_names)}, but fused to position {position}, past "
                f"the {t.candidates} candidates kept",
                key=c.key,
                lanes=c.lanes,
                fused_position=position,
                budget=budget,
            )
    wide_t = replace(
        t, pool=WIDE_POOL, bm25_pool=WIDE_POOL, vector_pool=WIDE_POOL, candidates=WIDE_POOL * 8
    )
    wide = gather(session, question, contexts, floors, qv, window, plan=plan, tunables=wide_t)
    seen = [c for c in wide.candidates if c.key in keys or c.asked in keys]
    if not seen:
        why = f"no lane ranks it within {WIDE_POOL}" + _unembedded(session, keys, qv)
        return Explanation("not_found", why, key=keys[0], budget=budget)
    best_c = min(seen, key=lambda c: min(lr.rank for lr in c.lanes))
    ranks = ", ".join(f"{lr.lane} rank {lr.rank}" for lr in best_c.lanes)
    pool = f"{t.vector_pool} (BM25 {t.bm25_pool})" if best_c.kind == "paragraph" else str(t.pool)
    return Explanation(
        "not_found",
        f"no lane found it within its pool of {pool}; with pools of {WIDE_POOL}: {ranks}",
        key=best_c.key,
        lanes=best_c.lanes,
        budget=budget,
    )


def _unembedded(session: Session, keys: Sequence[str], qv: QueryVector) -> str:
    """Why the claims lane, which reads claim vectors, cannot have found a claim: no embedder,
    or no vector of the model yet (written while none was configured, or under another)."""
    claims = [int(k[2:]) for k in keys if k.startswith("c:")]
    if not claims:
        return ""
    if qv.vector is None:
        return f"; the claims lane did not run ({qv.reason or 'no embedder'})"
    have = session.scalar(
        select(ClaimVector.claim_id).where(
            ClaimVector.claim_id.in_(claims), ClaimVector.model == qv.model
        )
    )
    if have is not None:
        return ""
    return (
        f"; it has no vector of {qv.model} yet, and the claims lane reads vectors (a worker with "
        "that embedder embeds it)"
    )


# -- the twin of recall's pipeline (pipeline.py) ---------------------------------------------


def expected_item(ready: Prepared, expected: Expected) -> Expected:
    """`expected`, checked before the store is read (a bad item is the input's fault); a source
    named without its context is in the one context read (a preset's included)."""
    if expected.source is not None and expected.context is None:
        expected = replace(expected, context=only_context(ready.contexts, ready.groups))
    expected.check()
    return expected


def explain_request(
    session: Session,
    setup: Setup,
    user: Principal,
    request: RecallRequest,
    ready: Prepared,
    expected: Expected,
    *,
    tunables: Tunables | None = None,
) -> Explanation:
    """`explain` for a recall request: the same contexts, floors, window, statement, ordering,
    budget and template as recall's pipeline (`expected` from `expected_item`)."""
    reached = ready.reach(session)
    window = setup.window(session, user, request)
    floors = [setup.floor(request, ctx.semantic_floor).value for ctx in reached]

    def rendered(outcome: Outcome) -> str:  # as recall writes it (a broken template raises)
        return bundle(setup, request, ready, order.served(outcome.placed), outcome)

    return explain(
        session,
        request.question,
        reached,
        floors,
        ready.qv,
        window,
        expected,
        gated=ready.gated,
        reranker=setup.reranker,
        budget=ready.budget,
        chars_per_token=setup.settings.chars_per_token,
        plan=request.plan,
        tunables=tunables,
        rendered=rendered,
        embed=setup,
        speaker=request.speaker,
    )
