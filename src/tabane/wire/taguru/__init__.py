"""The wire shapes of Taguru's forms (api/routes/taguru.py; decision 0023): the bodies Taguru's
clients send where tabane's own routes take another shape, and the answers they expect. Under
`/taguru` every answer is Taguru's envelope `{result, status: "ok", time}`."""

from __future__ import annotations

from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import BaseModel, Field, WithJsonSchema

from tabane.checks import MAX_INT4, Cue
from tabane.graph.claims.parse import MAX_BATCH, MAX_WEIGHT
from tabane.graph.query.pattern import DEFAULT_LIMIT, MAX_LIMIT
from tabane.graph.vocabulary import MAX_SPELLING
from tabane.graph.walk.paths import MAX_PATHS, MAX_UNREACHABLE_PAGE
from tabane.graph.walk.walk import MAX_ACTIVATE, MAX_DEPTH
from tabane.wire.base import Request, Response
from tabane.wire.contexts import ContextOut
from tabane.wire.graph_read import DescribeOut, EdgeOut, LabelCountOut
from tabane.wire.resolve import ResolveExplanationOut
from tabane.wire.taguru.sources import Epoch

T = TypeVar("T")
SPELLING = Field(max_length=MAX_SPELLING, description="an exact spelling (an alias works too)")


class Ok(BaseModel, Generic[T]):
    """Taguru's success envelope."""

    result: T
    status: Literal["ok"] = "ok"
    time: float = Field(description="seconds the server spent")


# -- graph reads -----------------------------------------------------------------------------------


class CueRecallIn(Request):
    """Taguru's cue recall: every edge touching the cue, as subject or object."""

    cue: str = Field(description="a concept's spelling (an alias works too); resolve it first")
    limit: int = Field(DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="matches per page")
    after: str | None = Field(None, description="`next` of the previous page")


class Across(Request):
    """The contexts and groups a cross-context Taguru read spans."""

    contexts: list[str] = Field([], description="contexts to read")
    groups: list[str] = Field([], description="groups to read (nested groups included)")


class CrossRecallIn(Across, CueRecallIn):
    """Taguru's cue recall over several contexts and groups."""


class TaguruQueryIn(Request):
    """Taguru's query: each position a spelling or a list; `{total, matches, plan}` back."""

    subject: Cue | None = Field(None, description="a spelling or a list of them")
    label: Cue | None = Field(None, description="a spelling or a list of them")
    object: Cue | None = Field(None, description="a spelling or a list of them")
    limit: int = Field(DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="matches per page")
    after: str | None = Field(None, description="`next` of the previous page")


class TaguruCrossQueryIn(Across, TaguruQueryIn):
    """Taguru's query over several contexts and groups."""


class OriginsIn(Request):
    """Taguru's coverage audit: the associations no chain of edges joins to any origin."""

    origins: Cue = Field(description="the document's main concepts")
    limit: int = Field(100, ge=1, le=MAX_UNREACHABLE_PAGE, description="matches per page")
    after: str | None = Field(None, description="`next` of the previous page")


class MatchPlan(Response):
    contexts: list[str] = Field(description="every context read")


class AssociationOut(EdgeOut):
    count: int = Field(description="Taguru's name for `claims`: the live claims behind it")


class MatchPage(Response):
    total: int = Field(description="matching edges before the page was cut")
    matches: list[AssociationOut] = Field(description="strongest |weight| first")
    plan: MatchPlan
    next: str | None = Field(description="pass back as `after` for the next page")


class CueRecallOut(Response):  # the root form's answer (`POST /contexts/{c}/recall`)
    total: int = Field(description="matching edges before the page was cut")
    matches: list[EdgeOut] = Field(description="strongest |weight| first")
    plan: MatchPlan
    next: str | None = Field(description="pass back as `after` for the next page")


class TieredCandidate(Response):
    """One resolve candidate in Taguru's flat list (the lexical tier first, then the
    semantic one)."""

    name: str
    score: float
    tier: str = Field(description="lexical or semantic: never compare scores across tiers")
    kind: str | None = Field(description="exact, alias, containment, fuzzy (lexical only)")
    gloss: str | None


# -- graph writes --------------------------------------------------------------------------------


class TaguruAssociationIn(BaseModel):
    """One element of Taguru's bare associations array (documentation of the item shape; the
    service's one claim parser checks it)."""

    subject: str = SPELLING
    label: str = SPELLING
    object: str = SPELLING
    weight: float = Field(ge=-MAX_WEIGHT, le=MAX_WEIGHT, description="negative means 'not'")
    source: str | None = Field(None, description="the source id the fact was read from")
    paragraph: int | None = Field(
        None, ge=0, le=MAX_INT4, description="paragraph index within `source`"
    )


_ARRAY: dict[str, Any] = {
    "type": "array",
    "maxItems": MAX_BATCH,
    "items": TaguruAssociationIn.model_json_schema(),
    "description": f"Taguru's bare array: up to {MAX_BATCH} associations, all or nothing",
}
AssociationArray = Annotated[list[Any], WithJsonSchema(_ARRAY)]
ASSOCIATION_FIELDS = frozenset(TaguruAssociationIn.model_fields)


