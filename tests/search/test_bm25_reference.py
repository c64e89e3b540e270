"""Differential test: tabane's BM25 in PostgreSQL against a plain Python reference implementation
over a few thousand paragraphs (same top-10, scores within 1e-6). A paragraph's terms are its
source's title, its section path and its text (search/postings.py)."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from tabane.ingest.documents import DocumentInput, block
from tabane.search import bm25
from tabane.service import Tabane
from tabane.storage.schema import Paragraph, Source
from tabane.text.analyze import index_terms

WORDS = [
    "kettle",
    "water",
    "boil",
    "steam",
    "pressure",
    "valve",
    "python",
    "asyncio",
    "loop",
    "thread",
    "event",
    "queue",
    "socket",
    "server",
    "client",
    "request",
    "response",
    "header",
    "body",
    "json",
    "encode",
    "decode",
    "file",
    "path",
    "read",
    "write",
    "commit",
    "branch",
    "merge",
    "rebase",
    "stash",
    "remote",
    "fetch",
    "push",
    "tag",
    "log",
    "diff",
    "日本語",
    "検索",
    "文書",
    "設定",
    "HTTPServer",
    "fetchBlock",
    "snake_case",
]


def _reference(docs: dict[int, list[str]], query: list[str]) -> list[tuple[int, float]]:
    n = len(docs)
    avgdl = sum(len(d) for d in docs.values()) / n
    df: Counter[str] = Counter()
    for tokens in docs.values():
        df.update(set(tokens))
    scores: dict[int, float] = {}
    for pid, tokens in docs.items():
        tf = Counter(tokens)
        s = 0.0
        for t in dict.fromkeys(query):
            if tf[t]:
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                s += idf * tf[t] * 2.2 / (tf[t] + 1.2 * (1 - 0.75 + 0.75 * len(tokens) / avgdl))
        if s > 0:
            scores[pid] = s
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


@pytest.fixture(scope="module")
def corpus(svc: Tabane):
    from helpers import unique

    rng = random.Random(7)
    owner = svc.ensure_user(unique("bm25"))
    name = unique("bm25ctx")
    svc.create_context(owner, name)
    for s in range(30):
        paragraphs = []
        for _ in range(100):
            length = rng.randint(3, 40)
            words = [rng.choice(WORDS[: rng.randint(5, len(WORDS))]) for _ in range(length)]
            section = tuple(rng.sample(WORDS, rng.randint(0, 2)))
            paragraphs.append(block(" ".join(words), section=section))
        title = f"{rng.choice(WORDS)} {rng.choice(WORDS)} guide"
        document = DocumentInput(source_id=f"doc{s}", title=title, paragraphs=paragraphs)
        svc.ingest(owner, name, document)
    # retract one to check the statistics go down again
    svc.retract(owner, name, "doc3")
    with svc.store.session(owner) as session:
        from sqlalchemy import select

        from tabane.storage.schema import Context

        context_id = session.scalar(select(Context.id).where(Context.name == name))
        rows = session.execute(  # public rows of other tests' contexts are visible too
            select(Paragraph.id, Paragraph.text, Paragraph.section_path, Source.title)
            .join(Source, Source.id == Paragraph.source_pk)
            .where(Source.context_id == context_id)
        ).all()
        docs = {
            r.id: [t for part in (r.title, *r.section_path, r.text) for t in index_terms(part)]
            for r in rows
        }
    return context_id, owner, docs


@pytest.mark.slow
@pytest.mark.parametrize(
    "query",
    [
        "kettle boil",
        "asyncio event loop thread",
        "日本語の検索",
        "HTTPServer",
        "server",
        "git stash",
        # many terms, the most common ones included: exercises the MaxScore pruning of the lane
        "kettle water boil steam pressure valve python asyncio loop thread snake_case",
        "kettle water boil steam",
    ],
)
def test_same_top10_and_scores(svc: Tabane, corpus, query: str) -> None:
    context_id, owner, docs = corpus
    assert len(docs) == 2900
    terms = bm25.unique_terms(index_terms(query))
    expected = _reference(docs, terms)[:10]
    with svc.store.session(owner) as session:
        stats = bm25.statistics(session, context_id, terms)
        assert stats.paragraphs == 2900
        got = bm25.lane(session, context_id, terms, stats, pool=10)
        deep = bm25.lane(session, context_id, terms, stats, pool=60)
        # the one-read path (frequencies from the packs) agrees with the statistics rows
        quick_stats, quick = bm25.ranked(session, context_id, terms, pool=60)
    assert quick_stats == stats and quick == deep
    assert [h.paragraph_id for h in got] == [pid for pid, _ in expected]
    assert [h.paragraph_id for h in deep] == [pid for pid, _ in _reference(docs, terms)[:60]]
    for hit, (_, score) in zip(got, expected, strict=True):
        assert hit.score == pytest.approx(score, abs=1e-6)
