"""`tabane backup` and `tabane restore` through the CLI: a store moved whole into another home,
and each refusal as `error [code]` with exit status 2."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tabane.storage import embedded, migrate

pytestmark = pytest.mark.slow  # backups restored into another home, as processes

Cli = Callable[..., tuple[int, Any, str]]


@pytest.fixture
def other_home() -> Iterator[Path]:
    home = Path(tempfile.mkdtemp(prefix="tabane-restore-"))
    yield home
    embedded.stop(home)
    shutil.rmtree(home, ignore_errors=True)


def test_backup_then_restore_into_another_home(
    cli: Cli, context: str, other_home: Path, tmp_path: Path
) -> None:
    dump = tmp_path / "all.dump"
    code, made, err = cli("backup", str(dump))
    assert code == 0, err
    assert made["revision"] == migrate.HEAD and made["bytes"] == dump.stat().st_size
    code, done, err = cli("restore", str(dump), TABANE_HOME=str(other_home))
    assert code == 0, err
    assert done["backup_revision"] == migrate.HEAD and done["tables"] > 30
    code, shown, err = cli("contexts", "show", context, TABANE_HOME=str(other_home))
    assert code == 0, err
    assert shown["name"] == context

    code, _, err = cli("restore", str(dump), TABANE_HOME=str(other_home))
    assert code == 2 and "error [store_not_empty]" in err and "--force" in err
    code, _, err = cli("restore", str(dump), "--force", TABANE_HOME=str(other_home))
    assert code == 0, err


def test_restore_of_a_file_that_is_no_backup(cli: Cli, other_home: Path, tmp_path: Path) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("hello")
    home = str(other_home)
    code, _, err = cli("restore", str(junk), "--force", TABANE_HOME=home)
    assert code == 2 and "error [backup_unreadable]" in err
    code, _, err = cli("restore", str(tmp_path / "missing.dump"), TABANE_HOME=home)
    assert code == 2 and "error [invalid_input]" in err
