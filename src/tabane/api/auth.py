"""The one door: every HTTP route and the MCP endpoint authenticate through the same resolver.

`key_resolver(svc)` reads `Authorization: Bearer <token>` and asks the facade whom the API key
acts for. A missing or bad credential is 401 `unauthorized` in the one error body; `BearerChallenge`
adds `WWW-Authenticate: Bearer` to every 401 the app sends (routes and `/mcp` alike).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tabane.api.deps import PrincipalResolver
from tabane.errors import Issue, Unauthorized
from tabane.service import Tabane
from tabane.types import Principal

MAX_HEADER_CHARS = 512  # an Authorization header longer than this is refused unread


def bearer_token(request: Request) -> str:
    """The token of `Authorization: Bearer <token>`, else `Unauthorized`."""
    header = request.headers.get("authorization")
    if header is None:
        raise Unauthorized(
            "authentication required", issues=[Issue("headers.authorization", "missing")]
        )
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if len(header) > MAX_HEADER_CHARS or scheme.lower() != "bearer" or not token or " " in token:
        raise Unauthorized(
            "malformed Authorization header",
            issues=[Issue("headers.authorization", "expected `Bearer <token>`")],
        )
    return token


def key_resolver(svc: Tabane) -> PrincipalResolver:
    """A principal resolver for `create_app` that accepts tabane API keys."""

    def resolve(request: Request) -> Principal:
        return svc.authenticate(bearer_token(request))

    return resolve


class BearerChallenge:
    """Add `WWW-Authenticate: Bearer` to any 401 response that lacks it (pure ASGI)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def challenge(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 401:
                headers = list(message.get("headers", []))
                if not any(name.lower() == b"www-authenticate" for name, _ in headers):
                    headers.append((b"www-authenticate", b'Bearer realm="tabane"'))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, challenge)
