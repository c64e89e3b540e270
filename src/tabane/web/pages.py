"""The web inspector at `/ui`: what a person looks at to see what tabane holds and why a read
answered as it did. Contexts with their statistics and usage; a context's sources and a
source's paragraphs; search and recall with their plans and traces; a concept's neighbourhood
drawn as a graph. Every page reads as the request's user (the same resolver as every route) and
through the same service calls as the HTTP API, so it shows exactly what the API would; a
refusal is a page with the API's error code, message and issues."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from jinja2 import Environment
from starlette.responses import HTMLResponse

from tabane.errors import InvalidInput, Issue, TabaneError
from tabane.principal import Principal
from tabane.recall.plan import RecallRequest
from tabane.recall.trace import trace_from_json
from tabane.search.plan import SearchRequest
from tabane.service import Tabane
from tabane.web import neighbourhood
from tabane.web.login import COOKIE, with_cookie
from tabane.web.render import error_page, page, reader

router = APIRouter(prefix="/ui", include_in_schema=False)
Many = Annotated[list[str], Query(default_factory=list)]  # a repeated query parameter
EDGE_LIMIT = 200  # edges listed on a concept's page


def _env(request: Request) -> Environment:
    env: Environment = request.app.state.web
    return env


Env = Annotated[Environment, Depends(_env)]


Built = tuple[str, dict[str, Any]]  # a page's template and its values


def _shown(
    request: Request, env: Environment, build: Callable[[Tabane, Principal], Built]
) -> HTMLResponse:
    """Run `build` as the request's user (signed in with the cookie, or by the header); a
    TabaneError (the credentials' too) is its page."""
    signed_in = COOKIE in request.cookies
    try:
        svc: Tabane = request.app.state.tabane
        user = reader(with_cookie(request))
        template, values = build(svc, user)
    except TabaneError as exc:
        return error_page(env, exc, signed_in=signed_in)
    return page(env, template, user=user.name, signed_in=signed_in, **values)


@router.get("")
def home(request: Request, env: Env) -> HTMLResponse:
    def build(svc: Tabane, user: Principal) -> Built:
        return "home.html", {"contexts": svc.list_contexts(user), "traces": svc.recall_traces(user)}

    return _shown(request, env, build)


@router.get("/contexts/{context}")
def context_page(
    request: Request, env: Env, context: str, after: str | None = None
) -> HTMLResponse:
    def build(svc: Tabane, user: Principal) -> Built:
        info = svc.get_context(user, context)
        sources = svc.list_sources(user, context, limit=100, after=after)
        return "context.html", {"ctx": info, "sources": sources}

    return _shown(request, env, build)


@router.get("/contexts/{context}/source")
def source_page(
    request: Request, env: Env, context: str, id: str = "", offset: str = "0"
) -> HTMLResponse:
    def build(svc: Tabane, user: Principal) -> Built:
        start = _int(offset, "offset", 0)
        info, paragraphs = svc.lookup(user, context, id, offset=start, limit=100)
        return "source.html", {
            "context": context,
            "source": info,
            "paragraphs": paragraphs,
            "offset": start,
        }

    return _shown(request, env, build)


@router.get("/contexts/{context}/concept")
def concept_page(request: Request, env: Env, context: str, name: str = "") -> HTMLResponse:
    def build(svc: Tabane, user: Principal) -> Built:
        described = svc.describe(user, context, name)
        found = svc.query(user, contexts=[context], any=described.concept, limit=EDGE_LIMIT)
        drawing = neighbourhood.layout(described.concept, found.edges)
        return "concept.html", {
            "context": context,
            "concept": described,
            "edges": found.edges,
            "total": found.total,
            "drawing": drawing,
        }

    return _shown(request, env, build)


@router.get("/search")
def search_page(
    request: Request,
    env: Env,
    context: Many,
    group: Many,
    q: str = "",
) -> HTMLResponse:
    def build(svc: Tabane, user: Principal) -> Built:
        ask = SearchRequest(q, contexts=tuple(context), groups=tuple(group), limit=20)
        result = svc.search(user, ask)
        return "search.html", {"q": q, "contexts": context, "groups": group, "result": result}

    return _shown(request, env, build)


@router.get("/recall")
def recall_page(
    request: Request,
    env: Env,
    context: Many,
    group: Many,
    q: str = "",
    preset: str = "",
    session: str = "",
    budget: str = "",
    force: str = "",
) -> HTMLResponse:
    def build(svc: Tabane, user: Principal) -> Built:
        ask = RecallRequest(
            q,
            contexts=tuple(context),
            groups=tuple(group),
            budget=_int(budget, "budget", 1) if budget else None,
            session=session or None,
            preset=preset or None,
            force=force == "on",
        )
        result = svc.recall(user, ask)
        form = {"q": q, "context": context, "group": group, "preset": preset,
                "session": session, "budget": budget, "force": force}  # fmt: skip
        return "recall.html", {"form": form, "result": result}

    return _shown(request, env, build)


@router.get("/traces/{trace_id}")
def trace_page(request: Request, env: Env, trace_id: str) -> HTMLResponse:
    def build(svc: Tabane, user: Principal) -> Built:
        stored = svc.recall_trace(user, _int(trace_id, "trace_id", 1))
        trace = trace_from_json(stored["trace"])  # type: ignore[arg-type]
        return "trace.html", {"stored": stored, "trace": trace}

    return _shown(request, env, build)


def _int(text: str, path: str, least: int) -> int:
    """A whole number from a query text, at least `least`; InvalidInput naming it."""
    try:
        value = int(text)
    except ValueError:
        raise InvalidInput(
            f"{path} is not a whole number", issues=[Issue(path, repr(text))]
        ) from None
    if value < least:
        raise InvalidInput(f"{path} is below {least}", issues=[Issue(path, str(value))])
    return value
