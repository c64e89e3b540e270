"""`tabane remember`, `tabane memories` and `tabane sessions …`: remembered notes and working
memory. An issue names the option you typed (`--valid-from`), not the request's field."""

from __future__ import annotations

from typing import Annotated

import typer

from tabane.cli.common import emit, finish_jobs, graph_jobs, handled, named_as, service

sessions_app = typer.Typer(
    help="Your conversation sessions: append turns, read working memory.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
Opt = typer.Option
Arg = typer.Argument
Scope = Annotated[list[str] | None, Opt("--scope", help="scope (repeat for a set)")]

# Each field a note takes, as the option that gives it (the wire's `text` is the argument).
NOTE_OPTIONS = {
    "in_reply_to": "--in-reply-to",
    "valid_from": "--valid-from",
    "valid_until": "--valid-until",
    "perspective": "--perspective",
    "paragraph": "--paragraph",
    "speaker": "--speaker",
    "subject": "--subject",
    "closes": "--closes",
    "object": "--object",
    "source": "--source",
    "weight": "--weight",
    "scopes": "--scope",
    "label": "--label",
    "kind": "--kind",
    "role": "--role",
    "text": "TEXT",
}
TURN_OPTIONS = {
    "speaker": "--speaker",
    "session": "SESSION",
    "scopes": "--scope",
    "hours": "--hours",
    "last": "--last",
    "role": "--role",
    "text": "TEXT",
    "at": "--at",
}


@handled
def remember(
    context: Annotated[str, Arg(help="the context to remember it in")],
    text: Annotated[str, Arg(help="the note, in the speaker's words")],
    speaker: Annotated[str | None, Opt(help="who said it (default: you)")] = None,
    kind: Annotated[
        str, Opt(help="world, experience, observation (default), opinion or preference")
    ] = "observation",
    in_reply_to: Annotated[
        str | None, Opt(help="what it answers (the turn before it): embedded with it")
    ] = None,
    subject: Annotated[str | None, Opt(help="optional triple: subject")] = None,
    label: Annotated[str | None, Opt(help="optional triple: label")] = None,
    obj: Annotated[str | None, Opt("--object", help="optional triple: object")] = None,
    weight: Annotated[float | None, Opt(help="the triple's weight (negative: not)")] = None,
    role: Annotated[str | None, Opt(help="the speaker's role, as you name it")] = None,
    perspective: Annotated[
        str | None, Opt(help="whose view a personal note is (default: the speaker's)")
    ] = None,
    source: Annotated[str | None, Opt(help="where it comes from: a source_id or a label")] = None,
    paragraph: Annotated[int | None, Opt(help="the source's paragraph it is attributed to")] = None,
    valid_from: Annotated[str | None, Opt(help="ISO 8601: when it starts to hold")] = None,
    valid_until: Annotated[str | None, Opt(help="ISO 8601: when it stops holding")] = None,
    closes: Annotated[list[int] | None, Opt(help="id of a note this corrects (repeat)")] = None,
    scope: Scope = None,
) -> None:
    """Remember a note with its speaker's perspective; prints its id.
    Example: tabane remember family "I moved to Montana." --speaker Hannah --kind experience"""
    from tabane.wire.base import built
    from tabane.wire.memory import MemoryIn, MemoryWritten

    with named_as(NOTE_OPTIONS):
        note = built(
            MemoryIn, context=context, text=text, kind=kind, in_reply_to=in_reply_to,
            subject=subject, label=label, object=obj, weight=weight, role=role,
            perspective=perspective, source=source, paragraph=paragraph, valid_from=valid_from,
            valid_until=valid_until, closes=closes,
        )  # fmt: skip
    with service() as (svc, user), named_as(NOTE_OPTIONS):
        claim = svc.remember(user, context, note.fields(), speaker=speaker, scopes=scope)
        emit(MemoryWritten(claim), said=f"remembered note {claim} in {context}")
        finish_jobs(svc, graph_jobs(), (context,))


@handled
def memories(
    context: Annotated[str, Arg(help="the context whose notes to list")],
    author: Annotated[str | None, Opt(help="only this speaker's notes")] = None,
    include_closed: Annotated[
        bool, Opt("--include-closed", help="also the notes a correction closed")
    ] = False,
    limit: Annotated[int, Opt(help="notes per page (1..200)")] = 50,
    after: Annotated[int | None, Opt(help="`next_after` of the previous page")] = None,
) -> None:
    """List a context's remembered notes you can see, newest first.
    Example: tabane memories family --author Hannah --include-closed"""
    options = {"author": "--author", "limit": "--limit", "after": "--after"}
    with service() as (svc, user), named_as(options):
        page = svc.memories(
            user, context, author=author, include_closed=include_closed, limit=limit, after=after
        )
        emit(page)


@sessions_app.command("add")
@handled
def add(
    session: Annotated[str, Arg(help="your session's name (opened on first use)")],
    text: Annotated[str, Arg(help="what was said")],
    speaker: Annotated[str | None, Opt(help="who said it (default: you)")] = None,
    role: Annotated[str, Opt(help="user, assistant, system or tool")] = "user",
    at: Annotated[str | None, Opt(help="ISO 8601: when it was said (default: now)")] = None,
    scope: Scope = None,
) -> None:
    """Append a turn to a session; `--scope` opens a new session under those scopes (default:
    yours). Example: tabane sessions add trip "Greetings from the canyon!" --speaker Hannah"""
    from tabane.wire.base import built
    from tabane.wire.memory import TurnIn

    with service() as (svc, user), named_as(TURN_OPTIONS):
        turn = built(TurnIn, text=text, speaker=speaker, role=role, at=at, scopes=scope)
        added = svc.add_turn(user, session, text, **turn.options())
        emit(added, said=f"added turn {added.seq} to session {added.session}")
        from tabane.jobs.queue import EMBED_TURNS

        finish_jobs(svc, (EMBED_TURNS,))


@sessions_app.command("show")
@handled
def show(
    session: Annotated[str, Arg(help="your session's name")],
    last: Annotated[int | None, Opt(help="turns to show (default: TABANE_SESSION_TURNS)")] = None,
    hours: Annotated[float | None, Opt(help="only turns this recent")] = None,
) -> None:
    """Print a session's working memory, oldest turn first.
    Example: tabane sessions show trip --last 10"""
    from tabane.wire.memory import TurnList

    with service() as (svc, user), named_as(TURN_OPTIONS):
        emit(TurnList(list(svc.turns(user, session, last=last, hours=hours))))


@sessions_app.command("list")
@handled
def list_() -> None:
    """List your sessions, most recently used first.
    Example: tabane sessions list"""
    from tabane.wire.memory import SessionList

    with service() as (svc, user):
        emit(SessionList(list(svc.list_sessions(user))))


@sessions_app.command("delete")
@handled
def delete(session: Annotated[str, Arg(help="your session's name")]) -> None:
    """Delete a session with all its turns.
    Example: tabane sessions delete trip"""
    from tabane.wire.memory import SessionDeleted

    with service() as (svc, user), named_as(TURN_OPTIONS):
        turns = svc.delete_session(user, session)
        from tabane.memory.sessions import check_session_name

        name = check_session_name(session)
        emit(SessionDeleted(name, turns), said=f"deleted session {name} ({turns} turn(s))")
