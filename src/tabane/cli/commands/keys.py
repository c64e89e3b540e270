"""`tabane keys …`: API keys for the HTTP and MCP surfaces (the token is printed once)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import typer

from tabane.cli.common import emit, handled, service
from tabane.errors import InvalidInput, Issue

keys_app = typer.Typer(
    help="API keys: bearer tokens acting for a user.", no_args_is_help=True, rich_markup_mode=None
)

Opt = typer.Option


@keys_app.command("create")
@handled
def keys_create(
    user: Annotated[str, Opt("--user", help="the user the key acts for")],
    read: Annotated[
        list[str] | None, Opt("--read", help="a scope the key may read (repeat; default: all)")
    ] = None,
    write: Annotated[
        list[str] | None, Opt("--write", help="a scope the key may write (repeat; default: all)")
    ] = None,
    read_only: Annotated[
        bool, Opt("--read-only", help="the key may write nothing (not with --write)")
    ] = False,
    expires: Annotated[
        str | None, Opt("--expires", help="ISO 8601 expiry (UTC unless an offset is given)")
    ] = None,
) -> None:
    """Create an API key; the token is printed this once and only its hash is kept.
    Example: tabane keys create --user alice --read user:alice --read org:acme --write user:alice"""
    if read_only and write:
        raise InvalidInput(
            "--read-only writes nothing: drop --write",
            issues=[Issue("--write", "with --read-only")],
        )
    when = _instant(expires) if expires else None
    writes = [] if read_only else (write or None)
    with service() as (svc, _):
        emit(svc.create_key(user, read=read or None, write=writes, expires=when))


@keys_app.command("list")
@handled
def keys_list(
    user: Annotated[str | None, Opt("--user", help="only this user's keys")] = None,
) -> None:
    """List keys: prefix, user, scopes, created, last used, expiry, revocation.
    Example: tabane keys list --user alice"""
    with service() as (svc, _):
        emit(svc.list_keys(user))


@keys_app.command("revoke")
@handled
def keys_revoke(prefix: str) -> None:
    """Revoke the key with this prefix; it is refused from now on.
    Example: tabane keys revoke 1a2b3c4d"""
    with service() as (svc, _):
        emit(svc.revoke_key(prefix), said=f"revoked key {prefix}")


def _instant(text: str) -> datetime:
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidInput(
            "--expires is not an ISO 8601 date or time", issues=[Issue("expires", repr(text))]
        ) from None
    return value if value.tzinfo else value.replace(tzinfo=UTC)
