"""Persisted recall traces: lossless JSON, saved once under the asker's personal scope, visible to
nobody else (one answer for "not yours" and "no such id"), gone with the user."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Any

import pytest
from sqlalchemy import ColumnElement, delete, func, select

from tabane.access.keys import narrow
from tabane.errors import InvalidInput, NoTrace
from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal, personal_scope
from tabane.recall.plan import RecallRequest, Tunables, caps
from tabane.recall.result import CandidateTrace, Floor, LaneRank, LaneReport, RecallTrace
from tabane.recall.trace import (
    MAX_RECENT,
    load_trace,
    recent_traces,
    save_trace,
    trace_from_json,
    trace_json,
)
from tabane.service import Tabane
from tabane.storage.schema import RecallTraceRow, User


def sample(plan: str = "maximal") -> RecallTrace:
    return RecallTrace(
        plan=plan,
        contexts=("docs", "notes"),
        lanes={
            "bm25": LaneReport(ran=True, hits=2),
            "vector": LaneReport(ran=False, reason="no_embedder"),
        },
        seeds=("tea",),
        gate=None,
        reranker="none",
        budget_tokens=800,
        used_tokens=123,
        chars_per_token=3.7,
        timings_ms={"statement": 12.5, "rerank": 0.0},
        candidates=(
            CandidateTrace(
                key="p:7",
                kind="paragraph",
                lanes=(LaneRank("bm25", 1, 4.25), LaneRank("title", 1, math.inf)),
                fused=1 / 61 + 1 / 61,
                direct=True,
                position=1,
                rerank=None,
                outcome="served",
                tokens=100,
            ),
            CandidateTrace(
                key="c:3",
                kind="claim",
                lanes=(LaneRank("claims", 2, -math.inf),),
                fused=1 / 62,
                direct=False,
                position=2,
                rerank=0.125,
                outcome="cut_by_budget",
                tokens=900,
                voiced=True,
            ),
        ),
        notes=("vector lane off",),
        floors={"docs": Floor(0.25, "context"), "notes": Floor(None, "default")},
        caps={"pool": 50, "candidates": 60},
    )


def owner_count(svc: Tabane, *where: ColumnElement[bool]) -> int:
    with svc.store.owner.connect() as conn:
        return conn.execute(
            select(func.count()).select_from(RecallTraceRow).where(*where)
        ).scalar_one()


def saved(svc: Tabane, user: Principal, question: str = "What tea?", plan: str = "maximal") -> int:
    with svc.store.session(user) as session:
        trace_id = save_trace(session, user, question, sample(plan))
    assert trace_id is not None
    return trace_id


# --- JSON ---------------------------------------------------------------------------------------


def test_trace_json_is_strict_json_and_round_trips() -> None:
    trace = sample()
    text = json.dumps(trace_json(trace), allow_nan=False)
    data = json.loads(text)
    assert data["candidates"][0]["lanes"][1]["score"] == "inf"
    assert data["contexts"] == ["docs", "notes"]
    assert trace_from_json(data) == trace


def test_a_trace_stored_before_floors_and_caps_loads_without_them() -> None:
    data = json.loads(json.dumps(trace_json(sample()), allow_nan=False))
    del data["floors"], data["caps"]
    assert trace_from_json(data) == replace(sample(), floors={}, caps={})


def test_nan_survives_as_a_string() -> None:
    trace = replace(sample(), timings_ms={"statement": math.nan})
    data = json.loads(json.dumps(trace_json(trace), allow_nan=False))
    assert math.isnan(trace_from_json(data).timings_ms["statement"])


# --- save and load ------------------------------------------------------------------------------


def test_save_then_load_round_trips(svc: Tabane, user: Principal) -> None:
    trace_id = saved(svc, user, "What tea does Kenji like?", "sources-only")
    with svc.store.session(user) as session:
        loaded = load_trace(session, trace_id)
    assert loaded["id"] == trace_id
    assert loaded["user"] == user.name
    assert loaded["question"] == "What tea does Kenji like?"
    assert loaded["plan"] == "sources-only"
    assert datetime.fromisoformat(loaded["created_at"]).tzinfo is not None
    assert loaded["trace"]["id"] == trace_id
    assert trace_from_json(loaded["trace"]) == replace(sample("sources-only"), id=trace_id)
    with svc.store.owner.connect() as conn:
        scopes = conn.scalar(select(RecallTraceRow.scopes).where(RecallTraceRow.id == trace_id))
    assert scopes == [personal_scope(user.name)]


def test_another_user_gets_the_answer_an_unknown_id_gets(
    svc: Tabane, user: Principal, make_user: Callable[..., Principal]
) -> None:
    trace_id = saved(svc, user)
    other = make_user()
    with svc.store.session(other) as session:
        with pytest.raises(NoTrace) as theirs:
            load_trace(session, trace_id)
        unknown = trace_id + 1_000_000_000
        with pytest.raises(NoTrace) as missing:
            load_trace(session, unknown)
    assert theirs.value.code == missing.value.code == "no_trace"
    assert theirs.value.issues == missing.value.issues
    assert theirs.value.message.replace(str(trace_id), "N") == missing.value.message.replace(
        str(unknown), "N"
    )


def test_a_trace_is_visible_to_nobody_else_even_reading_the_table(
    svc: Tabane, user: Principal, make_user: Callable[..., Principal]
) -> None:
    trace_id = saved(svc, user)
    shared = f"org:{user.name}x"
    other = make_user(extra_read=(shared, "public"), extra_write=(shared,))
    with svc.store.session(other) as session:
        assert session.scalar(select(RecallTraceRow).where(RecallTraceRow.id == trace_id)) is None
        assert (
            session.scalar(select(func.count()).where(RecallTraceRow.user_id == user.user_id)) == 0
        )
        assert recent_traces(session, MAX_RECENT, user_id=user.user_id) == []
    with svc.store.unscoped() as session:
        assert session.scalar(select(RecallTraceRow).where(RecallTraceRow.id == trace_id)) is None
    # Reading the asker's personal scope (an administrator's grant) is what makes it visible.
    reader = make_user(extra_read=(personal_scope(user.name),))
    with svc.store.session(reader) as session:
        assert load_trace(session, trace_id)["user"] == user.name


def test_a_caller_that_cannot_write_its_personal_scope_stores_nothing(
    svc: Tabane, user: Principal
) -> None:
    read_only = narrow(user, None, [])
    assert read_only.write == frozenset()
    with svc.store.session(read_only) as session:
        assert save_trace(session, read_only, "What tea?", sample()) is None
    assert owner_count(svc, RecallTraceRow.user_id == user.user_id) == 0


def test_deleting_the_user_removes_their_traces(
    svc: Tabane, make_user: Callable[..., Principal]
) -> None:
    gone = make_user()
    kept = make_user()
    ids = [saved(svc, gone), saved(svc, gone)]
    other = saved(svc, kept)
    with svc.store.admin() as session:
        session.execute(delete(User).where(User.id == gone.user_id))
    assert owner_count(svc, RecallTraceRow.id.in_(ids)) == 0
    assert owner_count(svc, RecallTraceRow.id == other) == 1


# --- listing and bad input ----------------------------------------------------------------------


def test_recent_traces_are_newest_first(
    svc: Tabane, user: Principal, make_user: Callable[..., Principal]
) -> None:
    ids = [saved(svc, user, f"question {n}") for n in range(3)]
    with svc.store.session(user) as session:
        both = [save_trace(session, user, "same transaction", sample()) for _ in range(2)]
    with svc.store.session(user) as session:
        listed = recent_traces(session, 4)
        mine = recent_traces(session, MAX_RECENT, user_id=user.user_id)
        nobody = recent_traces(session, MAX_RECENT, user_id=make_user().user_id)
    # Saved in one transaction, two traces share created_at; the larger id comes first.
    assert [t["id"] for t in listed] == [both[1], both[0], ids[2], ids[1]]
    assert [t["question"] for t in mine] == ["same transaction"] * 2 + [
        "question 2",
        "question 1",
        "question 0",
    ]
    assert set(mine[0]) == {"id", "user", "question", "plan", "created_at"}
    assert nobody == []


@pytest.mark.parametrize("limit", [0, -1, MAX_RECENT + 1, True, 2.5, "3"])
def test_recent_traces_refuses_a_bad_limit(svc: Tabane, user: Principal, limit: object) -> None:
    with svc.store.session(user) as session, pytest.raises(InvalidInput) as info:
        recent_traces(session, limit)  # type: ignore[arg-type]
    assert [i.path for i in info.value.issues] == ["limit"]


@pytest.mark.parametrize("trace_id", [0, -5, 2**63, 2**80])
def test_ids_outside_the_column_are_simply_unknown(
    svc: Tabane, user: Principal, trace_id: int
) -> None:
    with svc.store.session(user) as session, pytest.raises(NoTrace):
        load_trace(session, trace_id)


@pytest.mark.parametrize("trace_id", ["1", 1.0, None, True])
def test_a_non_integer_id_is_invalid_input(svc: Tabane, user: Principal, trace_id: object) -> None:
    with svc.store.session(user) as session, pytest.raises(InvalidInput) as info:
        load_trace(session, trace_id)  # type: ignore[arg-type]
    assert [i.path for i in info.value.issues] == ["recall_id"]


# --- what a recall reports ----------------------------------------------------------------------


def test_the_trace_counts_each_lanes_rows_before_the_cap_and_names_floors_and_caps(
    svc: Tabane, user: Principal, make_context: Callable[..., str]
) -> None:
    context = make_context(semantic_floor=0.4)
    words = ["limescale", "kettle", "vinegar", "descale", "element", "water", "boil", "empty"]
    texts = [
        f"Paragraph {n} about the {words[n % 8]} and the {words[(n + 3) % 8]}." for n in range(24)
    ]
    svc.ingest(user, context, DocumentInput(source_id="many", paragraphs=[block(t) for t in texts]))
    ask = RecallRequest("kettle limescale vinegar descale element water", (context,))
    capped = Tunables(candidates=5)
    result = svc.recall(user, ask, tunables=capped)
    bm25 = result.trace.lanes["bm25"]
    # every paragraph holds a word of the question: BM25 found all 24, fusion kept 5
    assert bm25.ran and bm25.hits == 24
    assert len(result.trace.candidates) == 5
    assert "fusion ranked 24 items; the best 5 were kept (candidates), 19 were not ordered" in (
        result.trace.notes
    )
    assert result.trace.caps == caps(capped) and result.trace.caps["candidates"] == 5
    # no embedder here: the context's floor is reported all the same, and a request's wins
    assert result.trace.floors == {context: Floor(0.4, "context")}
    asked = svc.recall(user, replace(ask, semantic_floor=0.7))
    assert asked.trace.floors == {context: Floor(0.7, "request")}
    assert not any("fusion ranked" in n for n in asked.trace.notes)  # 24 fit in 60
    with svc.store.session(user) as session:
        stored = trace_from_json(load_trace(session, asked.trace.id)["trace"])
    assert stored.floors == asked.trace.floors and stored.caps == caps(Tunables())


def test_the_trace_is_written_without_waiting_for_the_wal_flush(
    svc: Tabane, user: Principal, context: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record's transaction (trace, access counters) commits asynchronously; the recall's
    read and every other transaction keep the server's setting."""
    from sqlalchemy import text

    from tabane.recall import pipeline

    seen: list[str] = []
    record = pipeline.record

    def watched(session: Any, principal: Principal, result: Any) -> Any:
        seen.append(str(session.scalar(text("SHOW synchronous_commit"))))
        return record(session, principal, result)

    monkeypatch.setattr(pipeline, "record", watched)
    svc.ingest(user, context, DocumentInput("a", paragraphs=[block("the lantern is lit")]))
    got = svc.recall(user, RecallRequest("lantern", (context,), force=True))
    assert seen == ["off"] and got.trace.id is not None
    with svc.store.session(user) as session:
        assert session.scalar(text("SHOW synchronous_commit")) == "on"
        assert load_trace(session, got.trace.id, asker=user.user_id)["question"] == "lantern"


def test_a_preset_naming_no_groups_looks_none_up(
    svc: Tabane, user: Principal, context: str
) -> None:
    """The default preset names no contexts and no groups: a recall naming its contexts sends
    no query for the preset's (empty) lists."""
    from sqlalchemy import event

    sent: list[str] = []

    def capture(_c: Any, _cur: Any, sql: str, *_a: Any) -> None:
        sent.append(" ".join(sql.split()))

    event.listen(svc.store.app, "before_cursor_execute", capture)
    try:
        svc.recall(user, RecallRequest("lantern", (context,), force=True))
    finally:
        event.remove(svc.store.app, "before_cursor_execute", capture)
    assert sent  # the recall ran its statements
    assert [s for s in sent if "FROM groups" in s] == []
