"""Memories (remembered notes) and sessions (working memory): each route is one facade call.
The speaker of a note or turn is a label inside the conversation; who acts is always the
authenticated user, never a field."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from tabane.api.deps import Svc, User
from tabane.memory.memories import MemoryPage
from tabane.memory.sessions import Turn, check_session_name
from tabane.wire.base import ERROR_RESPONSES
from tabane.wire.memory import (
    MemoryIn,
    MemoryWritten,
    SessionDeleted,
    SessionList,
    TurnIn,
    TurnList,
)

router = APIRouter(tags=["memory"], responses=ERROR_RESPONSES)


@router.post("/memories", status_code=201)
def remember(body: MemoryIn, svc: Svc, user: User) -> MemoryWritten:
    """Remember a note as `speaker` (default: you): a claim with statement text, a personal kind
    (`observation` by default) whose perspective is the speaker's, and optionally a triple that
    feeds its association. `closes` corrects earlier notes without overwriting them."""
    claim = svc.remember(
        user, body.context, body.fields(), speaker=body.speaker, scopes=body.scopes
    )
    return MemoryWritten(id=claim)


@router.get("/memories")
def memories(
    svc: Svc,
    user: User,
    context: Annotated[str, Query()],
    author: Annotated[str | None, Query()] = None,
    include_closed: Annotated[bool, Query()] = False,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    after: Annotated[int | None, Query()] = None,
) -> MemoryPage:
    """A context's remembered notes you can see, newest first; `next_after` pages on."""
    page = svc.memories(
        user, context, author=author, include_closed=include_closed, limit=limit, after=after
    )
    return page


@router.post("/sessions/{session}/turns", status_code=201)
def add_turn(session: str, body: TurnIn, svc: Svc, user: User) -> Turn:
    """Append a turn to one of your sessions (opened on first use): the working memory recall
    reads. Another user's session of the same name is theirs, not yours."""
    turn = svc.add_turn(user, session, body.text, **body.options())
    return turn


@router.get("/sessions/{session}/turns")
def turns(
    session: str,
    svc: Svc,
    user: User,
    last: Annotated[int | None, Query(ge=1, le=10_000)] = None,
    hours: Annotated[float | None, Query(gt=0)] = None,
) -> TurnList:
    """The session's working memory: its last `last` turns said within `hours` hours, oldest
    first (unset: the server's window, TABANE_SESSION_TURNS and TABANE_SESSION_HOURS). A session
    you cannot see answers 404 `no_session`, like one that does not exist."""
    found = svc.turns(user, session, last=last, hours=hours)
    return TurnList(list(found))


@router.get("/sessions")
def sessions(svc: Svc, user: User) -> SessionList:
    """Your sessions, most recently used first."""
    return SessionList(list(svc.list_sessions(user)))


@router.delete("/sessions/{session}")
def delete_session(session: str, svc: Svc, user: User) -> SessionDeleted:
    """Delete one of your sessions with all its turns."""
    turns = svc.delete_session(user, session)
    return SessionDeleted(deleted=check_session_name(session), turns=turns)
