"""One error body everywhere, and the pure ASGI guards around the app.

Every failure answers `{"error": {"code", "message", "issues": [{"path", "problem"}], "written"}}`
with the status of its `TabaneError`. An issue path names where the request carried the field
(`body.text`, `query.after`, `path.session`), whichever check found it: the schema's or the
service's. Framework errors map onto the same body:

    RequestValidationError   422 invalid_input (issue paths like `body.name`, `query.limit`)
    malformed JSON           400 invalid_json
    unknown route            404 not_found
    wrong method             405 method_not_allowed
    body over the limit      413 body_too_large (BodyLimit, before any route runs)
    URL not UTF-8            422 invalid_input (PlainUrl: a path or query escaping bad bytes)
    anything unexpected      500 internal (CatchAll; logged, never a traceback in the body)
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from urllib.parse import unquote_to_bytes

from fastapi import FastAPI, Request
from fastapi.dependencies.models import Dependant
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from pydantic import BaseModel
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tabane.checks import issue_path
from tabane.errors import (
    BadRequest,
    BodyTooLarge,
    Forbidden,
    InvalidInput,
    InvalidJson,
    Issue,
    MethodNotAllowed,
    NotFound,
    TabaneError,
    Unauthorized,
)

logger = logging.getLogger("tabane.api")

# Starlette's HTTPException statuses map onto these errors; any other status keeps the shape
# with the code `http_error`.
_HTTP_ERRORS: dict[int, type[TabaneError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    405: MethodNotAllowed,
    413: BodyTooLarge,
}


TAGURU = "/taguru/"  # Taguru's wire (decision 0023): its error shape, tabane's codes


def error_response(
    exc: TabaneError, headers: Mapping[str, str] | None = None, request: Request | None = None
) -> JSONResponse:
    body = exc.to_body()
    if request is not None and request.url.path.startswith(TAGURU):
        detail = body["error"]
        assert isinstance(detail, dict)
        body = {"status": "error", "code": exc.code, "error": exc.message, "time": 0.0}
        body |= {"issues": detail["issues"], "written": exc.written}
    return JSONResponse(body, status_code=exc.status, headers=headers)


def coded_error(
    code: str, status: int, message: str, issues: Iterable[Issue] = (), written: str = "nothing"
) -> TabaneError:
    """An error with an HTTP-only code, in the same shape as every service error."""
    exc = TabaneError(message, issues=issues, written=written)
    exc.code = code
    exc.status = status
    return exc


async def _tabane_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, TabaneError)
    route = request.scope.get("route")
    if isinstance(route, APIRoute) and exc.issues:
        exc.issues = tuple(_located(i, _locations(route)) for i in exc.issues)
    return error_response(exc, request=request)


_HEAD = re.compile(r"[^.\[]+")


def _located(issue: Issue, where: Mapping[str, str]) -> Issue:
    """A service's issue path (`contexts[0]`, `expected.claim`) under the part of the request
    that carried the field (`body.contexts[0]`), as the schema check names it; a path that is
    not a field of the request (`template:3`) stays as it is. A route that reads one context
    from its path passes it on as the read's only context: `contexts[0]` is `path.context`."""
    if issue.path == "contexts[0]" and "contexts" not in where and where.get("context") == "path":
        return Issue("path.context", issue.problem)
    head = _HEAD.match(issue.path)
    part = where.get(head.group()) if head else None
    return Issue(f"{part}.{issue.path}", issue.problem) if part else issue


def _locations(route: APIRoute) -> dict[str, str]:
    """Each field a route reads, by name, with where it comes from: `path`, `query`, `body`
    (worked out on the error path only: a route has a handful of parameters)."""
    parts: list[Dependant] = [route.dependant]
    for dependant in parts:  # the route's own parameters, then its dependencies'
        parts.extend(dependant.dependencies)
    where: dict[str, str] = {}
    for param in (p for d in parts for p in d.body_params):
        model = param.field_info.annotation
        if isinstance(model, type) and issubclass(model, BaseModel):
            where.update({name: "body" for name in model.model_fields})
        else:
            where[param.name] = "body"
    where.update({p.alias: "query" for d in parts for p in d.query_params})
    where.update({p.alias: "path" for d in parts for p in d.path_params})
    return where


