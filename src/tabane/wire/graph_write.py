"""The wire shapes of the graph writes: claims in batches, association retraction, aliases.

A batch's items travel as plain JSON objects and are checked by the service's own parser
(`parse_claims`), so every surface reports the same path-addressed issues
(`associations[17].weight: not finite`) and a batch with any problem writes nothing. The item
shape is still documented in the OpenAPI schema (`ClaimIn`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, WithJsonSchema

from tabane.graph.claim_input import MAX_BATCH, MAX_STATEMENT, MAX_WEIGHT
from tabane.graph.vocabulary import MAX_SPELLING, AliasInfo
from tabane.wire.base import ContextArg, Request, Response, Scopes

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
        None, description="scopes the claims are stored under (default: the context's)"
    )


class WriteReportOut(Response):
    claims: list[int] = Field(description="the new claim ids, in input order")
    associations: int = Field(description="distinct associations whose weight changed")
    minted_concepts: list[str] = Field(
        description="concept spellings this batch created: check they are not near-duplicates"
    )
    minted_labels: list[str] = Field(description="label spellings this batch created")
    aliased: dict[str, str] = Field(description="alias spellings written as their canonical one")
    closed: int = Field(description="earlier claims closed by `closes`")


class EdgeIn(Request):
    subject: str
    label: str
    object: str
    perspective: str | None = Field(None, description="only this partition ('' = world)")
    source: str | None = Field(None, description="only claims attributed to this source")


class RetractAssociationsIn(Request):
    associations: list[EdgeIn] = Field(
        min_length=1, max_length=MAX_BATCH, description="edges whose live claims to close"
    )
    dry_run: bool = Field(False, description="count what would close, close nothing")


class CloseReportOut(Response):
    claims: int = Field(description="claims closed (or that would close)")
    associations: int = Field(description="associations whose weight dropped")
    dry_run: bool


class AliasIn(Request):
    alias: str = Field(description="the entry-only spelling to add")
    target: str = Field(description="an existing canonical spelling")
    kind: Kind = Field("concept", description="`concept` or `label`")
    scopes: list[str] | None = Field(None, description="default: the context's scopes")


class AliasOut(Response):
    alias: str
    target: str
    kind: str
    scopes: list[str]


class AliasWritten(AliasOut):
    created: bool = Field(description="false when the alias already existed")


class AliasList(BaseModel):
    aliases: list[AliasOut]


class AliasRemoved(BaseModel):
    alias: str
    kind: str
    removed: int = Field(description="alias rows retracted (one per scope set)")


# -- results ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AliasWrittenResult:
    alias: AliasInfo
    created: bool


@dataclass(frozen=True)
class AliasRemovedResult:
    alias: str
    kind: str
    removed: int


@dataclass(frozen=True)
class AliasListResult:
    aliases: list[AliasInfo]


# -- arguments --------------------------------------------------------------------------------

Spelling = Annotated[StrictStr, Field(description="An exact spelling (resolve it first).")]
KindArg = Annotated[Literal["concept", "label"], Field(description="Concept or label spelling.")]


class ClaimArg(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
    subject: Annotated[StrictStr, Field(description="Concept spelling: reuse what resolve found.")]
    label: Annotated[
        StrictStr, Field(description="Edge label from a small vocabulary (list_labels).")
    ]
    object: Annotated[StrictStr, Field(description="Concept spelling: reuse what resolve found.")]
    weight: Annotated[
        float,
        Field(
            strict=True,  # an integer is a number; "1" and true are not
            description="Finite, |weight| <= 1e6; negative means 'not' (does not cause).",
        ),
    ]
    statement: Annotated[
        StrictStr | None, Field(description="The sentence the claim was read from.")
    ] = None
    source: Annotated[
        StrictStr | None, Field(description="source_id it is attributed to: attribute every edge.")
    ] = None
    paragraph: Annotated[
        StrictInt | None, Field(ge=0, description="Paragraph index within source (lookup_source).")
    ] = None
    author: Annotated[StrictStr | None, Field(description="Who holds it; default: you.")] = None
    role: Annotated[StrictStr | None, Field(description="The author's role.")] = None
    kind: Annotated[
        Literal["world", "experience", "observation", "opinion", "preference"],
        Field(description="Epistemic kind; personal kinds get one partition per author."),
    ] = "world"
    perspective: Annotated[
        StrictStr | None, Field(description="Partition key of a personal kind; default: author.")
    ] = None
    valid_from: Annotated[
        StrictStr | None, Field(description="ISO 8601: when it starts to hold.")
    ] = None
    valid_until: Annotated[StrictStr | None, Field(description="ISO 8601: when it stops.")] = None
    closes: Annotated[
        list[StrictInt], Field(description="Ids of earlier claims this one corrects.")
    ] = []


class AddAssociationsArgs(Request):
    context: ContextArg
    associations: Annotated[
        list[ClaimArg],
        Field(
            min_length=1,
            max_length=MAX_BATCH,
            description=f"Up to {MAX_BATCH} claims, written all or nothing.",
        ),
    ]
    scopes: Scopes = None


class EdgeArg(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
    subject: Spelling
    label: Spelling
    object: Spelling
    perspective: Annotated[
        StrictStr | None, Field(description="Only this partition ('' = world claims).")
    ] = None
    source: Annotated[
        StrictStr | None, Field(description="Only claims attributed to this source_id.")
    ] = None


class RetractAssociationsArgs(Request):
    context: ContextArg
    associations: Annotated[
        list[EdgeArg],
        Field(min_length=1, max_length=MAX_BATCH, description="The edges whose claims to close."),
    ]
    dry_run: Annotated[bool, Field(description="Only count what would close.")] = False


class AddAliasArgs(Request):
    context: ContextArg
    alias: Annotated[StrictStr, Field(description="The new entry-only spelling.")]
    target: Annotated[StrictStr, Field(description="The existing canonical spelling.")]
    kind: KindArg = "concept"
    scopes: Scopes = None


class RemoveAliasArgs(Request):
    context: ContextArg
    alias: Annotated[StrictStr, Field(description="The alias to retract.")]
    kind: KindArg = "concept"


class ListAliasesArgs(Request):
    context: ContextArg
    kind: Annotated[
        Literal["concept", "label"] | None, Field(description="Only aliases of this kind.")
    ] = None
