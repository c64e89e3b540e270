"""Signing in to the inspector where the server asks for credentials (`--auth keys|oidc`): a
browser cannot send `Authorization: Bearer …` on a link, so the token given once at /ui/login
is kept in a cookie and sent on as that header to the same resolver every route uses. The
cookie is HttpOnly (no page can read it; the pages run no script anyway), SameSite=Strict (no
other site's link or form carries it) and scoped to /ui, and Secure over https. A sign-in form
posted from another origin is refused: it would sign the browser in as someone else."""

from __future__ import annotations

from urllib.parse import urlsplit

from fastapi import APIRouter, Request
from jinja2 import Environment
from starlette.concurrency import run_in_threadpool
from starlette.responses import HTMLResponse, RedirectResponse, Response

from tabane.errors import Forbidden, Issue, TabaneError, Unauthorized
from tabane.web.render import HEADERS, error_page, page, reader

router = APIRouter(prefix="/ui", include_in_schema=False)
COOKIE = "tabane_ui"
MAX_AGE = 12 * 3600  # seconds a sign-in lasts
MAX_TOKEN = 8192  # characters: the longest header a JWT resolver reads


def with_cookie(request: Request) -> Request:
    """`request` with the signed-in token as its Authorization header, when it has none."""
    token = request.cookies.get(COOKIE)
    if not token or "authorization" in request.headers:
        return request
    kept = [(k, v) for k, v in request.scope["headers"] if k != b"cookie"]
    return _bearing(request, token, kept)


def _bearing(request: Request, token: str, headers: list[tuple[bytes, bytes]]) -> Request:
    """`request` with `headers` and `Authorization: Bearer <token>`, as a resolver reads it."""
    bearer = (b"authorization", b"Bearer " + token.encode("latin-1", "replace"))
    return Request({**request.scope, "headers": [*headers, bearer]}, request.receive)


@router.get("/login")
def login_page(request: Request) -> HTMLResponse:
    env: Environment = request.app.state.web
    return page(env, "login.html")


@router.post("/login")
async def login(request: Request) -> Response:
    env: Environment = request.app.state.web
    try:
        _same_origin(request)
        form = await request.form()
        token = form.get("token")
        if not isinstance(token, str) or not token.strip() or len(token) > MAX_TOKEN:
            raise Unauthorized("give an API key or token", issues=[Issue("token", "missing")])
        token = token.strip()
        signed = _bearing(request, token, [])
        who = await run_in_threadpool(reader, signed)  # refuses a bad token, as routes do
    except TabaneError as exc:
        return error_page(env, exc, login=True)
    answer = RedirectResponse("/ui", status_code=303, headers=HEADERS)
    secure = request.url.scheme == "https"
    answer.set_cookie(
        COOKIE, token, max_age=MAX_AGE, path="/ui", httponly=True, samesite="strict", secure=secure
    )
    answer.headers["X-Tabane-User"] = who.name
    return answer


@router.post("/logout")
def logout(request: Request) -> Response:
    env: Environment = request.app.state.web
    try:
        _same_origin(request)
    except TabaneError as exc:
        return error_page(env, exc)
    answer = RedirectResponse("/ui/login", status_code=303, headers=HEADERS)
    answer.delete_cookie(COOKIE, path="/ui")
    return answer


def _same_origin(request: Request) -> None:
    """A browser names the page a form was posted from; it must be this server."""
    origin = request.headers.get("origin")
    if origin is None:
        return
    if origin == "null" or urlsplit(origin).netloc != request.headers.get("host", ""):
        raise Forbidden(
            "a form from another site may not sign in here",
            issues=[Issue("headers.origin", "not this server")],
        )
