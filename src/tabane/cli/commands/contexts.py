"""`tabane contexts|groups …`: manage where knowledge lives."""

from __future__ import annotations

from typing import Annotated

import typer

from tabane.cli.common import emit, handled, service

Opt = typer.Option


contexts_app = typer.Typer(
    help="Contexts: frames of meaning that hold sources.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


groups_app = typer.Typer(
    help="Groups: bundles of contexts and child groups.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@contexts_app.command("list")
@handled
def contexts_list() -> None:
    """List contexts with stats and usage.  Example: tabane contexts list"""
    with service() as (svc, user):
        emit(svc.list_contexts(user))


@contexts_app.command("create")
@handled
def contexts_create(
    name: str,
    description: Annotated[str, Opt(help="what this context holds")] = "",
    scope: Annotated[list[str] | None, Opt("--scope", help="scope (repeat for a set)")] = None,
) -> None:
    """Create a context.  Example: tabane contexts create notes --description 'my notes'"""
    with service() as (svc, user):
        created = svc.create_context(user, name, description=description, scopes=scope or None)
        emit(created, said=f"created context {name} (scopes {', '.join(created.scopes)})")


@contexts_app.command("show")
@handled
def contexts_show(name: str) -> None:
    """Show one context.  Example: tabane contexts show notes"""
    with service() as (svc, user):
        emit(svc.get_context(user, name))


@contexts_app.command("update")
@handled
def contexts_update(
    name: str,
    description: Annotated[str | None, Opt()] = None,
    dice_floor: Annotated[float | None, Opt()] = None,
    semantic_floor: Annotated[float | None, Opt()] = None,
) -> None:
    """Change description or floors.  Example: tabane contexts update notes --dice-floor 0.4"""
    from tabane.wire.base import built
    from tabane.wire.contexts import ContextPatch

    floors = {"dice_floor": dice_floor, "semantic_floor": semantic_floor}
    changes = built(ContextPatch, description=description, **floors).changes()
    with service() as (svc, user):
        emit(svc.update_context(user, name, changes), said=f"updated context {name}")


@contexts_app.command("rename")
@handled
def contexts_rename(name: str, new_name: str) -> None:
    """Rename a context.  Example: tabane contexts rename notes journal"""
    with service() as (svc, user):
        emit(svc.rename_context(user, name, new_name), said=f"renamed context {name} to {new_name}")


@contexts_app.command("delete")
@handled
def contexts_delete(name: str) -> None:
    """Delete a context and everything in it.  Example: tabane contexts delete journal"""
    with service() as (svc, user):
        emit(
            {"deleted": name, "removed": svc.delete_context(user, name)},
            said=f"deleted context {name}",
        )


@contexts_app.command("changes")
@handled
def contexts_changes(
    name: str,
    since: Annotated[str | None, Opt(help="the cursor a page printed (default: the start)")] = None,
    limit: Annotated[int, Opt(help="events per page (1-1000)")] = 100,
    tail: Annotated[bool, Opt(help="no events: only a cursor for what comes next")] = False,
) -> None:
    """A context's write log after a cursor: sources stored and retracted, claims recorded and
    closed, aliases added.  Example: tabane contexts changes notes --limit 20"""
    with service() as (svc, user):
        emit(svc.changes(user, name, since=since, limit=limit, tail=tail))


@contexts_app.command("compact")
@handled
def contexts_compact(name: str) -> None:
    """Merge a context's BM25 packs and pack its vocabulary bigrams now (not VACUUM).
    Example: tabane contexts compact notes"""
    with service() as (svc, user):
        emit(vars(svc.compact(user, name)), "fields")


@contexts_app.command("flush")
@handled
def contexts_flush(
    name: str,
    timeout: Annotated[float, Opt(help="seconds to wait at most (0-300]")] = 30.0,
) -> None:
    """Run a context's queued jobs (embedding, merges) until none is left or the timeout.
    Example: tabane contexts flush notes --timeout 60"""
    with service() as (svc, user):
        emit(vars(svc.flush(user, name, timeout)), "fields")


@groups_app.command("list")
@handled
def groups_list() -> None:
    """List groups.  Example: tabane groups list"""
    with service() as (svc, user):
        emit(svc.list_groups(user))


@groups_app.command("create")
@handled
def groups_create(
    name: str,
    context: Annotated[list[str] | None, Opt("--context", help="member context (repeat)")] = None,
    group: Annotated[list[str] | None, Opt("--group", help="child group (repeat)")] = None,
    description: Annotated[str, Opt()] = "",
) -> None:
    """Create a group.  Example: tabane groups create work --context notes --context docs"""
    with service() as (svc, user):
        emit(
            svc.create_group(
                user, name, description=description, contexts=context or [], groups=group or []
            ),
            said=f"created group {name}",
        )


@groups_app.command("show")
@handled
def groups_show(name: str) -> None:
    """Show a group's members.  Example: tabane groups show work"""
    with service() as (svc, user):
        emit(svc.get_group(user, name))


@groups_app.command("change")
@handled
def groups_change(
    name: str,
    add_context: Annotated[list[str] | None, Opt()] = None,
    remove_context: Annotated[list[str] | None, Opt()] = None,
    add_group: Annotated[list[str] | None, Opt()] = None,
    remove_group: Annotated[list[str] | None, Opt()] = None,
) -> None:
    """Change membership by deltas.  Example: tabane groups change work --add-context mail"""
    with service() as (svc, user):
        emit(
            svc.change_group(
                user,
                name,
                add_contexts=add_context or [],
                remove_contexts=remove_context or [],
                add_groups=add_group or [],
                remove_groups=remove_group or [],
            ),
            said=f"changed group {name}",
        )


@groups_app.command("rename")
@handled
def groups_rename(name: str, new_name: str) -> None:
    """Rename a group.  Example: tabane groups rename work office"""
    with service() as (svc, user):
        emit(svc.rename_group(user, name, new_name), said=f"renamed group {name} to {new_name}")


@groups_app.command("delete")
@handled
def groups_delete(name: str) -> None:
    """Delete a group (its contexts stay).  Example: tabane groups delete work"""
    with service() as (svc, user):
        svc.delete_group(user, name)
        emit({"deleted": name}, said=f"deleted group {name}")
