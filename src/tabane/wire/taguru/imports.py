"""The wire shapes of Taguru's batch import and promote (decision 0027): the answers carry one
outcome per batch, in stream order."""

from __future__ import annotations

from pydantic import Field

from tabane.wire.base import Request, Response


class BatchOut(Response):
    line: int = Field(description="the batch's header line in the stream (1-based)")
    context: str
    source: str
    created: bool = Field(description="the context was created from the batch's create block")
    retracted: int = Field(description="the source's live claims closed before the apply")
    associations: int = Field(description="associations the batch's claims touched")
    aliases: int = Field(description="alias lines applied")
    passage_stored: bool
    passage_removed: bool = Field(description="no passage in the batch: the stored one retracted")
    questions_dropped: int = Field(description="naming a paragraph the passage does not have")
    sections_dropped: int
    locators_dropped: int


class GroupOut(Response):
    line: int = Field(description="the `taguru_group` record's line in the stream (1-based)")
    name: str
    created: bool = Field(description="created; false: its description and members were set")


class ImportOut(Response):
    batches: list[BatchOut] = Field(description="one per batch, in stream order")
    groups: list[GroupOut] = Field([], description="one per `taguru_group` record, in order")


class PromoteIn(Request):
    into: str = Field(min_length=1, description="the existing context the sources move into")
    sources: list[str] = Field(min_length=1, max_length=1000, description="source ids to move")
    dry_run: bool = Field(False, description="answer the outcomes, write nothing")
    retract: bool = Field(
        False, description="tabane's: retract the sources here in the same transaction"
    )


class PromoteOut(Response):
    context: str
    into: str
    dry_run: bool
    retracted_here: bool = Field(description="the sources were retracted in `context`")
    batches: list[BatchOut] = Field(description="one per source, as its import batch did")
