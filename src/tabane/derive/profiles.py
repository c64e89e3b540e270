"""Entity profiles: per concept of a context, a summary of its heaviest open claims.

What a build reads (the visibility rule, as for communities): the context's claims whose scope
set lies inside the context's scope set — the claims every reader of the context can see. A
profile carries the context's scope set, so it never repeats a claim one of its readers could
not see, and every writer builds the same profiles.

Which concepts: the `top` concepts by weighted degree (the sum of |weight| over their open
claims, as subject or object; ties by name), all of them when there are fewer. Which claims: per
concept its `MEMBERS` heaviest open claims (|weight|, then id); zero-weight claims say nothing
and are left out. Perspectives are kept apart: world claims first, unlabelled, then each holder's
claims (the `MAX_HOLDERS` heaviest holders, by their summed |weight|, then name) as one section
`<holder>: …`, so an opinion is never rendered without its holder. Each section is written by
the configured summarizer (members `c:<id>`, text: the statement, else "subject label object"
with "not" before the label for a negative weight; weight |weight|) within its share of
`BUDGET_CHARS`; sections are joined by newlines. The fingerprint covers every member read.

Freshness: a concept's `claim_version` counts its visible claims, open and closed, with the
newest recording and closing times; a read whose current version differs from the build's says
`stale` (a new claim, a closed one).

Reuse: a rebuild keeps a concept's stored summary, refs and vector when its members read the
same (the fingerprint) and the configured summarizer wrote it, without calling the summarizer or
the embedder for it, so a rebuild after a small change summarizes only the concepts it touched.
A build without an embedder leaves its new summaries without a vector; the next build with one
embeds every summary lacking a vector of its model.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, insert, select, union_all
from sqlalchemy.dialects.postgresql import aggregate_order_by
from sqlalchemy.orm import Session

from tabane.derive.shared import shared
from tabane.errors import InvalidInput, Issue
from tabane.models.embedder import Embedder, checked
from tabane.models.summarizer import Member, Summarizer, Summary, fingerprint, strip_citations
from tabane.storage.schema import Claim, Context, Profile

_LOCK = 0x7072_6F66  # advisory lock class of profile builds (the context id is the other key)
DEFAULT_TOP = 200  # concepts profiled per context by default
MAX_TOP = 100_000
MEMBERS = 24  # heaviest open claims read per concept
MAX_HOLDERS = 4  # perspective holders given a section, heaviest first
BUDGET_CHARS = 800  # of a whole profile; each section gets an equal share
_MIN_SECTION = 60
_EMBED_BATCH = 64
_DIGITS = 9  # weights compared rounded, so summation noise never breaks a tie


@dataclass(frozen=True)
class ProfileBuild:
    context: str
    concepts: int  # profiles written
    candidates: int  # concepts with open claims
    reused: int  # profiles whose members were unchanged: summary and vector kept, not rewritten
    summarizer: str
    model: str | None  # of the summary embeddings (None: no embedder)
    built_at: datetime
    seconds: float


@dataclass(frozen=True)
class ProfileInfo:
    context: str
    concept: str
    built: bool  # false: never built, or the concept was not among the `top`
    built_at: datetime | None
    stale: bool  # the concept's claims changed after the build (or it has claims, unbuilt)
    weight: float | None  # weighted degree at the build
    summary: str
    summarizer: str | None
    fingerprint: str | None
    refs: tuple[str, ...]
    model: str | None
    dim: int | None
    claim_version: str | None  # of the build
    current_version: str  # of the concept's claims now


@dataclass(frozen=True)
class _Claim:
    id: int
    perspective: str
    weight: float
    text: str


def claim_text(
    statement: str | None, subject: str | None, label: str | None, obj: str | None, weight: float
) -> str:
    """A claim as a profile reads it: its statement, else its triple ("not" when negative)."""
    if statement is not None and statement.strip():
        return statement
    return f"{subject} not {label} {obj}" if weight < 0 else f"{subject} {label} {obj}"


def _about(ctx: Context, concepts: Collection[str] | None, *cols: Any) -> Any:
    """Visible claims of the context with a triple, once per concept they name (a claim from a
    concept to itself counts once): `concept` plus `cols`."""
    c = Claim
    base = [*shared(c, ctx), c.subject.is_not(None)]
    subj = select(c.subject.label("concept"), *cols).where(*base)
    obj = select(c.object.label("concept"), *cols).where(*base, c.object != c.subject)
    if concepts is not None:
        wanted = sorted(set(concepts))
        subj = subj.where(c.subject.in_(wanted))
        obj = obj.where(c.object.in_(wanted))
    return union_all(subj, obj).subquery()


def claim_versions(
    session: Session, ctx: Context, concepts: Collection[str] | None = None
) -> dict[str, str]:
    """Per concept: its visible claims (all / closed), the newest recording and closing time."""
    q = _about(ctx, concepts, Claim.recorded_at, Claim.closed_at)
    rows = session.execute(
        select(
            q.c.concept,
            func.count(),
            func.count(q.c.closed_at),
            func.max(q.c.recorded_at),
            func.max(q.c.closed_at),
        ).group_by(q.c.concept)
    )
    return {name: f"{n}:{closed}:{_iso(rec)}:{_iso(last)}" for name, n, closed, rec, last in rows}


def _iso(at: datetime | None) -> str:
    return at.isoformat() if at is not None else "-"


def heaviest(session: Session, ctx: Context, top: int | None) -> list[tuple[str, float]]:
    """Concepts with open non-zero claims by weighted degree (heaviest first, then by name)."""
    q = _about(ctx, None, Claim.id, Claim.weight, Claim.closed_at)
    degree = func.sum(aggregate_order_by(func.abs(q.c.weight), q.c.id))  # a fixed order
    rows = session.execute(
        select(q.c.concept, degree)
        .where(q.c.closed_at.is_(None), q.c.weight != 0)
        .group_by(q.c.concept)
    ).all()
    ranked = sorted(((n, float(w)) for n, w in rows), key=lambda r: (-round(r[1], _DIGITS), r[0]))
    return ranked if top is None else ranked[:top]


def _members(session: Session, ctx: Context, concepts: Collection[str]) -> dict[str, list[_Claim]]:
    """Each concept's `MEMBERS` heaviest open claims (|weight| desc, then id)."""
    c = Claim
    q = _about(
        ctx, concepts, c.id, c.perspective, c.weight, c.statement, c.subject, c.label, c.object,
        c.closed_at,
    )  # fmt: skip
    rank = func.row_number().over(
        partition_by=q.c.concept, order_by=(func.abs(q.c.weight).desc(), q.c.id)
    )
    live = select(q, rank.label("rank")).where(q.c.closed_at.is_(None), q.c.weight != 0).subquery()
    rows = session.execute(
        select(live).where(live.c.rank <= MEMBERS).order_by(live.c.concept, live.c.rank)
    )
    out: dict[str, list[_Claim]] = defaultdict(list)
    for r in rows:
        text = claim_text(r.statement, r.subject, r.label, r.object, r.weight)
        out[r.concept].append(_Claim(r.id, r.perspective, r.weight, text))
    return out


