"""`search_catalog` through the official MCP client, in memory and over streamable HTTP: sources
about a subject, and browse mode for `*` (issue 34, item 1)."""

from __future__ import annotations

import pytest
from mcp import Client
from mcp_client import connect, err, ok

from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.service import Tabane


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["memory", "http"])
def test_search_catalog_finds_and_browses(
    svc: Tabane, user: Principal, context: str, transport: str
) -> None:
    for sid, title, text in [
        ("kettle.md", "Kettle care", "Descale the kettle with vinegar."),
        ("espresso.md", "Espresso machine", "Backflush the espresso machine weekly."),
    ]:
        svc.ingest(user, context, DocumentInput(sid, paragraphs=[block(text)], title=title))

    async def body(c: Client) -> None:
        got = await ok(c, "search_catalog", {"query": "kettle", "contexts": [context]})
        assert [h["source_id"] for h in got["hits"]] == ["kettle.md"]
        assert got["hits"][0]["snippet"] == "Descale the kettle with vinegar."
        listed = await ok(c, "search_catalog", {"query": "*", "contexts": [context], "limit": 1})
        assert listed["plan"] == {
            "mode": "browse", "contexts": [context], "query_terms": [], "total": 2,
            "next_offset": 1,
        }  # fmt: skip
        assert [h["source_id"] for h in listed["hits"]] == ["espresso.md"]
        await err(c, "search_catalog", {"query": "x", "contexts": []}, "invalid_input")
        expected = {"source_id": "espresso.md"}
        ask = {"query": "kettle", "contexts": [context], "expected": expected}
        why = await ok(c, "explain_catalog", ask)
        assert why["verdict"] == "not_found"

    connect(svc, user, body, transport)
