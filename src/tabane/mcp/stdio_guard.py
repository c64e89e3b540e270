"""An answer for every request line the stdio transport cannot parse.

The SDK parses each stdin line with pydantic's JSON parser, which refuses a lone surrogate escape
(`"\\ud800"`): the line is dropped and the client waits for an answer forever. JSON itself allows
the escape, so such a line is read again here; a tool call gets the tool error any surface gives
for text PostgreSQL cannot store (`invalid_input`, the argument's path), any other request a
JSON-RPC error. A line with no request id (a notification, or not JSON at all), or one the SDK
refused for another reason than such text, goes on to the server as the SDK left it.
"""

from __future__ import annotations

import json
from typing import Any

from mcp import types as mt
from pydantic import ValidationError

from tabane.errors import InvalidInput, Issue
from tabane.types import text_problem, text_problems


def unparsed_reply(item: object, tool_error: Any) -> mt.JSONRPCResponse | mt.JSONRPCError | None:
    """The answer to the request whose line failed to parse (`item` is the SDK's parse error),
    or None when there is none to give (`item` is a parsed message, or names no request).
    `tool_error` turns a TabaneError into the server's tool error result."""
    exc = item
    if not isinstance(exc, ValidationError):
        return None
    raw = next((e.get("input") for e in exc.errors() if e.get("type") == "json_invalid"), None)
    if not isinstance(raw, (str, bytes, bytearray)):
        return None
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, or nested past what Python parses
        return None
    if not isinstance(data, dict) or not isinstance(data.get("method"), str):
        return None
    rid = data.get("id")
    if isinstance(rid, bool) or not isinstance(rid, (int, str)):
        return None
    if isinstance(rid, str) and text_problem(rid):
        return None  # an id that cannot be echoed back: nobody to answer
    params = data.get("params")
    arguments = params.get("arguments") if isinstance(params, dict) else None
    found = text_problems(arguments, "") if data["method"] == "tools/call" else []
    if not found and not text_problems(params, "params"):
        return None  # refused for another reason (nesting, say): left as the SDK leaves it
    if found:
        refused = InvalidInput(
            "an argument holds text that cannot be stored; nothing written",
            issues=[Issue(path or "arguments", problem) for path, problem in found],
        )
        result = tool_error(refused).model_dump(by_alias=True, exclude_none=True, mode="json")
        return mt.JSONRPCResponse(jsonrpc="2.0", id=rid, result=result)
    why = "the request holds text that is not valid Unicode"
    error = mt.ErrorData(code=mt.INVALID_PARAMS, message=why)
    return mt.JSONRPCError(jsonrpc="2.0", id=rid, error=error)
