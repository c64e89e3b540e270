"""`tabane users|scopes|contexts|groups …`: manage who may see what, and where knowledge lives."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer

from tabane.cli.common import emit, handled, service
from tabane.errors import InvalidInput, Issue

users_app = typer.Typer(
    help="Users and their scope grants.", no_args_is_help=True, rich_markup_mode=None
)
scopes_app = typer.Typer(
    help="Scopes: visibility labels on every stored row.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
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

Opt = typer.Option


@users_app.command("list")
@handled
def users_list() -> None:
    """List users with their read and write scopes.  Example: tabane users list"""
    with service() as (svc, _):
        emit(svc.list_users())


@users_app.command("add")
@handled
def users_add(
    name: str,
    public_read_only: Annotated[
        bool, Opt("--public-read-only", help="may read `public`, not write it (default: both)")
    ] = False,
) -> None:
    """Add a user with a personal scope user:NAME, and `public`: every user may read it and, by
    default, write it.  Example: tabane users add alice --public-read-only"""
    with service() as (svc, _):
        emit(svc.add_user(name, public_write=not public_read_only), said=f"added user {name}")


@users_app.command("grant")
@handled
def users_grant(
    user: str, scope: str, write: Annotated[bool, Opt("--write", help="also allow writing")] = False
) -> None:
    """Let USER read SCOPE (and write it with --write).  Example: tabane users grant bob org:acme"""
    with service() as (svc, _):
        svc.grant(user, scope, write=write)
        emit(
            svc.principal(user),
            said=f"granted {scope} to {user}" + (" (read and write)" if write else " (read)"),
        )


@users_app.command("revoke")
@handled
def users_revoke(user: str, scope: str) -> None:
    """Take SCOPE away from USER.  Example: tabane users revoke bob org:acme"""
    with service() as (svc, _):
        revoked = svc.revoke(user, scope)
        emit(
            {"revoked": revoked},
            said=f"revoked {scope} from {user}" if revoked else f"{user} had no grant of {scope}",
        )


@users_app.command("export")
@handled
def users_export(
    name: str,
    out: Annotated[
        Path | None, Opt("--out", help="write the JSON Lines here (default: stdout)")
    ] = None,
) -> None:
    """Export every row of USER as JSON Lines ({"table", "row"} per line), before erasing them.
    Example: tabane users export alice --out alice.jsonl"""
    with service() as (svc, _):
        rows = svc.export_user(name)
        if out is None:
            for row in rows:
                typer.echo(json.dumps(row, ensure_ascii=False, separators=(",", ":")))
            return
        counts: Counter[str] = Counter()
        try:
            with out.open("w", encoding="utf-8") as f:
                for row in rows:
                    f.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")
                    counts[row["table"]] += 1
        except OSError as exc:
            raise InvalidInput(
                f"cannot write {out}: {exc.strerror}", issues=[Issue("out", str(out))]
            ) from None
        emit({"user": name, "out": str(out), "rows": dict(sorted(counts.items()))})


@users_app.command("erase")
@handled
def users_erase(
    name: str, yes: Annotated[bool, Opt("--yes", help="do not ask for confirmation")] = False
) -> None:
    """Delete USER and every row of theirs in one transaction; prints rows deleted per table.
    Export first: nothing erased can be read back.  Example: tabane users erase alice --yes"""
    if not yes:
        typer.confirm(f"erase user {name} and every row of theirs?", abort=True)
    with service() as (svc, _):
        emit(svc.erase_user(name))


@scopes_app.command("list")
@handled
def scopes_list() -> None:
    """List scopes with how many users hold each.  Example: tabane scopes list"""
    with service() as (svc, _):
        emit(svc.list_scopes())


@scopes_app.command("add")
@handled
def scopes_add(
    name: str, description: Annotated[str | None, Opt(help="what the scope is for")] = None
) -> None:
    """Create a scope, or describe an existing one anew (`added` says which).
    Example: tabane scopes add org:acme --description 'Acme staff'"""
    with service() as (svc, _):
        added = svc.add_scope(name, description)
        emit(
            {"scope": name, "added": added},
            said=f"{'added' if added else 'described'} scope {name}",
        )


@scopes_app.command("remove")
@handled
def scopes_remove(name: str) -> None:
    """Remove a scope and every grant of it.  Example: tabane scopes remove org:acme"""
    with service() as (svc, _):
        svc.remove_scope(name)
        emit({"removed": name}, said=f"removed scope {name}")


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


@groups_app.command("delete")
@handled
def groups_delete(name: str) -> None:
    """Delete a group (its contexts stay).  Example: tabane groups delete work"""
    with service() as (svc, user):
        svc.delete_group(user, name)
        emit({"deleted": name}, said=f"deleted group {name}")
