"""Arguments and results of the MCP tools: pydantic models at the edge (their JSON schemas are
the tools' input schemas; unknown arguments are refused) and small result wrappers."""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from typing import Annotated, Any, Literal, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tabane.contexts.contexts import ContextInfo, ContextStats
from tabane.contexts.groups import GroupInfo
from tabane.errors import Issue
from tabane.search.catalog import MAX_LIMIT as CATALOG_LIMIT
from tabane.search.catalog import MAX_OFFSET
from tabane.search.plan import MAX_LIMIT
from tabane.sources.read import MAX_PAGE, ParagraphView, SourceInfo
from tabane.types import SOURCE_STATES, storable_text

# -- results that wrap the service's dataclasses (structured content must be a JSON object) -------


@dataclass(frozen=True)
class ContextList:
    contexts: list[ContextInfo]


@dataclass(frozen=True)
class ContextDeleted:
    deleted: str
    removed: ContextStats


@dataclass(frozen=True)
class GroupList:
    groups: list[GroupInfo]


@dataclass(frozen=True)
class GroupDeleted:
    deleted: str


@dataclass(frozen=True)
class Ingested:
    """What an ingest did (the store's internal source key stays inside)."""

    source_id: str
    outcome: str  # created | replaced | unchanged | revived
    paragraphs: int
    sections: int
    reindexed: bool  # the same text under a new title: its search terms rewritten
    claims_closed: int  # claims whose paragraph (or whole source) the replacement changed, closed
    kept: int  # paragraphs the replacement repeated: kept with their embeddings
    updated: tuple[str, ...] = ()  # the same text with new metadata: the fields stored
    # metadata the document declares that could not be read ({path, problem}): stored without it
    warnings: tuple[Issue, ...] = ()


@dataclass(frozen=True)
class SourceLookup:
    source: SourceInfo
    paragraphs: list[ParagraphView]


# -- arguments --------------------------------------------------------------------------------


