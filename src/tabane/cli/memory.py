"""`tabane remember` and `tabane sessions …`: remembered notes and working memory."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from tabane.cli.common import emit, handled, service
from tabane.types import parse_date

sessions_app = typer.Typer(
    help="Your conversation sessions: append turns, read working memory.", no_args_is_help=True
)
Opt = typer.Option
Arg = typer.Argument


@handled
def remember(
    context: Annotated[str, Arg(help="the context to remember it in")],
    text: Annotated[str, Arg(help="the note, in the speaker's words")],
    speaker: Annotated[str | None, Opt(help="who said it (default: you)")] = None,
    kind: Annotated[
        str, Opt(help="world, experience, observation (default), opinion or preference")
    ] = "observation",
    subject: Annotated[str | None, Opt(help="optional triple: subject")] = None,
    label: Annotated[str | None, Opt(help="optional triple: label")] = None,
    obj: Annotated[str | None, Opt("--object", help="optional triple: object")] = None,
    weight: Annotated[float | None, Opt(help="the triple's weight (negative: not)")] = None,
    valid_from: Annotated[str | None, Opt(help="ISO 8601: when it starts to hold")] = None,
    closes: Annotated[list[int] | None, Opt(help="id of a note this corrects (repeat)")] = None,
) -> None:
    """Remember a note with its speaker's perspective; prints its id.
    Example: tabane remember family "I moved to Montana." --speaker Hannah --kind experience"""
    fields: dict[str, Any] = {"text": text, "kind": kind}
    for key, value in (
        ("subject", subject),
        ("label", label),
        ("object", obj),
        ("weight", weight),
        ("valid_from", valid_from),
    ):
        if value is not None:
            fields[key] = value
    if closes:
        fields["closes"] = closes
    with service() as (svc, user):
        emit({"id": svc.remember(user, context, fields, speaker=speaker)})


@sessions_app.command("add")
@handled
def add(
    session: Annotated[str, Arg(help="your session's name (opened on first use)")],
    text: Annotated[str, Arg(help="what was said")],
    speaker: Annotated[str | None, Opt(help="who said it (default: you)")] = None,
    role: Annotated[str, Opt(help="user, assistant, system or tool")] = "user",
    at: Annotated[str | None, Opt(help="ISO 8601: when it was said (default: now)")] = None,
) -> None:
    """Append a turn to a session.
    Example: tabane sessions add trip "Greetings from the canyon!" --speaker Hannah"""
    with service() as (svc, user):
        emit(
            svc.add_turn(user, session, text, speaker=speaker, role=role, at=parse_date(at, "--at"))
        )


@sessions_app.command("show")
@handled
def show(
    session: Annotated[str, Arg(help="your session's name")],
    last: Annotated[int | None, Opt(help="turns to show (default: TABANE_SESSION_TURNS)")] = None,
    hours: Annotated[float | None, Opt(help="only turns this recent")] = None,
) -> None:
    """Print a session's working memory, oldest turn first.
    Example: tabane sessions show trip --last 10"""
    with service() as (svc, user):
        emit({"turns": svc.turns(user, session, last=last, hours=hours)})


@sessions_app.command("list")
@handled
def list_() -> None:
    """List your sessions, most recently used first.
    Example: tabane sessions list"""
    with service() as (svc, user):
        emit({"sessions": svc.list_sessions(user)})


@sessions_app.command("delete")
@handled
def delete(session: Annotated[str, Arg(help="your session's name")]) -> None:
    """Delete a session with all its turns.
    Example: tabane sessions delete trip"""
    with service() as (svc, user):
        emit({"deleted": session, "turns": svc.delete_session(user, session)})
