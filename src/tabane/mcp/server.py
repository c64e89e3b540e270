"""The MCP server: tabane's tools over stdio and streamable HTTP, on the official MCP SDK (v2).

`build_server` returns the SDK's low-level `mcp.server.Server` with one tool per
`catalog.all_tools()` entry and docs/protocol.md as its instructions. Every call acts as
`principal()`, evaluated per call in the caller's context, never as anything named in the
arguments. Results carry structured content (the output schema is the service dataclass's) and
the same JSON as text; a `TabaneError` becomes a tool error result (`isError`) whose text is
the body `{"error": {code, message, issues, written}}`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, MutableMapping
from contextvars import ContextVar
from typing import Any

import anyio
import anyio.to_thread
from mcp import MCPError
from mcp import types as mt
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.message import SessionMessage
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from tabane import __version__
from tabane.errors import (
    BadRequest,
    BodyTooLarge,
    Forbidden,
    Issue,
    MethodNotAllowed,
    TabaneError,
)
from tabane.mcp import catalog, registry, resources
from tabane.mcp.resources import protocol_text
from tabane.mcp.stdio_guard import claimed_stdio, refusal, unparsed_reply
from tabane.plain import to_plain
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.wire.base import invalid_input, parse_json_strings

logger = logging.getLogger(__name__)

PrincipalFn = Callable[[], Principal]


def build_server(svc: Tabane, principal: PrincipalFn) -> Server[Any]:
    """An MCP server exposing tabane's tools, each acting as `principal()`."""
    specs = catalog.by_name()
    listed = [_tool(spec) for spec in catalog.all_tools()]
    schemas = {t.name: t.input_schema for t in listed}

    async def list_tools(
        ctx: ServerRequestContext[Any], params: mt.PaginatedRequestParams | None
    ) -> mt.ListToolsResult:
        return mt.ListToolsResult(tools=listed)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: mt.CallToolRequestParams
    ) -> mt.CallToolResult:
        spec = specs.get(params.name)
        if spec is None:
            raise MCPError(code=mt.INVALID_PARAMS, message=f"unknown tool {params.name!r}")
        try:
            args = spec.args.model_validate(parse_json_strings(spec.args, params.arguments or {}))
        except ValidationError as exc:
            return error_result(invalid_input(f"invalid arguments for {spec.name}", exc))
        try:
            value = await anyio.to_thread.run_sync(lambda: spec.run(svc, principal(), args))
        except TabaneError as exc:
            return error_result(named_as_argument(spec, exc))
        except Exception:
            logger.exception("MCP tool %s failed", spec.name)
            return error_result(TabaneError(f"internal error in {spec.name}; see the server log"))
        return ok_result(value)

    return Server(
        "tabane",
        version=__version__,
        title="tabane",
        description="Grounded memory for LLM agents: contexts, sources and passage search, the "
        "association graph (resolve, claims, graph reads), citations.",
        instructions=protocol_text(),
        get_tool_input_schema=schemas.get,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        **resources.resource_handlers(svc, principal, protocol_text()),
        **resources.prompt_handlers(),
    )


def _tool(spec: registry.ToolSpec) -> mt.Tool:
    return mt.Tool(
        name=spec.name,
        description=spec.description,
        input_schema=spec.args.model_json_schema(),
        output_schema=spec.output_schema(),
        annotations=mt.ToolAnnotations(
            read_only_hint=spec.read_only,
            destructive_hint=spec.destructive,
            idempotent_hint=spec.idempotent,
            open_world_hint=False,
        ),
    )


def named_as_argument(spec: registry.ToolSpec, exc: TabaneError) -> TabaneError:
    """The error with its issues at the tool's own argument: the tools that take a context or a
    group as `name` (get_context, rename_context, …) report the service's `context` or `group`
    issue at `name`."""
    fields = spec.args.model_fields
    if "name" not in fields or {"contexts", "groups"} & set(fields):  # those name others too
        return exc
    exc.issues = tuple(
        Issue("name", i.problem) if i.path in ("context", "group") and i.path not in fields else i
        for i in exc.issues
    )
    return exc