class Args(BaseModel):
    """Base of every tool's arguments: unknown keys are refused, and values keep their JSON types
    (strict: `true` is no budget, `"5"` no count); a list or object sent as a JSON string (some
    clients do) is parsed first."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _storable_text(cls, value: Any) -> Any:
        """No NUL and no lone surrogate in any text (nested ones included): PostgreSQL could
        not store or compare it."""
        return storable_text(value)

    @model_validator(mode="before")
    @classmethod
    def _parse_json_strings(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        out = dict(data)
        for name, field in cls.model_fields.items():
            value = out.get(name)
            if isinstance(value, str) and value[:1] in "[{" and not _accepts_str(field.annotation):
                with contextlib.suppress(ValueError):
                    out[name] = json.loads(value)
        return out


def _accepts_str(annotation: Any) -> bool:
    if annotation is str:
        return True
    origin = get_origin(annotation)
    if origin is Literal:
        return any(isinstance(a, str) for a in get_args(annotation))
    if origin in (list, dict):
        return False
    return any(_accepts_str(a) for a in get_args(annotation))


Name = Annotated[str, Field(description="A context or group name: letters, digits, '.', '_', '-'.")]
ContextArg = Annotated[str, Field(description="The context to act in (see `list_contexts`).")]
SourceId = Annotated[
    str,
    Field(description="The caller-chosen id of the document: its path or URI, stable over time."),
]
Description = Annotated[
    str, Field(description="What this holds, written so a later reader can choose by it.")
]
Scopes = Annotated[
    list[str] | None,
    Field(
        description="Visibility of the NEW row (e.g. ['org:acme']); omit for your default. "
        "Only scopes you may write are accepted."
    ),
]


class NoArgs(Args):
    pass


class NameArgs(Args):
    name: Name


class CreateContextArgs(Args):
    name: Name
    description: Description = ""
    dice_floor: Annotated[
        float, Field(ge=0.0, le=1.0, description="Lexical match floor for name resolution.")
    ] = 0.3
    semantic_floor: Annotated[
        float | None, Field(ge=-1.0, le=1.0, description="Semantic match floor; null = default.")
    ] = None
    scopes: Scopes = None


class UpdateContextArgs(Args):
    """Only the fields you pass change; `semantic_floor: null` clears it."""

    name: Name
    description: Annotated[str | None, Field(description="New description.")] = None
    dice_floor: Annotated[
        float | None, Field(ge=0.0, le=1.0, description="New lexical match floor.")
    ] = None
    semantic_floor: Annotated[
        float | None, Field(ge=-1.0, le=1.0, description="New semantic floor; null clears it.")
    ] = None


class RenameArgs(Args):
    name: Name
    new_name: Annotated[str, Field(description="The new name.")]


class CreateGroupArgs(Args):
    name: Name
    description: Description = ""
    contexts: Annotated[list[str], Field(description="Member contexts.")] = []
    groups: Annotated[
        list[str], Field(description="Child groups (at most 3 tall, no cycles).")
    ] = []
    scopes: Scopes = None


class ChangeGroupArgs(Args):
    name: Name
    description: Annotated[str | None, Field(description="New description.")] = None
    add_contexts: Annotated[list[str], Field(description="Contexts to add.")] = []
    remove_contexts: Annotated[list[str], Field(description="Contexts to remove.")] = []
    add_groups: Annotated[list[str], Field(description="Child groups to add.")] = []
    remove_groups: Annotated[list[str], Field(description="Child groups to remove.")] = []


class LocatorIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
    kind: Annotated[
        Literal["page", "line_range", "slide", "sheet", "table"],
        Field(description="What start counts."),
    ] = "line_range"
    start: Annotated[int, Field(ge=1, description="1-based page, first line, slide, ...")]
    end: Annotated[int | None, Field(ge=1, description="Last line (inclusive), if a range.")] = None

    @model_validator(mode="after")
    def _ordered(self) -> LocatorIn:
        if self.end is not None and self.end < self.start:
            raise ValueError("end is before start")
        return self


class ParagraphIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
    text: Annotated[str, Field(min_length=1, pattern=r"\S", description="The paragraph's text.")]
    section: Annotated[
        list[str], Field(description="Heading path, outermost first, e.g. ['Guide', 'Install'].")
    ] = []
    locator: Annotated[LocatorIn | None, Field(description="Where it sits in the original.")] = None
    questions: Annotated[list[str], Field(description="Questions this paragraph answers.")] = []


class IngestArgs(Args):
    context: ContextArg
    source_id: SourceId
    text: Annotated[
        str | None, Field(description="The whole document (give this OR paragraphs).")
    ] = None
    paragraphs: Annotated[
        list[ParagraphIn] | None, Field(description="The document split by you, in order.")
    ] = None
    format: Annotated[
        Literal["markdown", "html", "text", "man"] | None,
        Field(description="Format of `text`; default: guessed from source_id's extension."),
    ] = None
    title: Annotated[str | None, Field(description="Default: the first heading or file name.")] = (
        None
    )
    date: Annotated[str | None, Field(description="ISO 8601 date of the content.")] = None
    tags: Annotated[list[str] | None, Field(description="Labels to filter by later.")] = None
    area: Annotated[str | None, Field(description="Area of responsibility it belongs to.")] = None
    state: Annotated[
        Literal[SOURCE_STATES] | None,  # type: ignore[valid-type]
        Field(description="Project state (default: none; only active or waiting is a project)."),
    ] = None
    scopes: Scopes = None


class ListSourcesArgs(Args):
    context: ContextArg
    limit: Annotated[int, Field(ge=1, le=MAX_PAGE, description="Sources per page.")] = 100
    after: Annotated[str | None, Field(description="`next_after` of the previous page.")] = None
    include_retracted: Annotated[bool, Field(description="Also list retracted tombstones.")] = False
    state: Annotated[
        Literal[SOURCE_STATES] | None,  # type: ignore[valid-type]
        Field(description="Only sources in this state."),
    ] = None


class SourceArgs(Args):
    context: ContextArg
    source_id: SourceId


class LookupArgs(SourceArgs):
    offset: Annotated[int, Field(ge=0, description="First paragraph index to return.")] = 0
    limit: Annotated[int, Field(ge=1, le=MAX_PAGE, description="Paragraphs to return.")] = 100


class RetractArgs(SourceArgs):
    dry_run: Annotated[bool, Field(description="Only report what would be removed.")] = False


class CiteArgs(SourceArgs):
    paragraph: Annotated[int, Field(ge=0, description="The paragraph's index (from lookup).")]


class SearchArgs(Args):
    query: Annotated[
        str,
        Field(
            description="Phrased like the ANSWER you expect: a plausible declarative sentence "
            "from the passage you hope to find, not the question."
        ),
    ]
    contexts: Annotated[list[str], Field(description="Contexts to search.")] = []
    groups: Annotated[list[str], Field(description="Groups to search (nested ones too).")] = []
    limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="Hits per page.")] = 10
    after: Annotated[str | None, Field(description="`next_after` of the previous page.")] = None
    tags: Annotated[list[str] | None, Field(description="Only sources with any of these.")] = None
    since: Annotated[
        str | None, Field(description="ISO 8601: only sources dated (else stored) on or after.")
    ] = None
    until: Annotated[str | None, Field(description="ISO 8601: only sources dated before.")] = None
    semantic_floor: Annotated[
        float | None, Field(ge=-1.0, le=1.0, description="Cosine floor of the vector lane.")
    ] = None


class CatalogArgs(Args):
    query: Annotated[
        str, Field(description="What the documents are about; `*` or `all` lists them all.")
    ]
    contexts: Annotated[list[str], Field(description="Contexts to list.")] = []
    groups: Annotated[list[str], Field(description="Groups to list (nested ones too).")] = []
    limit: Annotated[int, Field(ge=1, le=CATALOG_LIMIT, description="Sources per page.")] = 10
    offset: Annotated[
        int, Field(ge=0, le=MAX_OFFSET, description="`next_offset` of the previous page.")
    ] = 0


class CatalogExpectedIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    context: Annotated[
        str | None, Field(description="Its context; default: the only context listed.")
    ] = None
    source_id: SourceId


class CatalogExplainArgs(CatalogArgs):
    expected: Annotated[CatalogExpectedIn, Field(description="The source you expected.")]


class ExpectedIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
    context: Annotated[
        str | None, Field(description="Its context; default: the only context searched.")
    ] = None
    source_id: SourceId
    paragraph: Annotated[
        int | None, Field(ge=0, description="One paragraph; omit for the source's best one.")
    ] = None


class ExplainArgs(SearchArgs):
    expected: Annotated[ExpectedIn, Field(description="The passage you expected to be found.")]
