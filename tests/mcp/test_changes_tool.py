"""The `changes` tool through the official MCP client: a page, its cursor, a bad cursor."""

from __future__ import annotations

from mcp import Client
from mcp_client import connect, err, ok

from tabane.graph.claims.parse import ClaimInput
from tabane.principal import Principal
from tabane.service import Tabane


def test_changes_over_mcp(svc: Tabane, user: Principal, context: str) -> None:
    svc.add_claims(user, context, [ClaimInput("A", "to", "B", 1.0)])
    svc.add_alias(user, context, "aa", "A")

    async def body(c: Client) -> None:
        page = await ok(c, "changes", {"context": context})
        assert [e["kind"] for e in page["changes"]] == ["claim_recorded", "alias_added"]
        assert page["more"] is False
        again = await ok(c, "changes", {"context": context, "since": page["next"]})
        assert again["changes"] == [] and again["next"] == page["next"]
        await err(c, "changes", {"context": context, "since": "x"}, "invalid_input", "since")

    connect(svc, user, body)
