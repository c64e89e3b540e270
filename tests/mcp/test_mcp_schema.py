"""The schema tools and the audits through the official SDK client."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client
from mcp_client import err, ok

from tabane.graph.claims.parse import parse_claims
from tabane.mcp.catalog import by_name
from tabane.mcp.server import build_server
from tabane.principal import Principal
from tabane.service import Tabane


@pytest.mark.slow
def test_schema_tools_round_trip(svc: Tabane, user: Principal, context: str) -> None:
    svc.add_claims(
        user,
        context,
        parse_claims([{"subject": "a", "label": "所在地", "object": "b", "weight": 1.0}]),
    )
    server = build_server(svc, lambda: user)
    doc = {"context": context, "labels": [{"name": "製造"}]}

    async def main() -> None:
        async with Client(server, mode="legacy") as c:
            assert (await ok(c, "get_schema", {"context": context}))["version"] == 0
            dry = await ok(c, "validate_schema", doc)
            assert [v["label"] for v in dry["violations"]] == ["所在地"]
            put = await ok(c, "put_schema", doc | {"expected_version": 0, "strict": True})
            assert put["version"] == 1 and put["strict"]
            await err(c, "put_schema", doc | {"expected_version": 0}, "schema_version_conflict")
            audit = await ok(c, "audit_schema", {"context": context})
            assert audit["counts"]["undeclared_label"] == 1
            cons = await ok(c, "audit_consolidation", {"context": context})
            assert set(cons["sections"]) == {"twins", "duplicates", "aliases"}
            drift = await ok(c, "audit_drift", {"context": context, "limit": 1})
            assert drift["pages"]["labels"]["total"] == 1

    anyio.run(main)
    tools = by_name()
    assert tools["put_schema"].kind == "update"
    assert all(
        tools[n].read_only
        for n in ("get_schema", "validate_schema", "audit_schema", "audit_consolidation")
    )
