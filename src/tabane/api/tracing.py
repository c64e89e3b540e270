"""OpenTelemetry traces, with the `tabane[otel]` extra and TABANE_TRACING=otel.

`instrument` puts FastAPI's instrumentation on the app (a server span per request, `/health` and
`/metrics` left out) and a client span on each statement of both engines. `recall_spans` adds a
recall's own spans under the request's: one per stage the recall timed (its `timings_ms` laid end
to end from the recall's start; `total` is the recall's own span) and one per lane with what the
lane did (`tabane.lane.ran`, `hits`, `reason`). The lanes run inside one SQL statement
(recall/statement.py), so a lane's span carries its outcome, not a time of its own; the
statement's span has that.

tabane uses the global tracer provider, as a library should: run under `opentelemetry-instrument`
(or set one up before `create_app`) to choose the exporter; when none is set, `tabane serve` sets
up the SDK's with an OTLP/HTTP exporter configured by the standard `OTEL_EXPORTER_OTLP_*`
variables. Without the extra installed, `recall_spans` does nothing and TABANE_TRACING=otel
refuses to start.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI

from tabane.errors import InvalidInput, Issue
from tabane.recall.result import RecallTrace
from tabane.service import Tabane
from tabane.storage import observed

EXCLUDED = "health,metrics"  # probes and scrapes: no span


@functools.cache
def _api() -> Any | None:
    """`opentelemetry.trace` when the extra is installed (looked for once), else None."""
    try:
        from opentelemetry import trace
    except ImportError:
        return None
    return trace


def _missing() -> InvalidInput:
    return InvalidInput(
        "TABANE_TRACING=otel needs the OpenTelemetry extra: pip install 'tabane[otel]'",
        issues=[Issue("TABANE_TRACING", "opentelemetry is not installed")],
    )


def instrument(app: FastAPI, svc: Tabane, provider: Any | None = None) -> Callable[[], None]:
    """Trace `app`'s requests and `svc`'s database statements (global provider by default);
    returns what takes the statements' spans off again."""
    trace = _api()
    try:
        from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor
    except ImportError:
        raise _missing() from None
    assert trace is not None
    FastAPIInstrumentor.instrument_app(app, tracer_provider=provider, excluded_urls=EXCLUDED)
    tracer = trace.get_tracer("tabane.storage", tracer_provider=provider)
    return observed.trace_statements(
        svc.store,
        tracer,
        trace.SpanKind.CLIENT,
        lambda exc: trace.Status(trace.StatusCode.ERROR, type(exc).__name__),
    )


def exporting_provider() -> None:
    """Set the SDK's tracer provider with an OTLP/HTTP exporter, unless one is set already
    (`opentelemetry-instrument`, or the program's own)."""
    trace = _api()
    if trace is None:
        raise _missing()
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        raise _missing() from None
    if isinstance(trace.get_tracer_provider(), TracerProvider):
        return
    provider = TracerProvider(resource=Resource.create({"service.name": "tabane"}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)


def recall_spans(trace_: RecallTrace | None) -> None:
    """A recall's stage and lane spans under the current span (nothing when no span records)."""
    trace = _api()
    if trace is None or trace_ is None or not trace.get_current_span().is_recording():
        return
    tracer = trace.get_tracer("tabane.recall")
    stages = {k: ms for k, ms in trace_.timings_ms.items() if k != "total"}
    end = time.time_ns()
    start = end - int(trace_.timings_ms.get("total", sum(stages.values())) * 1e6)
    with tracer.start_as_current_span("recall", start_time=start) as recall:
        recall.set_attribute("tabane.recall.contexts", list(trace_.contexts))
        recall.set_attribute("tabane.recall.used_tokens", trace_.used_tokens)
        at = start
        for stage, ms in stages.items():
            span = tracer.start_span(f"recall stage {stage}", start_time=at)
            at += int(ms * 1e6)
            span.end(end_time=at)
        for name, lane in trace_.lanes.items():
            attributes: dict[str, Any] = {
                "tabane.lane": name,
                "tabane.lane.ran": lane.ran,
                "tabane.lane.hits": lane.hits,
            }
            if lane.reason:
                attributes["tabane.lane.reason"] = lane.reason
            tracer.start_span(f"recall lane {name}", attributes=attributes).end()
