"""The RAPTOR tree of a context: clusters of its paragraphs and notes, summarized level by level.

What a build reads (the visibility rule, as for communities): the context's rows whose scope set
lies inside the context's scope set — the rows every reader of the context can see. The build
runs under RLS as a writer of the context; a node carries the context's scope set, so its
summary never repeats a row one of its readers could not see, and every writer builds the same
tree. Leaves are the live paragraphs (source not retracted) with a text vector (`ord` 0; doc2query
question vectors are not leaves) of the embedder's model, and the notes: open claims with a
statement and a claim vector of that model (graph/claims/vectors.py).

Levels: level 1 clusters the leaves' vectors (derive/raptor/cluster.py: deterministic spherical
k-means, about ceil(n / cluster_size) clusters), each cluster is summarized by the configured
summarizer (members `p:<id>` / `c:<id>` with their text, nearest the centre first, weighted by
(1 + cosine) / 2) within `BUDGETS[level]` characters, and the summaries are embedded. Level L+1
clusters the level-L summary vectors the same way (members `r:<L>.<ordinal>`, text: the summary
without its citation markers). The build stops when a level holds at most `roots` nodes or the
next level would not shrink; the top level's nodes are the roots (`parent` NULL).

Each node's stored text opens with its topic line (derive/raptor/topics.py: the titles of the
sources its paragraphs come from), which is embedded with the summary; the next level summarizes
the summaries without their topic lines.

Reuse: a node whose members' fingerprint (summarizer.fingerprint: refs and texts) equals a node
of the context's previous tree written by the same summarizer keeps that summary, without
calling the summarizer (an LLM summarizer is costly), and its embedding when the model matches.

Freshness: every node records `corpus_version` (derive/raptor/read.py); a read whose current
version differs says `stale`. Without an embedder nothing is built (`skipped`); without leaves
the previous tree is deleted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy import delete, func, insert, select
from sqlalchemy.orm import Session

from tabane.derive.raptor import cluster as rc
from tabane.derive.raptor import topics
from tabane.derive.raptor.read import (
    MEMBERS_SHOWN,
    RaptorMemberView,
    RaptorNodeInfo,
    RaptorTree,
    corpus_version,
    members,
    read,
)
from tabane.derive.shared import shared
from tabane.errors import InvalidInput, Issue
from tabane.models.embedder import Embedder, checked
from tabane.models.summarizer import Member, Summarizer, fingerprint, strip_citations
from tabane.storage.schema import (
    Claim,
    ClaimVector,
    Context,
    Paragraph,
    ParagraphVector,
    RaptorMember,
    RaptorNode,
    Source,
)

__all__ = [
    "MEMBERS_SHOWN",
    "RaptorBuild",
    "RaptorMemberView",
    "RaptorNodeInfo",
    "RaptorTree",
    "build",
    "corpus_version",
    "leaves",
    "members",
    "read",
]

_LOCK = 0x7261_7074  # advisory lock class of RAPTOR builds (the context id is the other key)
DEFAULT_CLUSTER_SIZE = rc.DEFAULT_CLUSTER_SIZE
DEFAULT_ROOTS = 6  # a choice: few enough overviews to read whole, enough to tell topics apart
MAX_CLUSTER_SIZE = 1000
MAX_ROOTS = 1000
MAX_LEVELS = 16  # a guard: ceil(n / 2) per level reaches one root within 16 levels for 65k leaves
# Characters per summary by level (3 and up: the last). Level 1 gets room for two or three
# sentences of its ~8 paragraphs; upper levels cover more ground and get more room, yet a root
# stays short enough that a handful of them fit a recall answer's budget together.
BUDGETS = (600, 800, 1000)
_EMBED_BATCH = 64


@dataclass(frozen=True)
class RaptorBuild:
    context: str
    corpus_version: str
    leaves: int  # paragraphs and notes clustered
    nodes: tuple[int, ...]  # per level, level 1 first
    reused: int  # nodes whose summary was kept from the previous tree
    summarizer: str
    model: str | None  # of the leaf and summary vectors (None: no embedder)
    built_at: datetime
    seconds: float
    skipped: str | None = None  # why nothing was built ("no embedder")


@dataclass
class _Node:
    level: int
    ordinal: int
    refs: tuple[str, ...]
    leaves: int
    summary: str
    summarizer: str
    fingerprint: str
    cited: tuple[str, ...]
    vector: Any
    reused: bool
    topics: Counter[str] = field(default_factory=Counter)  # source titles, by paragraph
    kept_text: str | None = None  # the stored text of the previous build's node it reuses
    parent: int | None = field(default=None)

    @property
    def text(self) -> str:
        """What is stored, served and embedded: the topic line, then the summary."""
        return topics.join(topics.line(self.topics), self.summary)


@dataclass(frozen=True)
class _Kept:
    summary: str
    summarizer: str
    cited: tuple[str, ...]
    vector: tuple[str | None, int | None, Any]  # (model, dim, embedding) as stored


def budget(level: int) -> int:
    return BUDGETS[min(level, len(BUDGETS)) - 1]


def _check(cluster_size: int, roots: int) -> None:
    issues = [
        Issue(name, f"must be a whole number in {low}..{top}")
        for name, value, low, top in [
            ("cluster_size", cluster_size, 2, MAX_CLUSTER_SIZE),
            ("roots", roots, 1, MAX_ROOTS),
        ]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= top
    ]
    if issues:
        raise InvalidInput("bad RAPTOR build settings", issues=issues)


def leaves(
    session: Session, ctx: Context, embedder: Embedder
) -> tuple[list[str], dict[str, str], Any, dict[str, str]]:
    """The leaves' refs (sorted), texts by ref, vectors (rows in ref order) and the title (else
    the source id) of each paragraph's source."""
    pv, p, s, c, cv = ParagraphVector, Paragraph, Source, Claim, ClaimVector
    found: list[tuple[str, str, Any]] = []
    titles: dict[str, str] = {}
    paragraphs = session.execute(
        select(p.id, p.text, pv.embedding, func.coalesce(func.nullif(s.title, ""), s.source_id))
        .join(p, p.id == pv.paragraph_id)
        .join(s, s.id == p.source_pk)
        .where(
            *shared(pv, ctx),
            pv.ord == 0,
            pv.model == embedder.name,
            pv.dim == embedder.dim,
            s.retracted_at.is_(None),
        )
    )
    for pid, text, vec, title in paragraphs:
        found.append((f"p:{pid}", text, vec))
        titles[f"p:{pid}"] = title
    notes = session.execute(
        select(c.id, c.statement, cv.embedding)
        .join(cv, cv.claim_id == c.id)
        .where(
            *shared(c, ctx),
            c.closed_at.is_(None),
            c.statement.is_not(None),
            func.length(func.btrim(c.statement)) > 0,
            cv.model == embedder.name,
            cv.dim == embedder.dim,
        )
    )
    found.extend((f"c:{cid}", text, vec) for cid, text, vec in notes)
    found.sort(key=lambda f: f[0])
    refs = [f[0] for f in found]
    vectors = np.asarray([f[2] for f in found], dtype=np.float32).reshape(len(found), embedder.dim)
    return refs, {f[0]: f[1] for f in found}, vectors, titles


