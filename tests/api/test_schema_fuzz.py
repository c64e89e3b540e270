"""The HTTP API under schema-driven fuzzing (Schemathesis): requests generated from its own
OpenAPI description, valid and not, never get a 5xx. A bounded number of examples per operation
(the full runs, thousands of cases, are in docs/journal/benchmarks.md); it acts as a fresh user."""

from __future__ import annotations

import json

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from tabane.api.app import create_app
from tabane.api.ratelimit import RateLimiter, RateLimits
from tabane.service import Tabane

pytestmark = pytest.mark.slow  # schemathesis fuzzes every route

EXAMPLES = 3  # per operation: ~70 operations, about 200 requests


@schemathesis.serializer("application/jsonl")
def _json_lines(ctx, value):  # type: ignore[no-untyped-def]
    """An archive body (POST /contexts/import): one JSON value a line."""
    values = value if isinstance(value, list) else [value]
    return "\n".join(json.dumps(v) for v in values).encode()


@pytest.fixture
def api_schema(svc: Tabane, user):  # type: ignore[no-untyped-def]
    app = create_app(svc, lambda request: user, limiter=RateLimiter(RateLimits()))
    return schemathesis.openapi.from_asgi("/openapi.json", app)


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_no_generated_request_is_a_server_error(case) -> None:  # type: ignore[no-untyped-def]
    response = case.call()
    assert response.status_code < 500, (case.method, case.formatted_path, response.text[:500])
