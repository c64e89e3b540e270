"""From the statement's rows to candidates and evidence items: the text each kind shows, its public
provenance, its citation and its author (pure functions over the row)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from tabane.checks import SOURCE_STATES
from tabane.graph.claims.vectors import shown_text
from tabane.models.extractive import sentences
from tabane.models.summarizer import strip_citations
from tabane.recall.result import (
    Citation,
    Evidence,
    Fact,
    Kind,
    LaneRank,
    Provenance,
    ScopeRef,
    Stance,
)
from tabane.recall.statement import REPLY_FIELDS

KEY_PREFIX: dict[str, str] = {
    "paragraph": "p",
    "claim": "c",
    "association": "a",
    "turn": "t",
    "catalog": "s",
    "area": "g",
    "community": "m",
    "profile": "f",
    "raptor": "r",
}
PROVENANCE: dict[str, Provenance] = {
    "paragraph": "source excerpt",
    "claim": "derived memory",
    "association": "derived memory",
    "turn": "recent session memory",
    "catalog": "derived memory",
    "area": "derived memory",
    "community": "derived memory",
    "profile": "derived memory",
    "raptor": "derived memory",
}


@dataclass(frozen=True)
class Candidate:
    key: str
    kind: Kind
    item_id: int
    context: str | None
    fused: float
    lanes: tuple[LaneRank, ...]
    direct: bool
    source_pk: int | None
    title: str | None
    row: Any  # the statement's row (details for `evidence`)
    asked: str | None = None  # the key of the item that asked, when this is its reply

    @property
    def lane_names(self) -> tuple[str, ...]:
        return tuple(lr.lane for lr in self.lanes)


def candidate(row: Any, context_names: dict[int, str]) -> Candidate:
    lanes = tuple(
        LaneRank(lane, int(rank), float(score))
        for lane, rank, score in zip(row.lanes, row.ranks, row.scores, strict=True)
    )
    kind: Kind = row.kind
    item_id, asked = int(row.item_id), None
    reply = _reply(row)
    if reply is not None:  # it asks: its reply takes its place
        asked = f"{KEY_PREFIX[kind]}:{item_id}"
        item_id, row = reply
    elif row.asked_id is not None:  # it answers the question just before it
        asked = f"{KEY_PREFIX[kind]}:{row.asked_id}"
    return Candidate(
        key=f"{KEY_PREFIX[kind]}:{item_id}",
        kind=kind,
        item_id=item_id,
        context=context_names.get(row.context_id) if row.context_id is not None else None,
        fused=float(row.fused),
        lanes=lanes,
        direct=bool(row.direct),
        source_pk=int(row.source_pk) if row.source_pk is not None else None,
        title=row.title,
        row=row,
        asked=asked,
    )


# The most of a question an answer carries (`in_reply_to`): its closing sentences within this many
# characters — the question is what it ends with; a long preamble would cost the answer's budget.
MAX_ASKED = 200


def asked_part(text: str) -> str:
    """The closing sentences of an asking text within `MAX_ASKED` characters (at least its last
    sentence, itself cut to its last `MAX_ASKED` characters behind an ellipsis)."""
    said = sentences(text) or [text.strip()]
    kept = [said[-1]]
    for sentence in reversed(said[:-1]):
        if len(" ".join([sentence, *kept])) > MAX_ASKED:
            break
        kept.insert(0, sentence)
    out = " ".join(kept)
    return out if len(out) <= MAX_ASKED else "…" + out[-(MAX_ASKED - 1) :].lstrip()


def _reply(row: Any) -> tuple[int, Any] | None:
    """The reply that takes an asking paragraph's or turn's place (statement.py `_replies`):
    its id and the row with the reply's details in place of the question's, whose text becomes
    `asked_text`."""
    for kind, fields in REPLY_FIELDS.items():
        reply = getattr(row, f"reply_{kind}")
        if reply is not None:
            swap = {name: getattr(row, f"reply_{kind}_{own}") for name, own in fields.items()}
            swap["asked_text"] = getattr(row, f"{kind}_text")
            return int(reply), SimpleNamespace(**{**row._mapping, **swap})
    return None


def edge_text(subject: str, label: str, obj: str, weight: float) -> str:
    """An edge as a reader should take it: a negative weight reads "not"."""
    shown = f"{weight:+.2f}" if math.isfinite(weight) else str(weight)
    if weight < 0:
        return f"NOT ({subject} —{label}→ {obj}) [weight {shown}]"
    return f"{subject} —{label}→ {obj} [weight {shown}]"


def _claim_text(r: Any) -> str:
    """A claim's own statement, else its triple (graph/claims/vectors.py `shown_text`)."""
    return shown_text(r.statement, r.claim_subject, r.claim_label, r.claim_object, r.claim_weight)


def area_text(area: str, states: Any, titles: Any) -> str:
    """An area item: its name, its sources (`states`: the counts in SOURCE_STATES order, then
    every source's, stated or not) by state (states with none left out) and its newest titles,
    e.g. `area Work: 4 sources (2 active, 1 waiting); newest: Roadmap · Budget`."""
    found = [int(n) for n in states or ()]
    counts = [(s, n) for s, n in zip(SOURCE_STATES, found, strict=False) if n]
    total = found[len(SOURCE_STATES)] if len(found) > len(SOURCE_STATES) else sum(found)
    by_state = f" ({', '.join(f'{n} {s}' for s, n in counts)})" if counts else ""
    head = f"area {' '.join(area.split())}: {total} source{'' if total == 1 else 's'}"
    newest = " · ".join(" ".join(str(t).split()) for t in titles or ())
    return head + by_state + (f"; newest: {newest}" if newest else "")


