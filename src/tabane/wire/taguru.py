"""The wire shapes of Taguru's forms (api/routes/taguru.py; decision 0023): the bodies Taguru's
clients send where tabane's own routes take another shape, and the answers they expect. Under
`/taguru` every answer is Taguru's envelope `{result, status: "ok", time}`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import BaseModel, Field, WithJsonSchema

from tabane.checks import MAX_INT4, Cue
from tabane.graph.claims.parse import MAX_BATCH, MAX_WEIGHT
from tabane.graph.query.pattern import DEFAULT_LIMIT, MAX_LIMIT
from tabane.graph.vocabulary import MAX_SPELLING
from tabane.graph.walk.paths import MAX_PATHS, MAX_UNREACHABLE_PAGE
from tabane.graph.walk.walk import MAX_ACTIVATE, MAX_DEPTH
from tabane.ingest.documents import MAX_TAGS_SENT, DocumentInput, block
from tabane.search.plan import MAX_LIMIT as SEARCH_LIMIT
from tabane.search.plan import SearchRequest
from tabane.wire.base import Request, Response
from tabane.wire.contexts import ContextOut
from tabane.wire.graph_read import DescribeOut, EdgeOut, LabelCountOut
from tabane.wire.resolve import ResolveExplanationOut
from tabane.wire.search import HitOut, SearchOut, SearchPlanOut
from tabane.wire.sources import LocatorModel

T = TypeVar("T")
Tags = Annotated[
    list[Annotated[str, Field(max_length=128)]], Field(max_length=MAX_TAGS_SENT)
]  # ingest.check_tags
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


class CrossRecallIn(CueRecallIn):
    contexts: list[str] = Field([], description="contexts to read")
    groups: list[str] = Field([], description="groups to read (nested groups included)")


class TaguruQueryIn(Request):
    """Taguru's query: each position a spelling or a list; `{total, matches, plan}` back."""

    subject: Cue | None = Field(None, description="a spelling or a list of them")
    label: Cue | None = Field(None, description="a spelling or a list of them")
    object: Cue | None = Field(None, description="a spelling or a list of them")
    limit: int = Field(DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="matches per page")
    after: str | None = Field(None, description="`next` of the previous page")


class TaguruCrossQueryIn(TaguruQueryIn):
    contexts: list[str] = Field([], description="contexts to read")
    groups: list[str] = Field([], description="groups to read (nested groups included)")


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


# -- sources ---------------------------------------------------------------------------------------


class QuestionAt(Request):
    paragraph: int = Field(ge=0, le=MAX_INT4)
    question: str = Field(min_length=1, description="a question the paragraph answers")


class SectionAt(Request):
    paragraph: int = Field(ge=0, le=MAX_INT4)
    section: str = Field(min_length=1, description="the heading from this paragraph on")


class LocatorAt(Request):
    paragraph: int = Field(ge=0, le=MAX_INT4)
    locator: LocatorModel


class PassagesIn(Request):
    """Taguru's passage store: source id → its whole text, split at blank lines."""

    document_fields = frozenset({"passages"})

    passages: dict[str, str] = Field(description="source id → the document's text")
    questions: dict[str, list[QuestionAt]] = Field({}, description="doc2query, per paragraph")
    sections: dict[str, list[SectionAt]] = Field({}, description="headings, per paragraph")
    locators: dict[str, list[LocatorAt]] = Field({}, description="one paragraph's position")
    tags: dict[str, Tags] = Field({}, description="source id → its tags")
    dates: dict[str, int] = Field({}, description="source id → the document's epoch seconds")

    def documents(self) -> list[tuple[DocumentInput, dict[str, int]]]:
        """One document per source, its text split at blank lines (Taguru's paragraphs), with
        the questions, sections (from their paragraph on), locators (that paragraph only), tags
        and date given for it; what named a paragraph the text does not have is counted as
        dropped."""
        out = []
        for i, (source, text) in enumerate(self.passages.items()):
            where = f"passages[{i}]"
            paras = [p.strip() for p in re.split(r"\n[ \t]*\n", text) if p.strip()]
            n = len(paras)
            counts = {f"{k}_{v}": 0 for k in ("questions", "sections", "locators") for v in _KEPT}
            asked: list[list[str]] = [[] for _ in paras]
            for q in self.questions.get(source, []):
                if _placed(q.paragraph, n, counts, "questions"):
                    asked[q.paragraph].append(q.question)
            heading: list[tuple[str, ...]] = [() for _ in paras]
            for s in sorted(self.sections.get(source, []), key=lambda s: s.paragraph):
                if _placed(s.paragraph, n, counts, "sections"):
                    heading[s.paragraph :] = [(s.section,)] * (n - s.paragraph)
            placed: list[dict[str, Any] | None] = [None for _ in paras]
            for at in self.locators.get(source, []):
                if _placed(at.paragraph, n, counts, "locators"):
                    placed[at.paragraph] = at.locator.model_dump(exclude_none=True)
            blocks = [
                block(t, heading[k], placed[k], path=f"{where}[{k}]") for k, t in enumerate(paras)
            ]
            date = self.dates.get(source)
            doc = DocumentInput(
                source_id=source,
                paragraphs=blocks,
                date=None if date is None else datetime.fromtimestamp(date, UTC).isoformat(),
                tags=self.tags.get(source),
                questions=tuple(tuple(q) for q in asked),
            )
            out.append((doc, counts))
        return out


