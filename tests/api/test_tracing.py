"""OpenTelemetry (the `tabane[otel]` extra): a request's server span, its statements' spans and a
recall's stage and lane spans under it, exported to the SDK's in-memory exporter; probes and
scrapes make none."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tabane.api.app import create_app
from tabane.principal import Principal
from tabane.service import Tabane

pytest.importorskip("opentelemetry.sdk")
pytest.importorskip("opentelemetry.instrumentation.fastapi")

from opentelemetry import trace
from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)

from tabane.api import tracing


@pytest.fixture(scope="module")
def exporter() -> Iterator[InMemorySpanExporter]:
    """The process's global tracer provider (it can be set once), exporting to memory."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)  # the recall spans use the global provider
    if trace.get_tracer_provider() is not provider:
        pytest.skip("another global tracer provider is set in this process")
    yield exporter
    provider.shutdown()


@pytest.fixture
def traced(
    svc: Tabane, user: Principal, exporter: InMemorySpanExporter
) -> Iterator[tuple[TestClient, InMemorySpanExporter]]:
    app = create_app(svc, principal=lambda request: user)
    undo = tracing.instrument(app, svc)
    try:
        yield TestClient(app), exporter
    finally:
        undo()
        FastAPIInstrumentor.uninstrument_app(app)
        exporter.clear()


def test_a_recall_is_one_trace_with_statement_stage_and_lane_spans(
    traced: tuple[TestClient, InMemorySpanExporter],
    svc: Tabane,
    user: Principal,
    context: str,
    tmp_path: Path,
) -> None:
    client, exporter = traced
    doc = tmp_path / "tides.md"
    doc.write_text("# Tides\n\nThe spring tide floods the harbour wall twice a month.\n")
    svc.ingest_paths(user, context, [doc])
    exporter.clear()
    ask: dict[str, Any] = {"question": "when does the harbour flood?", "contexts": [context]}
    assert client.post("/recall", json=ask).status_code == 200
    spans = exporter.get_finished_spans()
    [server] = [s for s in spans if s.kind == trace.SpanKind.SERVER]
    assert server.attributes is not None and server.attributes.get("http.route") == "/recall"
    ours = {s.context.trace_id for s in spans}
    assert ours == {server.context.trace_id}  # one trace
    [recall] = [s for s in spans if s.name == "recall"]
    lanes = {s.name: s for s in spans if s.name.startswith("recall lane ")}
    assert len(lanes) >= 5
    assert all(s.parent is not None and s.parent.span_id == recall.context.span_id
               for s in lanes.values())  # fmt: skip
    ran = [s for s in lanes.values() if s.attributes and s.attributes["tabane.lane.ran"]]
    assert ran and any((s.attributes or {}).get("tabane.lane.hits", 0) > 0 for s in ran)
    assert any(s.name.startswith("recall stage ") for s in spans)
    statements = [s for s in spans if s.kind == trace.SpanKind.CLIENT and "db.system" in
                  str(dict(s.attributes or {}))]  # fmt: skip
    assert statements, [s.name for s in spans]


def test_probes_and_scrapes_make_no_span(
    traced: tuple[TestClient, InMemorySpanExporter],
) -> None:
    client, exporter = traced
    exporter.clear()
    client.get("/health")
    client.get("/metrics")
    assert [s for s in exporter.get_finished_spans() if s.kind == trace.SpanKind.SERVER] == []