class EdgeRetractIn(Request):
    subject: str = SPELLING
    label: str = SPELLING
    object: str = SPELLING


class EdgeRetracted(Response):
    retracted: bool = Field(description="false: no live edge, nothing changed")
    attributions_removed: int = Field(description="claims closed")


class AliasesIn(Request):
    concepts: dict[str, str] = Field({}, description="alias → canonical concept")
    labels: dict[str, str] = Field({}, description="alias → canonical label")


class AliasesRemoveIn(Request):
    concepts: list[str] = Field([], description="concept aliases to withdraw")
    labels: list[str] = Field([], description="label aliases to withdraw")


class RenameTo(Request):
    to: str = Field(min_length=1, max_length=64, description="the new name")


# -- directory pages -------------------------------------------------------------------------------


class ContextsPage(Response):
    total: int = Field(description="contexts the caller can see")
    contexts: list[ContextOut] = Field(description="one page, by name")


class GroupRow(Response):
    name: str
    description: str
    contexts: list[str]
    groups: list[str]


class GroupsPage(Response):
    total: int = Field(description="groups the caller can see")
    groups: list[GroupRow] = Field(description="one page, by name")


class ContextMeta(Response):
    description: str
    dice_floor: float
    semantic_floor: float | None


class LabelsPage(Response):
    total: int = Field(description="canonical labels of the context")
    labels: list[str] = Field(description="one page, by spelling")


class AliasesPage(Response):
    total: int = Field(description="aliases of both namespaces")
    concepts: dict[str, str] = Field(description="alias → canonical concept")
    labels: dict[str, str] = Field(description="alias → canonical label")


def keyset(names: list[str], limit: int, after: str | None) -> list[str]:
    """One page of sorted `names` after `after` (Taguru's keyset paging by name)."""
    return [n for n in sorted(names) if after is None or n > after][:limit]


# -- walks -----------------------------------------------------------------------------------------


class TaguruActivateIn(Request):
    origins: Cue = Field(description="concepts to spread from (resolve cues first)")
    decay: float = Field(0.5, gt=0.0, le=1.0, description="share passed on per hop")
    limit: int = Field(20, ge=1, le=MAX_ACTIVATE, description="associations to return")
    since: Epoch | None = Field(None, description="epoch seconds: claims valid from it")
    until: Epoch | None = Field(None, description="epoch seconds: claims valid before it")


class TaguruPathsIn(Request):
    origins: Cue = Field(description="concepts a path may start at")
    targets: Cue = Field(description="concepts a path may end at")
    max_depth: int = Field(MAX_DEPTH, ge=1, le=MAX_DEPTH, description="edges per path at most")
    limit: int = Field(10, ge=1, le=MAX_PATHS, description="paths to return")


class ActivationMatch(Response):
    strength: float = Field(description="the activation that reached it: order within one call")
    path: list[str] = Field(description="the concepts from the origin, origin first")
    association: AssociationOut = Field(description="the edge that carried it there")


class ActivationPage(Response):
    total: int
    matches: list[ActivationMatch]


class PathMatch(Response):
    distance: int = Field(description="edges on the path")
    path: list[str] = Field(description="its concepts, origin first, target last")
    strength: float = Field(description="its weakest link: the least |weight| on it")
    associations: list[AssociationOut] = Field(description="one edge per hop")


class PathsPage(Response):
    total: int
    capped: bool = Field(description="the server's budget ran out: `total` is a lower bound")
    matches: list[PathMatch]


def association(edge: Any) -> AssociationOut:
    """A tabane edge as a Taguru association (its live claims as `count`)."""
    return AssociationOut.model_validate({**vars(edge), "count": edge.claims})


class LabelUsage(LabelCountOut):
    count: int = Field(description="Taguru's name for `edges`")


class Outline(DescribeOut):
    as_subject: list[LabelUsage]  # type: ignore[assignment]
    as_object: list[LabelUsage]  # type: ignore[assignment]

    @classmethod
    def of(cls, found: Any) -> Outline:
        def usage(counts: Any) -> list[LabelUsage]:
            return [LabelUsage.model_validate({**vars(c), "count": c.edges}) for c in counts]

        fields = {**vars(found), "as_subject": usage(found.as_subject)}
        return cls.model_validate({**fields, "as_object": usage(found.as_object)})


# tabane's resolve/explain verdicts under Taguru's names (the rest are spelled alike)
VERDICTS = {
    "eclipsed_by_exact": "cue_resolved_exactly",
    "cut_by_limit": "below_cutoff",
    "semantic_never_ran": "semantic_not_run",
}


class Verdict(ResolveExplanationOut):
    summary: str = Field(description="Taguru's name for `detail`")
    in_vocabulary: bool

    @classmethod
    def of(cls, found: Any) -> Verdict:
        told = ResolveExplanationOut.model_validate(found).model_dump()
        verdict = VERDICTS.get(told["verdict"], told["verdict"])
        named = told["verdict"] != "not_in_vocabulary"
        return cls(
            **{**told, "verdict": verdict, "summary": told["detail"], "in_vocabulary": named}
        )
