"""`tabane users|scopes …`: manage who may see what."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer

from tabane.cli.common import emit, handled, service
from tabane.errors import InvalidInput, Issue

Opt = typer.Option


users_app = typer.Typer(
    help="Users and their scope grants.", no_args_is_help=True, rich_markup_mode=None
)


scopes_app = typer.Typer(
    help="Scopes: visibility labels on every stored row.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


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
