"""Ingest at its edges: a run of letters too long for an index row, and a source id that a
source the caller cannot see already holds."""

from __future__ import annotations

import random
import string

import pytest

from tabane.errors import EmptyDocument, SourceTaken
from tabane.ingest.documents import DocumentInput, block
from tabane.search.plan import SearchRequest
from tabane.service import Tabane
from tabane.text.tokenize import MAX_TERM, tokenize

from helpers import unique


def test_a_very_long_run_is_one_cut_term_and_the_document_is_stored(svc: Tabane, user, context):
    rng = random.Random(7)
    blob = "".join(rng.choice(string.ascii_lowercase) for _ in range(12_000))  # incompressible
    assert tokenize(f"pixel {blob}") == ["pixel", blob[:MAX_TERM]]
    doc = DocumentInput(source_id="image", paragraphs=[block(f"pixel data: {blob}")])
    assert svc.ingest(user, context, doc).paragraphs == 1
    hits = svc.search(user, SearchRequest(f"pixel {blob[:300]}", contexts=(context,))).hits
    assert [h.source_id for h in hits] == ["image"]  # the question's run is cut the same way


@pytest.mark.slow
def test_a_source_id_held_by_a_source_you_cannot_see_is_refused(svc: Tabane, make_user):
    team = unique("team:")
    alice, bob = make_user(extra_write=(team,)), make_user(extra_write=(team,))
    shared = unique("shared")
    svc.create_context(alice, shared, scopes=[team])
    mine = DocumentInput(
        source_id="plan", paragraphs=[block("alice's plan")], scopes=[f"user:{alice.name}"]
    )
    svc.ingest(alice, shared, mine)
    theirs = DocumentInput(
        source_id="plan", paragraphs=[block("bob's plan")], scopes=[f"user:{bob.name}"]
    )
    with pytest.raises(SourceTaken) as err:
        svc.ingest(bob, shared, theirs)
    assert err.value.code == "source_taken" and err.value.issues[0].path == "source_id"
    assert svc.list_sources(bob, shared).sources == []  # nothing written
    other = DocumentInput(
        source_id="plan-b", paragraphs=[block("bob's plan")], scopes=[f"user:{bob.name}"]
    )
    assert svc.ingest(bob, shared, other).outcome == "created"


def test_a_replaced_source_says_how_many_claims_it_closed(svc: Tabane, user, context):
    from tabane.graph.claims.parse import parse_claims

    first = DocumentInput(source_id="cl", paragraphs=[block("tea is hot"), block("ice is cold")])
    svc.ingest(user, context, first)
    attributed = [
        {"subject": "tea", "label": "is", "object": "hot", "weight": 1.0, "source": "cl"},
        {"subject": "ice", "label": "is", "object": "cold", "weight": 1.0, "source": "cl",
         "paragraph": 1},
    ]  # fmt: skip
    svc.add_claims(user, context, parse_claims(attributed))
    retitled = svc.ingest(user, context, DocumentInput(**{**first.__dict__, "title": "Temps"}))
    assert (retitled.outcome, retitled.reindexed, retitled.claims_closed) == ("unchanged", True, 0)
    assert retitled.updated == ("title",)
    # new tags and a date alone: stored, and said (they used to read as nothing at all)
    tagged = DocumentInput(**{**first.__dict__, "title": "Temps", "tags": ["kitchen"]})
    retagged = svc.ingest(user, context, DocumentInput(**{**tagged.__dict__, "date": "2024-05-01"}))
    assert (retagged.outcome, retagged.reindexed, retagged.updated) == (
        "unchanged", False, ("tags", "date"),
    )  # fmt: skip
    assert (
        svc.ingest(
            user, context, DocumentInput(**{**tagged.__dict__, "date": "2024-05-01"})
        ).updated
        == ()
    )
    changed = DocumentInput(source_id="cl", paragraphs=[block("tea is hot"), block("ice melts")])
    replaced = svc.ingest(user, context, changed)
    assert (replaced.outcome, replaced.claims_closed) == ("replaced", 2)


