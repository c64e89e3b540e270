"""A server bound to a loopback address without authentication answers only requests that name
it: a web page the browser reached through another host name that resolves to 127.0.0.1 (DNS
rebinding) sends that name as `Host` (and its own origin as `Origin`), and would otherwise read
and write every context of the local user. The MCP SDK checks `/mcp` the same way; this checks
every route."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from tabane.api.errors import coded_error, error_response
from tabane.errors import Issue


def local_name(host: str) -> bool:
    """`localhost` or a loopback address (any of 127.0.0.0/8, ::1)."""
    name = host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _hostname(value: str) -> str:
    """The host of a `Host` header value or an origin, without its port."""
    return urlsplit(value if "//" in value else f"//{value}").hostname or ""


class LocalOnly:
    """Refuse (400 `bad_request`) a request whose `Host`, or `Origin` when it has one, is not
    a loopback name."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = Headers(scope=scope)
            for name in ("host", "origin"):
                value = headers.get(name)
                if value is None or (name == "origin" and value == "null"):
                    continue
                if not local_name(_hostname(value)):
                    exc = coded_error(
                        "bad_request",
                        400,
                        f"this server answers its loopback names only, not {value[:100]!r}",
                        [Issue(f"headers.{name}", "not localhost or a loopback address")],
                    )
                    await error_response(exc)(scope, receive, send)
                    return
        await self.app(scope, receive, send)
