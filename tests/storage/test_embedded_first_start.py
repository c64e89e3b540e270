"""The first start of a new store, killed part-way (SIGKILL to the process and its children, as
a container or OOM kill does), leaves a directory that the next start discards, never a half-made
HOME/pg that no later start can open."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from tabane.config import Settings
from tabane.errors import StoreUnavailable
from tabane.service import Tabane
from tabane.storage import embedded, opening

from helpers import unique

pytestmark = pytest.mark.slow  # first starts of the embedded PostgreSQL

OPEN = """
import sys
from pathlib import Path
from tabane.config import Settings
from tabane.service import Tabane
print("opening", flush=True)
Tabane.open(Settings(home=Path(sys.argv[1]), embedder="none", worker="off"))
print("opened", flush=True)
"""


def _reopens(home: Path) -> None:
    svc = Tabane.open(Settings(home=home, embedder="none", worker="off"))
    try:
        assert svc.local_user().name
    finally:
        svc.close()
        embedded.stop(home)


@pytest.mark.parametrize("delay", [0.4, 1.2])
def test_a_first_start_killed_part_way_leaves_a_home_the_next_start_opens(
    tmp_path: Path, delay: float
) -> None:
    home = tmp_path / "home"
    with subprocess.Popen(
        [sys.executable, "-c", OPEN, str(home)],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: initdb and the server die with it
    ) as child:
        assert child.stdout is not None and child.stdout.readline().strip() == "opening"
        time.sleep(delay)
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    made = home / "pg"
    # killed while initialising: nothing at HOME/pg yet; or after: a whole data directory
    assert not made.exists() or (made / "PG_VERSION").exists()
    _reopens(home)
    assert not (home / embedded.STAGING).exists()


def test_a_leftover_staging_directory_with_a_stale_pid_file_is_discarded(tmp_path: Path) -> None:
    home = tmp_path / "home"
    staging = home / embedded.STAGING
    (staging / "base").mkdir(parents=True)
    (staging / "PG_VERSION").write_text("18\n")
    (staging / "postmaster.pid").write_text(f"-{2**22 + 7}\n{staging}\n")  # a dead bootstrap
    _reopens(home)
    assert (home / "pg" / "PG_VERSION").exists() and not staging.exists()


@pytest.mark.parametrize("lines", [0, 5])
def test_a_pid_file_a_killed_start_left_short_does_not_stop_the_next_start(
    tmp_path: Path, lines: int
) -> None:
    """A postmaster killed while it starts leaves postmaster.pid without its last lines (the
    status comes last; the file is empty before the pid). The wheel refused to read such a file,
    so no start could open the store again (seen once in the test above, killed at 1.2 s)."""
    home = tmp_path / "home"
    _reopens(home)  # a whole store, its server stopped
    pidfile = home / "pg" / "postmaster.pid"
    assert not pidfile.exists()
    dead = str(2**22 + 7)  # above Linux's largest pid: no process has it
    written = [dead, str(home / "pg"), str(int(time.time())), "5432", "/tmp"][:lines]
    pidfile.write_text("".join(f"{line}\n" for line in written))
    _reopens(home)
    assert not pidfile.exists()  # the server it started wrote its own, and stopped


def test_a_home_pg_that_is_not_a_data_directory_is_refused_untouched(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "pg").mkdir(parents=True)
    (home / "pg" / "notes.txt").write_text("mine")
    with pytest.raises(StoreUnavailable, match="holds no PostgreSQL data directory"):
        Tabane.open(Settings(home=home, embedder="none", worker="off"))
    assert (home / "pg" / "notes.txt").read_text() == "mine"


def test_a_home_that_cannot_be_a_folder_is_store_unavailable_naming_it(tmp_path: Path) -> None:
    """TABANE_HOME at a file (or under one) is refused with the setting named, on every command
    (the CLI prints it as one error line, exit 2), never a traceback."""
    taken = tmp_path / "a-file"
    taken.write_text("not a folder")
    for home in (taken, taken / "under"):
        with pytest.raises(StoreUnavailable) as caught:
            Tabane.open(Settings(home=home, embedder="none", worker="off"))
        assert [i.path for i in caught.value.issues] == ["TABANE_HOME"]
        assert str(home) in caught.value.message
    env = {**os.environ, "TABANE_HOME": str(taken), "TABANE_EMBEDDER": "none"}
    demo = subprocess.run(
        [sys.executable, "-m", "tabane.cli.main", "demo"], env=env, capture_output=True, text=True
    )
    assert demo.returncode == 2 and "Traceback" not in demo.stderr
    assert demo.stderr.startswith("error [store_unavailable]") and "TABANE_HOME" in demo.stderr


MIGRATE_AND_DIE = """
import os, signal, sys
from pathlib import Path
import alembic.command
from tabane.config import Settings
from tabane.service import Tabane