def evidence(c: Candidate, scopes: dict[str, str], session_name: str | None) -> Evidence:
    """The candidate as an evidence item: text, public provenance, citation, scope objects."""
    text, citation, author, when = _details(c, session_name)
    return Evidence(
        key=c.key,
        kind=c.kind,
        text=text,
        provenance=PROVENANCE[c.kind],
        citation=citation,
        scopes=tuple(ScopeRef(n, scopes.get(n, "")) for n in sorted(c.row.scopes or ())),
        author=author,
        when=when,
        direct=c.direct,
        in_reply_to=asked_part(c.row.asked_text) if c.asked is not None else None,
        fact=_fact(c),
        stance=_stance(c),
    )


def _stance(c: Candidate) -> Stance | None:
    """A claim's kind, perspective and role: whose view it is (the bundle says so, cite.py)."""
    if c.kind != "claim":
        return None
    r = c.row
    return Stance(str(r.claim_kind), str(r.claim_perspective or ""), r.claim_role or None)


def _edge_weight(c: Candidate) -> float:
    """An edge's signed net weight over the rows the caller can see (the walk lane's score)."""
    return next(lr.score for lr in c.lanes if lr.lane == "walk")


def _fact(c: Candidate) -> Fact | None:
    """What an edge, or a claim that only states its triple, asserts: an edge and the claim it
    was netted from say one thing (a claim with a statement of its own says more)."""
    r = c.row
    if c.kind == "association":
        weight = _edge_weight(c)
        triple = (r.edge_perspective or "", r.edge_subject, r.edge_label, r.edge_object)
    elif c.kind == "claim" and not r.statement and r.claim_subject is not None:
        weight = r.claim_weight if r.claim_weight is not None else 1.0
        triple = (r.claim_perspective or "", r.claim_subject, r.claim_label, r.claim_object)
    else:
        return None
    perspective, subject, label, obj = (str(x) for x in triple)
    return Fact(c.context or "", perspective, subject, label, obj, negated=weight < 0)


def _details(c: Candidate, session_name: str | None) -> tuple[str, Citation, str | None, Any]:
    r = c.row
    if c.kind == "paragraph":
        cite = Citation(
            context=c.context,
            source=r.source_id,
            paragraph=r.idx,
            section=tuple(r.section_path or ()),
            locator=r.locator,
            kind=r.paragraph_kind,
            title=r.title,
        )
        return r.paragraph_text, cite, None, r.source_date
    if c.kind == "claim":
        holder = r.claim_perspective or (r.author if r.claim_kind != "world" else None)
        cite = Citation(
            context=c.context, source=r.claim_source, paragraph=r.claim_paragraph, claim=c.item_id
        )
        return _claim_text(r), cite, holder or r.author, r.valid_from or r.recorded_at
    if c.kind == "association":
        weight = _edge_weight(c)
        text = edge_text(r.edge_subject, r.edge_label, r.edge_object, weight)
        cite = Citation(context=c.context, source=r.edge_source, paragraph=r.edge_paragraph)
        return text, cite, r.edge_perspective or None, None
    if c.kind == "turn":
        return r.turn_text, Citation(session=session_name, turn=r.seq), r.speaker, r.at
    if c.kind == "community":
        name = f"community {r.community_level}.{r.community_ordinal}"
        return (
            r.community_summary,
            Citation(context=c.context, title=name),
            None,
            r.community_built_at,
        )
    if c.kind == "profile":
        cite = Citation(context=c.context, title=f"profile of {r.profile_concept}")
        return r.profile_summary, cite, None, r.profile_built_at
    if c.kind == "raptor":
        name = f"overview {r.raptor_level}.{r.raptor_ordinal} of {r.raptor_leaves} passages"
        # the markers cite members by internal id: the node's members route follows them
        text = strip_citations(r.raptor_summary)
        return text, Citation(context=c.context, title=name), None, r.raptor_built_at
    if c.kind == "area":
        cite = Citation(context=c.context, title=f"area {r.area}")
        return area_text(r.area, r.area_states, r.area_titles), cite, None, r.area_newest
    area = f", area {r.area}" if r.area else ""
    cite = Citation(context=c.context, source=r.source_id, title=r.title)
    when = r.source_date or r.stored_at
    if "navigation" in c.lane_names or r.state is None:
        return document_text(r.title, r.source_id, r.area), cite, None, when
    return f"{r.title or r.source_id} ({r.state}{area})", cite, None, when


def document_text(title: str | None, source_id: str, area: str | None) -> str:
    """A document a navigation question asks for, as the bundle names it: its title and the
    source id to cite (`the document "Title" (source id), area Work`); no path of its own
    beyond the id, so the answer cites what the store holds."""
    name = " ".join((title or "").split())
    head = f'the document "{name}" ({source_id})' if name else f"the document {source_id}"
    return head + (f", area {' '.join(area.split())}" if area else "")
