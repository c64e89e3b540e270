"""Recall's pipeline: gather → order → cut → render, and what it leaves behind.

1. `prepare.prepare` (before any transaction): the preset, budget, gate and the question's
   embedding, once;
2. `read` (inside the one read transaction the service opens): the contexts reached, each one's
   floor, the session window, then `run` — gather the candidates with the one statement
   (gather.py), turn them into evidence, order them and cut them to `max_items` and the token
   budget (order.py) — and the corpus map when the preset asks for one;
3. `finish` (no store): the bundle rendered by the request's template (`bundle`) and the trace;
4. `record` (a short transaction of its own): the trace persisted and the served claims'
   access counters bumped.

The explain twin (explain.py `explain_request`) runs the same `prepare`, `read` steps and `run`,
and checks the same `bundle`. The service (service/recall.py) opens the transactions and
calls these; it holds no step of its own."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from sqlalchemy.orm import Session

from tabane.graph.claims import write as claims
from tabane.memory.memories import replies_to
from tabane.models.reranker import Reranker
from tabane.principal import Principal
from tabane.recall import (
    current,
    latest,
    order,
    overview,
    render,
    second_opinion,
    spoken,
    support,
    trace,
    voice,
)
from tabane.recall.evidence import Candidate, evidence
from tabane.recall.gather import SETTINGS, Gathered, TurnWindow, gather
from tabane.recall.plan import RecallRequest, Tunables, caps
from tabane.recall.prepare import Prepared, Setup
from tabane.recall.result import Evidence, Floor, RecallResult, RecallTrace
from tabane.search.search import QueryVector
from tabane.storage.schema import Context
from tabane.storage.store import Beside


@dataclass(frozen=True)
class Outcome:
    gathered: Gathered
    placed: list[order.Placed]
    found: dict[str, Candidate]
    timings_ms: dict[str, float]
    used_tokens: int
    notes: tuple[str, ...] = ()  # what ordering could not do (a reranker that failed)
    support: support.Support | None = None  # the support check's verdict (support.py)


def run(
    session: Session,
    question: str,
    contexts: Sequence[Context],
    floors: Sequence[float | None],
    qv: QueryVector,
    window: TurnWindow | None,
    *,
    reranker: Reranker | None,
    budget: int,
    chars_per_token: float,
    plan: str = "maximal",
    tunables: Tunables | None = None,
    beside: Beside | None = None,
    embed: voice.Embeds | None = None,
    speaker: str | None = None,
) -> Outcome:
    """Gather with the one statement, order (`embed`: voice.py), cut, check (support.py)."""
    t = tunables or Tunables()
    started = time.perf_counter()
    gathered = gather(
        session, question, contexts, floors, qv, window, plan=plan, tunables=t, beside=beside
    )
    statement_ms, started = _ms_since(started), time.perf_counter()
    items = [
        evidence(c, gathered.scopes, window.name if window else None) for c in gathered.candidates
    ]
    model = qv.model if qv.vector is not None else None
    vecs = _vectors(session, items[: t.candidates], model, t)
    notes: list[str] = []
    placed = order.arrange(
        question,
        items,
        reranker,
        max_items=t.max_items,
        budget=budget,
        chars_per_token=chars_per_token,
        voices=t.voices,
        facts_once=t.facts_once,
        vectors=vecs,
        supersede=(t.supersede, t.supersede_span) if t.supersede_span > 0 else None,
        after=order.read_after(t.summaries_after, t.overviews_after),
        latest_of=(t.latest, t.latest_span) if t.latest_span > 0 else None,  # latest.py
        now_span=t.now_span,
        now_always=t.now_always,
        notes=notes,
        voice=second_opinion.named_order(session, question, items, embed, model, t, notes),
        fill=t.budget_fill,
        earn=(t.overviews_need, t.chain_most),  # order.py derived_last
    )
    placed, verdict = supported(session, question, speaker, placed, t)
    return Outcome(
        gathered,
        placed,
        {c.key: c for c in gathered.candidates},
        {"statement": statement_ms, "order": _ms_since(started)},
        sum(p.item.tokens for p in placed if p.outcome == "served"),
        tuple(notes),
        verdict,
    )


def _vectors(
    session: Session, items: Sequence[Evidence], model: str | None, t: Tunables
) -> dict[str, current.Vec]:
    """The stored vectors ordering compares statements by: current.py's cosine rule when it
    is on, latest.py's mutual nearness when it is (any candidate may reach its first span)."""
    out: dict[str, current.Vec] = {}
    if t.latest_span > 0:
        out.update(latest.vectors(session, items, model))
    if t.supersede_span > 0 and t.supersede <= 1.0:
        out.update(current.vectors(session, items, model))
    return out


