"""A paragraph is indexed with its heading (the source's title and its section path): a question
naming the command or module in the title finds a paragraph that does not repeat it; a new
title alone rewrites the postings; explain counts what the lane counted; migration 0021
rebuilds every stored paragraph's postings, lengths and statistics the way ingest writes them."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import text

from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.search import postings
from tabane.search.plan import SearchRequest
from tabane.service import Tabane

pytestmark = pytest.mark.slow  # seconds a test: vectors, background jobs, a corpus per test

BODY = [
    block("Removes the file when it is closed.", section=("Options", "delete")),
    block("Expected output: nothing at all.", section=("Examples",)),
]


def _doc(title: str, source_id: str = "tmp.html") -> DocumentInput:
    questions = [["when is the file removed"], []]
    return DocumentInput(source_id=source_id, title=title, paragraphs=BODY, questions=questions)


def _hits(svc: Tabane, user: Principal, context: str, query: str) -> list[tuple[str, int, float]]:
    request = SearchRequest(query=query, contexts=(context,), lanes=("bm25",))
    return [(h.source_id, h.paragraph, h.score) for h in svc.search(user, request).hits]


def test_heading_tokens_are_the_title_then_the_section_path() -> None:
    # BM25's analysis: English words as their Snowball stems (text/analyze.py)
    assert postings.heading_tokens("tempfile module", ("Options", "delete")) == [
        "tempfil",
        "modul",
        "option",
        "delet",
    ]
    assert postings.heading_tokens(None, ()) == []
    terms = postings.terms_of("delete it", ["why delete"], ["delete"])
    assert terms.length == 5  # text 2, heading 1, question 2


def test_a_title_term_finds_paragraphs_that_do_not_repeat_it(
    svc: Tabane, user: Principal, context: str
) -> None:
    svc.ingest(user, context, _doc("NamedTemporaryFile"))
    hits = _hits(svc, user, context, "NamedTemporaryFile expected output")
    assert [(s, p) for s, p, _ in hits] == [("tmp.html", 1), ("tmp.html", 0)]
    # a section heading counts for the paragraphs under it only
    assert [(s, p) for s, p, _ in _hits(svc, user, context, "examples")] == [("tmp.html", 1)]


def test_a_new_title_alone_rewrites_the_postings(
    svc: Tabane, user: Principal, make_context: Any
) -> None:
    retitled, fresh = make_context(), make_context()
    svc.ingest(user, retitled, _doc("kettle manual"))
    assert _hits(svc, user, retitled, "kettle")
    result = svc.ingest(user, retitled, _doc("teapot manual"))
    assert result.outcome == "unchanged" and result.reindexed
    assert _hits(svc, user, retitled, "kettle") == []
    svc.ingest(user, fresh, _doc("teapot manual"))
    for query in ("teapot removed", "manual file output", "delete"):
        assert _hits(svc, user, retitled, query) == _hits(svc, user, fresh, query) != []
    again = svc.ingest(user, retitled, _doc("teapot manual"))
    assert again.outcome == "unchanged" and not again.reindexed
    explained = svc.explain_search(
        user,
        SearchRequest(query="teapot delete", contexts=(retitled,), lanes=("bm25",)),
        retitled,
        "tmp.html",
        0,
    )
    assert explained.verdict == "served"
    assert explained.paragraph_terms[:4] == ("teapot", "manual", "option", "delet")
    assert {t.term: t.tf for t in explained.terms} == {"teapot": 1, "delet": 1}


def _bm25_state(conn: Any, context_id: int) -> dict[str, Any]:
    packs = conn.execute(
        text("SELECT source_pk, term, postings FROM bm25_packs WHERE context_id = :c"),
        {"c": context_id},
    ).all()
    return {
        "packs": {
            (r.source_pk, r.term): sorted(postings.unpack(bytes(r.postings)).tolist())
            for r in packs
        },
        "corpus": sorted(
            conn.execute(
                text(
                    "SELECT scopes, paragraphs, total_length FROM bm25_corpus "
                    "WHERE context_id = :c AND paragraphs > 0"
                ),
                {"c": context_id},
            ).all()
        ),
        "terms": sorted(
            conn.execute(
                text("SELECT term, scopes, df FROM bm25_terms WHERE context_id = :c AND df > 0"),
                {"c": context_id},
            ).all()
        ),
        "lengths": sorted(
            conn.execute(
                text("SELECT id, token_count FROM paragraphs WHERE context_id = :c"),
                {"c": context_id},
            ).all()
        ),
    }
