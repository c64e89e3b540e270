"""`tabane query | activate | explore | paths | describe | labels | unreachable`: the graph reads,
each one facade call printed as JSON."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

import typer

from tabane.cli.common import emit, handled, named_as, service

Opt = typer.Option
Arg = typer.Argument
Many = list[str] | None
ContextOpt = Annotated[str, Opt("--context", "-c", help="the context to read")]
LabelsOpt = Annotated[Many, Opt("--label", "-l", help="follow only this label (repeat for more)")]
PerspectiveOpt = Annotated[
    str | None, Opt(help="only this partition: a holder's key, or '' for world facts")
]
SinceOpt = Annotated[str | None, Opt(help="ISO 8601: weights from claims valid on or after")]
UntilOpt = Annotated[str | None, Opt(help="ISO 8601: weights from claims valid before")]


# The requests' fields as these commands' options (an issue names what you typed).
OPTIONS = {
    "since": "--since",
    "until": "--until",
    "labels": "--label",
    "contexts": "--context",
    "groups": "--group",
    "targets": "--to",
}


def _cue(values: Many) -> list[str] | None:
    return list(values) if values else None


@handled
def query(
    context: Annotated[Many, Opt("--context", "-c", help="context to read (repeat)")] = None,
    group: Annotated[Many, Opt("--group", "-g", help="group to read (repeat)")] = None,
    subject: Annotated[Many, Opt("--subject", "-s", help="subject spelling (repeat: OR)")] = None,
    label: Annotated[Many, Opt("--label", "-l", help="label spelling (repeat: OR)")] = None,
    object_: Annotated[Many, Opt("--object", "-o", help="object spelling (repeat: OR)")] = None,
    any_: Annotated[Many, Opt("--any", "-a", help="edges touching this concept (repeat)")] = None,
    perspective: PerspectiveOpt = None,
    since: Annotated[str | None, Opt(help="ISO 8601: claims valid on or after")] = None,
    until: Annotated[str | None, Opt(help="ISO 8601: claims valid before")] = None,
    limit: Annotated[int, Opt(help="edges per page (1-1000)")] = 50,
    after: Annotated[str | None, Opt(help="`next` of the previous page")] = None,
    live_only: Annotated[
        bool, Opt("--live-only", help="leave out edges whose claims were all retracted")
    ] = False,
) -> None:
    """Edges matching every position given, strongest |weight| first, with attributions; an
    edge whose claims were all retracted follows at weight 0 with its history.
    Example: tabane query -c health -l causes -o insomnia"""
    from tabane.wire.base import built
    from tabane.wire.graph_read import CrossQueryIn

    with named_as(OPTIONS):
        q = built(
            CrossQueryIn, contexts=context, groups=group, subject=_cue(subject),
            label=_cue(label), object=_cue(object_), any=_cue(any_), perspective=perspective,
            since=since, until=until, limit=limit, after=after, include_retracted=not live_only,
        )  # fmt: skip
        kwargs = q.kwargs()
    with service() as (svc, user):
        emit(svc.query(user, contexts=q.contexts, groups=q.groups, **kwargs))


@handled
def describe(
    concept: Annotated[str, Arg(help="the concept (an alias works too)")],
    context: ContextOpt,
) -> None:
    """A concept's label counts as subject and as object, degree, Σ|weight| and aliases.
    Example: tabane describe insomnia -c health"""
    with service() as (svc, user):
        emit(svc.describe(user, context, concept))


@handled
def activate(
    origins: Annotated[list[str], Arg(help="concepts to start from")],
    context: ContextOpt,
    decay: Annotated[float, Opt(help="share passed on per hop, in (0, 1]")] = 0.5,
    limit: Annotated[int, Opt(help="concepts to return (1-1000)")] = 20,
    min_activation: Annotated[float, Opt(help="stop below this activation")] = 1e-6,
    label: LabelsOpt = None,
    perspective: PerspectiveOpt = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
) -> None:
    """Spreading activation: the concepts most associated with the origins, with their paths.
    Example: tabane activate stress -c health --limit 10"""
    from tabane.wire.base import built
    from tabane.wire.graph_read import ActivateIn

    walk = {"labels": _cue(label), "perspective": perspective, "since": since, "until": until}
    with named_as(OPTIONS):
        options = built(
            ActivateIn, origins=origins, decay=decay, limit=limit, min_activation=min_activation,
            **walk,
        ).options()  # fmt: skip
    with service() as (svc, user):
        emit(svc.activate(user, context, origins, **options))


@handled
def explore(
    origins: Annotated[list[str], Arg(help="concepts to start from")],
    context: ContextOpt,
    depth: Annotated[int, Opt(help="hops (1-10)")] = 2,
    limit: Annotated[int, Opt(help="concepts to return")] = 1000,
    label: LabelsOpt = None,
    perspective: PerspectiveOpt = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
) -> None:
    """Concepts within `depth` hops of the origins with their distance.
    Example: tabane explore brewing -c sake --depth 3"""
    from tabane.wire.base import built
    from tabane.wire.graph_read import ExploreIn

    walk = {"labels": _cue(label), "perspective": perspective, "since": since, "until": until}
    with named_as(OPTIONS):
        options = built(ExploreIn, origins=origins, depth=depth, limit=limit, **walk).options()
    with service() as (svc, user):
        emit(svc.explore(user, context, origins, **options))


@handled
def paths(
    origin: Annotated[list[str], Opt("--from", help="origin concept (repeat)")],
    target: Annotated[list[str], Opt("--to", help="target concept (repeat)")],
    context: ContextOpt,
    max_depth: Annotated[int, Opt(help="edges per path at most (1-10)")] = 4,
    budget: Annotated[int, Opt(help="concepts whose edges may be read")] = 1000,
    limit: Annotated[int, Opt(help="paths to return")] = 10,
    label: LabelsOpt = None,
    perspective: PerspectiveOpt = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
) -> None:
    """Simple paths between origins and targets, shortest first; says when the budget capped it.
    Example: tabane paths --from stress --to fatigue -c health"""
    from tabane.wire.base import built
    from tabane.wire.graph_read import PathsIn

    walk = {"labels": _cue(label), "perspective": perspective, "since": since, "until": until}
    with named_as(OPTIONS):
        options = built(
            PathsIn, origins=origin, targets=target, max_depth=max_depth, budget=budget,
            limit=limit, **walk,
        ).options()  # fmt: skip
    with service() as (svc, user):
        emit(svc.paths(user, context, origin, target, **options))


@handled
def unreachable(
    origin: Annotated[str, Arg(help="the document's main concept")],
    context: ContextOpt,
    limit: Annotated[int, Opt(help="concepts per page")] = 100,
    after: Annotated[str | None, Opt(help="`next` of the previous page")] = None,
) -> None:
    """The coverage audit: concepts no chain of edges joins to the origin.
    Example: tabane unreachable brewing -c sake"""
    with service() as (svc, user):
        emit(svc.unreachable_from(user, context, origin, limit=limit, after=after))


@handled
def labels(
    context: ContextOpt,
    prefix: Annotated[str | None, Opt(help="only labels starting with this")] = None,
    limit: Annotated[int, Opt(help="labels per page (1-1000)")] = 100,
    after: Annotated[str | None, Opt(help="`next` of the previous page")] = None,
) -> None:
    """The label vocabulary with live edge counts. Example: tabane labels -c health --prefix cau"""
    with service() as (svc, user):
        emit(svc.labels(user, context, prefix=prefix, limit=limit, after=after))


COMMANDS: dict[str, Callable[..., None]] = {
    "query": query,
    "describe": describe,
    "activate": activate,
    "explore": explore,
    "paths": paths,
    "unreachable": unreachable,
    "labels": labels,
}


def register(app: typer.Typer) -> None:
    """Add the graph read commands to the `tabane` command."""
    for name, fn in COMMANDS.items():
        app.command(name)(fn)
