"""The `tabane` command: a thin shell over the service facade."""

from __future__ import annotations

import atexit
import os
import socket
import sys
import time
from typing import Annotated, Any

import typer

from tabane.cli import shape
from tabane.cli.commands import (
    archive,
    backup,
    derive,
    jobs,
    memory,
    search,
    sources,
)
from tabane.cli.commands import (
    graph_read as graph_reads,
)
from tabane.cli.commands import (
    graph_write as graph,
)
from tabane.cli.commands import recall as recall_cli
from tabane.cli.commands import resolve as resolve_cli
from tabane.cli.commands import schema as schema_cli
from tabane.cli.commands.contexts import contexts_app, groups_app
from tabane.cli.commands.evaluate import eval_app
from tabane.cli.commands.keys import keys_app
from tabane.cli.commands.users import scopes_app, users_app
from tabane.cli.common import emit, exit_on_sigterm, handled, service
from tabane.config import AUTH_MODES, Settings
from tabane.errors import InvalidInput, Issue

app = typer.Typer(
    help="tabane: grounded memory for LLM agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: rich's formatter alone cost 60 ms of every `--help`
)
app.add_typer(users_app, name="users")
app.add_typer(scopes_app, name="scopes")
app.add_typer(keys_app, name="keys")
app.add_typer(contexts_app, name="contexts")
app.add_typer(groups_app, name="groups")
app.add_typer(sources.sources_app, name="sources")
app.add_typer(graph.associations_app, name="associations")
app.add_typer(graph.aliases_app, name="aliases")
app.add_typer(memory.sessions_app, name="sessions")
app.command("remember")(memory.remember)
app.command("memories")(memory.memories)
app.add_typer(eval_app, name="eval")
app.command("ingest")(sources.ingest)
app.command("sync")(sources.sync)
app.command("search")(search.search)
app.command("catalog")(search.catalog)
app.command("recall")(recall_cli.recall)
app.command("presets")(recall_cli.presets)
app.command("verify")(recall_cli.verify)
app.command("jobs")(jobs.jobs)
app.command("worker")(jobs.worker)
graph_reads.register(app)
app.add_typer(resolve_cli.resolve_app, name="resolve")
app.command("audit")(resolve_cli.audit)
app.add_typer(schema_cli.schema_app, name="schema")
app.command("consolidation")(schema_cli.consolidation)
app.command("drift")(schema_cli.drift)
app.command("derive")(derive.derive)
app.command("export")(archive.export)
app.command("import")(archive.import_)
groups_app.command("export")(archive.group_export)
groups_app.command("import")(archive.group_import)
app.command("backup")(backup.backup)
app.command("restore")(backup.restore)


@app.command()
@handled
def demo() -> None:
    """Start the embedded store, ingest the sample corpus and show it.  Example: tabane demo"""
    from tabane.cli.commands import demo as demo_mod

    started = time.monotonic()
    with service() as (svc, user):
        demo_mod.run(svc, user, typer.echo, started)


@app.command()
@handled
def migrate() -> None:
    """Apply the database migrations.  Example: tabane migrate"""
    from tabane.storage import migrate as migrations

    with service() as (svc, _):
        emit({"revision": migrations.current(svc.store.owner), "head": migrations.head()}, "fields")


SyncFolders = Annotated[
    list[str] | None,
    typer.Option("--sync", help="FOLDER=CONTEXT kept in step while serving (repeat)"),
]
SyncEvery = Annotated[float, typer.Option(help="seconds between two looks at a --sync folder")]

# Seconds SIGTERM or Ctrl-C gives the requests in flight before they are cancelled; closing the
# store after them (the worker's job released, the pools closed) keeps the whole exit under 5 s.
SHUTDOWN_GRACE = 2


