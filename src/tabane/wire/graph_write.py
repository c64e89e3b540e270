"""The wire shapes of the graph writes: claims in batches, association retraction, aliases.

A batch's items travel as plain JSON objects and are checked by the service's own parser
(`parse_claims`), so every surface reports the same path-addressed issues
(`associations[17].weight: not finite`) and a batch with any problem writes nothing. The item
shape is still documented in the OpenAPI schema (`ClaimIn`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from tabane.graph.aliases import AliasInfo
from tabane.graph.claims.parse import MAX_BATCH, MAX_STATEMENT, MAX_WEIGHT, ClaimInput, parse_claims
from tabane.graph.claims.promote import Promotion as Promotion
from tabane.graph.claims.write import CloseReport, WriteReport
from tabane.graph.vocabulary import MAX_SPELLING
from tabane.wire.base import SCOPES_BOUNDS, ContextArg, Request, Response, served

Kind = Literal["concept", "label"]


class ClaimIn(BaseModel):
    """One claim of a batch (documentation of the item shape; `parse_claims` checks it)."""

    model_config = ConfigDict(extra="forbid", title="ClaimIn")

    subject: str = Field(max_length=MAX_SPELLING, description="concept spelling (resolve first)")
    label: str = Field(max_length=MAX_SPELLING, description="edge label, e.g. `causes`")
    object: str = Field(max_length=MAX_SPELLING, description="concept spelling (resolve first)")
    weight: float = Field(
        ge=-MAX_WEIGHT, le=MAX_WEIGHT, description="finite; negative means 'not' (does not cause)"
    )
    statement: str | None = Field(
        None, max_length=MAX_STATEMENT, description="the sentence the claim was read from"
    )
    source: str | None = Field(None, description="source_id the claim is attributed to")
    paragraph: int | None = Field(None, ge=0, description="paragraph index within `source`")
    author: str | None = Field(None, description="who holds the claim; default: you")
    role: str | None = Field(None, description="the author's role, free text")
    kind: Literal["world", "experience", "observation", "opinion", "preference"] = Field(
        "world", description="epistemic kind; the personal kinds get one partition per author"
    )
    perspective: str | None = Field(None, description="partition key of a personal kind")
    valid_from: str | None = Field(None, description="ISO 8601; when the claim starts to hold")
    valid_until: str | None = Field(None, description="ISO 8601; when it stops holding")
    closes: list[int] = Field([], description="ids of earlier claims this one corrects")


# Items are validated by `parse_claims` (one set of issues for every surface); the schema still
# shows their shape.
_ITEMS_SCHEMA: dict[str, Any] = {
    "type": "array",
    "maxItems": MAX_BATCH,
    "items": ClaimIn.model_json_schema(),
    "description": f"up to {MAX_BATCH} claims, written all or nothing",
}
ClaimItems = Annotated[list[Any], WithJsonSchema(_ITEMS_SCHEMA)]


class AssociationsIn(Request):
    associations: ClaimItems
    scopes: list[str] | None = Field(
        None,
        description="scopes the claims are stored under (default: the context's)",
        json_schema_extra=SCOPES_BOUNDS,
    )

    def claims(self) -> list[ClaimInput]:
        """The batch, checked item by item by the service's one parser (nothing is written
        when any item has a problem)."""
        return parse_claims(self.associations, "associations")


@served(
    WriteReport,
    {
        "claims": "the new claim ids, in input order",
        "associations": "distinct associations whose weight changed",
        "minted_concepts": "concept spellings this batch created: check they are not "
        "near-duplicates",
        "minted_labels": "label spellings this batch created",
        "aliased": "alias spellings written as their canonical one",
        "closed": "earlier claims closed by `closes`",
    },
)
class WriteReportOut(Response):
    pass


class EdgeIn(Request):
    subject: str = Field(description="An exact spelling (resolve it first).")
    label: str = Field(description="An exact spelling (resolve it first).")
    object: str = Field(description="An exact spelling (resolve it first).")
    perspective: str | None = Field(None, description="only this partition ('' = world)")
    source: str | None = Field(None, description="only claims attributed to this source")


class RetractAssociationsIn(Request):
    associations: list[EdgeIn] = Field(
        min_length=1, max_length=MAX_BATCH, description="edges whose live claims to close"
    )
    dry_run: bool = Field(False, description="count what would close, close nothing")

    def edges(self) -> list[tuple[str, str, str, str | None, str | None]]:
        return [(e.subject, e.label, e.object, e.perspective, e.source) for e in self.associations]


@served(
    CloseReport,
    {
        "claims": "claims closed (or that would close)",
        "associations": "associations whose weight dropped",
    },
)
class CloseReportOut(Response):
    pass


class AliasIn(Request):
    alias: str = Field(description="the entry-only spelling to add")
    target: str = Field(description="an existing canonical spelling")
    kind: Kind = Field("concept", description="`concept` or `label`")
    scopes: list[str] | None = Field(
        None, description="default: the context's scopes", json_schema_extra=SCOPES_BOUNDS
    )


@served(AliasInfo)
class AliasOut(Response):
    pass


class AliasWritten(AliasOut):
    created: bool = Field(description="false when the alias already existed")


@dataclass(frozen=True)
class AliasList:
    aliases: list[AliasInfo]


class AliasDelete(Request):
    """`DELETE /contexts/{context}/aliases` with the alias in the body (Taguru's form)."""

    alias: str = Field(description="the entry-only spelling to retract")
    kind: Kind = Field("concept", description="`concept` or `label`")


@dataclass(frozen=True)
class AliasRemoved:
    alias: str
    kind: str
    removed: Annotated[int, Field(description="alias rows retracted (one per scope set)")]


# -- the add_alias tool's answer (HTTP flattens the alias into AliasWritten) ----------------------


@dataclass(frozen=True)
class AliasWrittenResult:
    alias: AliasInfo
    created: bool


# -- tool arguments: the bodies above with the path's context ----------------------------------


class AddAssociationsArgs(AssociationsIn):
    context: ContextArg


class RetractAssociationsArgs(RetractAssociationsIn):
    context: ContextArg


class PromoteIn(Request):
    """A personal claim (experience, observation, opinion, preference) made the world's."""

    claim: int = Field(description="the open personal claim's id", ge=1)
    scopes: list[str] | None = Field(
        None,
        description="the world claim's scopes (default: the personal claim's); they must be "
        "readable wherever it was",
        json_schema_extra=SCOPES_BOUNDS,
    )


class PromoteArgs(PromoteIn):
    context: ContextArg


class AddAliasArgs(AliasIn):
    context: ContextArg


class RemoveAliasArgs(AliasDelete):
    context: ContextArg


class ListAliasesArgs(Request):
    context: ContextArg
    kind: Annotated[
        Literal["concept", "label"] | None, Field(description="Only aliases of this kind.")
    ] = None
