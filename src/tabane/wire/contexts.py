"""The wire shapes of contexts and groups."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, Field

from tabane.contexts.contexts import ContextInfo, ContextStats
from tabane.contexts.groups import GroupInfo
from tabane.wire.base import Description, Name, Request, Response, Scopes

# -- contexts -----------------------------------------------------------------------------------


class ContextPut(Request):
    """A new context's settings (`PUT /contexts/{context}`: the name is the path's)."""

    description: str = ""
    dice_floor: float = 0.3
    semantic_floor: float | None = None
    scopes: list[str] | None = Field(None, description="default: the caller's default scopes")


class ContextCreate(ContextPut):
    name: str


class ContextPatch(Request):
    description: str = ""
    dice_floor: float = 0.3
    semantic_floor: float | None = Field(None, description="null clears it")


class ContextRename(Request):
    new_name: str


class StatsOut(Response):
    sources: int
    paragraphs: int
    sections: int
    concepts: int = Field(0, description="canonical concept spellings you can see")
    labels: int = Field(0, description="canonical label spellings you can see")
    associations: int = Field(0, description="distinct live edges you can see")
    top_concepts: list[str] = Field(default_factory=list, description="by degree")
    label_samples: list[str] = Field(default_factory=list, description="most used labels")


class UsageOut(Response):
    reads: int
    misses: int
    writes: int
    last_access: datetime | None


class ContextOut(Response):
    name: str
    description: str
    dice_floor: float
    semantic_floor: float | None
    scopes: list[str]
    created_at: datetime
    stats: StatsOut
    usage: UsageOut


class ContextList(BaseModel):
    contexts: list[ContextOut]


class ContextDeleted(BaseModel):
    name: str
    removed: StatsOut


# -- groups -------------------------------------------------------------------------------------


class GroupPut(Request):
    """A new group's members (`PUT /groups/{group}`: the name is the path's)."""

    description: str = ""
    contexts: list[str] = []
    groups: list[str] = []
    scopes: list[str] | None = None


class GroupCreate(GroupPut):
    name: str


class GroupPatch(Request):
    description: str | None = None
    add_contexts: list[str] = []
    remove_contexts: list[str] = []
    add_groups: list[str] = []
    remove_groups: list[str] = []


class GroupOut(Response):
    name: str
    description: str
    scopes: list[str]
    contexts: list[str]
    groups: list[str]


class GroupList(BaseModel):
    groups: list[GroupOut]


class GroupDeleted(BaseModel):
    name: str
    deleted: bool


# -- tool results and arguments --


@dataclass(frozen=True)
class ContextListResult:
    contexts: list[ContextInfo]


@dataclass(frozen=True)
class ContextDeletedResult:
    deleted: str
    removed: ContextStats


@dataclass(frozen=True)
class GroupListResult:
    groups: list[GroupInfo]


@dataclass(frozen=True)
class GroupDeletedResult:
    deleted: str


class NameArgs(Request):
    name: Name


class CreateContextArgs(Request):
    name: Name
    description: Description = ""
    dice_floor: Annotated[
        float, Field(ge=0.0, le=1.0, description="Lexical match floor for name resolution.")
    ] = 0.3
    semantic_floor: Annotated[
        float | None, Field(ge=-1.0, le=1.0, description="Semantic match floor; null = default.")
    ] = None
    scopes: Scopes = None


class UpdateContextArgs(Request):
    """Only the fields you pass change; `semantic_floor: null` clears it."""

    name: Name
    description: Annotated[str | None, Field(description="New description.")] = None
    dice_floor: Annotated[
        float | None, Field(ge=0.0, le=1.0, description="New lexical match floor.")
    ] = None
    semantic_floor: Annotated[
        float | None, Field(ge=-1.0, le=1.0, description="New semantic floor; null clears it.")
    ] = None


class RenameArgs(Request):
    name: Name
    new_name: Annotated[str, Field(description="The new name.")]


class CreateGroupArgs(Request):
    name: Name
    description: Description = ""
    contexts: Annotated[list[str], Field(description="Member contexts.")] = []
    groups: Annotated[
        list[str], Field(description="Child groups (at most 3 tall, no cycles).")
    ] = []
    scopes: Scopes = None


class ChangeGroupArgs(Request):
    name: Name
    description: Annotated[str | None, Field(description="New description.")] = None
    add_contexts: Annotated[list[str], Field(description="Contexts to add.")] = []
    remove_contexts: Annotated[list[str], Field(description="Contexts to remove.")] = []
    add_groups: Annotated[list[str], Field(description="Child groups to add.")] = []
    remove_groups: Annotated[list[str], Field(description="Child groups to remove.")] = []