_KEPT = ("stored", "dropped")


def _placed(paragraph: int, paragraphs: int, counts: dict[str, int], what: str) -> bool:
    kept = paragraph < paragraphs
    counts[f"{what}_{_KEPT[0] if kept else _KEPT[1]}"] += 1
    return kept


class PassagesStored(Response):
    stored: int
    questions_stored: int
    questions_dropped: int
    sections_stored: int
    sections_dropped: int
    locators_stored: int
    locators_dropped: int


class SourceIn(Request):
    source: str = Field(min_length=1, description="the source id")


class SourceRetracted(Response):
    associations_touched: int
    passage_removed: bool


class CitationAt(Request):
    source: str = Field(min_length=1, description="the source id")
    paragraph: int = Field(ge=0, le=MAX_INT4, description="0-based paragraph index")


class CitationOut(Response):
    text: str
    source: str
    section: str | None = Field(description="the innermost heading governing the paragraph")
    locator: dict[str, Any] | None


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


class SourceEntry(Response):
    name: str
    stored_at: datetime
    date: datetime | None
    tags: list[str]


class SourcesPage(Response):
    total: int = Field(description="stored sources of the context")
    sources: list[str] = Field(description="one page of source ids, in order")
    entries: list[SourceEntry] = Field(description="the same page with its metadata")


class LookupIn(Request):
    sources: list[str] = Field(min_length=1, max_length=1000, description="source ids")


class LookupOut(Response):
    passages: dict[str, str] = Field(description="source id → its paragraphs, blank-line joined")
    missing: list[str] = Field(description="ids not stored here (or retracted)")


def keyset(names: list[str], limit: int, after: str | None) -> list[str]:
    """One page of sorted `names` after `after` (Taguru's keyset paging by name)."""
    return [n for n in sorted(names) if after is None or n > after][:limit]


# -- passage search --------------------------------------------------------------------------------


class TaguruSearchIn(Request):
    """Taguru's passage search: `since`/`until` in epoch seconds, five hits by default."""

    query: str = Field(description="phrased like the answer you expect, not the question")
    limit: int = Field(5, ge=1, le=SEARCH_LIMIT, description="hits")
    semantic_floor: float | None = Field(
        None, ge=-1.0, le=1.0, description="cosine floor of the vector lane for this call"
    )
    tags: list[str] | None = Field(
        None,
        description="only sources with any of these tags",
        json_schema_extra={"minItems": 1, "items": {"minLength": 1, "pattern": r"\S"}},
    )
    since: int | None = Field(None, description="epoch seconds: sources dated on or after it")
    until: int | None = Field(None, description="epoch seconds: sources dated before it")

    def to_request(self, contexts: Sequence[str] = (), groups: Sequence[str] = ()) -> SearchRequest:
        return SearchRequest(
            query=self.query,
            contexts=tuple(contexts),
            groups=tuple(groups),
            limit=self.limit,
            tags=None if self.tags is None else tuple(self.tags),
            since=epoch(self.since),
            until=epoch(self.until),
            semantic_floor=self.semantic_floor,
        )


class TaguruCrossSearchIn(TaguruSearchIn):
    contexts: list[str] = Field([], description="contexts to search")
    groups: list[str] = Field([], description="groups to search (nested groups included)")


class PassageHit(HitOut):
    source: str = Field(description="Taguru's name for `source_id`")


class PassageSearchOut(Response):
    plan: SearchPlanOut
    hits: list[PassageHit]

    @classmethod
    def of(cls, found: SearchOut) -> PassageSearchOut:
        hits = [PassageHit.model_validate({**vars(h), "source": h.source_id}) for h in found.hits]
        return cls(plan=found.plan, hits=hits)


# -- walks -----------------------------------------------------------------------------------------


def epoch(seconds: int | None) -> datetime | None:
    return None if seconds is None else datetime.fromtimestamp(seconds, UTC)


class TaguruActivateIn(Request):
    origins: Cue = Field(description="concepts to spread from (resolve cues first)")
    decay: float = Field(0.5, gt=0.0, le=1.0, description="share passed on per hop")
    limit: int = Field(20, ge=1, le=MAX_ACTIVATE, description="associations to return")
    since: int | None = Field(None, description="epoch seconds: claims valid from it")
    until: int | None = Field(None, description="epoch seconds: claims valid before it")


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
