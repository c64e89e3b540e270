"""Memories (remembered notes) and sessions (working memory): each route is one facade call.
The speaker of a note or turn is a label inside the conversation; who acts is always the
authenticated user, never a field."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import Field

from tabane.api.deps import Svc, User
from tabane.api.schemas import ERROR_RESPONSES, Request, Response, out
from tabane.memory.sessions import check_session_name
from tabane.types import parse_date

router = APIRouter(tags=["memory"], responses=ERROR_RESPONSES)


class MemoryIn(Request):
    context: str
    text: str = Field(description="the note, in the speaker's words")
    in_reply_to: str | None = Field(
        None,
        description="what it answers (the turn before it): embedded with it, so a reply "
        "without the topic's words is found",
    )
    speaker: str | None = Field(None, description="who said it (default: you)")
    kind: str = Field("observation", description="world, experience, observation, opinion, …")
    role: str | None = None
    perspective: str | None = Field(None, description="partition key (default: the speaker)")
    subject: str | None = Field(None, description="optional triple: subject")
    label: str | None = Field(None, description="optional triple: label")
    object: str | None = Field(None, description="optional triple: object")
    weight: float | None = Field(None, description="the triple's weight; negative means 'not'")
    source: str | None = Field(None, description="source_id it is attributed to")
    paragraph: int | None = None
    valid_from: str | None = Field(None, description="ISO 8601: when it starts to hold")
    valid_until: str | None = Field(None, description="ISO 8601: when it stops holding")
    closes: list[int] = Field(default_factory=list, description="earlier notes this corrects")
    scopes: list[str] | None = None

    def fields(self) -> dict[str, Any]:
        raw = self.model_dump(exclude={"context", "speaker", "scopes"}, exclude_none=True)
        return {k: v for k, v in raw.items() if v != []}


class MemoryWritten(Response):
    id: int


class MemoryOut(Response):
    id: int
    statement: str | None
    in_reply_to: str | None = Field(None, description="what it answers (embedded with it)")
    subject: str | None
    label: str | None
    object: str | None
    weight: float | None
    author: str
    role: str | None
    kind: str
    perspective: str | None
    source: str | None
    paragraph: int | None
    valid_from: datetime | None
    valid_until: datetime | None
    recorded_at: datetime
    closed_at: datetime | None
    close_reason: str | None


class MemoryPageOut(Response):
    memories: list[MemoryOut]
    next_after: int | None


class TurnIn(Request):
    text: str
    speaker: str | None = Field(None, description="who said it (default: you)")
    role: str = Field("user", description="user, assistant, system or tool")
    at: str | None = Field(None, description="ISO 8601: when it was said (default: now)")
    scopes: list[str] | None = Field(
        None,
        description="a new session's scopes (default: yours); an existing session keeps its "
        "own, and other scopes are refused",
    )


class TurnOut(Response):
    session: str
    seq: int
    speaker: str
    role: str
    text: str
    at: datetime


class TurnsOut(Response):
    turns: list[TurnOut]


class SessionOut(Response):
    name: str
    turns: int
    scopes: list[str]
    created_at: datetime
    updated_at: datetime


class SessionsOut(Response):
    sessions: list[SessionOut]


class SessionDeleted(Response):
    deleted: str
    turns: int


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
) -> MemoryPageOut:
    """A context's remembered notes you can see, newest first; `next_after` pages on."""
    page = svc.memories(
        user, context, author=author, include_closed=include_closed, limit=limit, after=after
    )
    return out(MemoryPageOut, page)


@router.post("/sessions/{session}/turns", status_code=201)
def add_turn(session: str, body: TurnIn, svc: Svc, user: User) -> TurnOut:
    """Append a turn to one of your sessions (opened on first use): the working memory recall
    reads. Another user's session of the same name is theirs, not yours."""
    turn = svc.add_turn(
        user,
        session,
        body.text,
        speaker=body.speaker,
        role=body.role,
        at=parse_date(body.at, "body.at"),
        scopes=body.scopes,
    )
    return out(TurnOut, turn)


@router.get("/sessions/{session}/turns")
def turns(
    session: str,
    svc: Svc,
    user: User,
    last: Annotated[int | None, Query(ge=1, le=10_000)] = None,
    hours: Annotated[float | None, Query(gt=0)] = None,
) -> TurnsOut:
    """The session's working memory: its last `last` turns said within `hours` hours, oldest
    first (unset: the server's window, TABANE_SESSION_TURNS and TABANE_SESSION_HOURS). A session
    you cannot see answers 404 `no_session`, like one that does not exist."""
    found = svc.turns(user, session, last=last, hours=hours)
    return TurnsOut(turns=[out(TurnOut, t) for t in found])


@router.get("/sessions")
def sessions(svc: Svc, user: User) -> SessionsOut:
    """Your sessions, most recently used first."""
    return SessionsOut(sessions=[out(SessionOut, s) for s in svc.list_sessions(user)])


@router.delete("/sessions/{session}")
def delete_session(session: str, svc: Svc, user: User) -> SessionDeleted:
    """Delete one of your sessions with all its turns."""
    turns = svc.delete_session(user, session)
    return SessionDeleted(deleted=check_session_name(session), turns=turns)
