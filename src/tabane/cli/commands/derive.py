"""`tabane derive`: force a build of derived memory (communities, entity profiles or the RAPTOR
tree), with a progress bar."""

from __future__ import annotations

from typing import Annotated

import typer

from tabane.cli.common import emit, handled, named_as, service

Opt = typer.Option


@handled
def derive(
    context: Annotated[
        str | None, Opt(help="the context to build (default: every context you may write)")
    ] = None,
    what: Annotated[
        str, Opt(help="what to build: communities, profiles or raptor")
    ] = "communities",
) -> None:
    """Rebuild derived memory now instead of waiting for the background job: the communities
    of each context's concept graph (Louvain, fixed seed) with their summaries, or the entity
    profiles of its heaviest concepts (a summary of each one's heaviest open claims, each
    holder's opinions labelled), or the RAPTOR tree of its paragraphs and notes (clustered by
    meaning and summarized level by level up to a few roots; needs an embedder). Prints one
    report per context.
    Example: tabane derive --context notes --what communities
    Example: tabane derive --context notes --what profiles
    Example: tabane derive --context docs --what raptor"""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    with service() as (svc, user), named_as({"context": "--context", "what": "--what"}):
        names = svc.derive_targets(user, context, what)
        reports = []
        bar = Progress(
            TextColumn("deriving {task.fields[current]}"),
            BarColumn(),
            MofNCompleteColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        with bar:
            task = bar.add_task("derive", total=len(names), current="")
            for name in names:
                bar.update(task, current=name)
                reports.append(svc.build_derived(user, name, what))
                bar.update(task, advance=1)
        emit(reports)