def sections(claims: Sequence[_Claim]) -> list[tuple[str, list[Member]]]:
    """The claims by perspective: world ('') first, then the `MAX_HOLDERS` heaviest holders
    (summed |weight|, then name); members in the claims' order (heaviest first)."""
    by: dict[str, list[_Claim]] = defaultdict(list)
    for claim in claims:
        by[claim.perspective].append(claim)
    holders = sorted(
        (p for p in by if p),
        key=lambda p: (-round(sum(abs(c.weight) for c in by[p]), _DIGITS), p),
    )[:MAX_HOLDERS]
    order = ([""] if "" in by else []) + holders
    return [(p, [Member(f"c:{c.id}", c.text, abs(c.weight)) for c in by[p]]) for p in order]


def compose(summarizer: Summarizer, claims: Sequence[_Claim]) -> Summary:
    """One profile text: each perspective's section summarized within its share of the budget,
    holders' sections labelled `<holder>: `; the fingerprint covers every member read."""
    parts = sections(claims)
    share = BUDGET_CHARS // max(len(parts), 1)
    texts: list[str] = []
    refs: dict[str, None] = {}
    read: list[Member] = []
    for holder, members in parts:
        label = f"{holder}: " if holder else ""
        budget = max(share - len(label) - 1, _MIN_SECTION)
        summary = summarizer.summarize(members, budget_chars=budget)
        read.extend(members)
        if summary.text:
            texts.append(label + summary.text)
            refs.update(dict.fromkeys(summary.refs))
    return Summary("\n".join(texts), tuple(refs), summarizer.name, fingerprint(read))