upgrade = alembic.command.upgrade

def dying(cfg, target):  # every migration ran in the transaction; the process dies before COMMIT
    upgrade(cfg, target)
    print("migrated", flush=True)
    os.kill(os.getpid(), signal.SIGKILL)

alembic.command.upgrade = dying
Tabane.open(Settings(home=Path(sys.argv[1]), embedder="none", worker="off"))
"""


def test_a_process_killed_while_it_migrates_leaves_the_schema_as_it_was(tmp_path: Path) -> None:
    """The migrations run in one transaction: a process killed after every script ran but
    before the commit leaves no table and no version behind, and the next start migrates."""

    home = tmp_path / "home"
    run = subprocess.run(
        [sys.executable, "-c", MIGRATE_AND_DIE, str(home)], capture_output=True, text=True
    )
    assert run.returncode == -signal.SIGKILL and "migrated" in run.stdout, run.stderr
    with embedded.init_lock(home):
        engine = create_engine(embedded.url(embedded.start(home), "postgres"))
    try:
        with engine.connect() as conn:
            tables = conn.execute(
                text("select count(*) from pg_tables where schemaname = 'public'")
            ).scalar_one()
    finally:
        engine.dispose()
    assert tables == 0
    _reopens(home)


SERVER_DIES = """
import ctypes, json, os, signal, sys, time
from pathlib import Path
# Adopt orphans as an init does: the postmaster pg_ctl leaves behind is then this process's
# child, and its death is reaped here (PID 1 of some containers never reaps).
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
from tabane.config import Settings
from tabane.errors import TabaneError
from tabane.ingest.documents import DocumentInput, block
from tabane.service import Tabane

home = Path(sys.argv[1])
svc = Tabane.open(Settings(home=home, embedder="none", worker="off"))
me = svc.local_user()
svc.create_context(me, "c")
svc.ingest(me, "c", DocumentInput("a", paragraphs=[block("the kettle is descaled monthly")]))
os.kill(int((home / "pg" / "postmaster.pid").read_text().split()[0]), signal.SIGKILL)
time.sleep(0.3)
out = {}
try:
    svc.revision()  # what /health reads: it meets the dead server first
except TabaneError as exc:
    out["first"] = [exc.code, exc.status, [i.path for i in exc.issues], exc.written]
