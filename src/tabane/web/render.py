"""The inspector's pages as HTML: Jinja templates shipped in the package, every value escaped,
and headers that let a page run no script and load nothing from elsewhere (stored text is
anyone's writing: a paragraph holding `<script>` must stay text)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import quote, urlencode

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse

from tabane.errors import TabaneError
from tabane.principal import Principal

HEADERS = {
    # no script at all; styles only from the page itself; forms post back here only
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",  # pages show what one user may see
}


def reader(request: Request) -> Principal:
    """Whom a page reads as: the app's principal resolver (the one every route uses) applied
    to the request."""
    resolve: Callable[[Request], Principal] = request.app.state.principal
    return resolve(request)


def environment() -> Environment:
    """Built once per app (create_app), never at import."""
    env = Environment(
        loader=PackageLoader("tabane.web", "templates"),
        autoescape=select_autoescape(["html"], default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["q"] = lambda params: urlencode(
        [(k, v) for k, v in params.items() if v not in (None, "")], doseq=True
    )
    env.filters["path"] = lambda text: quote(str(text), safe="")
    env.filters["ms"] = lambda value: f"{value:.1f}"
    return env


def page(env: Environment, template: str, status: int = 200, **values: Any) -> HTMLResponse:
    html = env.get_template(template).render(**values)
    return HTMLResponse(html, status_code=status, headers=HEADERS)


def error_page(env: Environment, exc: TabaneError, **values: Any) -> HTMLResponse:
    """A refusal as a page: the same code, message and issues as the JSON error body."""
    return page(
        env,
        "error.html",
        exc.status,
        code=exc.code,
        message=exc.message,
        issues=exc.issues,
        written=exc.written,
        **values,
    )
