"""The `compact` and `flush` tools through the official MCP client."""

from __future__ import annotations

from mcp import Client
from mcp_client import connect, err, ok

from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.service import Tabane


def _ingest(svc: Tabane, user: Principal, context: str) -> None:
    for i in range(3):
        text = [f"Kettle model {i} boils water quickly.", f"Descale model {i} with vinegar."]
        svc.ingest(user, context, DocumentInput(f"k{i}", paragraphs=[block(t) for t in text]))


def test_compact_and_flush_over_mcp(svc: Tabane, user: Principal, context: str) -> None:
    _ingest(svc, user, context)

    async def body(c: Client) -> None:
        done = await ok(c, "compact", {"context": context})
        assert done["fresh_after"] == 0 and done["terms"] > 0
        waited = await ok(c, "flush", {"context": context, "timeout": 1})
        assert waited["context"] == context and waited["seconds"] < 30
        await err(c, "flush", {"context": context, "timeout": 301}, "invalid_input", "timeout")

    connect(svc, user, body)