def ok_result(value: object) -> mt.CallToolResult:
    plain = to_plain(value)
    return mt.CallToolResult(content=[_text(plain)], structured_content=plain)


def error_result(exc: TabaneError) -> mt.CallToolResult:
    body = exc.to_body()
    return mt.CallToolResult(content=[_text(body)], structured_content=body, is_error=True)


def _text(plain: object) -> mt.TextContent:
    return mt.TextContent(type="text", text=json.dumps(plain, ensure_ascii=False))


# -- transports ---------------------------------------------------------------------------------


def run_stdio(svc: Tabane, principal: Principal) -> None:
    """Serve MCP over stdin/stdout until the client closes stdin (used by `tabane mcp`).

    The user is fixed for the life of the process: a local client speaks for the local user.
    """
    server = build_server(svc, lambda: principal)

    async def serve() -> None:
        with claimed_stdio() as (stdin, stdout):
            async with stdio_server(stdin, stdout) as (read_stream, write_stream):
                await _relayed(read_stream, write_stream)

    async def _relayed(read_stream: Any, write_stream: Any) -> None:
        async with anyio.create_task_group() as tg:
            send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)

            async def relay() -> None:  # answer the lines the SDK could not parse (stdio_guard)
                async with send:
                    async for item in read_stream:
                        try:
                            reply = unparsed_reply(item, error_result)
                        except Exception:  # the guard must never end the transport
                            logger.exception("stdio: could not answer an unparsed line")
                            reply = None
                        if reply is None:
                            await send.send(item)
                        else:
                            await write_stream.send(SessionMessage(reply))

            tg.start_soon(relay)
            await server.run(receive, write_stream, server.create_initialization_options())

    anyio.run(serve)


def mount_mcp(
    app: Starlette,
    svc: Tabane,
    principal: PrincipalFn,
    *,
    path: str = "/mcp",
    security: TransportSecuritySettings | None = None,
) -> None:
    """Serve MCP over streamable HTTP at `path` (and `path/`) of an existing FastAPI/Starlette app.

    Stateless, JSON responses: each POST is one self-contained exchange, served by a session manager
    that lives for that request only. So nothing needs starting: no lifespan hook, no background
    task group. It works the same under uvicorn, `httpx.ASGITransport` and `TestClient` (which run
    no lifespan, or run it more than once), any number of API processes can answer without sticky
    sessions, and every request is authenticated on its own. tabane's tools need nothing from a
    session: no server-to-client requests, no notifications, no resumable streams.

    `principal()` is called once per HTTP request, before the SDK sees it, in a worker thread that
    shares the request's context: `current_request()` is the Starlette request (read its headers),
    and contextvars set by the parent app's middleware are visible. A `TabaneError` it raises is
    answered with that error's HTTP status and body; every tool call of the request acts as the
    principal it returned. The routes go first in the app's route list, inside its middleware.

    `security` turns on the SDK's Host/Origin checks (DNS-rebinding protection); pass
    `TransportSecuritySettings(allowed_hosts=["127.0.0.1:*", "localhost:*"], allowed_origins=[...])`
    when serving a local machine, or leave it to the parent app (e.g. TrustedHostMiddleware).
    """
    acting: ContextVar[Principal] = ContextVar("tabane_mcp_principal")
    endpoint = _StatelessEndpoint(
        build_server(svc, acting.get),
        principal,
        acting,
        security=security,
        # Room for the largest document the service accepts, JSON-escaped.
        max_body=2 * svc.settings.max_body_bytes + 65536,
    )
    base = path.rstrip("/")
    for route_path in (base + "/", base):
        # First, so that no catch-all route of the parent app (a UI mount at "/") shadows it.
        app.router.routes.insert(0, Route(route_path, endpoint=endpoint, include_in_schema=False))


_REQUEST: ContextVar[Request] = ContextVar("tabane_mcp_request")


