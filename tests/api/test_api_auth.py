"""The one door over real HTTP: API keys on a REST route and on `/mcp`, 401s with the one error
body and `WWW-Authenticate: Bearer`, and a key's narrowed scopes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from sqlalchemy import update

from tabane.api.app import create_app
from tabane.api.auth import key_resolver
from tabane.principal import Principal, personal_scope
from tabane.service import Tabane
from tabane.storage.schema import ApiKey

from helpers import serve, unique

RPC_HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": "2025-11-25",
}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}


@pytest.fixture(scope="module")
def base(svc: Tabane) -> Iterator[str]:
    with serve(create_app(svc, key_resolver(svc))) as url:
        yield url


def _bad_tokens(svc: Tabane, user: Principal) -> dict[str, dict[str, str]]:
    revoked = svc.create_key(user.name)
    svc.revoke_key(revoked.key.prefix)
    expired = svc.create_key(user.name, expires=datetime.now(UTC) + timedelta(hours=1))
    with svc.store.admin() as session:
        session.execute(
            update(ApiKey)
            .where(ApiKey.prefix == expired.key.prefix)
            .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
        )
    bearer = lambda token: {"authorization": f"Bearer {token}"}  # noqa: E731
    return {
        "missing": {},
        "revoked": bearer(revoked.token),
        "expired": bearer(expired.token),
        "unknown": bearer("tbn_00000000_" + "x" * 43),
        "malformed": bearer("hello"),
        "not bearer": {"authorization": "Basic dXNlcjpwYXNz"},
        "oversized": bearer("tbn_" + "a" * 5000),
    }


def _refused(response: httpx.Response) -> None:
    assert response.status_code == 401, response.text
    assert response.headers["www-authenticate"].startswith("Bearer")
    body = response.json()
    assert body["error"]["code"] == "unauthorized"
    assert set(body["error"]) == {"code", "message", "issues", "written"}
    assert [i["path"] for i in body["error"]["issues"]] == ["headers.authorization"]


def test_bad_credentials_are_401_on_rest_and_mcp(svc: Tabane, user: Principal, base: str) -> None:
    for why, headers in _bad_tokens(svc, user).items():
        _refused(httpx.get(f"{base}/contexts", headers=headers))
        _refused(httpx.post(f"{base}/mcp", headers={**RPC_HEADERS, **headers}, json=LIST_TOOLS))
        assert why  # each case refused on both doors
    assert httpx.get(f"{base}/health").status_code == 200  # liveness needs no key


def test_a_good_key_acts_as_its_user_narrowed(
    svc: Tabane, make_user: Callable[..., Principal], base: str
) -> None:
    team = unique("org:t")
    alice = make_user(extra_write=(team,))
    shared = unique("ctx")
    svc.create_context(alice, shared, scopes=[team])
    full = svc.create_key(alice.name).token
    narrow = svc.create_key(alice.name, read=[personal_scope(alice.name), "public"]).token

    def get(token: str) -> httpx.Response:
        return httpx.get(f"{base}/contexts/{shared}", headers={"authorization": f"Bearer {token}"})

    assert get(full).status_code == 200
    assert get(narrow).status_code == 404  # outside the key's read set: not visible
    listed = httpx.get(f"{base}/contexts", headers={"authorization": f"Bearer {narrow}"})
    assert listed.status_code == 200 and shared not in listed.text

    def mcp_get(token: str) -> dict[str, object]:
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "get_context", "arguments": {"name": shared}},
        }
        headers = {**RPC_HEADERS, "authorization": f"Bearer {token}"}
        answer = httpx.post(f"{base}/mcp", headers=headers, json=call)
        assert answer.status_code == 200, answer.text
        result: dict[str, object] = answer.json()["result"]
        return result

    assert mcp_get(full).get("isError") is not True
    assert mcp_get(narrow).get("isError") is True
    svc.revoke(alice.name, team)  # a revoked grant narrows the full key too
    assert get(full).status_code == 404