@app.command()
@handled
def serve(
    host: Annotated[str | None, typer.Option(help="address to bind (default 127.0.0.1)")] = None,
    port: Annotated[int | None, typer.Option(help="port (default 8477)")] = None,
    auth: Annotated[
        str | None,
        typer.Option(
            help="`none` (loopback only), `keys`, `oidc` or `keys+oidc` (default TABANE_AUTH)"
        ),
    ] = None,
    reuse_port: Annotated[
        bool,
        typer.Option(
            "--reuse-port",
            help="share the port with other `tabane serve --reuse-port` processes "
            "(SO_REUSEPORT: the kernel spreads connections over them)",
        ),
    ] = False,
    sync: SyncFolders = None,
    sync_every: SyncEvery = 300.0,
) -> None:
    """Serve HTTP (and MCP at /mcp). With `--auth keys` every request needs an API key, with
    `--auth oidc` a JWT of the configured issuer (TABANE_OIDC_*), with `keys+oidc` either;
    without authentication only a loopback address may be bound.
    With `--reuse-port`, several processes serve one port (docs/deploy.md); with `--sync`, a
    folder is polled and synced into its context as the local user.
    Example: tabane serve --host 0.0.0.0 --auth keys"""
    from tabane.api.app import create_app
    from tabane.api.auth import resolver_for
    from tabane.api.logs import log_config
    from tabane.cli import synced
    from tabane.service import Tabane

    settings = Settings.from_env()
    bind = host or settings.host
    mode = auth or settings.auth
    loopback = is_loopback(bind)
    check_serving(bind, mode)
    port = settings.port if port is None else port
    check_bind(bind, port, reuse_port)  # before the store is opened
    folders = synced.parse(sync or [])
    security = _security(bind) if loopback else None
    exit_on_sigterm()
    with Tabane.open(settings) as svc:
        resolver = resolver_for(svc, mode, settings)
        app_ = create_app(svc, resolver, mcp_security=security, local_only=mode == "none")
        if settings.tracing == "otel":
            from tabane.api import tracing

            tracing.exporting_provider()
            tracing.instrument(app_, svc)
        with synced.keep_synced(svc, folders, sync_every):
            _run(app_, bind, port, log_config(settings.log_format), reuse_port)


def _security(bind: str) -> Any:
    """MCP's DNS rebinding protection for a loopback bind: its own names only."""
    from mcp.server.transport_security import TransportSecuritySettings

    names = sorted({"127.0.0.1", "localhost", "[::1]", bind if ":" not in bind else f"[{bind}]"})
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{n}:*" for n in names],
        allowed_origins=[f"http://{n}:*" for n in names],
    )


def _run(app_: Any, bind: str, port: int, logging: Any, reuse_port: bool) -> None:
    """uvicorn over `app_`, on a socket shared with other processes when `reuse_port`."""
    import uvicorn

    config = uvicorn.Config(
        app_,
        host=bind,
        port=port,
        log_level="info",
        log_config=logging,
        access_log=False,  # api/observe.py logs each request, with its id and route template
        timeout_graceful_shutdown=SHUTDOWN_GRACE,
    )
    sockets = [_listener(bind, port)] if reuse_port else None
    uvicorn.Server(config).run(sockets=sockets)


