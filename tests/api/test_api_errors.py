"""The one error body: framework errors, body limits, unexpected exceptions, golden fixtures,
and the OpenAPI description of all of it."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from tabane.api.app import create_app

GOLDEN = Path(__file__).parent / "golden"
JSON = {"content-type": "application/json"}


def error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert list(body) == ["error"]
    assert list(body["error"]) == ["code", "message", "issues", "written"]
    assert body["error"]["code"] == code
    return body["error"]


def test_golden_no_context(client) -> None:
    response = client.get("/contexts/golden-missing-context")
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/json"
    assert response.json() == json.loads((GOLDEN / "error_no_context.json").read_text())


@pytest.mark.slow
def test_unknown_route_and_method(client) -> None:
    err = error(client.get("/no/such/route"), 404, "not_found")
    assert err["written"] == "nothing"
    response = client.put("/contexts")
    error(response, 405, "method_not_allowed")
    assert response.headers["allow"] == "GET, POST"  # every route's methods, not the first's
    options = client.options("/contexts/anything/sources")
    error(options, 405, "method_not_allowed")
    assert options.headers["allow"] == "GET, POST"


def test_malformed_json(client, context) -> None:
    for raw in (b'{"dice_floor": ', b"{'single': 1}", b"\xff\xfe", b'{"a": "\xc3\x28"}'):
        err = error(
            client.patch(f"/contexts/{context}", content=raw, headers=JSON), 400, "invalid_json"
        )
        assert [i["path"] for i in err["issues"]] == ["body"]
    err = error(client.post("/contexts", content=b"[1, 2]", headers=JSON), 422, "invalid_input")
    assert err["issues"][0]["path"] == "body"
    deep = b"[" * 100_000 + b"]" * 100_000  # deeper than the parser recurses
    err = error(client.post("/contexts", content=deep, headers=JSON), 400, "invalid_json")
    assert err["issues"] == [{"path": "body", "problem": "nested too deep"}]
    for url in (
        "/contexts",
        "/memories",
        "/recall/explain",
    ):  # parsed, but deeper than Python recurses
        nested = b'{"name": ' + b"[" * 600 + b"]" * 600 + b"}"
        refused = client.post(url, content=nested, headers=JSON)
        assert refused.status_code in (400, 422), (url, refused.text)


def test_validation_paths_name_body_and_query(client, context) -> None:
    err = error(client.post("/contexts", json={}), 422, "invalid_input")
    assert err["issues"] == [{"path": "body.name", "problem": "Field required"}]
    err = error(
        client.get(f"/contexts/{context}/sources", params={"limit": "many"}), 422, "invalid_input"
    )
    assert [i["path"] for i in err["issues"]] == ["query.limit"]
    err = error(
        client.get(f"/contexts/{context}/citations", params={"source_id": "x"}),
        422,
        "invalid_input",
    )
    assert [i["path"] for i in err["issues"]] == ["query.paragraph"]


def _sized_ingest(size: int) -> bytes:
    head, tail = b'{"source_id": "big.md", "text": "', b'"}'
    return head + b"a" * (size - len(head) - len(tail)) + tail


def test_body_over_the_limit_is_refused_and_nothing_written(svc, client, context) -> None:
    limit = svc.settings.max_body_bytes
    assert limit == 8 * 1024 * 1024
    body = _sized_ingest(limit + 1)
    response = client.post(f"/contexts/{context}/sources", content=body, headers=JSON)
    err = error(response, 413, "body_too_large")
    assert err["written"] == "nothing"
    assert err["issues"] == [
        {"path": "body", "problem": f"{limit + 1} bytes; the limit is {limit}"}
    ]
    assert client.get(f"/contexts/{context}").json()["stats"] == {
        "concepts": 0,
        "labels": 0,
        "associations": 0,
        "top_concepts": [],
        "label_samples": [],
        "sources": 0,
        "paragraphs": 0,
        "sections": 0,
    }


def test_body_at_the_limit_is_accepted(svc, client, new_name) -> None:
    limit = svc.settings.max_body_bytes
    head = json.dumps({"name": new_name("ctx")}).encode()
    body = head[:-1] + b" " * (limit - len(head)) + b"}"
    assert len(body) == limit
    assert client.post("/contexts", content=body, headers=JSON).status_code == 201


def test_chunked_body_over_the_limit_is_refused_while_streaming(svc, user, context) -> None:
    limit = svc.settings.max_body_bytes
    chunk = 1024 * 1024
    sent: list[int] = []

    async def chunks():
        yield b'{"source_id": "big.md", "text": "'
        for i in range(3 * limit // chunk):  # three times the limit, if nobody stops us
            sent.append(i)
            yield b"a" * chunk

    async def main() -> httpx.Response:
        transport = httpx.ASGITransport(app=create_app(svc, principal=lambda r: user))
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
            request = http.build_request(
                "POST", f"/contexts/{context}/sources", content=chunks(), headers=JSON
            )
            assert "content-length" not in request.headers
            assert request.headers["transfer-encoding"] == "chunked"
            return await http.send(request)

    response = asyncio.run(main())
    err = error(response, 413, "body_too_large")
    assert err["issues"][0]["problem"].startswith(f"over {limit} bytes")
    assert len(sent) <= limit // chunk + 1  # refused as the limit passed, not after buffering
    assert svc.get_context(user, context).stats.sources == 0


def test_unexpected_exception_is_a_generic_500(svc, caplog) -> None:
    def broken(request):
        raise RuntimeError("secret-internal-detail")

    client = TestClient(create_app(svc, principal=broken))
    with caplog.at_level(logging.ERROR, logger="tabane.api"):
        response = client.get("/contexts")
    err = error(response, 500, "internal")
    assert err["issues"] == [] and err["written"] == "unknown"
    assert "secret-internal-detail" not in response.text
    assert "Traceback" not in response.text and "RuntimeError" not in response.text
    assert "secret-internal-detail" in caplog.text  # the log has it all
    assert client.get("/health").json()["status"] == "ok"  # health needs no principal


def test_default_principal_is_the_local_user(svc) -> None:
    client = TestClient(create_app(svc))
    local = svc.local_user()
    name = f"ctxlocal{local.user_id}"
    created = client.post("/contexts", json={"name": name}).json()
    assert created["scopes"] == [f"user:{svc.settings.local_user}"]
    assert client.delete(f"/contexts/{name}").status_code == 200


def test_openapi_documents_the_error_body(client) -> None:
    spec = client.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    assert {"ErrorBody", "ErrorDetail", "IssueOut"} <= set(schemas)
    assert "HTTPValidationError" not in schemas
    ref = {"$ref": "#/components/schemas/ErrorBody"}
    operation = spec["paths"]["/contexts/{context}"]["get"]
    for status in ("404", "422", "500"):
        assert operation["responses"][status]["content"]["application/json"]["schema"] == ref


@pytest.mark.slow
def test_every_route_is_listed_here(client) -> None:
    """A new route must be added here, and to a test that exercises it."""
    spec = client.get("/openapi.json").json()
    routes = {(m.upper(), p) for p, ops in spec["paths"].items() for m in ops}
    assert routes == {
        ("GET", "/health"),
        ("GET", "/contexts"),
        ("POST", "/contexts"),
        ("GET", "/contexts/{context}"),
        ("PATCH", "/contexts/{context}"),
        ("PUT", "/contexts/{context}"),
        ("DELETE", "/contexts/{context}"),
        ("POST", "/contexts/{context}/rename"),
        ("POST", "/contexts/{context}/compact"),
        ("POST", "/contexts/{context}/flush"),
        ("GET", "/contexts/{context}/changes"),
        ("POST", "/contexts/{context}/embeddings/refresh"),
        ("POST", "/groups/{group}/rename"),
        ("POST", "/citations/verify"),
        ("POST", "/recall/evidence"),
        ("POST", "/contexts/{context}/retrieve"),
        ("GET", "/schemas/archive"),
        ("GET", "/contexts/{context}/export"),
        ("POST", "/contexts/import"),
        ("GET", "/groups/{group}/export"),
        ("POST", "/groups/import"),
        ("GET", "/groups"),
        ("POST", "/groups"),
        ("GET", "/groups/{group}"),
        ("PATCH", "/groups/{group}"),
        ("PUT", "/groups/{group}"),
        ("DELETE", "/groups/{group}"),
        ("GET", "/contexts/{context}/sources"),
        ("POST", "/contexts/{context}/sources"),
        ("POST", "/contexts/{context}/sources/lookup"),
        ("POST", "/contexts/{context}/sources/retract"),
        ("GET", "/contexts/{context}/citations"),
        ("POST", "/contexts/{context}/citations"),
        ("POST", "/contexts/{context}/sources/search"),
        ("POST", "/contexts/{context}/sources/search/explain"),
        ("POST", "/sources/search"),
        ("POST", "/sources/search/explain"),
        ("POST", "/catalog/search"),
        ("POST", "/catalog/search/explain"),
        ("GET", "/protocol"),
        ("GET", "/contexts/{context}/schema"),
        ("PUT", "/contexts/{context}/schema"),
        ("POST", "/contexts/{context}/schema/validate"),
        ("POST", "/contexts/{context}/schema/audit"),
        ("POST", "/contexts/{context}/consolidation/audit"),
        ("POST", "/contexts/{context}/drift/audit"),
        ("POST", "/contexts/{context}/associations"),
        ("POST", "/contexts/{context}/associations/retract"),
        ("POST", "/contexts/{context}/claims/promote"),
        ("POST", "/contexts/{context}/associations/citations"),
        ("GET", "/contexts/{context}/aliases"),
        ("POST", "/contexts/{context}/aliases"),
        ("DELETE", "/contexts/{context}/aliases/{alias}"),
        ("DELETE", "/contexts/{context}/aliases"),
        ("POST", "/contexts/{context}/resolve"),
        ("POST", "/contexts/{context}/resolve/explain"),
        ("POST", "/contexts/{context}/resolve/calibrate"),
        ("POST", "/contexts/{context}/resolve_label"),
        ("POST", "/contexts/{context}/resolve_label/explain"),
        ("GET", "/contexts/{context}/vocabulary/audit"),
        ("POST", "/contexts/{context}/vocabulary/audit"),
        ("POST", "/contexts/{context}/query"),
        ("POST", "/contexts/{context}/recall"),
        ("POST", "/query"),
        ("POST", "/contexts/{context}/describe"),
        ("POST", "/contexts/{context}/activate"),
        ("POST", "/contexts/{context}/explore"),
        ("POST", "/contexts/{context}/paths"),
        ("POST", "/contexts/{context}/unreachable_from"),
        ("GET", "/contexts/{context}/labels"),
        ("POST", "/memories"),
        ("GET", "/memories"),
        ("POST", "/sessions/{session}/turns"),
        ("GET", "/sessions/{session}/turns"),
        ("GET", "/sessions"),
        ("POST", "/recall"),
        ("POST", "/recall/explain"),
        ("GET", "/recall/traces/{recall_id}"),
        ("GET", "/presets"),
        ("DELETE", "/users/{name}"),
        ("GET", "/users/{name}/export"),
        ("DELETE", "/sessions/{session}"),
        ("GET", "/contexts/{context}/communities"),
        ("POST", "/contexts/{context}/communities/search"),
        ("GET", "/contexts/{context}/profiles/{concept}"),
        ("GET", "/contexts/{context}/raptor"),
        ("GET", "/contexts/{context}/raptor/{level}/{ordinal}"),
        # Taguru's wire (decision 0023; docs/taguru.md, tests/api/golden/taguru_wire.json)
        *(("PUT", f"/taguru/{p}") for p in ("contexts/{context}", "groups/{group}")),
        *(("POST", f"/taguru/{p}/rename") for p in ("contexts/{context}", "groups/{group}")),
        *(("POST", f"/taguru{p}") for p in ("/recall", "/query")),
        *(
            ("POST", f"/taguru/contexts/{{context}}/{p}")
            for p in (
                "recall",
                "query",
                "resolve",
                "resolve_label",
                "unreachable_from",
                "associations",
                "associations/retract",
                "aliases",
                "sources",
                "sources/retract",
                "citations",
            )
        ),
        ("DELETE", "/taguru/contexts/{context}/aliases"),
        *((m, "/taguru/contexts/{context}") for m in ("GET", "PATCH", "DELETE")),
        *((m, "/taguru/groups/{group}") for m in ("GET", "PATCH", "DELETE")),
        *(("GET", f"/taguru/{p}") for p in ("contexts", "groups")),
        *(("GET", f"/taguru/contexts/{{context}}/{p}") for p in ("labels", "aliases", "sources")),
        ("POST", "/taguru/contexts/{context}/sources/lookup"),
        ("POST", "/taguru/contexts/{context}/sources/search"),
        ("POST", "/taguru/sources/search"),
        *(("POST", f"/taguru/contexts/{{context}}/{p}") for p in ("activate", "paths", "describe")),
        *(
            ("POST", f"/taguru/contexts/{{context}}/{p}/explain")
            for p in ("resolve", "resolve_label")
        ),
        # decision 0027
        *(("GET", f"/taguru/{p}") for p in ("health", "live", "version", "protocol")),
        *(("POST", f"/taguru/{p}") for p in ("flush", "maintenance/compact")),
        *(("GET", f"/taguru/contexts/{{context}}/{p}") for p in ("changes", "embeddings")),
        *(
            ("POST", f"/taguru/contexts/{{context}}/{p}")
            for p in ("explore", "compact", "embeddings/refresh")
        ),
        *(("GET", f"/taguru/{p}/export") for p in ("contexts/{context}", "groups/{group}")),
        ("GET", "/taguru/contexts/{context}/communities"),
        # Taguru's import and promote (issue 35)
        ("POST", "/taguru/import"),
        ("POST", "/taguru/contexts/{context}/promote"),
        *(
            ("POST", f"/taguru/contexts/{{context}}/{p}")
            for p in (
                "vocabulary/audit",
                "communities/search",
                "sources/search/explain",
                "evidence",
            )
        ),
        # the schema and its audits in Taguru's form (decision 0027, "The schema")
        *(
            ("GET", "/taguru/contexts/{context}/schema"),
            ("PUT", "/taguru/contexts/{context}/schema"),
        ),
        *(
            ("POST", f"/taguru/contexts/{{context}}/{p}")
            for p in ("schema/audit", "schema/validate", "consolidation/audit")
        ),
        # Taguru's drift audit (decision 0027, "The drift audit")
        ("POST", "/taguru/contexts/{context}/drift/audit"),
    }