def current_request() -> Request:
    """The HTTP request being served by the MCP endpoint (for a `principal` resolver)."""
    return _REQUEST.get()


class _StatelessEndpoint:
    """An ASGI app: authenticate, then answer with a fresh stateless session manager."""

    def __init__(
        self,
        server: Server[Any],
        principal: PrincipalFn,
        acting: ContextVar[Principal],
        *,
        security: TransportSecuritySettings | None,
        max_body: int,
    ) -> None:
        self.server = server
        self.principal = principal
        self.acting = acting
        self.security = security
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request_token = _REQUEST.set(Request(scope))  # headers only: the SDK reads the body
        try:
            try:
                user = await anyio.to_thread.run_sync(self.principal)
            except TabaneError as exc:
                await JSONResponse(exc.to_body(), status_code=exc.status)(scope, receive, send)
                return
            acting_token = self.acting.set(user)
            try:
                receive, early = await _guarded(scope, receive, self.max_body)
                if early is not None:  # text the SDK's parser refuses: answered as stdio does
                    await JSONResponse(early)(scope, receive, send)
                    return
                manager = StreamableHTTPSessionManager(
                    app=self.server,
                    stateless=True,
                    json_response=True,
                    security_settings=self.security,
                    max_request_body_size=self.max_body,
                )
                async with manager.run():
                    await manager.handle_request(scope, receive, _errors_as_json(send))
            finally:
                self.acting.reset(acting_token)
        finally:
            _REQUEST.reset(request_token)


async def _guarded(scope: Scope, receive: Receive, limit: int) -> tuple[Receive, Any | None]:
    """Read a POST's body (up to `limit`, else leave it to the SDK's own limit) and, when it
    holds text the SDK's JSON parser refuses (a lone surrogate escape, valid JSON), the answer
    `stdio_guard.refusal` gives; the body is replayed to the SDK otherwise."""
    if scope.get("method") != "POST":
        return receive, None
    chunks: list[bytes] = []
    size, more = 0, True
    while more and size <= limit:
        message = await receive()
        if message["type"] != "http.request":
            return receive, None  # a disconnect: the SDK will see nothing either
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        more = bool(message.get("more_body"))
    body = b"".join(chunks)
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": more}
        return await receive()

    answer = None
    if not more:
        try:
            answer = refusal(json.loads(body), error_result)
        except (ValueError, RecursionError):
            answer = None
    dumped = answer.model_dump(by_alias=True, exclude_none=True, mode="json") if answer else None
    return replay, dumped


# The SDK answers some refusals in plain text (421 "Invalid Host header", 403 "Invalid Origin
# header", 406, 415); they leave as tabane's one error body, with the SDK's status and words.
_PLAIN_CODES: dict[int, type[TabaneError]] = {
    400: BadRequest,
    403: Forbidden,
    405: MethodNotAllowed,
    406: BadRequest,
    413: BodyTooLarge,
    415: BadRequest,
    421: BadRequest,
}


def _errors_as_json(send: Send) -> Send:
    """Wrap `send` so a plain-text error response becomes `{"error": {...}}` JSON."""
    held: dict[str, Any] = {}
    body = bytearray()

    async def wrapped(message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.start" and message["status"] >= 400:
            headers = dict(message.get("headers", []))
            if not headers.get(b"content-type", b"").startswith(b"application/json"):
                held.update(message)
                return
        if held and message["type"] == "http.response.body":
            body.extend(message.get("body", b""))
            if message.get("more_body"):
                return
            status = held["status"]
            text = body.decode("utf-8", "replace").strip() or f"HTTP {status}"
            cls = _PLAIN_CODES.get(status) or (TabaneError if status >= 500 else BadRequest)
            payload = json.dumps(cls(text).to_body()).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": status,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(payload)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": payload})
            return
        await send(message)

    return wrapped


__all__ = ["build_server", "current_request", "mount_mcp", "protocol_text", "run_stdio"]