async def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    errors = list(exc.errors())
    bad_json = [e for e in errors if e.get("type") == "json_invalid"]
    if bad_json:
        e = bad_json[0]
        where = e["loc"][-1] if len(e["loc"]) > 1 else "?"
        reason = (e.get("ctx") or {}).get("error", "malformed")
        return error_response(
            InvalidJson(
                "the request body is not valid JSON",
                issues=[Issue("body", f"{reason} at character {where}")],
            ),
            request=request,
        )
    kind = request.headers.get("content-type", "")
    sent = request.headers.get("content-length", "0") != "0"  # a body that was not JSON-typed
    if sent and "json" not in kind.lower() and any(e["loc"][:1] == ("body",) for e in errors):
        # the body was never read as JSON: its type is what is wrong, not its fields
        return error_response(
            InvalidInput(
                "the request body must be JSON (Content-Type: application/json)",
                issues=[Issue("headers.content-type", f"{kind or 'none'}: not application/json")],
            ),
            request=request,
        )
    issues = [
        Issue(issue_path(e["loc"], (e.get("ctx") or {}).get("at", "")), e["msg"]) for e in errors
    ]
    invalid = InvalidInput("the request does not match its schema", issues=issues)
    return error_response(invalid, request=request)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    cause = exc.__cause__
    if exc.status_code == 400 and cause is not None and not isinstance(cause, HTTPException):
        # FastAPI's body parsing failed outside the JSON decoder: bytes that are not UTF-8,
        # or nesting deeper than the parser recurses
        why = "not UTF-8" if isinstance(cause, UnicodeDecodeError) else type(cause).__name__
        if isinstance(cause, RecursionError):
            why = "nested too deep"
        bad = InvalidJson("the request body is not valid JSON", issues=[Issue("body", why)])
        return error_response(bad, request=request)
    if exc.status_code == 404:
        message = f"no route {request.url.path}"
    elif exc.status_code == 405:
        message = f"{request.method} is not allowed on {request.url.path}"
    else:
        message = str(exc.detail)
    cls = _HTTP_ERRORS.get(exc.status_code)
    error = cls(message) if cls else coded_error("http_error", exc.status_code, message)
    headers = dict(exc.headers or {})
    if exc.status_code == 405:  # every method of every route at this path, not the first's
        headers["Allow"] = ", ".join(_allowed(request))
    return error_response(error, headers=headers, request=request)


def _allowed(request: Request) -> list[str]:
    """The methods the API answers at the request's path, from its OpenAPI description
    (Starlette names only those of the first route whose path matches)."""
    methods: set[str] = set()
    for pattern, verbs in _route_patterns(request.app):
        if pattern.fullmatch(request.url.path):
            methods |= verbs
    return sorted(methods)


def _route_patterns(app: FastAPI) -> list[tuple[re.Pattern[str], set[str]]]:
    cached: list[tuple[re.Pattern[str], set[str]]] | None = getattr(app.state, "allow", None)
    if cached is None:
        cached = [
            (
                re.compile(re.sub(r"\\{[^/]+?\\}", "[^/]+", re.escape(path))),
                {m.upper() for m in ops},
            )
            for path, ops in app.openapi().get("paths", {}).items()
        ]
        app.state.allow = cached
    return cached


def _template(path: str) -> re.Pattern[str]:
    """An OpenAPI path (`/contexts/{context}/sources`) as a pattern over request paths."""
    return re.compile(re.sub(r"\\{[^/]+?\\}", "[^/]+", re.escape(path)))


def install_handlers(app: FastAPI) -> None:
    app.add_exception_handler(TabaneError, _tabane_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(HTTPException, _http_error)


class _Refused(Exception):
    """Raised into the app when a streamed body passes the limit (the 413 is already sent)."""


class BodyLimit:
    """Refuse bodies over `max_bytes` with 413 `body_too_large`: at once when Content-Length says
    so, else as soon as the streamed chunks pass the limit — the body is never buffered here, and
    no route runs on a refused body, so nothing is written."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await self._refuse(scope, receive, send, f"{declared} bytes")
            return
        seen = 0
        started = refused = False

        async def limited_receive() -> Message:
            nonlocal seen, refused
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes and not started:
                    refused = True
                    await self._refuse(scope, receive, send, f"over {self.max_bytes} bytes")
                    raise _Refused
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if refused:
                return  # the 413 went out; whatever the app answers to _Refused is dropped
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, guarded_send)
        except Exception:
            if not refused:
                raise

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, size: str) -> None:
        exc = BodyTooLarge(
            f"the request body is larger than {self.max_bytes} bytes",
            issues=[Issue("body", f"{size}; the limit is {self.max_bytes}")],
        )
        await error_response(exc)(scope, receive, send)


def _content_length(scope: Scope) -> int | None:
    values = [v for k, v in scope.get("headers", ()) if k.lower() == b"content-length"]
    if len(values) != 1:
        return None
    try:
        return int(values[0])
    except ValueError:
        return None


class PlainUrl:
    """Refuse a path or query string whose percent-escapes are not UTF-8 with 422
    `invalid_input`: decoded, they would become U+FFFD, and different bad names would meet in
    one (a session `a%FFb` would be `a%FEb`'s)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            for part in ("raw_path", "query_string"):
                try:
                    unquote_to_bytes(scope.get(part) or b"").decode("utf-8")
                except UnicodeDecodeError:
                    where = "path" if part == "raw_path" else "query"
                    exc = InvalidInput(
                        f"the URL's {where} is not UTF-8 text",
                        issues=[Issue(where, "percent-escaped bytes that are not UTF-8")],
                    )
                    await error_response(exc)(scope, receive, send)
                    return
        await self.app(scope, receive, send)


class CatchAll:
    """Answer any unexpected exception with 500 `internal`: logged in full, a generic body."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception:
            logger.exception("unexpected error in %s %s", scope.get("method"), scope.get("path"))
            if started:
                raise  # too late to answer; the server closes the connection
            exc = TabaneError("internal error; the server log has the details", written="unknown")
            await error_response(exc)(scope, receive, send)
