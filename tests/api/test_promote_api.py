"""`POST /contexts/{c}/claims/promote` over real HTTP: a personal
claim becomes a world claim that closes it (superseded, its history kept), the weight moves from
the holder's edge to the shared one, and what cannot be promoted is refused by code."""

from __future__ import annotations

import httpx
import pytest

from tabane.graph.claims.parse import ClaimInput
from tabane.principal import Principal
from tabane.service import Tabane

pytestmark = pytest.mark.slow  # a served app


def _opinion(svc: Tabane, user: Principal, context: str) -> int:
    claim = ClaimInput("Tea", "better_than", "Coffee", 1.0, kind="opinion", author="hana")
    return svc.add_claims(user, context, [claim]).claims[0]


def test_a_personal_claim_becomes_the_worlds(
    svc: Tabane, user: Principal, context: str, http: dict[str, httpx.Client]
) -> None:
    old = _opinion(svc, user, context)
    tail = svc.changes(user, context, tail=True).next
    got = http["me"].post(f"/contexts/{context}/claims/promote", json={"claim": old})
    assert got.status_code == 200, got.text
    body = got.json()
    assert body["promoted_from"] == old and body["kind_was"] == "opinion"
    assert body["perspective_was"] == "hana" and body["claim"] > old
    events = [(c.kind, c.claim, c.reason) for c in svc.changes(user, context, since=tail).changes]
    assert events == [
        ("claim_recorded", body["claim"], None),
        ("claim_closed", old, "superseded"),
    ]
    edges = svc.query(user, contexts=[context], subject="Tea").edges
    assert {(e.perspective, e.weight) for e in edges} == {(None, 1.0), ("hana", 0.0)}

    again = http["me"].post(f"/contexts/{context}/claims/promote", json={"claim": old})
    assert again.status_code == 404 and again.json()["error"]["code"] == "no_claim"
    world = http["me"].post(f"/contexts/{context}/claims/promote", json={"claim": body["claim"]})
    assert world.status_code == 422 and world.json()["error"]["code"] == "invalid_input"
    hidden = http["other"].post(f"/contexts/{context}/claims/promote", json={"claim": old})
    assert hidden.json()["error"]["code"] == "no_context"
