"""The memory tools: remember a note, append a session turn, read working memory and notes.
Each is a thin shell over the `Tabane` facade; the speaker is a label in the conversation, never
an identity: every call acts as the authenticated user."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field

from tabane.mcp.arguments import Args, ContextArg, NoArgs, Scopes
from tabane.mcp.registry import tool
from tabane.memory.memories import MemoryPage
from tabane.memory.sessions import SessionInfo, Turn, check_session_name
from tabane.service import Tabane
from tabane.types import Principal, parse_date

Speaker = Annotated[
    str | None, Field(description="Who said it, as the conversation names them; default: you.")
]
SessionName = Annotated[str, Field(description="Your session's name (opened on first use).")]


class RememberArgs(Args):
    context: ContextArg
    text: Annotated[str, Field(description="The note, in the speaker's own words.")]
    in_reply_to: Annotated[
        str | None,
        Field(description="What it answers (the turn before it): found by that topic too."),
    ] = None
    speaker: Speaker = None
    kind: Annotated[
        Literal["world", "experience", "observation", "opinion", "preference"],
        Field(description="world facts share one partition; the others are the speaker's own."),
    ] = "observation"
    subject: Annotated[str | None, Field(description="Optional triple: resolve it first.")] = None
    label: Annotated[str | None, Field(description="Optional triple: the label.")] = None
    object: Annotated[str | None, Field(description="Optional triple: resolve it first.")] = None
    weight: Annotated[float | None, Field(description="The triple's weight; < 0 means not.")] = None
    role: Annotated[str | None, Field(description="The speaker's role, as you name it.")] = None
    perspective: Annotated[
        str | None, Field(description="Whose view a personal note is (default: the speaker's).")
    ] = None
    source: Annotated[
        str | None, Field(description="Where it comes from: a source_id, or any label.")
    ] = None
    paragraph: Annotated[
        int | None, Field(description="The source's paragraph it is attributed to.")
    ] = None
    valid_from: Annotated[str | None, Field(description="ISO 8601: when it starts.")] = None
    valid_until: Annotated[str | None, Field(description="ISO 8601: when it stops.")] = None
    closes: Annotated[
        list[int],
        Field(default_factory=list, description="Ids of earlier notes this one corrects."),
    ]
    scopes: Scopes = None


class AddTurnArgs(Args):
    session: SessionName
    text: Annotated[str, Field(description="What was said.")]
    speaker: Speaker = None
    role: Annotated[
        Literal["user", "assistant", "system", "tool"], Field(description="The speaker's role.")
    ] = "user"
    at: Annotated[str | None, Field(description="ISO 8601: when it was said; default now.")] = None
    scopes: Annotated[
        list[str] | None,
        Field(
            description="A new session's scopes (default: yours); an existing session keeps its "
            "own, and other scopes are refused."
        ),
    ] = None


class TurnsArgs(Args):
    session: SessionName
    last: Annotated[
        int | None, Field(ge=1, le=10_000, description="Turns to return; default: the window.")
    ] = None
    hours: Annotated[float | None, Field(gt=0, description="Only turns this recent.")] = None


class MemoriesArgs(Args):
    context: ContextArg
    author: Annotated[str | None, Field(description="Only this speaker's notes.")] = None
    limit: Annotated[int, Field(ge=1, le=200, description="Notes per page.")] = 50
    after: Annotated[int | None, Field(description="`next_after` of the previous page.")] = None
    include_closed: Annotated[
        bool, Field(description="Also the notes a correction closed (their history).")
    ] = False


class SessionArgs(Args):
    session: Annotated[str, Field(description="Your session's name.")]


@dataclass(frozen=True)
class SessionList:
    sessions: list[SessionInfo]


@dataclass(frozen=True)
class SessionDeleted:
    deleted: str
    turns: int


@dataclass(frozen=True)
class Remembered:
    id: int


@dataclass(frozen=True)
class TurnList:
    turns: list[Turn]


@tool("write")
def remember(svc: Tabane, user: Principal, a: RememberArgs) -> Remembered:
    """Remember something a person said or you observed, as a note with its speaker's
    perspective: `opinion`, `preference`, `experience` and `observation` notes are kept apart per
    speaker, so two people can disagree without overwriting each other; `world` is for shared
    facts. Add a triple (resolve its names first) when the note has a skeleton. When a value
    changes (a move, a new job), write the new note with `closes` naming the old one: the old
    note stays as history, no longer current."""
    fields: dict[str, Any] = a.model_dump(
        exclude={"context", "speaker", "scopes"}, exclude_none=True
    )
    if not fields.get("closes"):
        fields.pop("closes", None)
    claim = svc.remember(user, a.context, fields, speaker=a.speaker, scopes=a.scopes)
    return Remembered(claim)


@tool("write")
def add_turn(svc: Tabane, user: Principal, a: AddTurnArgs) -> Turn:
    """Append one message to one of your sessions (working memory): who said it, their role,
    what, and when (not in the future). Sessions are yours alone unless you open one with
    other `scopes`."""
    return svc.add_turn(
        user,
        a.session,
        a.text,
        speaker=a.speaker,
        role=a.role,
        at=parse_date(a.at, "at"),
        scopes=a.scopes,
    )


@tool("read")
def recent_turns(svc: Tabane, user: Principal, a: TurnsArgs) -> TurnList:
    """The working memory of one of your sessions: its last turns (optionally only those of the
    last `hours` hours), oldest first."""
    return TurnList(svc.turns(user, a.session, last=a.last, hours=a.hours))


@tool("read")
def list_memories(svc: Tabane, user: Principal, a: MemoriesArgs) -> MemoryPage:
    """The remembered notes of a context you can see, newest first: the current ones, or with
    `include_closed` also those a correction closed."""
    return svc.memories(user, a.context, **a.model_dump(exclude={"context"}))


@tool("read")
def list_sessions(svc: Tabane, user: Principal, a: NoArgs) -> SessionList:
    """Your sessions, most recently used first, with their turn counts."""
    return SessionList(svc.list_sessions(user))


@tool("destroy")
def delete_session(svc: Tabane, user: Principal, a: SessionArgs) -> SessionDeleted:
    """Delete one of your sessions with all its turns."""
    turns = svc.delete_session(user, a.session)
    return SessionDeleted(check_session_name(a.session), turns)
