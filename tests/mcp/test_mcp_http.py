"""MCP over streamable HTTP: `mount_mcp` on a FastAPI app, served by uvicorn on a real socket and
reached by the official SDK client; also in process (httpx2 ASGITransport, Starlette TestClient),
where no lifespan runs, and through `tabane.api.app.create_app`."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx2
import pytest
from fastapi import FastAPI
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from starlette.testclient import TestClient

from tabane.api.app import create_app
from tabane.errors import Forbidden
from tabane.mcp import catalog
from tabane.mcp.server import current_request, mount_mcp
from tabane.principal import Principal
from tabane.service import Tabane

from helpers import serve, unique

pytestmark = pytest.mark.slow  # seconds a test: vectors, background jobs, a corpus per test

DOC = "# Kettle\n\nKettle boils water.\n\n## Safety\n\nNever run it dry.\n"
RPC_HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": "2025-11-25",
}


async def call(c: Client, tool: str, args: dict[str, Any]) -> tuple[bool, Any]:
    result = await c.call_tool(tool, args)
    body = json.loads(result.content[0].text)
    if not result.is_error:
        assert body == result.structured_content
    return result.is_error, body


def test_streamable_http_over_uvicorn(svc: Tabane, user: Principal) -> None:
    app = FastAPI()
    mount_mcp(app, svc, lambda: user)
    name = unique("ctx")

    async def session(url: str, mode: str) -> None:
        async with Client(url, mode=mode) as c:
            assert len((await c.list_tools()).tools) == len(catalog.all_tools())
            failed, body = await call(c, "get_context", {"name": name})
            assert failed and body["error"]["code"] == "no_context"

    async def work(url: str) -> None:
        async with Client(url, mode="legacy") as c:
            failed, made = await call(c, "create_context", {"name": name})
            assert not failed and made["scopes"] == [f"user:{user.name}"]
            failed, stored = await call(
                c, "ingest_source", {"context": name, "source_id": "kettle.md", "text": DOC}
            )
            assert not failed and stored["outcome"] == "created"
            failed, cited = await call(
                c, "cite", {"context": name, "source_id": "kettle.md", "paragraph": 1}
            )
            assert not failed and cited["section"] == ["Kettle", "Safety"]
            failed, body = await call(
                c, "cite", {"context": name, "source_id": "no.md", "paragraph": 0}
            )
            assert failed and body["error"]["code"] == "no_source"

    with serve(app) as base:
        for path, mode in [("/mcp", "legacy"), ("/mcp/", "auto")]:
            anyio.run(session, base + path, mode)
        anyio.run(work, base + "/mcp/")
    assert svc.get_context(user, name).stats.paragraphs == 2


def test_each_request_acts_for_its_own_credential(svc: Tabane, make_user, make_context) -> None:
    """In process (no lifespan runs), a resolver reading a header: two clients, two users."""
    alice, bob = make_user(), make_user()
    only_alice = make_context(alice)

    def principal() -> Principal:
        name = current_request().headers.get("x-test-user")
        if name is None:
            raise Forbidden("who are you?")
        return svc.principal(name)

    app = FastAPI()
    mount_mcp(app, svc, principal)

    async def visible(who: str) -> bool:
        http = httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=app),
            base_url="http://testserver",
            headers={"x-test-user": who},
        )
        async with (
            http,
            Client(streamable_http_client("http://testserver/mcp", http_client=http)) as c,
        ):
            failed, _ = await call(c, "get_context", {"name": only_alice})
            return not failed

    assert anyio.run(visible, alice.name) is True
    assert anyio.run(visible, bob.name) is False

    async def anonymous() -> httpx2.Response:
        async with httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=app), base_url="http://testserver"
        ) as http:
            return await http.post(
                "/mcp",
                headers=RPC_HEADERS,
                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            )

    refused = anyio.run(anonymous)
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "forbidden"


def test_through_create_app_under_test_client(svc: Tabane, user: Principal) -> None:
    """The real HTTP app with its middleware, a raw JSON-RPC call, and Starlette's TestClient."""
    app = create_app(svc, principal=lambda request: user)
    mount_mcp(app, svc, lambda: app.state.principal(current_request()))
    rpc = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "get_context", "arguments": {"name": unique("none")}},
    }
    with TestClient(app) as client:
        for path in ("/mcp", "/mcp/"):
            answer = client.post(path, headers=RPC_HEADERS, json=rpc)
            assert answer.status_code == 200
            result = answer.json()["result"]
            assert result["isError"] is True
            assert json.loads(result["content"][0]["text"])["error"]["code"] == "no_context"
        # a lone surrogate escape is valid JSON the SDK's parser refuses (it answered -32700
        # "Parse error"): the call gets the tool error stdio and every surface give
        raw = json.dumps(rpc).replace(rpc["params"]["arguments"]["name"], "kettle \\ud800")
        refused = client.post("/mcp", headers=RPC_HEADERS, content=raw.encode())
        assert refused.status_code == 200, refused.text
        assert refused.json()["id"] == 7 and refused.json()["result"]["isError"] is True
        error = json.loads(refused.json()["result"]["content"][0]["text"])["error"]
        assert error["code"] == "invalid_input" and error["issues"][0]["path"] == "name"
        assert client.get("/health").status_code == 200
        assert "/mcp" not in client.get("/openapi.json").json()["paths"]


def test_the_sdks_plain_text_refusals_leave_as_the_one_error_body(
    svc: Tabane, user: Principal
) -> None:
    """A wrong Host or Origin (DNS-rebinding protection) is refused with tabane's error body."""
    from mcp.server.transport_security import TransportSecuritySettings

    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*"],
    )
    app = create_app(svc, principal=lambda request: user, mcp_security=security)
    rpc = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    with TestClient(app, base_url="http://evil.example") as client:
        answer = client.post("/mcp", headers=RPC_HEADERS, json=rpc)
    assert answer.status_code == 421
    assert answer.headers["content-type"] == "application/json"
    error = answer.json()["error"]
    assert error["code"] == "bad_request" and "Host" in error["message"]
    with TestClient(app, base_url="http://127.0.0.1:8477") as client:
        answer = client.post(
            "/mcp", headers={**RPC_HEADERS, "Origin": "http://evil.example"}, json=rpc
        )
        assert answer.status_code == 403
        assert answer.json()["error"]["code"] == "forbidden"
        ok = client.post("/mcp", headers=RPC_HEADERS, json=rpc)
        assert ok.status_code == 200 and ok.json()["result"]["tools"]
