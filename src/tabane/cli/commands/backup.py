"""`tabane backup` and `tabane restore`: the whole store in one file (storage/backup.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tabane.cli.common import emit, handled


@handled
def backup(
    path: Annotated[Path, typer.Argument(help="the file to write (replaced whole)")],
) -> None:
    """Back up the whole store — every context, source, paragraph and vector, claim, session,
    group, user, grant and key — as it stands at one instant, while it serves.
    Example: tabane backup tabane.dump"""
    from tabane.config import Settings
    from tabane.storage import backup as backups
    from tabane.storage.opening import open_store

    store = open_store(Settings.from_env())
    try:
        emit(backups.backup(store.owner, path))
    finally:
        store.close()


@handled
def restore(
    path: Annotated[Path, typer.Argument(help="a file `tabane backup` wrote")],
    force: Annotated[bool, typer.Option("--force", help="replace a store that holds data")] = False,
) -> None:
    """Replace the store with a backup; refused when the store holds data (unless --force) or
    the backup comes from a newer tabane. An older backup is migrated to this tabane's schema.
    Example: tabane restore tabane.dump"""
    from tabane.config import Settings
    from tabane.storage import backup as backups
    from tabane.storage.opening import open_store

    settings = Settings.from_env()
    store = open_store(settings)
    try:
        emit(backups.restore(store.owner, path, force=force, login_role=settings.embedded))
    finally:
        store.close()
