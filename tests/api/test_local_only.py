"""A loopback server without authentication answers only requests that name a loopback host:
a DNS-rebinding page (its own name for 127.0.0.1 as Host, its origin as Origin) gets 400."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tabane.api.app import create_app
from tabane.api.local_only import local_name
from tabane.service import Tabane


@pytest.mark.parametrize("name", ["localhost", "127.0.0.1", "127.0.0.2", "::1", "[::1]"])
def test_loopback_names(name: str) -> None:
    assert local_name(name)


@pytest.mark.parametrize("name", ["evil.example", "10.0.0.1", "localhost.evil.example", ""])
def test_other_names(name: str) -> None:
    assert not local_name(name)


def test_a_rebinding_page_is_refused_on_every_route(svc: Tabane, user) -> None:
    app = create_app(svc, principal=lambda request: user, local_only=True)
    local = TestClient(app, base_url="http://127.0.0.1:8477")
    assert local.get("/contexts").status_code == 200
    assert local.get("/contexts", headers={"Origin": "http://localhost:8477"}).status_code == 200
    for headers, path in (
        ({"Host": "evil.example:8477"}, "headers.host"),
        ({"Origin": "http://evil.example:8477"}, "headers.origin"),
    ):
        for method, url in (("GET", "/contexts"), ("POST", "/contexts"), ("GET", "/health")):
            got = local.request(method, url, headers=headers, json={"name": "x"})
            assert got.status_code == 400, (method, url, got.text)
            error = got.json()["error"]
            assert error["code"] == "bad_request" and error["issues"][0]["path"] == path
    assert "x" not in {c["name"] for c in local.get("/contexts").json()["contexts"]}
