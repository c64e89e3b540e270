"""Backup and restore of a whole store: every table of the database (contexts, sources, paragraphs
and their vectors, claims, sessions, groups, users, grants, keys, jobs, traces) in one file.

A backup is `pg_dump --format=custom --compress=1` of the owner's database, run with the embedded
wheel's own client programs: one REPEATABLE READ snapshot, so a store that is being written while
it runs is backed up as it stood at one instant, and nothing waits on it (docs/decisions/0017:
chosen over pg_basebackup and pg_dump's other formats and levels by bench/backup_formats.py —
smaller, portable to any PostgreSQL ≥ 15 with pgvector, restorable into a running store); it
leaves out the shared rate limits' schema (`tabane_limits`, state of a few seconds). Restore
refuses a store that holds data (`store_not_empty`) unless forced, and a backup from a newer
migration head than this tabane knows (`backup_too_new`); it empties the schema, loads the file in
one transaction, migrates an older backup up to the head, and analyzes. The owner must be able to
read past row-level security (a superuser, as the embedded store's owner is, or a role with
BYPASSRLS): pg_dump refuses a table whose policies would hide rows from it.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine, text

from tabane.errors import (
    BackupTooNew,
    BackupUnreadable,
    InvalidInput,
    Issue,
    StoreNotEmpty,
    StoreUnavailable,
    TabaneError,
)
from tabane.storage import migrate, shared_limits
from tabane.storage.pg_programs import bin_dir

# Tables a first command fills in a store that holds nothing yet: its local user, the scopes
# `public` and `user:<name>`, and that user's grants (plus the migration's own row).
_FIRST_ROWS = frozenset({"alembic_version", "users", "scopes", "grants"})
# gzip level 1: a fifth to a quarter of level 6's time for a fifth more bytes (vectors are most of
# a store and compress little; bench/backup_formats.py, docs/decisions/0017).
COMPRESS = 1
DUMP_SECONDS = 3600.0  # a client program running longer than this is stopped (StoreUnavailable)
_COPY = re.compile(r"^COPY public\.alembic_version \(version_num\) FROM stdin;$", re.MULTILINE)


@dataclass(frozen=True)
class Backup:
    path: str
    bytes: int
    seconds: float
    revision: str | None


@dataclass(frozen=True)
class Restored:
    path: str
    backup_revision: str
    revision: str | None
    tables: int
    seconds: float


def backup(owner: Engine, path: Path) -> Backup:
    """Write the owner's whole database to `path` (replaced whole: a failed backup leaves the
    file that was there, if any, and no partial one)."""
    started = time.monotonic()
    partial = path.with_name(f".{path.name}.partial")
    revision = migrate.current(owner)
    try:
        dump = ["pg_dump", "--format=custom", f"--compress={COMPRESS}", f"--file={partial}"]
        # the shared rate limits' buckets are seconds of state, not the store's (shared_limits)
        _client(owner, [*dump, f"--exclude-schema={shared_limits.SCHEMA}"])
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)
    return Backup(str(path), path.stat().st_size, time.monotonic() - started, revision)


def revision_of(owner: Engine, path: Path) -> str:
    """The migration revision a backup was taken at (its `alembic_version` row)."""
    if not path.is_file():
        raise InvalidInput("no such backup file", issues=[Issue("path", str(path))])
    data = _client(owner, ["pg_restore", "--data-only", "--table=alembic_version", "--file=-",
                           str(path)], unreadable=path)  # fmt: skip
    found = _COPY.search(data)
    rows = data[found.end() :].lstrip("\n").split("\n", 1) if found else []
    if not rows or not rows[0].strip() or rows[0].startswith("\\."):
        raise BackupUnreadable(
            "not a tabane backup: it holds no migration revision",
            issues=[Issue("path", "no alembic_version row")],
        )
    return rows[0].strip()


def holdings(owner: Engine) -> dict[str, int]:
    """Rows per table that make a store hold data: every table a first command leaves empty,
    and users past the one local user (read from the catalog, so a new table counts too)."""
    with owner.connect() as conn:
        tables = conn.scalars(text(_TABLES)).all()
        counts = {t: int(conn.scalar(text(f'SELECT count(*) FROM public."{t}"')) or 0)
                  for t in tables}  # fmt: skip
    held = {t: n for t, n in counts.items() if n and t not in _FIRST_ROWS}
    if counts.get("users", 0) > 1:
        held["users"] = counts["users"]
    return held


def restore(owner: Engine, path: Path, *, force: bool = False, login_role: bool) -> Restored:
    """Replace the owner's database with the backup at `path` (see the module's docstring)."""
    started = time.monotonic()
    revision = revision_of(owner, path)
    if not revision.isdigit() or not migrate.HEAD.isdigit() or int(revision) > int(migrate.HEAD):
        raise BackupTooNew(
            f"the backup is at migration {revision}, newer than this tabane's {migrate.HEAD}: "
            "restore it with the tabane that wrote it, or upgrade tabane",
            issues=[Issue("path", f"revision {revision} > head {migrate.HEAD}")],
        )
    held = holdings(owner)
    if held and not force:
        raise StoreNotEmpty(
            "the store holds data; restoring replaces all of it (--force to do so)",
            issues=[Issue(f"table.{t}", f"{n} rows") for t, n in sorted(held.items())],
        )
    _empty(owner)
    try:
        _client(owner, ["pg_restore", "--no-owner", "--single-transaction", "--exit-on-error",
                        "--dbname", _dbname(owner), str(path)])  # fmt: skip
    except TabaneError as exc:
        exc.written = "the store was emptied, then the load failed: it holds nothing now"
        raise
    owner.dispose()  # connections that cached the dropped schema's plans and types
    migrate.upgrade(owner, login_role=login_role)
    with owner.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("ANALYZE"))
        tables = len(conn.scalars(text(_TABLES)).all())
    return Restored(str(path), revision, migrate.current(owner), tables,
                    time.monotonic() - started)  # fmt: skip


_TABLES = """SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY 1"""


def _empty(owner: Engine) -> None:
    """Drop everything in the schema (tables, functions, the vector extension) and make it
    anew as PostgreSQL makes it: owned by the database's owner, usable by every role."""
    with owner.begin() as conn:
        conn.execute(text("SET LOCAL lock_timeout = '10s'"))
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public AUTHORIZATION pg_database_owner"))
        conn.execute(text("GRANT USAGE ON SCHEMA public TO PUBLIC"))