@pytest.mark.parametrize(
    ("doc", "where"),
    [
        (DocumentInput(source_id="notes", data=b""), "text"),
        (DocumentInput(source_id="notes", data=b"  \n\n\t "), "text"),
        (DocumentInput(source_id="notes.html", data=b"<html><body><nav>x</nav></body>"), "text"),
        (DocumentInput(source_id="notes", paragraphs=[]), "paragraphs"),
    ],
)
def test_a_document_with_no_paragraphs_is_refused_and_the_stored_one_kept(
    svc: Tabane, user, context, doc: DocumentInput, where: str
):
    svc.ingest(user, context, DocumentInput(source_id="notes", data=b"the kettle is blue"))
    with pytest.raises(EmptyDocument) as err:
        svc.ingest(user, context, doc)
    assert err.value.code == "empty_document" and err.value.issues[0].path == where
    kept = svc.search(user, SearchRequest("kettle", contexts=(context,))).hits
    assert [h.text for h in kept] == ["the kettle is blue"]  # not emptied, not retracted


ASCIIDOC = b"""<!doctype html><html><head><title>git-stash(1)</title></head><body>
<div id="header"><h1>git-stash(1) Manual Page</h1><h2>NAME</h2>
<div class="sectionbody"><p>git-stash - Stash the changes in a dirty working directory away</p>
</div></div>
<div id="content"><div class="sect1"><h2>DESCRIPTION</h2><div class="sectionbody">
<div class="paragraph"><p>Use git stash when you want to record the current state of the working
directory and the index, but want to go back to a clean working directory.</p></div>
<div class="paragraph"><p>The modifications stashed away by this command can be listed with git
stash list, inspected with git stash show, and restored with git stash apply.</p></div>
</div></div></div></body></html>"""


def test_a_file_stored_by_older_parsers_is_parsed_again(
    svc: Tabane, user, context, monkeypatch: pytest.MonkeyPatch
):
    from tabane.ingest import documents
    from tabane.service import sources as service_sources
    from tabane.text.html import page as html

    doc = DocumentInput(source_id="git-stash.html", data=ASCIIDOC)
    with monkeypatch.context() as older:  # the parsers before the header's NAME line was kept
        older.setattr(documents, "PARSER_VERSION", documents.PARSER_VERSION - 1)
        older.setattr(html, "_header_summary", lambda tree, blocks: [])
        older.setattr(html, "generated", lambda tree: False)  # and before pages were walked whole
        assert svc.ingest(user, context, doc).paragraphs == 2
        assert svc.ingest(user, context, doc).outcome == "unchanged"  # same bytes, same parsers
    again = svc.ingest(user, context, doc)  # same bytes, newer parsers
    assert (again.outcome, again.paragraphs) == ("replaced", 3)
    assert svc.cite(user, context, "git-stash.html", 0).text.startswith("git-stash - Stash")

    def not_parsed(_doc: DocumentInput) -> None:
        raise AssertionError("an unchanged file under the same parsers is not parsed")

    monkeypatch.setattr(service_sources, "parse", not_parsed)
    assert svc.ingest(user, context, doc).outcome == "unchanged"


def test_metadata_a_document_declares_but_cannot_be_read_is_a_warning(svc: Tabane, user, context):
    """Front matter is read leniently and never fails an ingest, but a date that is not a date
    is stored as no date: the answer says which field, what it held, and that it was dropped."""
    text = "---\ntitle: |\n  Kettle\ndate: next tuesday\ntags: [home]\n---\n# Kettles\n\nDescale.\n"
    doc = DocumentInput(source_id="k.md", data=text.encode())
    got = svc.ingest(user, context, doc)
    assert [w.path for w in got.warnings] == ["front_matter.title", "front_matter.date"]
    assert "'next tuesday' is not an ISO 8601 date" in got.warnings[1].problem
    stored, _ = svc.lookup(user, context, "k.md")
    assert (stored.title, stored.date, stored.tags) == ("Kettles", None, ("home",))

    # what the request says wins: the date is stored, and only the title is still a warning
    dated = svc.ingest(user, context, DocumentInput(**{**doc.__dict__, "date": "2024-05-01"}))
    assert (dated.outcome, dated.updated) == ("unchanged", ("date",))
    assert [w.path for w in dated.warnings] == ["front_matter.title"]

    page = b'<html><head><meta name="date" content="soon"><meta name="dc.date" content=" ">'
    page += b"</head><body><article><p>The kettle is descaled monthly.</p></article></body></html>"
    html = svc.ingest(user, context, DocumentInput(source_id="k.html", data=page))
    assert [(w.path, w.problem[:6]) for w in html.warnings] == [("meta[date]", "'soon'")]
    fine = "---\ndate: 2024-05-01\ntitle: Kettle\n---\nDescale.\n"
    assert svc.ingest(user, context, DocumentInput("ok.md", fine.encode())).warnings == ()
