"""The memory tools: remember a note, append a session turn, read working memory and notes.
Each is a thin shell over the `Tabane` facade; the speaker is a label in the conversation, never
an identity: every call acts as the authenticated user."""

from __future__ import annotations

from tabane.mcp.registry import tool
from tabane.memory.memories import MemoryPage
from tabane.memory.sessions import Turn, check_session_name
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.wire.base import NoArgs
from tabane.wire.base import Request as Request
from tabane.wire.memory import (
    AddTurnArgs,
    MemoriesArgs,
    MemoryIn,
    MemoryWritten,
    SessionArgs,
    SessionDeleted,
    SessionList,
    TurnList,
    TurnsArgs,
)


@tool("write")
def remember(svc: Tabane, user: Principal, a: MemoryIn) -> MemoryWritten:
    """Remember something a person said or you observed, as a note with its speaker's
    perspective: `opinion`, `preference`, `experience` and `observation` notes are kept apart per
    speaker, so two people can disagree without overwriting each other; `world` is for shared
    facts. Add a triple (resolve its names first) when the note has a skeleton. When a value
    changes (a move, a new job), write the new note with `closes` naming the old one: the old
    note stays as history, no longer current."""
    claim = svc.remember(user, a.context, a.fields(), speaker=a.speaker, scopes=a.scopes)
    return MemoryWritten(claim)


@tool("write")
def add_turn(svc: Tabane, user: Principal, a: AddTurnArgs) -> Turn:
    """Append one message to one of your sessions (working memory): who said it, their role,
    what, and when (not in the future). Sessions are yours alone unless you open one with
    other `scopes`."""
    return svc.add_turn(user, a.session, a.text, **a.options())


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
