"""`tabane mcp` as a real subprocess, driven by the official SDK's stdio client.

The subprocess joins the embedded PostgreSQL the test session already runs (same TABANE_HOME) and
acts as TABANE_USER, the only way a stdio client chooses who it is.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tabane.mcp import catalog
from tabane.mcp.server import protocol_text
from tabane.service import Tabane

from helpers import unique

pytestmark = pytest.mark.slow  # MCP servers as processes

TOOL_NAMES = {t.name for t in catalog.all_tools()}  # the server registers exactly these
DOC = "# Kettle\n\nKettle boils water.\n\n## Safety\n\nNever run it dry.\n"


def test_tabane_mcp_over_stdio(svc: Tabane, tabane_home: Path) -> None:
    user, name = unique("mcp"), unique("ctx")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "tabane.cli.main", "mcp"],
        env={
            "TABANE_HOME": str(tabane_home),
            "TABANE_USER": user,
            "TABANE_EMBEDDER": "none",
            "TABANE_WORKER": "off",
        },
    )

    async def call(c: Client, tool: str, args: dict[str, Any]) -> tuple[bool, Any]:
        result = await c.call_tool(tool, args)
        return result.is_error, json.loads(result.content[0].text)

    async def main() -> None:
        async with Client(params, mode="legacy") as c:
            assert c.instructions == protocol_text()
            listed = {t.name: t.description for t in (await c.list_tools()).tools}
            assert set(listed) == TOOL_NAMES
            assert all(listed[n] for n in TOOL_NAMES)

            failed, made = await call(c, "create_context", {"name": name, "description": "kettles"})
            assert not failed and made["scopes"] == [f"user:{user}"]
            failed, stored = await call(
                c, "ingest_source", {"context": name, "source_id": "kettle.md", "text": DOC}
            )
            assert not failed and (stored["outcome"], stored["paragraphs"]) == ("created", 2)
            failed, found = await call(
                c, "lookup_source", {"context": name, "source_id": "kettle.md"}
            )
            assert not failed and found["source"]["title"] == "Kettle"
            assert [p["section"] for p in found["paragraphs"]] == [["Kettle"], ["Kettle", "Safety"]]
            failed, cited = await call(
                c, "cite", {"context": name, "source_id": "kettle.md", "paragraph": 1}
            )
            assert not failed
            assert (cited["text"], cited["section"]) == ("Never run it dry.", ["Kettle", "Safety"])
            failed, dry = await call(
                c, "retract_source", {"context": name, "source_id": "kettle.md", "dry_run": True}
            )
            assert not failed and (dry["dry_run"], dry["paragraphs"]) == (True, 2)
            for tool, extra in (("get_context", {}), ("rename_context", {"new_name": "x"})):
                failed, body = await call(c, tool, {"name": "no-such-" + name, **extra})
                assert failed and body["error"]["code"] == "no_context"
                assert [i["path"] for i in body["error"]["issues"]] == ["name"]  # the argument

    anyio.run(main)
    # The subprocess wrote as TABANE_USER, into the same store.
    info = svc.get_context(svc.principal(user), name)
    assert (info.stats.sources, info.stats.paragraphs) == (1, 2)


def test_a_line_the_sdk_cannot_parse_still_gets_its_answer(tabane_home: Path) -> None:
    """A lone surrogate escape is valid JSON that the SDK's parser refuses: the call is answered
    with the tool error every surface gives, not dropped (the client would wait forever)."""
    env = {
        **os.environ,
        "TABANE_HOME": str(tabane_home),
        "TABANE_USER": unique("raw"),
        "TABANE_EMBEDDER": "none",
        "TABANE_WORKER": "off",
    }
    init = {"protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}  # fmt: skip
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    call = '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "recall", '
    call += '"arguments": {"question": "What is a group \\ud800?", "contexts": ["x"]}}}'
    ping = '{"jsonrpc": "2.0", "id": 3, "method": "ping", "params": {"x": "\\udc00"}}'
    deep = '{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "recall", '
    deep += '"arguments": {"question": ' + "[" * 600 + "]" * 600 + "}}}"  # past the parsers
    after = '{"jsonrpc": "2.0", "id": 5, "method": "ping"}'  # the server still answers
    text = "".join(json.dumps(m) + "\n" for m in lines)
    text += "\n".join([call, ping, deep]) + "\n"
    # bytes that are not UTF-8: refused with their arguments' paths, never stored as U+FFFD
    raw = b'{"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "add_turn", '
    raw += b'"arguments": {"session": "s\xff", "text": "t\xfe"}}}\n'
    cut = b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"na\n\n'  # cut short
    deeper = '{"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "recall", '
    deeper += '"arguments": {"question": ' + "[" * 100_000 + "]" * 100_000 + "}}}\n"
    data = text.encode() + raw + cut + deeper.encode() + after.encode() + b"\n"
    # stdin stays open until the last answer is read: at end of input the SDK may close the
    # session before it has written the answers still in flight
    server = subprocess.Popen(
        [sys.executable, "-m", "tabane.cli.main", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(data)
    server.stdin.flush()
    answers: dict[int, Any] = {}
    deadline = time.monotonic() + 120
    # read the pipe itself: a buffered readline may take two answers at once, and select()
    # then waits for bytes already read (the test waited out its deadline 1 run in 5)
    pending = b""
    while 5 not in answers and time.monotonic() < deadline:
        if b"\n" not in pending:
            ready, _, _ = select.select([server.stdout], [], [], deadline - time.monotonic())
            chunk = os.read(server.stdout.fileno(), 1 << 16) if ready else b""
            if not chunk:
                break
            pending += chunk
            continue
        line, pending = pending.split(b"\n", 1)
        message = json.loads(line)
        answers[message["id"]] = message
    server.stdin.close()
    server.wait(timeout=60)
    server.stdout.close()
    refused = answers[2]["result"]
    assert refused["isError"] is True
    body = json.loads(refused["content"][0]["text"])
    assert body["error"]["code"] == "invalid_input"
    assert [i["path"] for i in body["error"]["issues"]] == ["question"]
    assert answers[3]["error"]["code"] == -32602  # any other request: a JSON-RPC error
    assert 4 not in answers and answers[5]["result"] == {}  # left as the SDK leaves it
    assert answers[None]["error"]["code"] == -32700  # JSON-RPC's parse error, the id unknown
    # nested past what Python parses: a parse error, with the id the line gave (not silence)
    assert answers[8]["error"]["code"] == -32700 and "too deep" in answers[8]["error"]["message"]
    undecodable = json.loads(answers[6]["result"]["content"][0]["text"])["error"]
    assert undecodable["code"] == "invalid_input" and undecodable["written"] == "nothing"
    assert [i["path"] for i in undecodable["issues"]] == ["session", "text"]
