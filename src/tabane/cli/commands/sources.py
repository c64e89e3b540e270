"""`tabane ingest`, `tabane sync` and `tabane sources …`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tabane.cli.common import emit, finish_jobs, handled, named_as, service
from tabane.cli.progress import bar

if TYPE_CHECKING:
    from tabane.ingest.files import IngestReport, Labels
    from tabane.principal import Principal
    from tabane.service import Tabane

sources_app = typer.Typer(
    help="Stored sources: list, look up, cite, retract.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
Opt = typer.Option
Wait = Annotated[
    bool, Opt("--wait/--no-wait", help="wait until the new paragraphs are embedded (default)")
]
Area = Annotated[
    str | None, Opt(help="area of every file stored (default: its front matter's `area`)")
]
State = Annotated[
    str | None,
    Opt(help="state of every file stored: active, waiting, someday, done or archived "
        "(default: its front matter's; none stated, no project)"),
]  # fmt: skip
Tag = Annotated[
    list[str] | None, Opt("--tag", help="tag of every file stored (repeat; default: its own)")
]
# The labels' fields as the options (an issue names what you typed).
LABEL_OPTIONS = {"area": "--area", "state": "--state", "tags": "--tag"}


def _labels(area: str | None, state: str | None, tags: list[str] | None) -> Labels:
    from tabane.ingest.files import Labels

    return Labels(area, state, tuple(tags) if tags else None)


def _wait_for_embeddings(svc: Tabane, context: str, paragraphs: int) -> None:
    """Run the context's queued embedding jobs here, with a progress bar (one job embeds one
    source's new paragraphs), so that the vector lane answers as soon as the command ends.
    Nothing to wait for without an embedder."""
    if svc.embedder is None:
        return
    from tabane.cli.progress import bar
    from tabane.jobs.queue import EMBED_SOURCE

    with bar(f"embedding {paragraphs} paragraph(s)", "sources") as shown:
        most = 0

        def progress(left: int) -> None:
            nonlocal most
            most = max(most, left)
            shown.reach(most - left, most)

        finish_jobs(svc, (EMBED_SOURCE,), (context,), progress)  # its own paragraphs' only


def _summary(report: IngestReport) -> None:
    emit(
        {
            "counts": report.counts(),
            "paragraphs": report.paragraphs,
            "errors": [
                {"path": f.path, "error": f.error} for f in report.files if f.outcome == "error"
            ],
            "warnings": [
                {"path": f.path, "field": w.path, "problem": w.problem}
                for f in report.files
                for w in f.warnings
            ],
        },
        kind="ingest",
    )
    if report.failed:
        raise typer.Exit(1)


@handled
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="files or folders")],
    context: Annotated[str, Opt("--context", "-c", help="context to store into")],
    scope: Annotated[list[str] | None, Opt("--scope", help="scope (repeat for a set)")] = None,
    area: Area = None,
    state: State = None,
    tag: Tag = None,
    wait: Wait = True,
) -> None:
    """Ingest files (folders are walked) into an existing context (`tabane contexts create`
    first). Each file's source id is its path as typed (`notes/a.md`, or `/home/me/notes/a.md`):
    ingest from the same directory each time, or use `tabane sync`, whose ids are relative to the
    folder. --area, --state and --tag label every file (over its front matter's).
    Example: tabane ingest notes/*.md --context notes --area Work --state active"""
    with named_as(LABEL_OPTIONS), service() as (svc, user):
        with bar("ingest", "files") as shown:
            report = svc.ingest_paths(
                user,
                context,
                paths,
                scopes=scope or None,
                labels=_labels(area, state, tag),
                progress=shown.step,
                planned=shown.plan,
            )
        if wait:
            _wait_for_embeddings(svc, context, report.paragraphs)
        _summary(report)


@handled
def sync(
    folder: Path,
    context: Annotated[str, Opt("--context", "-c")],
    block: Annotated[list[str] | None, Opt("--block", help="glob to skip (repeat)")] = None,
    scope: Annotated[list[str] | None, Opt("--scope")] = None,
    area: Area = None,
    state: State = None,
    tag: Tag = None,
    wait: Wait = True,
    watch: Annotated[
        bool, Opt("--watch", help="keep syncing after each change until Ctrl-C or SIGTERM")
    ] = False,
    poll: Annotated[
        bool, Opt("--poll", help="with --watch: look every --every seconds (no inotify)")
    ] = False,
    debounce: Annotated[
        float, Opt(help="with --watch: seconds of quiet before a sync, and at least between two")
    ] = 1.0,
    every: Annotated[float, Opt(help="with --watch --poll: seconds between two looks")] = 2.0,
) -> None:
    """Keep a context in step with a folder; --area, --state and --tag label every file (over
    its front matter's). With --watch, sync again after each change (inotify when the `watch`
    extra is installed, else polling) until Ctrl-C or SIGTERM.
    Example: tabane sync ~/desk --context desk --area Desk --watch"""
    from tabane.ingest.files import DEFAULT_BLOCKLIST

    blocklist = (*DEFAULT_BLOCKLIST, *(block or []))
    with named_as(LABEL_OPTIONS), service() as (svc, user):
        if watch:
            _watch(svc, user, folder, context, blocklist, scope, _labels(area, state, tag),
                   wait=wait, rules=(debounce, every, "poll" if poll else "auto"))  # fmt: skip
            return
        with bar("sync", "files") as shown:
            report = svc.sync(
                user,
                context,
                folder,
                blocklist=blocklist,
                scopes=scope or None,
                labels=_labels(area, state, tag),
                progress=shown.step,
                planned=shown.plan,
            )
        if wait:
            _wait_for_embeddings(svc, context, report.paragraphs)
        _summary(report)


def _watch(
    svc: Tabane,
    user: Principal,
    folder: Path,
    context: str,
    blocklist: tuple[str, ...],
    scope: list[str] | None,
    labels: Labels,
    *,
    wait: bool,
    rules: tuple[float, float, str],
) -> None:
    """`sync --watch`: a summary per sync, a line per failed one, until SIGINT or SIGTERM."""
    import signal
    import threading

    from tabane.ingest.watch import WatchRules

    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda _sig, _frame: stop.set())

    def done(report: IngestReport) -> None:
        if wait:
            _wait_for_embeddings(svc, context, report.paragraphs)
        _summary(report)

    def failed(error: Exception) -> None:
        typer.echo(f"sync failed, still watching: {error}", err=True)

    debounce, every, mode = rules
    rounds = svc.watch(
        user, context, folder, stop=stop, rules=WatchRules(debounce, every, mode),
        blocklist=blocklist, scopes=scope or None, labels=labels, on_round=done,
        on_error=failed,
    )  # fmt: skip
    typer.echo(f"watch stopped after {rounds} sync(s)", err=True)


@sources_app.command("list")
@handled
def sources_list(
    context: Annotated[str, Opt("--context", "-c")],
    limit: Annotated[int, Opt()] = 100,
    after: Annotated[str | None, Opt(help="continue after this source id")] = None,
) -> None:
    """List a context's sources.  Example: tabane sources list --context notes"""
    with service() as (svc, user):
        emit(svc.list_sources(user, context, limit=limit, after=after))


@sources_app.command("lookup")
@handled
def sources_lookup(source_id: str, context: Annotated[str, Opt("--context", "-c")]) -> None:
    """Show a source and its paragraphs.  Example: tabane sources lookup a.md --context notes"""
    with service() as (svc, user):
        info, paragraphs = svc.lookup(user, context, source_id)
        emit({"source": info, "paragraphs": paragraphs})


@sources_app.command("cite")
@handled
def sources_cite(
    source_id: str, paragraph: int, context: Annotated[str, Opt("--context", "-c")]
) -> None:
    """Cite one paragraph.  Example: tabane sources cite a.md 0 --context notes"""
    with service() as (svc, user):
        emit(svc.cite(user, context, source_id, paragraph))


@sources_app.command("retract")
@handled
def sources_retract(
    source_id: str,
    context: Annotated[str, Opt("--context", "-c")],
    dry_run: Annotated[bool, Opt("--dry-run", help="only report what would go")] = False,
) -> None:
    """Retract a source.  Example: tabane sources retract a.md --context notes --dry-run"""
    with service() as (svc, user):
        emit(svc.retract(user, context, source_id, dry_run=dry_run))


@sources_app.command("refresh-embeddings")
@handled
def sources_refresh_embeddings(context: Annotated[str, Opt("--context", "-c")]) -> None:
    """Queue re-embedding of a context's sources (paragraphs lacking a vector of the configured
    model; the worker embeds them).  Example: tabane sources refresh-embeddings --context notes"""
    with service() as (svc, user):
        emit(svc.refresh_embeddings(user, context))
