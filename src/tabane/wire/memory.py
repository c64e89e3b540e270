"""The wire shapes of memories (remembered notes) and sessions (working memory)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import Field
from pydantic.config import JsonDict

from tabane.checks import parse_date
from tabane.graph.claims.parse import CLAIM_TEXTS, MAX_REPLY, MAX_WEIGHT
from tabane.graph.vocabulary import MAX_SPELLING
from tabane.memory.sessions import ROLES, SessionInfo, Turn
from tabane.wire.base import SCOPES_BOUNDS, ContextArg, Request, Scopes
from tabane.wire.sources import PARAGRAPH

SPELLING: JsonDict = {"maxLength": MAX_SPELLING}  # after spaces are made one (graph/vocabulary.py)


class MemoryIn(Request):
    context: ContextArg
    text: str = Field(description="the note, in the speaker's words")
    in_reply_to: str | None = Field(
        None,
        description="what it answers (the turn before it): embedded with it, so a reply "
        "without the topic's words is found",
        json_schema_extra={"maxLength": MAX_REPLY},
    )
    speaker: str | None = Field(None, description="who said it (default: you)")
    kind: str = Field("observation", description="world, experience, observation, opinion, …")
    role: str | None = Field(
        None,
        description="The speaker's role, as you name it.",
        json_schema_extra={"maxLength": CLAIM_TEXTS["role"]},
    )
    perspective: str | None = Field(
        None,
        description="partition key (default: the speaker)",
        json_schema_extra={"maxLength": CLAIM_TEXTS["perspective"]},
    )
    subject: str | None = Field(
        None, description="optional triple: subject", json_schema_extra=SPELLING
    )
    label: str | None = Field(
        None, description="optional triple: label", json_schema_extra=SPELLING
    )
    object: str | None = Field(
        None, description="optional triple: object", json_schema_extra=SPELLING
    )
    weight: float | None = Field(
        None,
        description="the triple's weight; negative means 'not'",
        json_schema_extra={"minimum": -MAX_WEIGHT, "maximum": MAX_WEIGHT},
    )
    source: str | None = Field(
        None,
        description="source_id it is attributed to",
        json_schema_extra={"maxLength": CLAIM_TEXTS["source"]},
    )
    paragraph: int | None = Field(
        None,
        description="The source's paragraph it is attributed to.",
        json_schema_extra=PARAGRAPH,
    )
    valid_from: str | None = Field(None, description="ISO 8601: when it starts to hold")
    valid_until: str | None = Field(None, description="ISO 8601: when it stops holding")
    closes: list[int] = Field(default_factory=list, description="earlier notes this corrects")
    scopes: Scopes = None

    def fields(self) -> dict[str, Any]:
        """The note's fields as the service's remember takes them (the ones given)."""
        raw = self.model_dump(exclude={"context", "speaker", "scopes"}, exclude_none=True)
        return {k: v for k, v in raw.items() if v != []}


@dataclass(frozen=True)
class MemoryWritten:
    """A remembered note's claim id (`POST /memories`, the `remember` tool)."""

    id: int


class TurnIn(Request):
    text: str = Field(description="What was said.")
    speaker: str | None = Field(None, description="who said it (default: you)")
    role: str = Field(
        "user",
        description="user, assistant, system or tool",
        json_schema_extra={"enum": list(ROLES)},
    )
    at: str | None = Field(None, description="ISO 8601: when it was said (default: now)")
    scopes: list[str] | None = Field(
        None,
        description="a new session's scopes (default: yours); an existing session keeps its "
        "own, and other scopes are refused",
        json_schema_extra=SCOPES_BOUNDS,
    )

    def options(self) -> dict[str, Any]:
        """The service's add_turn keyword arguments (the date parsed)."""
        return {
            "speaker": self.speaker,
            "role": self.role,
            "at": parse_date(self.at, "at"),
            "scopes": self.scopes,
        }


SessionName = Annotated[str, Field(description="Your session's name (opened on first use).")]


class AddTurnArgs(TurnIn):
    session: SessionName


class TurnsArgs(Request):
    session: SessionName
    last: Annotated[
        int | None, Field(ge=1, le=10_000, description="Turns to return; default: the window.")
    ] = None
    hours: Annotated[float | None, Field(gt=0, description="Only turns this recent.")] = None


class MemoriesArgs(Request):
    context: ContextArg
    author: Annotated[str | None, Field(description="Only this speaker's notes.")] = None
    limit: Annotated[int, Field(ge=1, le=200, description="Notes per page.")] = 50
    after: Annotated[int | None, Field(description="`next_after` of the previous page.")] = None
    include_closed: Annotated[
        bool, Field(description="Also the notes a correction closed (their history).")
    ] = False


class SessionArgs(Request):
    session: Annotated[str, Field(description="Your session's name.")]


@dataclass(frozen=True)
class SessionList:
    sessions: list[SessionInfo]


@dataclass(frozen=True)
class SessionDeleted:
    deleted: str
    turns: int


@dataclass(frozen=True)
class TurnList:
    turns: list[Turn]