def check_top(top: int | None) -> None:
    if top is not None and (
        isinstance(top, bool) or not isinstance(top, int) or not 1 <= top <= MAX_TOP
    ):
        raise InvalidInput(f"top must be in 1..{MAX_TOP}", issues=[Issue("top", "out of range")])


def _embed(embedder: Embedder, texts: Sequence[str]) -> list[Any]:
    out: list[Any] = []
    for i in range(0, len(texts), _EMBED_BATCH):
        batch = texts[i : i + _EMBED_BATCH]
        raw = embedder.embed_documents(batch)
        out.extend(checked(raw, len(batch), embedder.dim, "profile_embeddings"))
    return out


@dataclass(frozen=True)
class _Kept:
    """What a stored profile lends an unchanged concept's rebuild."""

    summary: Summary
    model: str | None
    dim: int | None
    embedding: Any


def _stored(session: Session, ctx: Context) -> dict[str, _Kept]:
    """The context's stored profiles by concept (the newest row stands for a concept)."""
    p = Profile
    rows = session.execute(
        select(p.concept, p.summary, p.refs, p.summarizer, p.fingerprint, p.model, p.dim,
               p.embedding)
        .where(p.context_id == ctx.id)
        .order_by(p.built_at, p.id)
    )  # fmt: skip
    found: dict[str, _Kept] = {}
    for r in rows:
        summary = Summary(r.summary, tuple(r.refs), r.summarizer, r.fingerprint)
        found[r.concept] = _Kept(summary, r.model, r.dim, r.embedding)
    return found


def members_fingerprint(claims: Sequence[_Claim]) -> str:
    """The fingerprint `compose` gives these claims, without summarizing: every member of every
    section, in order."""
    return fingerprint([m for _, members in sections(claims) for m in members])


def _unchanged(old: Summary, summarizer: Summarizer, claims: Sequence[_Claim]) -> bool:
    """Whether a stored summary stands for these claims: the same summarizer wrote it (another
    one's text would be credited to the wrong author) from the same members."""
    return old.summarizer == summarizer.name and old.fingerprint == members_fingerprint(claims)


def build(
    session: Session,
    ctx: Context,
    summarizer: Summarizer,
    embedder: Embedder | None = None,
    *,
    top: int | None = DEFAULT_TOP,
) -> ProfileBuild:
    """Replace the context's profiles with ones built from its claims now (the `top` heaviest
    concepts; None: all). A concept whose members read the same as its stored profile's
    (fingerprint) and whose profile `summarizer` wrote keeps that summary, its refs and its
    vector, without calling the summarizer; with an embedder, every summary lacking a vector of
    its model is embedded. The caller checks that the principal may write the context; RLS
    checks it again on every row."""
    check_top(top)
    started = datetime.now().astimezone()
    session.execute(select(func.pg_advisory_xact_lock(_LOCK, ctx.id)))
    ranked = heaviest(session, ctx, None)
    chosen = ranked if top is None else ranked[:top]
    names = [n for n, _ in chosen]
    versions = claim_versions(session, ctx, names)
    summaries, vectors, reused = _summaries(
        names, _members(session, ctx, names), _stored(session, ctx), summarizer
    )
    if embedder is not None:
        _embed_missing(embedder, names, summaries, vectors)
    session.execute(delete(Profile).where(Profile.context_id == ctx.id))
    built_at = session.execute(select(func.now())).scalar_one()
    rows = [
        {
            "context_id": ctx.id,
            "concept": name,
            "weight": weight,
            "summary": s.text,
            "summarizer": s.summarizer,
            "fingerprint": s.fingerprint,
            "refs": list(s.refs),
            "model": model,
            "dim": dim,
            "embedding": vec,
            "claim_version": versions.get(name, "-"),
            "built_at": built_at,
            "scopes": list(ctx.scopes),
        }
        for (name, weight), s, (model, dim, vec) in zip(chosen, summaries, vectors, strict=True)
    ]
    if rows:
        session.execute(insert(Profile), rows)
    return ProfileBuild(
        context=ctx.name,
        concepts=len(rows),
        candidates=len(ranked),
        reused=reused,
        summarizer=summarizer.name,
        model=embedder.name if embedder is not None else None,
        built_at=built_at,
        seconds=round((datetime.now().astimezone() - started).total_seconds(), 3),
    )


