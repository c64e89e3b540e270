"""What the observability surfaces read from the storage layer: the pools' numbers (`/metrics`)
and a span per statement (OpenTelemetry, api/tracing.py), so no layer above touches SQLAlchemy."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, event
from sqlalchemy.engine import ExceptionContext
from sqlalchemy.pool import QueuePool

from tabane.storage.store import Store

MAX_STATEMENT = 2000  # characters of a statement's text a span keeps
_SPANS = "tabane.spans"  # a connection's open statement spans (its `info`)


def in_use(store: Store) -> dict[str, int]:
    """Pooled connections checked out now, per engine: `app` (callers), `owner` (workers, the
    reference tables)."""
    engines = {"app": store.app, "owner": store.owner}
    return {
        name: engine.pool.checkedout() if isinstance(engine.pool, QueuePool) else 0
        for name, engine in engines.items()
    }


def trace_statements(store: Store, tracer: Any, kind: Any, error: Any) -> Callable[[], None]:
    """A client span per statement of both engines, from the engines' own events
    (opentelemetry's SQLAlchemy instrumentation stops at SQLAlchemy 2.0 and needs greenlet; these
    events are all it uses). `tracer` is an OpenTelemetry tracer, `kind` its CLIENT span kind,
    `error` a function of an exception giving the span's error status. The span holds the
    statement's text with its placeholders, never a bound value. Returns what takes the spans
    off again."""

    def before(conn: Connection, cursor: Any, statement: str, *_: Any) -> None:
        verb = statement.split(None, 1)[0].upper() if statement.strip() else "SQL"
        span = tracer.start_span(
            verb,
            kind=kind,
            attributes={"db.system": "postgresql", "db.statement": statement[:MAX_STATEMENT]},
        )
        conn.info.setdefault(_SPANS, []).append(span)

    def after(conn: Connection, *_: Any) -> None:
        spans = conn.info.get(_SPANS)
        if spans:
            spans.pop().end()

    def failed(context: ExceptionContext) -> None:
        spans = context.connection.info.get(_SPANS) if context.connection is not None else None
        if spans:
            span = spans.pop()
            span.set_status(error(context.original_exception))
            span.record_exception(context.original_exception)
            span.end()

    hooks: list[tuple[str, Callable[..., None]]] = [
        ("before_cursor_execute", before),
        ("after_cursor_execute", after),
        ("handle_error", failed),
    ]
    engines = (store.app, store.owner)
    for engine in engines:
        for name, hook in hooks:
            event.listen(engine, name, hook)

    def undo() -> None:
        for engine in engines:
            for name, hook in hooks:
                event.remove(engine, name, hook)

    return undo
