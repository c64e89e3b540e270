"""The memory tools through the official MCP client (in memory and over streamable HTTP)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client
from mcp_client import connect, err, ok

from tabane.principal import Principal
from tabane.service import Tabane

from helpers import unique


@pytest.mark.slow
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
        history = await ok(c, "list_memories", {"context": context, "include_closed": True})
        assert [m["id"] for m in history["memories"]] == [second["id"], first["id"]]
        assert history["memories"][1]["close_reason"] == "superseded"
        # every field the guide names: attribution, role, perspective, valid time
        full = await ok(
            c,
            "remember",
            {"context": context, "text": "Ravi thinks Zion is too hot.", "kind": "opinion",
             "speaker": "Hannah", "perspective": "Ravi", "role": "friend", "source": "chat:42",
             "valid_from": "2024-05-01T00:00:00Z", "valid_until": "2024-09-01T00:00:00Z"},
        )  # fmt: skip
        [note] = [
            m
            for m in (await ok(c, "list_memories", {"context": context}))["memories"]
            if m["id"] == full["id"]
        ]
        assert (note["perspective"], note["role"], note["source"]) == ("Ravi", "friend", "chat:42")
        assert note["valid_until"].startswith("2024-09-01")
        await err(c, "remember", {"context": context, "text": "x", "paragraph": 0}, "invalid_input",
                  "paragraph")  # fmt: skip
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
        listed = await ok(c, "list_sessions", {})
        assert {(x["name"], x["turns"]) for x in listed["sessions"]} >= {(name, 3), (shared, 1)}
        gone = await ok(c, "delete_session", {"session": f" {name} "})
        assert gone == {"deleted": name, "turns": 3}
        await err(c, "delete_session", {"session": name}, "no_session")
        assert name not in {x["name"] for x in (await ok(c, "list_sessions", {}))["sessions"]}
        forged: Any = await c.call_tool(
            "remember", {"context": context, "text": "x", "user": "root"}
        )
        assert forged.is_error and "user" in json.dumps(forged.content[0].text)

    connect(svc, user, body, transport)
