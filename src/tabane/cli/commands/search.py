"""`tabane search`: sources/search (hits and plan) or, with --explain, its explain twin."""

from __future__ import annotations

from typing import Annotated

import typer

from tabane.cli.common import emit, handled, named_as, service
from tabane.errors import InvalidInput, Issue

Opt = typer.Option


@handled
def search(
    query: Annotated[str, typer.Argument(help="phrased like the answer you expect")],
    context: Annotated[
        list[str] | None, Opt("--context", "-c", help="context to search (repeat for more)")
    ] = None,
    group: Annotated[
        list[str] | None, Opt("--group", "-g", help="group to search (repeat for more)")
    ] = None,
    limit: Annotated[int, Opt(help="hits per page (1-100)")] = 10,
    after: Annotated[str | None, Opt(help="`next_after` of the previous page")] = None,
    tag: Annotated[
        list[str] | None, Opt("--tag", help="only sources with this tag (repeat: any of)")
    ] = None,
    since: Annotated[str | None, Opt(help="ISO 8601: only sources dated on or after")] = None,
    until: Annotated[str | None, Opt(help="ISO 8601: only sources dated before")] = None,
    floor: Annotated[float | None, Opt(help="cosine floor of the vector lane, in [-1, 1]")] = None,
    explain: Annotated[
        str | None, Opt(metavar="SOURCE_ID", help="explain why this source is (not) a hit")
    ] = None,
    paragraph: Annotated[
        int | None, Opt(help="with --explain: the expected paragraph (default: its best)")
    ] = None,
    explain_context: Annotated[
        str | None, Opt(help="with --explain: its context (default: the only --context)")
    ] = None,
) -> None:
    """Search paragraphs; prints the hits and the plan (which lanes ran, or why not).
    Example: tabane search "the kettle switches off when the water boils" -c notes"""
    from tabane.checks import expected_context
    from tabane.wire.base import built
    from tabane.wire.search import CrossSearchIn

    contexts, groups = tuple(context or ()), tuple(group or ())
    window = {"since": since, "until": until, "tags": tag or None, "semantic_floor": floor}
    with named_as({"since": "--since", "until": "--until", "tags": "--tag"}):
        page = {"contexts": contexts, "groups": groups, "limit": limit, "after": after}
        request = built(CrossSearchIn, query=query, **page, **window).scoped()
    if explain is None and (paragraph is not None or explain_context is not None):
        raise InvalidInput(
            "--paragraph and --explain-context go with --explain",
            issues=[Issue("--explain", "missing")],
        )
    if paragraph is not None and paragraph < 0:
        raise InvalidInput(
            "--paragraph is a paragraph index", issues=[Issue("--paragraph", "0 or more")]
        )
    with service() as (svc, user):
        if explain is None:
            emit(svc.search(user, request))
            return
        where = expected_context(explain_context, contexts, groups, "--explain-context")
        emit(svc.explain_search(user, request, where, explain, paragraph))


@handled
def catalog(
    query: Annotated[str, typer.Argument(help="what the documents are about; '*' lists all")],
    context: Annotated[
        list[str] | None, Opt("--context", "-c", help="context to list (repeat for more)")
    ] = None,
    group: Annotated[
        list[str] | None, Opt("--group", "-g", help="group to list (repeat for more)")
    ] = None,
    limit: Annotated[int, Opt(help="sources per page (1-50)")] = 10,
    offset: Annotated[int, Opt(help="`next_offset` of the previous page")] = 0,
    explain: Annotated[
        str | None, Opt(metavar="SOURCE_ID", help="explain why this source is (not) listed")
    ] = None,
    explain_context: Annotated[
        str | None, Opt(help="with --explain: its context (default: the only --context)")
    ] = None,
) -> None:
    """Which documents there are about a subject: sources by title and by their paragraphs,
    each once with title, area, state, date and a snippet; '*' or 'all' lists every source.
    --explain SOURCE_ID says why that source is or is not listed instead.
    Example: tabane catalog "asyncio" -c python-docs"""
    from tabane.checks import expected_context
    from tabane.wire.base import built
    from tabane.wire.search import CatalogIn

    contexts, groups = tuple(context or ()), tuple(group or ())
    with named_as({"contexts": "--context", "groups": "--group"}), service() as (svc, user):
        fields = {"contexts": contexts, "groups": groups, "limit": limit, "offset": offset}
        request = built(CatalogIn, query=query, **fields).to_request()
        if explain is None:
            emit(svc.search_catalog(user, request))
            return
        where = expected_context(explain_context, contexts, groups, "--explain-context")
        emit(svc.explain_catalog(user, request, where, explain))
