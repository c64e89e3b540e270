"""MCP client helpers shared by the MCP tests: call a tool and check its answer, and connect the
official client in memory or over streamable HTTP."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from fastapi import FastAPI
from mcp import Client

from tabane.mcp.server import build_server, mount_mcp
from tabane.principal import Principal
from tabane.service import Tabane

from helpers import serve


async def ok(c: Client, tool: str, args: dict[str, Any]) -> Any:
    result = await c.call_tool(tool, args)
    assert not result.is_error, result.content
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


async def refused(c: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """The error body of a call that must fail."""
    result = await c.call_tool(tool, args)
    assert result.is_error, result.content
    error: dict[str, Any] = json.loads(result.content[0].text)["error"]
    return error


async def err(c: Client, tool: str, args: dict[str, Any], code: str, *paths: str) -> dict:
    """A refusal with `code` that wrote nothing and names at least `paths`."""
    error = await refused(c, tool, args)
    assert set(error) == {"code", "message", "issues", "written"}
    assert (error["code"], error["written"]) == (code, "nothing"), error
    assert set(paths) <= {i["path"] for i in error["issues"]}, error
    return error


def connect(
    svc: Tabane,
    who: Principal,
    body: Callable[[Client], Awaitable[None]],
    transport: str = "memory",
) -> None:
    """Run `body` with the official client, in memory or over streamable HTTP, acting as `who`."""

    async def main(target: Any) -> None:
        async with Client(target, mode="legacy") as c:
            await body(c)

    if transport == "memory":
        anyio.run(main, build_server(svc, lambda: who))
    else:
        app = FastAPI()
        mount_mcp(app, svc, lambda: who)
        with serve(app) as url:
            anyio.run(main, f"{url}/mcp")