def _previous(session: Session, ctx: Context) -> dict[str, _Kept]:
    """The previous tree's nodes by fingerprint (their vectors with the model that made them)."""
    n = RaptorNode
    rows = session.execute(
        select(n.fingerprint, n.summary, n.summarizer, n.refs, n.model, n.dim, n.embedding)
        .where(n.context_id == ctx.id)
        .order_by(n.level, n.ordinal, n.id)
    )
    out: dict[str, _Kept] = {}
    for fp, summary, summarizer, refs, model, dim, vec in rows:
        out.setdefault(fp, _Kept(summary, summarizer, tuple(refs), (model, dim, vec)))
    return out


def _summarize(
    level: int,
    clusters: Sequence[rc.Cluster],
    texts: dict[str, str],
    counts: dict[str, int],
    summarizer: Summarizer,
    kept: dict[str, _Kept],
) -> list[_Node]:
    out: list[_Node] = []
    for ordinal, cl in enumerate(clusters):
        group = [
            Member(ref, texts[ref], max(round((1.0 + cos) / 2.0, 6), 1e-6))
            for ref, cos in zip(cl.refs, cl.cosines, strict=True)
        ]
        fp = fingerprint(group)
        old = kept.get(fp)
        if old is not None and old.summarizer == summarizer.name:
            text, cited, vec, reused = topics.split(old.summary), old.cited, old.vector, True
        else:
            made = summarizer.summarize(group, budget_chars=budget(level))
            text, cited, vec, reused = made.text, made.refs, None, False
        leaves = sum(counts[r] for r in cl.refs)
        node = _Node(level, ordinal, cl.refs, leaves, text, summarizer.name, fp, cited, vec, reused)
        node.kept_text = old.summary if reused and old is not None else None
        out.append(node)
    return out


def _embed(nodes: Sequence[_Node], clusters: Sequence[rc.Cluster], embedder: Embedder) -> None:
    """Give each node its text's vector (a kept one when the model and the whole stored text,
    topic line included, match; a node without text takes its cluster's centre)."""
    todo: list[tuple[_Node, str]] = []
    for node, cl in zip(nodes, clusters, strict=True):
        old = node.vector
        same = node.kept_text == node.text
        if same and old is not None and old[0] == embedder.name and old[1] == embedder.dim:
            node.vector = np.asarray(old[2], dtype=np.float32)
            continue
        text = strip_citations(node.text)
        node.vector = cl.centre
        if text:
            todo.append((node, text))
    for i in range(0, len(todo), _EMBED_BATCH):
        batch = todo[i : i + _EMBED_BATCH]
        raw = embedder.embed_documents([t for _, t in batch])
        for (node, _), vec in zip(
            batch, checked(raw, len(batch), embedder.dim, "raptor_embeddings"), strict=True
        ):
            node.vector = vec


