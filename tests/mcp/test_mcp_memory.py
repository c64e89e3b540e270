"""The memory tools through the official MCP client (in memory and over streamable HTTP)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client
from mcp_client import connect, err, ok

from tabane.service import Tabane
from tabane.types import Principal

from helpers import unique


@pytest.mark.parametrize("transport", ["memory", "http"])
def test_remember_and_working_memory(
    svc: Tabane, user: Principal, context: str, transport: str
) -> None:
    name = unique("chat")

    async def body(c: Client) -> None:
        first = await ok(
            c, "remember", {"context": context, "text": "Hannah works at Zion.", "speaker": "Ravi"}
        )
        second = await ok(
            c,
            "remember",
            {"context": context, "text": "Hannah works at Glacier.", "speaker": "Ravi",
             "closes": [first["id"]]},
        )  # fmt: skip
        notes = await ok(c, "list_memories", {"context": context})
        assert [m["id"] for m in notes["memories"]] == [second["id"]]
        for i in range(3):
            turn = await ok(c, "add_turn", {"session": name, "text": f"t{i}", "speaker": "Ravi"})
            assert turn["seq"] == i + 1
        recent = await ok(c, "recent_turns", {"session": name, "last": 2})
        assert [t["text"] for t in recent["turns"]] == ["t1", "t2"]
        await err(c, "add_turn", {"session": name, "text": "  "}, "invalid_input", "text")
        later = {"session": name, "text": "x", "at": "2999-01-01T00:00:00Z"}
        await err(c, "add_turn", later, "invalid_input", "at")
        shared = unique("shared")
        await ok(c, "add_turn", {"session": shared, "text": "hi all", "scopes": ["public"]})
        await err(c, "add_turn", {"session": name, "text": "x", "scopes": ["org:nobody"]},
                  "forbidden", "scopes")  # fmt: skip
        await err(c, "recent_turns", {"session": unique("none")}, "no_session")
        forged: Any = await c.call_tool(
            "remember", {"context": context, "text": "x", "user": "root"}
        )
        assert forged.is_error and "user" in json.dumps(forged.content[0].text)

    connect(svc, user, body, transport)
