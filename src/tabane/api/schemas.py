"""The HTTP wire shapes: pydantic models at the edge, turned into the service's values at once.

Request models are strict (a JSON number is not a string, `true` is not 1), refuse unknown fields
(a typo, or an attempt to pass a user or scope as authority, is a 422 naming the field) and refuse
NaN and Infinity. Semantic checks (names, ranges, states, dates) stay in the service, so every
surface reports them with the same codes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from tabane.errors import InvalidInput, Issue
from tabane.ingest.documents import DocumentInput, block
from tabane.types import storable_text


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    # fields holding a document's own text: the readers' one decoding rule judges them, as it
    # judges a file's bytes (`unreadable_document`), instead of the field check
    document_fields: ClassVar[frozenset[str]] = frozenset()

    @field_validator("*", mode="before")
    @classmethod
    def _storable_text(cls, value: Any, info: ValidationInfo) -> Any:
        """No NUL and no lone surrogate in any text of any field (nested ones included):
        PostgreSQL could not store or compare it, so it never reaches the service."""
        if info.field_name in cls.document_fields:
            return value
        return storable_text(value)


class Response(BaseModel):
    model_config = ConfigDict(from_attributes=True)


R = TypeVar("R", bound=Response)


# -- errors -------------------------------------------------------------------------------------


class IssueOut(BaseModel):
    path: str = Field(description="where the problem is, e.g. `body.name` or `dice_floor`")
    problem: str


class ErrorDetail(BaseModel):
    code: str = Field(description="stable snake_case code to branch on, e.g. `no_context`")
    message: str
    issues: list[IssueOut]
    written: str = Field(description="what was written before the error: `nothing` unless said")


class ErrorBody(BaseModel):
    """The one error body of every route."""

    error: ErrorDetail


# -- health -------------------------------------------------------------------------------------


class HealthOut(BaseModel):
    status: Literal["ok"]
    version: str
    database: Literal["embedded", "external"]
    revision: str | None


# -- contexts -----------------------------------------------------------------------------------


class ContextCreate(Request):
    name: str
    description: str = ""
    dice_floor: float = 0.3
    semantic_floor: float | None = None
    scopes: list[str] | None = Field(None, description="default: the caller's default scopes")


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


class GroupCreate(Request):
    name: str
    description: str = ""
    contexts: list[str] = []
    groups: list[str] = []
    scopes: list[str] | None = None


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


# -- sources ------------------------------------------------------------------------------------

LocatorKind = Literal["page", "line_range", "slide", "sheet", "table"]


class LocatorModel(Request):
    kind: LocatorKind = "line_range"
    start: int = Field(ge=1, description="1-based page number or first line")
    end: int | None = Field(None, ge=1, description="inclusive last line; null for one page")


class LocatorOut(Response):
    kind: str
    start: int | None = Field(None, description="page or first line; null for an anchor")
    end: int | None = None
    value: str | None = Field(None, description="an anchor's fragment id (`sect.apt-update`)")


class ParagraphIn(Request):
    text: str
    section: list[str] = Field([], description="heading path, outermost first")
    locator: LocatorModel | None = None
    questions: list[str] = Field([], description="questions this paragraph answers (doc2query)")


class IngestIn(Request):
    document_fields: ClassVar[frozenset[str]] = frozenset({"text"})

    source_id: str
    text: str | None = Field(None, description="the document itself (UTF-8), parsed by format")
    paragraphs: list[ParagraphIn] | None = None
    format: str | None = None
    title: str | None = None
    date: str | None = Field(None, description="ISO 8601 date or date-time")
    tags: list[str] | None = None
    area: str | None = Field(None, description="default: the front matter's `area`, if any")
    state: str | None = Field(
        None,
        description="active, waiting, someday, done or archived; default: the front matter's "
        "`state`, else none (a source with no state is no project)",
    )
    scopes: list[str] | None = Field(None, description="default: the context's scopes")

    def to_document(self) -> DocumentInput:
        """The service's input; exactly one of `text` and `paragraphs` must be given."""
        if (self.text is None) == (self.paragraphs is None):
            raise InvalidInput(
                "give exactly one of text and paragraphs",
                issues=[Issue("body.text", "give text or paragraphs, not both or neither")],
            )
        blocks = None
        if self.paragraphs is not None:
            for i, p in enumerate(self.paragraphs):
                if not p.text.strip():
                    raise InvalidInput(
                        "a paragraph is empty",
                        issues=[Issue(f"body.paragraphs[{i}].text", "empty")],
                    )
                loc = p.locator
                if loc is not None and loc.end is not None and loc.end < loc.start:
                    raise InvalidInput(
                        "a locator ends before it starts",
                        issues=[Issue(f"body.paragraphs[{i}].locator.end", "less than start")],
                    )
            blocks = [
                block(
                    p.text,
                    p.section,
                    p.locator.model_dump() if p.locator else None,
                    path=f"body.paragraphs[{i}]",
                )
                for i, p in enumerate(self.paragraphs)
            ]
        return DocumentInput(
            source_id=self.source_id,
            # a lone surrogate stays an undecodable byte sequence, refused as a file's would be
            data=None if self.text is None else self.text.encode("utf-8", "surrogatepass"),
            paragraphs=blocks,
            format=self.format,
            title=self.title,
            date=self.date,
            tags=self.tags,
            area=self.area,
            state=self.state,
            scopes=self.scopes,
            questions=tuple(tuple(p.questions) for p in self.paragraphs or ()),
        )


