"""resolve, resolve_label, explain_resolve and audit_vocabulary through the official SDK client."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client
from mcp_client import ok

from tabane.graph.claims.parse import parse_claims
from tabane.mcp.catalog import by_name
from tabane.mcp.server import build_server
from tabane.principal import Principal
from tabane.service import Tabane


@pytest.mark.slow
def test_resolve_tools_round_trip(svc: Tabane, user: Principal, context: str) -> None:
    svc.add_claims(
        user,
        context,
        parse_claims(
            [
                {"subject": "東京都", "label": "所在地", "object": "関東", "weight": 1.0},
                {"subject": "東京都庁", "label": "所在地", "object": "新宿", "weight": 1.0},
            ]
        ),
    )
    server = build_server(svc, lambda: user)

    async def main() -> None:
        async with Client(server, mode="legacy") as c:
            got = await ok(c, "resolve", {"context": context, "cue": "とうきょう都"})
            # a spelling in another script resolves by its reading (decision 0030)
            first = got["candidates"][0]
            assert (first["name"], first["kind"], first["score"]) == ("東京都", "reading", 1.0)
            got = await ok(c, "resolve", {"context": context, "cue": "京都"})
            assert [x["name"] for x in got["candidates"]] == ["東京都", "東京都庁"]
            assert got["candidates"][0]["gloss"] == "東京都 — 所在地→関東"
            lab = await ok(c, "resolve_label", {"context": context, "cue": "所在"})
            assert lab["candidates"][0]["name"] == "所在地"
            floored = {"context": context, "cue": "所在", "semantic_floor": 0.4}
            lab = await ok(c, "resolve_label", floored)
            assert lab["semantic_plan"]["floor"] == {"value": 0.4, "source": "call"}
            why = await ok(
                c,
                "explain_resolve",
                {"context": context, "cue": "京都", "expected": "東京都庁", "limit": 1},
            )
            assert (why["verdict"], why["limit_to_reach"]) == ("cut_by_limit", 2)
            audit = await ok(c, "audit_vocabulary", {"context": context})
            assert [(t["a"], t["b"]) for t in audit["lexical"]] == [("東京都", "東京都庁")]
            bad = await c.call_tool("resolve", {"context": context, "cue": "x", "user": "root"})
            assert bad.is_error

    anyio.run(main)
    tools = by_name()
    assert all(tools[n].read_only for n in ("resolve", "resolve_label", "explain_resolve"))
    assert "RESOLVE BEFORE YOU MINT" in tools["resolve"].description