def _dbname(owner: Engine) -> str:
    return str(owner.url.database or "")


def _environment(owner: Engine) -> dict[str, str]:
    """libpq's variables for the owner's connection (a password never goes on a command line)."""
    url = owner.url
    env = dict(os.environ)
    host = url.query.get("host") or url.host
    values = {
        "PGHOST": host if isinstance(host, str) else None,
        "PGPORT": str(url.port) if url.port else None,
        "PGUSER": url.username,
        "PGPASSWORD": url.password,
        "PGDATABASE": url.database,
        "PGCONNECT_TIMEOUT": "10",
    }
    env.update({k: str(v) for k, v in values.items() if v})
    return env


def _client(owner: Engine, argv: list[str], *, unreadable: Path | None = None) -> str:
    """Run one of the wheel's client programs against the owner's database; its stdout. A
    client needs no account of its own (only the server refuses root), so it is started
    directly, without `fork()` (storage/pg_programs.py)."""
    program = str(bin_dir() / argv[0])
    try:
        done = subprocess.run(
            [program, *argv[1:]],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            env=_environment(owner),
            timeout=DUMP_SECONDS,
        )
    except subprocess.TimeoutExpired:
        raise StoreUnavailable(f"{argv[0]} did not finish in {DUMP_SECONDS:.0f}s") from None
    stderr = done.stderr.decode("utf-8", "replace").strip()
    if done.returncode != 0:
        if unreadable is not None:  # reading the file alone (no database): the file is at fault
            raise BackupUnreadable(
                "not a backup tabane can read (a pg_dump custom-format file)",
                issues=[Issue("path", stderr.splitlines()[0] if stderr else str(unreadable))],
            )
        raise StoreUnavailable(
            f"{argv[0]} failed: {stderr.splitlines()[-1] if stderr else done.returncode}",
            issues=[Issue(argv[0], line) for line in stderr.splitlines()[:5]],
        )
    return done.stdout.decode("utf-8", "replace")