def _ms_since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


def supported(
    session: Session,
    question: str,
    speaker: str | None,
    placed: list[order.Placed],
    t: Tunables,
) -> tuple[list[order.Placed], support.Support | None]:
    """The support check over the served items, each note read with what it answers; when
    nothing supports what the question asks of whom it asks it, the items that say it of
    someone else are no longer served (`unsupported`)."""
    if not t.support:
        return placed, None
    served = spoken.voiced(order.served(placed), speaker)  # a transcript's paragraphs speak
    notes = [int(it.key[2:]) for it in served if it.kind == "claim"]
    verdict = support.check(
        question,
        speaker,
        served,
        need=t.support_need,  # what they answer: read only for a question asked of someone
        answers=lambda: {
            **{f"c:{k}": text for k, text in replies_to(session, notes).items()},
            **spoken.before(session, served),
        },
    )
    if verdict is None or verdict.line is None:
        return placed, verdict
    drop = set(verdict.partial)
    out = [
        replace(p, outcome="unsupported") if p.outcome == "served" and p.item.key in drop else p
        for p in placed
    ]
    return out, verdict


# -- the steps around `run` ------------------------------------------------------------------


@dataclass(frozen=True)
class Read:
    """What recall's read transaction found: the contexts reached, each one's floor, the
    outcome (None: the gate answered the turn) and the corpus map block."""

    reached: list[Context]
    floors: list[Floor]
    outcome: Outcome | None
    overview: str | None


def settings(ready: Prepared) -> dict[str, str] | None:
    """Recall's transaction settings, sent in its first round trip (none for a gated turn)."""
    return SETTINGS if ready.gated is None else None


# The record's transaction does not wait for its WAL flush: a trace and the access counters are
# by-products of a read (a crash may lose the last fraction of a second of them, never a write a
# caller made); the wait was ~6 ms of every recall under load (decision 0037).
RECORD_SETTINGS: dict[str, str] = {"synchronous_commit": "off"}


def read(
    session: Session,
    setup: Setup,
    user: Principal,
    request: RecallRequest,
    ready: Prepared,
    *,
    tunables: Tunables | None = None,
    beside: Beside | None = None,
) -> Read:
    """Everything recall reads, in the caller's one transaction."""
    reached = ready.reach(session)
    window = setup.window(session, user, request)
    floors = [setup.floor(request, ctx.semantic_floor) for ctx in reached]
    if ready.gated is not None:  # a trivial turn: no evidence, no corpus map
        return Read(reached, floors, None, None)
    outcome = run(
        session,
        request.question,
        reached,
        [f.value for f in floors],
        ready.qv,
        window,
        reranker=setup.reranker,
        budget=ready.budget,
        chars_per_token=setup.settings.chars_per_token,
        plan=request.plan,
        tunables=tunables,
        beside=beside,
        embed=setup,
        speaker=request.speaker,
    )
    block = (
        overview.corpus_map(session, [c.id for c in reached], ready.preset.overview_chars)
        if ready.preset.overview
        else None
    )
    return Read(reached, floors, outcome, block)


def bundle(
    setup: Setup,
    request: RecallRequest,
    ready: Prepared,
    items: Sequence[Evidence],
    outcome: Outcome | None,
    block: str | None = None,
) -> str:
    """The bundle as the request's template writes it (recall's, and explain's check)."""
    template_file = ready.preset.template or setup.settings.recall_template
    return render.render(
        request.question,
        items,
        overview=block,
        asker=request.speaker,
        template=setup.templates[template_file],
        cut=sum(p.outcome == "cut_by_budget" for p in outcome.placed) if outcome else 0,
        budget=ready.budget,
        name=template_file.name if template_file else None,
        gated=ready.gated,
        newest_first=_newest(request.question, outcome),
        unsupported=_line(outcome),
    )


