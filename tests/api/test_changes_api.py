"""`GET /contexts/{c}/changes` over real HTTP: pages joined by their cursors, the tail cursor,
a context the caller cannot see, and a bad cursor or limit as the one error body."""

from __future__ import annotations

import httpx
import pytest

from tabane.graph.claims.parse import ClaimInput
from tabane.principal import Principal
from tabane.service import Tabane

pytestmark = pytest.mark.slow  # a served app


def test_changes_pages_over_http(
    svc: Tabane, user: Principal, context: str, http: dict[str, httpx.Client]
) -> None:
    svc.add_claims(user, context, [ClaimInput(f"S{i}", "to", "O", 1.0) for i in range(3)])
    me = http["me"]
    url = f"/contexts/{context}/changes"
    first = me.get(url, params={"limit": 2})
    assert first.status_code == 200, first.text
    body = first.json()
    assert [e["subject"] for e in body["changes"]] == ["S0", "S1"] and body["more"] is True
    assert body["changes"][0]["kind"] == "claim_recorded" and body["context"] == context
    rest = me.get(url, params={"since": body["next"]}).json()
    assert [e["subject"] for e in rest["changes"]] == ["S2"] and rest["more"] is False
    tail = me.get(url, params={"tail": "true"}).json()
    assert tail["changes"] == []
    svc.add_claims(user, context, [ClaimInput("S3", "to", "O", 1.0)])
    assert [
        e["subject"] for e in me.get(url, params={"since": tail["next"]}).json()["changes"]
    ] == ["S3"]

    bad = me.get(url, params={"since": "not-a-cursor"})
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_input"
    assert me.get(url, params={"limit": 0}).json()["error"]["code"] == "invalid_input"
    hidden = http["other"].get(url)
    assert hidden.status_code == 404 and hidden.json()["error"]["code"] == "no_context"
