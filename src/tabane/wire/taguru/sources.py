"""The wire shapes of Taguru's sources (api/routes/taguru_wire/sources.py; decision 0023):
the passage store, lookup, retract, citation, the sources page and passage search."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import Field

from tabane.archive.stream import paragraphs
from tabane.checks import MAX_INT4
from tabane.ingest.documents import MAX_TAGS_SENT, DocumentInput, block
from tabane.search.plan import MAX_LIMIT as SEARCH_LIMIT
from tabane.search.plan import SearchRequest
from tabane.wire.base import Request, Response
from tabane.wire.search import ExplanationOut, HitOut, SearchOut, SearchPlanOut
from tabane.wire.sources import LocatorModel

# Epoch seconds from 1970 to the end of year 9999 (what a datetime holds)
Epoch = Annotated[int, Field(ge=0, le=253_402_300_799)]
Tags = Annotated[
    list[Annotated[str, Field(max_length=128)]], Field(max_length=MAX_TAGS_SENT)
]  # ingest.check_tags


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
    dates: dict[str, Epoch] = Field({}, description="source id → the document's epoch seconds")

    def documents(self) -> list[tuple[DocumentInput, dict[str, int]]]:
        """One document per source, its text split at blank lines (Taguru's paragraphs), with
        the questions, sections (from their paragraph on), locators (that paragraph only), tags
        and date given for it; what named a paragraph the text does not have is counted as
        dropped."""
        out = []
        for i, (source, text) in enumerate(self.passages.items()):
            where = f"passages[{i}]"
            paras = paragraphs(text)
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


class TaguruCitation(Response):
    text: str
    source: str
    section: str | None = Field(description="the innermost heading governing the paragraph")
    locator: dict[str, Any] | None


class SourceEntry(Response):
    name: str
    stored_at: datetime
    date: datetime | None
    tags: list[str]


class SourcesPage(Response):
    total: int = Field(description="stored sources of the context")
    sources: list[str] = Field(description="one page of source ids, in order")
    entries: list[SourceEntry] = Field(description="the same page with its metadata")


class PassageLookupIn(Request):
    sources: list[str] = Field(min_length=1, max_length=1000, description="source ids")


class PassageLookupOut(Response):
    passages: dict[str, str] = Field(description="source id → its paragraphs, blank-line joined")
    missing: list[str] = Field(description="ids not stored here (or retracted)")


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
    since: Epoch | None = Field(None, description="epoch seconds: sources dated on or after it")
    until: Epoch | None = Field(None, description="epoch seconds: sources dated before it")

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
        hits = [
            PassageHit.model_validate({**vars(h), "source": vars(h)["source_id"]})
            for h in found.hits
        ]
        return cls(plan=found.plan, hits=hits)


def epoch(seconds: int | None) -> datetime | None:
    return None if seconds is None else datetime.fromtimestamp(seconds, UTC)


class TaguruSearchExplainIn(TaguruSearchIn):
    """Why `source` (one paragraph, or its best showing) is or is not among this search's hits."""

    source: str = Field(min_length=1, description="the source id you expected")
    paragraph: int | None = Field(None, ge=0, le=MAX_INT4, description="one paragraph of it")


# tabane's search/explain verdicts under Taguru's names (the rest are spelled alike): Taguru's
# store keeps no tombstones, so a retracted source is `not_stored`; it has no separate verdict
# for a vector cosine under the floor with no shared term
SEARCH_VERDICTS = {"retracted": "not_stored", "below_floor": "no_term_overlap"}


class SearchVerdict(ExplanationOut):
    summary: str = Field(description="Taguru's name for `detail`")
    source: str = Field(description="Taguru's name for `source_id`")
    tabane_verdict: str = Field(description="tabane's own verdict, finer where names differ")

    @classmethod
    def of(cls, found: Any) -> SearchVerdict:
        told = ExplanationOut.model_validate(found).model_dump()
        verdict = SEARCH_VERDICTS.get(told["verdict"], told["verdict"])
        extra = {"summary": told["detail"], "source": told["source_id"]}
        return cls(**{**told, **extra, "verdict": verdict, "tabane_verdict": told["verdict"]})