def _tree(
    refs: list[str],
    texts: dict[str, str],
    vectors: Any,
    summarizer: Summarizer,
    embedder: Embedder,
    kept: dict[str, _Kept],
    cluster_size: int,
    roots: int,
    titles: dict[str, str],
) -> list[list[_Node]]:
    counts = dict.fromkeys(refs, 1)
    below = {ref: Counter([titles[ref]] if ref in titles else []) for ref in refs}
    levels: list[list[_Node]] = []
    level = 1
    while refs:
        clusters = rc.cluster(refs, vectors, cluster_size)
        if levels and len(clusters) >= len(refs):  # would not shrink: the level below is top
            break
        nodes = _summarize(level, clusters, texts, counts, summarizer, kept)
        for node in nodes:
            node.topics = sum((below[ref] for ref in node.refs), Counter())
        _embed(nodes, clusters, embedder)
        if levels:
            for node in nodes:
                for ref in node.refs:
                    levels[-1][int(ref.split(".", 1)[1])].parent = node.ordinal
        levels.append(nodes)
        if len(nodes) <= roots or level >= MAX_LEVELS:
            break
        refs = [f"r:{level}.{n.ordinal}" for n in nodes]
        texts = {f"r:{level}.{n.ordinal}": strip_citations(n.summary) for n in nodes}
        counts = {f"r:{level}.{n.ordinal}": n.leaves for n in nodes}
        below = {f"r:{level}.{n.ordinal}": n.topics for n in nodes}
        vectors = np.asarray([n.vector for n in nodes], dtype=np.float32)
        level += 1
    return levels


def build(
    session: Session,
    ctx: Context,
    summarizer: Summarizer,
    embedder: Embedder | None,
    *,
    cluster_size: int = DEFAULT_CLUSTER_SIZE,
    roots: int = DEFAULT_ROOTS,
) -> RaptorBuild:
    """Replace the context's RAPTOR tree with one built from its leaves now. The caller checks
    that the principal may write the context; RLS checks it again on every row."""
    _check(cluster_size, roots)
    started = datetime.now().astimezone()
    if embedder is None:
        version = corpus_version(session, ctx)
        now = session.execute(select(func.now())).scalar_one()
        return RaptorBuild(
            ctx.name, version, 0, (), 0, summarizer.name, None, now, 0.0, skipped="no embedder"
        )
    session.execute(select(func.pg_advisory_xact_lock(_LOCK, ctx.id)))
    version = corpus_version(session, ctx)
    refs, texts, vectors, titles = leaves(session, ctx, embedder)
    kept = _previous(session, ctx) if refs else {}
    levels = _tree(refs, texts, vectors, summarizer, embedder, kept, cluster_size, roots, titles)
    session.execute(delete(RaptorNode).where(RaptorNode.context_id == ctx.id))
    built_at = session.execute(select(func.now())).scalar_one()
    _write(session, ctx, [n for level in levels for n in level], version, built_at, embedder)
    return RaptorBuild(
        context=ctx.name,
        corpus_version=version,
        leaves=len(refs),
        nodes=tuple(len(level) for level in levels),
        reused=sum(n.reused for level in levels for n in level),
        summarizer=summarizer.name,
        model=embedder.name,
        built_at=built_at,
        seconds=round((datetime.now().astimezone() - started).total_seconds(), 3),
    )


def _write(
    session: Session,
    ctx: Context,
    nodes: Sequence[_Node],
    version: str,
    built_at: datetime,
    embedder: Embedder,
) -> None:
    if not nodes:
        return
    scopes = sorted(ctx.scopes)
    rows = [
        {
            "context_id": ctx.id,
            "level": n.level,
            "ordinal": n.ordinal,
            "parent": n.parent,
            "size": len(n.refs),
            "leaves": n.leaves,
            "summary": n.text,
            "summarizer": n.summarizer,
            "fingerprint": n.fingerprint,
            "refs": list(n.cited),
            "model": embedder.name,
            "dim": embedder.dim,
            "embedding": n.vector,
            "corpus_version": version,
            "built_at": built_at,
            "scopes": scopes,
        }
        for n in nodes
    ]
    stmt = insert(RaptorNode).returning(RaptorNode.id, sort_by_parameter_order=True)
    ids = list(session.execute(stmt, rows).scalars())
    session.execute(
        insert(RaptorMember),
        [
            {"node_id": nid, "ref": ref, "context_id": ctx.id, "rank": rank, "scopes": scopes}
            for nid, n in zip(ids, nodes, strict=True)
            for rank, ref in enumerate(n.refs)
        ],
    )
