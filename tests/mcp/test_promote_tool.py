"""The `promote` tool through the official MCP client: the world claim and its refusal."""

from __future__ import annotations

from mcp import Client
from mcp_client import connect, err, ok

from tabane.graph.claims.parse import ClaimInput
from tabane.principal import Principal
from tabane.service import Tabane


def _opinion(svc: Tabane, user: Principal, context: str) -> int:
    claim = ClaimInput("Tea", "better_than", "Coffee", 1.0, kind="opinion", author="hana")
    return svc.add_claims(user, context, [claim]).claims[0]


def test_promote_over_mcp(svc: Tabane, user: Principal, context: str) -> None:
    old = _opinion(svc, user, context)

    async def body(c: Client) -> None:
        done = await ok(c, "promote", {"context": context, "claim": old})
        assert done["promoted_from"] == old and done["scopes"] == [f"user:{user.name}"]
        await err(c, "promote", {"context": context, "claim": old}, "no_claim", "claim")

    connect(svc, user, body)
