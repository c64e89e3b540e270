"""The wire shapes of contexts and groups."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel, Field

from tabane.contexts.changes import MAX_LIMIT as CHANGES_LIMIT
from tabane.contexts.changes import ChangePage as ChangePage
from tabane.contexts.contexts import ContextInfo, ContextStats
from tabane.contexts.groups import GroupInfo
from tabane.search.upkeep import MAX_FLUSH_SECONDS
from tabane.search.upkeep import Compaction as Compaction
from tabane.search.upkeep import Flush as Flush
from tabane.wire.base import (
    NAME_BOUNDS,
    SCOPES_BOUNDS,
    ContextArg,
    Description,
    Name,
    Request,
    Response,
    Scopes,
    served,
)

# -- contexts -----------------------------------------------------------------------------------


class ContextPut(Request):
    """A new context's settings (`PUT /contexts/{context}`: the name is the path's)."""

    description: Description = ""
    dice_floor: float = Field(
        0.3, ge=0.0, le=1.0, description="Lexical match floor for name resolution."
    )
    semantic_floor: float | None = Field(
        None, ge=-1.0, le=1.0, description="Semantic match floor; null = default."
    )
    scopes: list[str] | None = Field(
        None, description="default: the caller's default scopes", json_schema_extra=SCOPES_BOUNDS
    )


class ContextCreate(ContextPut):
    """A new context (`POST /contexts`, the `create_context` tool)."""

    name: Name


class ContextPatch(Request):
    """Only the fields sent change; `semantic_floor: null` clears it."""

    description: str = Field("", description="New description.")
    dice_floor: float = Field(0.3, ge=0.0, le=1.0, description="New lexical match floor.")
    semantic_floor: float | None = Field(None, ge=-1.0, le=1.0, description="null clears it")

    def changes(self) -> dict[str, object]:
        """The fields sent, by name: what the service changes."""
        return {
            k: getattr(self, k)
            for k in sorted(self.model_fields_set & set(ContextPatch.model_fields))
        }


class ContextRename(Request):
    new_name: str = Field(description="The new name.", json_schema_extra=NAME_BOUNDS)


@served(
    ContextStats,
    {
        "concepts": "canonical concept spellings you can see",
        "labels": "canonical label spellings you can see",
        "associations": "distinct live edges you can see",
        "top_concepts": "by degree",
        "label_samples": "most used labels",
    },
    defaults=True,
)
class StatsOut(Response):
    pass


@served(ContextInfo)
class ContextOut(Response):
    stats: StatsOut


class ContextList(BaseModel):
    contexts: list[ContextOut]


class ContextDeleted(BaseModel):
    name: str
    removed: StatsOut


# -- groups -------------------------------------------------------------------------------------


class GroupPut(Request):
    """A new group's members (`PUT /groups/{group}`: the name is the path's)."""

    description: Description = ""
    contexts: Annotated[list[str], Field(description="Member contexts.")] = []
    groups: Annotated[
        list[str], Field(description="Child groups (at most 3 tall, no cycles).")
    ] = []
    scopes: Scopes = None


class GroupCreate(GroupPut):
    """A new group (`POST /groups`, the `create_group` tool)."""

    name: Name


class GroupPatch(Request):
    """A group's changes, by deltas."""

    description: Annotated[str | None, Field(description="New description.")] = None
    add_contexts: Annotated[list[str], Field(description="Contexts to add.")] = []
    remove_contexts: Annotated[list[str], Field(description="Contexts to remove.")] = []
    add_groups: Annotated[list[str], Field(description="Child groups to add.")] = []
    remove_groups: Annotated[list[str], Field(description="Child groups to remove.")] = []


@dataclass(frozen=True)
class GroupList:
    groups: list[GroupInfo]


class GroupDeleted(BaseModel):
    name: str
    deleted: bool


# -- the tools' answers where they differ from HTTP's (MCP names the deleted row `deleted`, and
# serialises the service's dataclasses as they are), and the tools' arguments: the bodies above with
# the name HTTP reads from the path ---------------------------------------------------------------


@dataclass(frozen=True)
class ContextListResult:
    contexts: list[ContextInfo]


@dataclass(frozen=True)
class ContextDeletedResult:
    deleted: str
    removed: ContextStats


@dataclass(frozen=True)
class GroupDeletedResult:
    deleted: str


@dataclass(frozen=True)
class ProtocolText:
    text: str  # docs/protocol.md: the server's instructions, as GET /protocol serves them


class NameArgs(Request):
    name: Name


class UpdateContextArgs(ContextPatch):
    """Only the fields you pass change; `semantic_floor: null` clears it."""

    name: Name


class RenameArgs(ContextRename):
    name: Name


class ChangeGroupArgs(GroupPatch):
    name: Name


SINCE = "the `next` of the previous page; omitted: from the first event"


class ChangesIn(Request):
    """A page of a context's write log: the `changes` tool's arguments (over HTTP, the query of
    `GET /contexts/{c}/changes`, whose strings are parsed as the query's, not this strict model)."""

    since: str | None = Field(None, description=SINCE)
    limit: int = Field(100, description="events per page", ge=1, le=CHANGES_LIMIT)
    tail: bool = Field(
        False, description="no events: only a cursor for what is written from now on"
    )


class ChangesArgs(ChangesIn):
    context: ContextArg


class FlushIn(Request):
    """A wait for a context's queued jobs (`POST /contexts/{c}/flush`' body)."""

    timeout: float = Field(
        30.0, description="seconds to wait at most (0-300]", gt=0, le=MAX_FLUSH_SECONDS
    )


class FlushArgs(FlushIn):
    context: ContextArg


class CompactArgs(Request):
    context: ContextArg