def finish(
    setup: Setup,
    request: RecallRequest,
    ready: Prepared,
    found: Read,
    *,
    tunables: Tunables | None = None,
    started: float,
) -> RecallResult:
    """The result: the served items, the rendered bundle and the trace (`started`: when the
    recall began, by `time.perf_counter`)."""
    outcome, t = found.outcome, tunables or Tunables()
    items = order.served(outcome.placed) if outcome else []
    rendered = bundle(setup, request, ready, items, outcome, found.overview)
    timings = {"embed": ready.embed_ms, **(outcome.timings_ms if outcome else {})}
    timings["total"] = round((time.perf_counter() - started) * 1000, 3)
    result_trace = RecallTrace(
        plan=request.plan,
        contexts=tuple(c.name for c in found.reached),
        lanes=outcome.gathered.lanes if outcome else {},
        seeds=outcome.gathered.seeds if outcome else (),
        gate=ready.gated,
        reranker=getattr(setup.reranker, "name", "none"),
        budget_tokens=ready.budget,
        used_tokens=outcome.used_tokens if outcome else 0,
        chars_per_token=setup.settings.chars_per_token,
        timings_ms=timings,
        candidates=order.traces(outcome.placed, outcome.found) if outcome else (),
        notes=(outcome.gathered.notes + outcome.notes if outcome else ())
        + _moved(request.question, outcome, t)
        + _checked(outcome)
        + _ages(items)
        + _followed(ready),
        floors={c.name: f for c, f in zip(found.reached, found.floors, strict=True)},
        caps=caps(t),
        navigation=outcome.gathered.navigation if outcome else None,
    )
    return RecallResult(
        request.question,
        tuple(items),
        rendered,
        result_trace,
        found.overview,
        unsupported=_line(outcome),
    )


def record(session: Session, user: Principal, result: RecallResult) -> RecallResult:
    """Persist the trace and bump the served claims' access counters (the service runs it in a
    short transaction of its own: a read's by-products never hold the read's snapshot open)."""
    trace_id = trace.save_trace(session, user, result.question, result.trace)
    claims.touch(session, [int(it.key[2:]) for it in result.items if it.kind == "claim"])
    return replace(result, trace=replace(result.trace, id=trace_id))


def _line(outcome: Outcome | None) -> str | None:
    """The bundle's line when nothing supports what the question asks (support.py)."""
    return outcome.support.line if outcome is not None and outcome.support is not None else None


def _checked(outcome: Outcome | None) -> tuple[str, ...]:
    """The trace's note on the support check: what it asked for, of whom, and its verdict."""
    got = outcome.support if outcome is not None else None
    if got is None:
        return ()
    terms = ", ".join(got.asked.shown)
    head = f"support: the question asks for [{terms}] of {' and '.join(got.asked.entity)}"
    if got.line is None:
        return (f"{head}; said of them by {', '.join(got.supported)}",)
    dropped = [p.item.key for p in outcome.placed if p.outcome == "unsupported"] if outcome else []
    gone = f"; not served, as they say it of someone else: {', '.join(dropped)}" if dropped else ""
    return (f"{head}; no served item says it of them{gone}",)


def _ages(items: Sequence[Evidence]) -> tuple[str, ...]:
    """How old each served derived summary is: recall serves the last build and never waits."""
    now = datetime.now(UTC)
    return tuple(
        f"{it.key} built {max(0, round((now - it.when).total_seconds()))} s ago"
        for it in items
        if it.kind in ("community", "profile", "raptor") and it.when is not None
    )


def _newest(question: str, outcome: Outcome | None) -> str | None:
    """The word by which the question asks about the present, when that reordered the items it
    serves (current.py `newest_first`): the bundle says so."""
    moved = outcome is not None and any(
        p.newest_first and p.outcome == "served" for p in outcome.placed
    )
    return current.asks_now(question) if moved else None


def _followed(ready: Prepared) -> tuple[str, ...]:
    """The trace's note on a follow-up read with the turn before it (recall/followup.py)."""
    if ready.followed is None:
        return ()
    turn = ready.followed if len(ready.followed) <= 80 else ready.followed[:79] + "…"
    return (f'follow-up: the question names nothing of its own; embedded after the turn "{turn}"',)


def _moved(question: str, outcome: Outcome | None, t: Tunables) -> tuple[str, ...]:
    """The trace's note on the newest-first order, when it moved anything."""
    cue = _newest(question, outcome)
    if cue is None or outcome is None:
        return ()
    n = sum(p.newest_first for p in outcome.placed)
    return (
        f'newest first: the question asks about the present ("{cue}"); each holder\'s '
        f"statements among the first {t.now_span} items were ordered newest first ({n} moved)",
    )
