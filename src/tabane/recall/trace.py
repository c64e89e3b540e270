"""Persisted recall traces: what one recall did, kept under an id the caller can come back with.

A trace (lanes, ranks, scores, timings, what rerank and budget cut) is stored once per recall as
JSON in `recall_traces`, scoped to the asking user's personal scope. Only that user can load it
(`load_trace` checks the asker too, so a reader granted that scope cannot), and deleting the
user removes it. A trace that is missing and one that belongs to someone else answer alike
(`no_trace`), so an id reveals nothing.

`trace_json` and `trace_from_json` convert losslessly: tuples become lists, datetimes ISO 8601
strings, and floats JSON cannot hold (inf, nan) the strings float() reads back.
"""

from __future__ import annotations

import math
from typing import Any

from sqlalchemy import Select, insert, select
from sqlalchemy.orm import Session

from tabane.checks import MAX_INT8
from tabane.errors import InvalidInput, Issue, NoTrace
from tabane.plain import to_plain
from tabane.principal import Principal, personal_scope
from tabane.recall.navigation import Navigation
from tabane.recall.result import CandidateTrace, Floor, LaneRank, LaneReport, RecallTrace
from tabane.storage.schema import RecallTraceRow, User

MAX_RECENT = 1000  # the most traces one `recent_traces` call lists


def trace_json(trace: RecallTrace) -> dict[str, Any]:
    """The trace as JSON-safe values; `trace_from_json` turns it back into an equal trace."""
    plain = _finite(to_plain(trace))
    assert isinstance(plain, dict)
    return plain


def trace_from_json(data: dict[str, Any]) -> RecallTrace:
    """The `RecallTrace` that `trace_json` wrote (as stored, or as `load_trace` returns it)."""
    return RecallTrace(
        plan=data["plan"],
        contexts=tuple(data["contexts"]),
        lanes={name: LaneReport(**lane) for name, lane in data["lanes"].items()},
        seeds=tuple(data["seeds"]),
        gate=data["gate"],
        reranker=data["reranker"],
        budget_tokens=data["budget_tokens"],
        used_tokens=data["used_tokens"],
        chars_per_token=float(data["chars_per_token"]),
        timings_ms={name: float(ms) for name, ms in data["timings_ms"].items()},
        candidates=tuple(_candidate(c) for c in data["candidates"]),
        notes=tuple(data.get("notes", ())),
        floors={name: Floor(**f) for name, f in data.get("floors", {}).items()},  # none before
        caps={name: int(n) for name, n in data.get("caps", {}).items()},
        navigation=Navigation(**data["navigation"]) if data.get("navigation") else None,
        id=data.get("id"),
    )


def save_trace(
    session: Session, principal: Principal, question: str, trace: RecallTrace
) -> int | None:
    """Store one recall's trace under the asker's personal scope and return its id.

    A caller that may not write its personal scope (an API key narrowed to reading) gets None and
    nothing is stored: a trace is a by-product of a read, so the read must not fail for it, and
    storing it under any other scope would show one user's questions to the readers of that
    scope (or, for a scope the key may not write, be refused by row-level security anyway)."""
    mine = personal_scope(principal.name)
    if not principal.can_write((mine,)):
        return None
    row_id = session.scalar(
        insert(RecallTraceRow)
        .values(
            user_id=principal.user_id,
            question=question,
            plan=trace.plan,
            trace=trace_json(trace),
            scopes=[mine],
        )
        .returning(RecallTraceRow.id)
    )
    assert row_id is not None
    return int(row_id)


def load_trace(session: Session, trace_id: int, asker: int | None = None) -> dict[str, Any]:
    """The stored trace `trace_id` as JSON-safe values: id, user, question, plan, created_at and
    trace (`trace_json`'s shape, with its id filled in). NoTrace when it does not exist, the
    caller cannot see it, or (with `asker`, a user id) it is not that user's own (one answer for
    all three). A trace lists candidates as its asker's scopes showed them, so a reader granted
    the asker's personal scope must still not read it: surfaces always pass the asker."""
    if isinstance(trace_id, bool) or not isinstance(trace_id, int):
        raise InvalidInput(
            "a trace id is an integer", issues=[Issue("recall_id", "not an integer")]
        )
    row = None
    if 1 <= trace_id <= MAX_INT8:
        row = session.execute(
            _listing(RecallTraceRow.trace).where(
                RecallTraceRow.id == trace_id,
                *([RecallTraceRow.user_id == asker] if asker is not None else []),
            )
        ).one_or_none()
    if row is None:
        raise NoTrace(f"no recall trace {trace_id}", issues=[Issue("recall_id", "unknown")])
    return {**_summary(row), "trace": {**row.trace, "id": row.id}}


def recent_traces(
    session: Session, limit: int = 20, *, user_id: int | None = None
) -> list[dict[str, Any]]:
    """The newest traces the caller can see (ties by id, newest first), without their bodies:
    id, user, question, plan and created_at each. `user_id` narrows the list to one user's."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_RECENT:
        raise InvalidInput(
            "invalid number of traces", issues=[Issue("limit", f"an integer in 1..{MAX_RECENT}")]
        )
    stmt = _listing()
    if user_id is not None:
        stmt = stmt.where(RecallTraceRow.user_id == user_id)
    stmt = stmt.order_by(RecallTraceRow.created_at.desc(), RecallTraceRow.id.desc()).limit(limit)
    return [_summary(row) for row in session.execute(stmt)]


def _listing(*extra: Any) -> Select[Any]:
    return select(
        RecallTraceRow.id,
        User.name.label("user"),
        RecallTraceRow.question,
        RecallTraceRow.plan,
        RecallTraceRow.created_at,
        *extra,
    ).join(User, User.id == RecallTraceRow.user_id)


def _summary(row: Any) -> dict[str, Any]:
    return {
        "id": row.id,
        "user": row.user,
        "question": row.question,
        "plan": row.plan,
        "created_at": row.created_at.isoformat(),
    }


def _candidate(data: dict[str, Any]) -> CandidateTrace:
    return CandidateTrace(
        key=data["key"],
        kind=data["kind"],
        lanes=tuple(
            LaneRank(lane=r["lane"], rank=r["rank"], score=float(r["score"])) for r in data["lanes"]
        ),
        fused=float(data["fused"]),
        direct=data["direct"],
        position=data["position"],
        rerank=None if data["rerank"] is None else float(data["rerank"]),
        outcome=data["outcome"],
        tokens=data["tokens"],
        reply_to=data.get("reply_to"),  # traces stored before replies have none
        voiced=bool(data.get("voiced", False)),  # nor before voiced items
        superseded_by=data.get("superseded_by"),  # nor before supersession
        newest_first=bool(data.get("newest_first", False)),  # nor before newest first
    )


def _finite(value: Any) -> Any:
    """JSON (and PostgreSQL's jsonb) has no inf or nan: write them as float()'s own spellings."""
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)  # 'inf', '-inf', 'nan'
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value