def _listener(host: str, port: int) -> socket.socket:
    """A listening socket on `host:port` with SO_REUSEPORT, which other processes may share."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host.strip("[]"), port, type=socket.SOCK_STREAM
    )[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(address)
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def is_loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, port: int, reuse_port: bool = False) -> None:
    """`--port` in 1..65535, and the address free to bind now: a port in use or a host name
    that does not resolve is an error naming the option, not uvicorn's log line after the
    store was opened."""
    if not 1 <= port <= 65535:
        raise InvalidInput("invalid port", issues=[Issue("--port", f"{port} not in 1..65535")])
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM)
        family, kind, proto, _, address = infos[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if reuse_port:  # a port other `--reuse-port` processes serve is free to share
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            probe.bind(address)
    except socket.gaierror as exc:
        raise InvalidInput(
            f"cannot resolve {host!r}", issues=[Issue("--host", exc.strerror or str(exc))]
        ) from None
    except OSError as exc:
        raise InvalidInput(
            f"cannot listen on {host}:{port}",
            issues=[Issue("--port", exc.strerror or str(exc))],
        ) from None


def check_serving(host: str, auth: str) -> None:
    """Refuse an unknown auth mode, and a non-loopback bind without authentication."""
    if auth not in AUTH_MODES:
        raise InvalidInput(
            "--auth must be none, keys, oidc or keys+oidc", issues=[Issue("auth", repr(auth))]
        )
    if auth == "none" and not is_loopback(host):
        raise InvalidInput(
            f"refusing to serve {host} without authentication: bind a loopback address or "
            "set TABANE_AUTH=keys (or --auth keys) and create keys with `tabane keys create`, "
            "or configure OIDC (TABANE_AUTH=oidc and TABANE_OIDC_*)",
            issues=[Issue("host", "not loopback"), Issue("TABANE_AUTH", "none")],
        )


@app.command()
@handled
def mcp() -> None:
    """Serve MCP over stdio for a local LLM client.  Example: tabane mcp"""
    from tabane.mcp.server import run_stdio
    from tabane.service import Tabane

    exit_on_sigterm()
    try:
        with Tabane.open(Settings.from_env()) as svc:
            run_stdio(svc, svc.local_user())
    except (SystemExit, KeyboardInterrupt) as stop:
        # SIGTERM or Ctrl-C: the store is closed. The transport's stdin reader is a thread
        # blocked in a read nothing can interrupt, and the interpreter would wait for it forever
        # before running the exit handlers (the embedded PostgreSQL's among them): run them, go.
        code = stop.code if isinstance(stop, SystemExit) else 130
        atexit._run_exitfuncs()
        os._exit(code if isinstance(code, int) else 0)


# Every command above gets `--json` and the tidy help (cli/shape.py): last, once all are in.
shape.finish(app)


def main() -> None:
    """The `tabane` command (the console script). A search or recall is answered by the home's
    resident process when one runs (cli/resident.py: the store open, the model loaded), else
    here, and then a resident is started for the next one."""
    from tabane.cli import resident

    argv = sys.argv[1:]
    target = resident.target(argv)
    answered = resident.forward(target, argv) if target is not None else None
    if answered is not None:
        sys.exit(answered)
    code = run(argv)
    if target is not None:
        resident.start_for(target)
    sys.exit(code)


def run(argv: list[str]) -> int:
    """Run one command in this process; its exit code. Typer's app, with the option and argument
    errors its parser finds (`--budget abc`, an unknown option) in the one error format of every
    other CLI error — `error [invalid_input]: …`, exit 2 — not a boxed usage message."""
    command = typer.main.get_command(app)
    try:
        code = command.main(args=argv, prog_name="tabane", standalone_mode=False)
    except _PARSER_ERROR as caught:
        exc: Any = caught  # click's ClickException: message, exit code (a usage error: context)
        if type(exc).__name__ == "NoArgsIsHelpError":  # `tabane` alone: its help
            exc.show()
        else:
            typer.echo(f"error [invalid_input]: {exc.format_message()}", err=True)
            if getattr(exc, "ctx", None) is not None:
                typer.echo(f"  see: {exc.ctx.command_path} --help", err=True)
        return int(exc.exit_code)
    except typer.Abort:  # a confirmation answered no (Typer returns Ctrl-C as 130 itself)
        typer.echo("aborted", err=True)
        return 1
    except SystemExit as stop:  # a command's own exit (`handled`: 2 on a tabane error)
        return stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    return code if isinstance(code, int) else 0


# The parser's errors (a usage error, an unreadable file argument): Typer ships its own click
# and exports only a subclass of their base.
_PARSER_ERROR: type[Exception] = next(
    c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException"
)


if __name__ == "__main__":  # pragma: no cover
    main()