out["after"] = [s.source_id for s in svc.list_sources(me, "c").sources]
svc.ingest(me, "c", DocumentInput("b", paragraphs=[block("written after the restart")]))
out["then"] = [s.source_id for s in svc.list_sources(me, "c").sources]
print(json.dumps(out), flush=True)
svc.close()
"""


def test_a_server_killed_under_a_running_process_is_started_again(tmp_path: Path) -> None:
    """The postmaster killed (the OOM killer) under a process that holds the store: the call
    that finds it gone is `store_unavailable` (503, nothing written) and starts it again, with
    PostgreSQL's recovery from its WAL; the next call reads what was committed before."""
    import json

    home = tmp_path / "home"
    try:
        run = subprocess.run(
            [sys.executable, "-c", SERVER_DIES, str(home)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 0, run.stderr[-3000:]
        out = json.loads(run.stdout.strip().splitlines()[-1])
    finally:
        embedded.stop(home)
    assert out["first"] == [
        "store_unavailable",
        503,
        ["store"],
        "nothing, unless the server went away during the commit itself",
    ]
    assert out["after"] == ["a"] and out["then"] == ["a", "b"]


@pytest.mark.parametrize("name", ["pg", "pg.new"])
def test_a_file_where_tabanes_folders_go_is_refused_untouched(tmp_path: Path, name: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / name).write_text("not a database")
    with pytest.raises(StoreUnavailable) as caught:
        Tabane.open(Settings(home=home, embedder="none", worker="off"))
    assert [i.path for i in caught.value.issues] == ["TABANE_HOME"]
    assert (home / name).read_text() == "not a database"


def test_a_database_made_meanwhile_is_the_database_wanted(svc: Tabane) -> None:
    """A first start killed while it created the database leaves that CREATE DATABASE running
    in the server, which commits it after the next start found no database; that start's own
    CREATE then finds it made (the kill test above failed so once at 1.2 s, on the catalog's
    `pg_database_datname_index`)."""
    url = svc.store.owner.url.set(database="postgres").render_as_string(hide_password=False)
    name = unique("made")
    try:
        opening._ensure_database(url, name)
        opening._ensure_database(url, name)  # made by then: what it wanted, not an error
        with svc.store.owner.connect() as conn:
            made = text("SELECT count(*) FROM pg_database WHERE datname = :name")
            assert conn.execute(made, {"name": name}).scalar() == 1
    finally:
        engine = create_engine(url, isolation_level="AUTOCOMMIT")
        with engine.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        engine.dispose()


INGEST_WHILE_SERVER_DIES = """
import ctypes, json, os, signal, sys
from pathlib import Path
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER, as above
from tabane.config import Settings
from tabane.ingest import batch
from tabane.service import Tabane

batch.GROUP_FILES = 2  # files are stored in groups: the kill falls between the two groups
home, folder = Path(sys.argv[1]), Path(sys.argv[2])
svc = Tabane.open(Settings(home=home, embedder="none", worker="off", pg_idle_seconds=0))
me = svc.local_user()
svc.create_context(me, "c")
seen = []

def killing_after_the_second(path):
    seen.append(path)
    if len(seen) == 2:
        os.kill(int((home / "pg" / "postmaster.pid").read_text().split()[0]), signal.SIGKILL)

report = svc.ingest_paths(me, "c", [folder], progress=killing_after_the_second)
stored = [s.source_id for s in svc.list_sources(me, "c").sources]
errors = [f.error for f in report.files if f.error]
print(json.dumps({"outcomes": [f.outcome for f in report.files], "stored": len(stored)}))
print(json.dumps(errors), file=sys.stderr)
svc.close()
"""


def test_a_server_killed_during_an_ingest_is_started_again_and_the_file_retried(
    tmp_path: Path,
) -> None:
    """The postmaster killed between two groups of files of an ingest: the next group meets the
    dead server, which its failed call starts again, and is tried once more (file by file):
    every file is stored."""
    import json

    folder = tmp_path / "notes"
    folder.mkdir()
    for n in range(4):
        (folder / f"{n}.md").write_text(f"# Note {n}\n\nThe kettle was descaled on day {n}.\n")
    home = tmp_path / "home"
    try:
        run = subprocess.run(
            [sys.executable, "-c", INGEST_WHILE_SERVER_DIES, str(home), str(folder)],
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert run.returncode == 0, run.stderr[-3000:]
        out = json.loads(run.stdout.strip().splitlines()[-1])
    finally:
        embedded.stop(home)
    assert out == {"outcomes": ["created"] * 4, "stored": 4}, run.stderr[-3000:]
