"""The wire shapes of sources: ingest, list, lookup, retract, cite."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar, Literal

from pydantic import Field
from pydantic.config import JsonDict

from tabane.checks import MAX_INT4, SOURCE_STATES
from tabane.errors import InvalidInput, Issue
from tabane.ingest.documents import MAX_TAGS_SENT, DocumentInput, block
from tabane.sources.read import MAX_PAGE, Citation, ParagraphView, SourceInfo, SourcePage
from tabane.sources.write import RetractResult
from tabane.text.blocks import MAX_LOCATOR_KIND, MAX_LOCATOR_VALUE, Locator
from tabane.wire.base import (
    SCOPES_BOUNDS,
    ContextArg,
    IssueOut,
    Request,
    Response,
    SourceId,
    served,
)

# -- sources ------------------------------------------------------------------------------------

PARAGRAPH: JsonDict = {"minimum": 0, "maximum": MAX_INT4}  # checks.is_paragraph_index


class LocatorModel(Request):
    """Where a paragraph sits in its original: numbered (`page`, `line_range`, `slide`, `sheet`,
    `table` with `start`, `end`) or open — any `kind` with a string `value`, stored and served
    back as sent (`{"kind": "sheet", "value": "Q3!A1:C4"}`, Taguru's form; decision 0023)."""

    kind: str = Field(
        "line_range",
        min_length=1,
        max_length=MAX_LOCATOR_KIND,
        description="page, line_range, slide, sheet, table (numbered) or any open kind",
    )
    start: int | None = Field(None, ge=1, description="1-based page number or first line")
    end: int | None = Field(None, ge=1, description="inclusive last line; null for one page")
    value: str | None = Field(
        None, min_length=1, max_length=MAX_LOCATOR_VALUE, description="the open form's value"
    )


@served(
    Locator,
    {
        "start": "page or first line; null for an anchor",
        "value": "the open form's value (an anchor's fragment id, `Q3!A1:C4`)",
    },
    defaults=True,
)
class LocatorOut(Response):
    kind: str


class ParagraphIn(Request):
    text: str = Field(min_length=1, pattern=r"\S", description="The paragraph's text.")
    section: list[str] = Field([], description="heading path, outermost first")
    locator: LocatorModel | None = Field(None, description="Where it sits in the original.")
    questions: list[str] = Field([], description="questions this paragraph answers (doc2query)")


class IngestIn(Request):
    """A document to store in the context in the path (`POST /contexts/{context}/sources`)."""

    document_fields: ClassVar[frozenset[str]] = frozenset({"text"})

    source_id: SourceId
    text: str | None = Field(None, description="the document itself (UTF-8), parsed by format")
    paragraphs: list[ParagraphIn] | None = Field(
        None, description="The document split by you, in order."
    )
    format: str | None = Field(
        None, description="Format of `text`; default: guessed from source_id's extension."
    )
    title: str | None = Field(None, description="Default: the first heading or file name.")
    date: str | None = Field(None, description="ISO 8601 date or date-time")
    tags: list[str] | None = Field(
        None,
        description="Labels to filter by later.",
        json_schema_extra={"maxItems": MAX_TAGS_SENT, "items": {"maxLength": 128}},
    )
    area: str | None = Field(None, description="default: the front matter's `area`, if any")
    state: Literal[SOURCE_STATES] | None = Field(  # type: ignore[valid-type]
        None,
        description="active, waiting, someday, done or archived; default: the front matter's "
        "`state`, else none (a source with no state is no project)",
    )
    scopes: list[str] | None = Field(
        None, description="default: the context's scopes", json_schema_extra=SCOPES_BOUNDS
    )

    def to_document(self, origin: str | None = None) -> DocumentInput:
        """The service's input; exactly one of `text` and `paragraphs` must be given. `origin`
        names the entrance a tool's ingest came through (`mcp`)."""
        if (self.text is None) == (self.paragraphs is None):
            raise InvalidInput(
                "give exactly one of text and paragraphs",
                issues=[Issue("text", "give text or paragraphs, not both or neither")],
            )
        blocks = None
        if self.paragraphs is not None:
            for i, p in enumerate(self.paragraphs):
                loc = p.locator
                if loc is not None and loc.end is not None and loc.end < (loc.start or 1):
                    raise InvalidInput(
                        "a locator ends before it starts",
                        issues=[Issue(f"paragraphs[{i}].locator.end", "less than start")],
                    )
            blocks = [
                block(
                    p.text,
                    p.section,
                    p.locator.model_dump(exclude_none=True) if p.locator else None,
                    path=f"paragraphs[{i}]",
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
            origin=origin,
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


@served(
    SourceInfo,
    {
        "state": "as stated (ingest, front matter); none: no project",
    },
)
class SourceOut(Response):
    pass


@served(
    SourcePage,
    {
        "next_after": "pass back as `after` for the next page",
    },
)
class SourcePageOut(Response):
    sources: list[SourceOut]


class LookupIn(Request):
    source_id: SourceId
    offset: int = Field(0, ge=0, description="First paragraph index to return.")
    limit: int = Field(MAX_PAGE, ge=1, le=MAX_PAGE, description="Paragraphs to return.")


@served(ParagraphView)
class ParagraphOut(Response):
    locator: LocatorOut | None


@dataclass(frozen=True)
class SourceLookup:
    source: SourceInfo
    paragraphs: list[ParagraphView]


@served(SourceLookup)
class LookupOut(Response):
    source: SourceOut
    paragraphs: list[ParagraphOut]


class RetractIn(Request):
    source_id: SourceId
    dry_run: bool = Field(False, description="Only report what would be removed.")


@served(
    RetractResult,
    {
        "claims": "claims attributed to the source, closed with it",
        "associations": "edges whose weight those claims carried",
    },
    defaults=True,
)
class RetractOut(Response):
    pass


class CiteIn(Request):
    source_id: SourceId
    paragraph: int = Field(
        ge=0, description="The paragraph's index (from lookup).", json_schema_extra=PARAGRAPH
    )


@served(Citation)
class CitationOut(Response):
    locator: LocatorOut | None


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


class IngestArgs(IngestIn):
    """The `ingest_source` tool's arguments: an ingest into `context`."""

    context: ContextArg


class ListSourcesArgs(Request):
    context: ContextArg
    limit: Annotated[int, Field(ge=1, le=MAX_PAGE, description="Sources per page.")] = 100
    after: Annotated[str | None, Field(description="`next_after` of the previous page.")] = None
    include_retracted: Annotated[bool, Field(description="Also list retracted tombstones.")] = False
    state: Annotated[
        Literal[SOURCE_STATES] | None,  # type: ignore[valid-type]
        Field(description="Only sources in this state."),
    ] = None


class LookupArgs(LookupIn):
    """The `lookup_source` tool's arguments: a tool reads a smaller window by default."""

    context: ContextArg
    limit: int = Field(100, ge=1, le=MAX_PAGE, description="Paragraphs to return.")


class RetractArgs(RetractIn):
    context: ContextArg


class CiteArgs(CiteIn):
    context: ContextArg


class RefreshEmbeddingsArgs(Request):
    context: ContextArg