_Vector = tuple[str | None, int | None, Any]  # model, dim, embedding


def _summaries(
    names: Sequence[str],
    members: dict[str, list[_Claim]],
    stored: dict[str, _Kept],
    summarizer: Summarizer,
) -> tuple[list[Summary], list[_Vector], int]:
    """Each concept's summary and vector, in order, and how many were reused: a stored profile
    whose members read the same and that `summarizer` wrote stands (with its vector); any other
    concept is summarized anew (no vector yet)."""
    summaries: list[Summary] = []
    vectors: list[_Vector] = []
    reused = 0
    for name in names:
        claims, old = members.get(name, []), stored.get(name)
        if old is not None and _unchanged(old.summary, summarizer, claims):
            summaries.append(old.summary)
            vectors.append((old.model, old.dim, old.embedding))
            reused += 1
        else:
            summaries.append(compose(summarizer, claims))
            vectors.append((None, None, None))
    return summaries, vectors, reused


def _embed_missing(
    embedder: Embedder, names: Sequence[str], summaries: list[Summary], vectors: list[_Vector]
) -> None:
    """Embed every summary lacking a vector of `embedder`'s model (its text without citations,
    or the concept's name where nothing is left), in place."""
    todo = [i for i, v in enumerate(vectors) if v[2] is None or v[0] != embedder.name]
    texts = [strip_citations(summaries[i].text) or names[i] for i in todo]
    for i, vec in zip(todo, _embed(embedder, texts), strict=True):
        vectors[i] = (embedder.name, embedder.dim, vec)


def read(session: Session, ctx: Context, concept: str) -> ProfileInfo:
    """The profile of `concept` (a canonical spelling the caller can see), with `stale`."""
    current = claim_versions(session, ctx, [concept]).get(concept, "0:0:-:-")
    row = session.scalars(
        select(Profile)
        .where(Profile.context_id == ctx.id, Profile.concept == concept)
        .order_by(Profile.built_at.desc(), Profile.id.desc())
        .limit(1)
    ).one_or_none()
    if row is None:
        open_claims = has_open_claims(session, ctx, concept)
        return ProfileInfo(
            ctx.name, concept, False, None, open_claims, None, "", None, None, (), None, None,
            None, current,
        )  # fmt: skip
    return ProfileInfo(
        context=ctx.name,
        concept=concept,
        built=True,
        built_at=row.built_at,
        stale=row.claim_version != current,
        weight=row.weight,
        summary=row.summary,
        summarizer=row.summarizer,
        fingerprint=row.fingerprint,
        refs=tuple(row.refs),
        model=row.model,
        dim=row.dim,
        claim_version=row.claim_version,
        current_version=current,
    )


def has_open_claims(session: Session, ctx: Context, concept: str) -> bool:
    """Whether `concept` has an open non-zero visible claim (an unbuilt profile is stale then)."""
    q = _about(ctx, [concept], Claim.weight, Claim.closed_at)
    found = session.execute(
        select(q.c.concept).where(q.c.closed_at.is_(None), q.c.weight != 0).limit(1)
    ).first()
    return found is not None
