"""Arguments and results of the graph write tools (`tools_graph`): claims in batches, association
retraction, aliases. Claim fields are strict (a number is not a string, `true` is not 1); the
service's `parse_claims` then checks what a schema cannot (empty names, |weight| > 1e6, dates)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from tabane.graph.claim_input import MAX_BATCH
from tabane.graph.vocabulary import AliasInfo
from tabane.mcp.arguments import Args, ContextArg, Scopes

# -- results ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AliasWritten:
    alias: AliasInfo
    created: bool


@dataclass(frozen=True)
class AliasRemoved:
    alias: str
    kind: str
    removed: int


@dataclass(frozen=True)
class AliasList:
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


class AddAssociationsArgs(Args):
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


class RetractAssociationsArgs(Args):
    context: ContextArg
    associations: Annotated[
        list[EdgeArg],
        Field(min_length=1, max_length=MAX_BATCH, description="The edges whose claims to close."),
    ]
    dry_run: Annotated[bool, Field(description="Only count what would close.")] = False


class AddAliasArgs(Args):
    context: ContextArg
    alias: Annotated[StrictStr, Field(description="The new entry-only spelling.")]
    target: Annotated[StrictStr, Field(description="The existing canonical spelling.")]
    kind: KindArg = "concept"
    scopes: Scopes = None


class RemoveAliasArgs(Args):
    context: ContextArg
    alias: Annotated[StrictStr, Field(description="The alias to retract.")]
    kind: KindArg = "concept"


class ListAliasesArgs(Args):
    context: ContextArg
    kind: Annotated[
        Literal["concept", "label"] | None, Field(description="Only aliases of this kind.")
    ] = None