class IngestOut(Response):
    source_id: str
    outcome: Literal["created", "replaced", "unchanged", "revived"]
    paragraphs: int
    sections: int
    reindexed: bool = Field(
        description="the same text under a new title: stored, and its paragraphs' search terms "
        "rewritten (`outcome` stays `unchanged`)"
    )
    updated: list[str] = Field(
        description="the same text (`unchanged`) with new metadata: the fields stored (title, "
        "tags, date, area, state)"
    )
    warnings: list[IssueOut] = Field(
        description="metadata the document declares that could not be read, stored without it: "
        "a front matter `date` or an HTML date meta that is not a date (`front_matter.date`, "
        "`meta[date]`), a front matter `title` that is not one line; a field given in the "
        "request wins and is no warning"
    )
    claims_closed: int = Field(
        description="claims closed by the replacement (`replaced`): those citing the source as a "
        "whole or a paragraph the new version no longer has; a claim citing a paragraph it "
        "repeats word for word stays open and follows it"
    )
    kept: int = Field(
        description="paragraphs a replacement repeats word for word: kept with their embeddings, "
        "so only the others are embedded again"
    )


class SourceOut(Response):
    source_id: str
    title: str
    format: str
    date: datetime | None
    tags: list[str]
    area: str | None
    state: str | None = Field(description="as stated (ingest, front matter); none: no project")
    stored_at: datetime
    content_hash: str
    byte_size: int
    paragraphs: int
    scopes: list[str]
    retracted_at: datetime | None


class SourcePageOut(Response):
    sources: list[SourceOut]
    next_after: str | None = Field(description="pass back as `after` for the next page")


class LookupIn(Request):
    source_id: str
    offset: int = Field(0, ge=0)
    limit: int = Field(500, ge=1, le=500)


class ParagraphOut(Response):
    index: int
    text: str
    section: list[str]
    locator: LocatorOut | None
    questions: list[str]


class LookupOut(BaseModel):
    source: SourceOut
    paragraphs: list[ParagraphOut]


class RetractIn(Request):
    source_id: str
    dry_run: bool = False


class RetractOut(Response):
    source_id: str
    dry_run: bool
    sources: int
    paragraphs: int
    sections: int
    claims: int = Field(0, description="claims attributed to the source, closed with it")
    associations: int = Field(0, description="edges whose weight those claims carried")


class CiteIn(Request):
    source_id: str
    paragraph: int


class CitationOut(Response):
    source_id: str
    paragraph: int
    text: str
    title: str
    section: list[str]
    locator: LocatorOut | None


def out(model: type[R], value: object) -> R:
    """A service value (a frozen dataclass) as its wire model."""
    return model.model_validate(value, from_attributes=True)


# Documented on every route: the error body with the statuses it comes with.
ERROR_RESPONSES: dict[int | str, dict[str, object]] = {
    status: {"model": ErrorBody, "description": description}
    for status, description in {
        400: "malformed JSON (`invalid_json`)",
        401: "no valid credential, where the server asks for one (`unauthorized`)",
        403: "the caller may not write these scopes (`forbidden`)",
        404: "unknown or invisible context, group, source or paragraph",
        409: "name taken, group cycle, group too deep, alias conflict or source id taken",
        413: "request body over the limit (`body_too_large`)",
        422: "invalid input; `issues` name each field",
        429: "too many requests from this caller (`rate_limited`; see `Retry-After`)",
        500: "unexpected error (`internal`); the server log has the details",
        503: "the store is unavailable, or busy with a conflicting write (`store_busy`: retry)",
    }.items()
}
