"""An answer for every request line the stdio transport cannot parse.

The SDK parses each stdin line with pydantic's JSON parser, which refuses a lone surrogate escape
(`"\\ud800"`): the line is dropped and the client waits for an answer forever. JSON itself allows
the escape, so such a line is read again here; a tool call gets the tool error any surface gives
for text PostgreSQL cannot store (`invalid_input`, the argument's path), any other request a
JSON-RPC error. A line that is not JSON at all (a truncated one) gets JSON-RPC's parse error
with a null id; a line with no request id (a notification), or one the SDK refused for another
reason than such text, goes on to the server as the SDK left it.

Bytes that are not UTF-8 take the same way: `claimed_stdio` decodes stdin with surrogateescape
(the SDK's own reader would turn them into U+FFFD and store that as if it had been sent), so they
arrive as lone surrogates and are refused with their argument's path.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio
from mcp import types as mt
from pydantic import ValidationError

from tabane.checks import text_problem, text_problems
from tabane.errors import InvalidInput, Issue

# The id of a request too deeply nested to parse: the first `"id": 6` or `"id": "x"` of the line.
_ID = re.compile(r'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')


def unparsed_reply(item: object, tool_error: Any) -> mt.JSONRPCResponse | mt.JSONRPCError | None:
    """The answer to the request whose line failed to parse (`item` is the SDK's parse error),
    or None when there is none to give (`item` is a parsed message, or names no request).
    `tool_error` turns a TabaneError into the server's tool error result."""
    exc = item
    if not isinstance(exc, ValidationError):
        return None
    unread = ("json_invalid", "string_unicode")  # not JSON to pydantic; not UTF-8 text
    raw = next((e.get("input") for e in exc.errors() if e.get("type") in unread), None)
    if not isinstance(raw, (str, bytes, bytearray)) or not raw.strip():
        return None  # nothing to read (a blank line): nothing to answer
    try:
        data = json.loads(raw)
    except RecursionError:  # nested past what Python parses: answered, or the client waits
        text = raw if isinstance(raw, str) else bytes(raw).decode("utf-8", "replace")
        found = _ID.search(text[:4096])
        rid = json.loads(found.group(1)) if found else None
        why = "the request is nested too deep to read"
        return mt.JSONRPCError(
            jsonrpc="2.0", id=rid, error=mt.ErrorData(code=mt.PARSE_ERROR, message=why)
        )
    except ValueError as exc:  # not JSON (a truncated line): JSON-RPC's parse error, id null
        why = f"the line is not JSON: {exc}"
        return mt.JSONRPCError(
            jsonrpc="2.0", id=None, error=mt.ErrorData(code=mt.PARSE_ERROR, message=why)
        )
    return refusal(data, tool_error)


def refusal(data: object, tool_error: Any) -> mt.JSONRPCResponse | mt.JSONRPCError | None:
    """The answer to a request (parsed JSON) that holds text the SDK's parser refuses, or None
    (nothing of the kind, or no request to answer). The streamable HTTP endpoint asks it before
    the SDK parses the body (server.py)."""
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
        return None  # nothing of the kind: left to the SDK
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


@contextmanager
def claimed_stdio() -> Iterator[tuple[anyio.AsyncFile[str], anyio.AsyncFile[str]]]:
    """The wire's stdin and stdout, claimed as the SDK claims them — meanwhile fd 0 reads the
    null device and fd 1 writes to stderr, so nothing else reads the wire or writes onto it —
    with stdin decoded by surrogateescape (see above). Both descriptors are restored on exit."""
    saved_in, saved_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    wire_in = open(os.dup(saved_in), encoding="utf-8", errors="surrogateescape")  # noqa: SIM115
    wire_out = open(os.dup(saved_out), "w", encoding="utf-8")  # noqa: SIM115
    try:
        yield anyio.wrap_file(wire_in), anyio.wrap_file(wire_out)
    finally:
        # wire_in stays open: on SIGTERM its reader thread is still blocked in a read, and
        # closing the file would wait for that read's lock (the process exits anyway)
        wire_out.close()
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)
