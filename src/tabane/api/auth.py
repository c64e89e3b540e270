"""The one door: every HTTP route and the MCP endpoint authenticate through the same resolver.

`key_resolver(svc)` reads `Authorization: Bearer <token>` and asks the facade whom the API key
acts for; `jwt_resolver(svc, config)` verifies an OIDC / JWT bearer token instead
(tabane.access.oidc), and `key_or_jwt_resolver` takes either (`tbn_…` is a key, anything else a
JWT). `resolver_for(svc, mode)` is what `tabane serve --auth MODE` plugs in. A missing or bad
credential is 401 `unauthorized` in the one error body; `BearerChallenge` adds
`WWW-Authenticate: Bearer` to every 401 the app sends (routes and `/mcp` alike).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tabane.access import oidc
from tabane.access.keys import TOKEN_PREFIX
from tabane.api.deps import PrincipalResolver
from tabane.config import Settings
from tabane.errors import InvalidInput, Issue, Unauthorized
from tabane.principal import Principal
from tabane.service import Tabane

MAX_HEADER_CHARS = 512  # an Authorization header longer than this is refused unread
MAX_JWT_HEADER_CHARS = oidc.MAX_TOKEN_CHARS + 16  # the same where JWTs are accepted


def bearer_token(request: Request, max_chars: int = MAX_HEADER_CHARS) -> str:
    """The token of `Authorization: Bearer <token>`, else `Unauthorized`."""
    header = request.headers.get("authorization")
    if header is None:
        raise Unauthorized(
            "authentication required", issues=[Issue("headers.authorization", "missing")]
        )
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if len(header) > max_chars or scheme.lower() != "bearer" or not token or " " in token:
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


def jwt_resolver(
    svc: Tabane, config: oidc.OidcConfig, verifier: oidc.Verifier | None = None
) -> PrincipalResolver:
    """A principal resolver that accepts OIDC / JWT bearer tokens of one issuer."""
    check = verifier or oidc.Verifier(config)

    def resolve(request: Request) -> Principal:
        return _jwt_principal(svc, check, bearer_token(request, MAX_JWT_HEADER_CHARS))

    return resolve


def key_or_jwt_resolver(
    svc: Tabane, config: oidc.OidcConfig, verifier: oidc.Verifier | None = None
) -> PrincipalResolver:
    """A principal resolver that accepts a tabane API key (`tbn_…`) or a JWT."""
    check = verifier or oidc.Verifier(config)

    def resolve(request: Request) -> Principal:
        token = bearer_token(request, MAX_JWT_HEADER_CHARS)
        if token.startswith(TOKEN_PREFIX):
            return svc.authenticate(token)
        return _jwt_principal(svc, check, token)

    return resolve


def resolver_for(
    svc: Tabane, mode: str, settings: Settings | None = None
) -> PrincipalResolver | None:
    """The resolver of an auth mode (None: `none`, the local user); OIDC is configured from
    `settings` (default: the service's) now, at start-up."""
    if mode == "none":
        return None
    if mode == "keys":
        return key_resolver(svc)
    if mode not in ("oidc", "keys+oidc"):
        raise InvalidInput(
            "the auth mode must be none, keys, oidc or keys+oidc",
            issues=[Issue("auth", repr(mode))],
        )
    config = oidc.OidcConfig.from_settings(settings or svc.settings)
    return jwt_resolver(svc, config) if mode == "oidc" else key_or_jwt_resolver(svc, config)


def _jwt_principal(svc: Tabane, verifier: oidc.Verifier, token: str) -> Principal:
    return oidc.settle_principal(svc.store, verifier.verify(token), verifier.config)


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
