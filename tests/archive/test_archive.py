"""Moving a context between stores: an export imported elsewhere exports again as it was, answers
as the original did, and a bad archive (or one the importer may not write) writes nothing."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import select, update

from tabane.errors import Forbidden, InvalidInput, NameTaken, NoConcept, NoContext
from tabane.graph.claims.parse import ClaimInput
from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.search.plan import SearchRequest
from tabane.service import Tabane
from tabane.storage.schema import Claim, Context, CorpusStats, TermStats

from helpers import unique

KETTLE = b"""# Kettle

The kettle boils water in three minutes.

## Safety

It switches off by itself when the water boils.

```
kettle --descale
```
"""


def fill(svc: Tabane, owner: Principal, context: str) -> None:
    """A context with what an archive must carry: a Markdown source with sections, a source of
    paragraphs with a page, questions and metadata, a retracted source, a superseded claim, a
    retracted claim, a note with a speaker's perspective, and an alias."""
    svc.ingest(owner, context, DocumentInput("kettle.md", data=KETTLE))
    manual = [block("Descale monthly.", ["Care"], {"kind": "page", "start": 4})]
    svc.ingest(
        owner,
        context,
        DocumentInput(
            "manual",
            paragraphs=manual,
            questions=[["how often to descale?"]],
            title="Manual",
            date="2026-03-04",
            tags=["home"],
            area="kitchen",
            state="waiting",
        ),
    )
    svc.ingest(owner, context, DocumentInput("gone.md", data=b"An old leaflet."))
    first = svc.add_claims(
        owner,
        context,
        [ClaimInput("kettle", "switches off at", "boiling", 1.0, source="kettle.md")],
    )
    svc.add_claims(
        owner,
        context,
        [
            ClaimInput("kettle", "switches off at", "100 degrees", 2.0, closes=(first.claims[0],)),
            ClaimInput("kettle", "holds", "water", 1.5, source="kettle.md", paragraph=0),
            ClaimInput("leaflet", "mentions", "kettle", 1.0, source="gone.md", paragraph=0),
        ],
    )
    svc.retract(owner, context, "gone.md")
    svc.remember(
        owner, context, {"text": "I moved to Montana.", "kind": "experience"}, speaker="Hannah"
    )
    svc.add_alias(owner, context, "teakettle", "kettle")


def exported(svc: Tabane, who: Principal, context: str) -> list[dict[str, Any]]:
    return [json.loads(json.dumps(line)) for line in svc.export_context(who, context)]


def comparable(lines: list[dict[str, Any]], scopes: dict[str, str]) -> list[dict[str, Any]]:
    """The lines without what differs between two stores by design: the header's export time,
    exporter and name, and claim ids (numbered in order, `closed_by` following)."""
    out = json.loads(json.dumps(lines))
    out[0] = {"context": {**out[0]["context"], "name": None}}
    order = {line["claim"]["id"]: i for i, line in enumerate(out) if "claim" in line}
    for line in out:
        body = next(iter(line.values()))
        if isinstance(body.get("scopes"), list):
            body["scopes"] = sorted({scopes.get(s, s) for s in body["scopes"]})
        if "claim" in line:
            body["id"] = order[body["id"]]
            if "closed_by" in body:
                body["closed_by"] = order[body["closed_by"]]
    return out


@pytest.mark.slow
def test_an_imported_archive_exports_again_as_it_was_and_answers_as_the_original(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    original = make_context(alice, description="the kitchen")
    fill(svc, alice, original)
    archive = exported(svc, alice, original)
    assert [next(iter(line)) for line in archive] == [
        "tabane_archive",
        *["source"] * 2,  # the retracted source stays behind
        *["claim"] * 5,
        "alias",
        "end",
    ]
    copy = unique("copy")
    report = svc.import_context(bob, [json.dumps(line) for line in archive], context=copy)
    mine = {f"user:{alice.name}": f"user:{bob.name}"}
    assert report.scope_map == mine  # the exporter's personal scope became the importer's
    assert (report.sources, report.paragraphs, report.claims, report.open_claims) == (2, 4, 5, 3)
    kinds = [
        p.get("kind", "text")
        for line in archive
        for p in line.get("source", {}).get("paragraphs", [])
    ]
    assert kinds.count("code") == 1  # a code paragraph travels as code
    assert report.aliases == 1
    again = exported(svc, bob, copy)
    assert comparable(again, {}) == comparable(archive, mine)
    closed = {line["claim"].get("object"): line["claim"] for line in again if "claim" in line}
    assert closed["boiling"]["close_reason"] == "superseded"
    assert closed["kettle"]["close_reason"] == "retracted"  # the leaflet's claim, its source gone

    with pytest.raises(NoContext):  # the copy is bob's alone now
        svc.get_context(alice, copy)
    ask = SearchRequest("switches off when the water boils", lanes=("bm25",))
    hits = [
        [(h.source_id, h.paragraph, h.text, h.score) for h in svc.search(who, ask_in(ask, c)).hits]
        for who, c in ((alice, original), (bob, copy))
    ]
    assert hits[0] and hits[0] == hits[1]
    assert statistics(svc, copy) == statistics(svc, original)  # what BM25 scores with
    edges = [
        sorted(
            (e.triple, e.weight, e.claims) for e in svc.query(who, contexts=[c], any="kettle").edges
        )
        for who, c in ((alice, original), (bob, copy))
    ]
    assert edges[0] == edges[1] and ((("kettle", "holds", "water"), 1.5, 1) in edges[1])
    assert svc.resolve(bob, copy, "teakettle").candidates[0].name == "kettle"
    notes = svc.memories(bob, copy).memories
    assert [(n.statement, n.author, n.perspective) for n in notes] == [
        ("I moved to Montana.", "Hannah", "Hannah")
    ]
    sources = {s.source_id: s for s in svc.list_sources(bob, copy).sources}
    before = {s.source_id: s for s in svc.list_sources(alice, original).sources}
    assert sources["manual"].stored_at == before["manual"].stored_at
    assert (sources["manual"].state, sources["manual"].area) == ("waiting", "kitchen")
    # the same bytes ingested again are unchanged: the hashes came along
    assert svc.ingest(bob, copy, DocumentInput("kettle.md", data=KETTLE)).outcome == "unchanged"


def statistics(svc: Tabane, context: str) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The context's BM25 statistics rows (its corpus rows, its terms' document frequencies)."""
    with svc.store.admin() as session:
        ctx = session.scalar(select(Context).where(Context.name == context))
        assert ctx is not None
        corpus = session.execute(
            select(CorpusStats.paragraphs, CorpusStats.total_length).where(
                CorpusStats.context_id == ctx.id
            )
        ).all()
        terms = session.execute(
            select(TermStats.term, TermStats.df)
            .where(TermStats.context_id == ctx.id, TermStats.df > 0)  # a retraction leaves 0
            .order_by(TermStats.term)
        ).all()
    return [tuple(r) for r in corpus], [tuple(r) for r in terms]


def ask_in(request: SearchRequest, context: str) -> SearchRequest:
    from dataclasses import replace

    return replace(request, contexts=(context,))


def _lines(svc: Tabane, owner: Principal, context: str) -> list[dict[str, Any]]:
    svc.ingest(owner, context, DocumentInput("a.md", data=b"# A\n\nOne.\n\nTwo."))
    svc.add_claims(owner, context, [ClaimInput("a", "has", "b", 1.0, source="a.md", paragraph=1)])
    svc.add_alias(owner, context, "aa", "a")
    return exported(svc, owner, context)


def _claim_line(lines: list[dict[str, Any]]) -> int:
    return next(i for i, line in enumerate(lines) if "claim" in line)


def _nan_weight(lines: list[dict[str, Any]]) -> str:
    lines[_claim_line(lines)]["claim"]["weight"] = float("nan")
    return f"line {_claim_line(lines) + 1}.claim.weight"


def _cut(lines: list[dict[str, Any]]) -> str:
    lines.pop()
    return f"line {len(lines) + 1}"


def _unknown(lines: list[dict[str, Any]]) -> str:
    lines[1]["source"]["colour"] = "blue"
    return "line 2.source.colour"


def _version(lines: list[dict[str, Any]]) -> str:
    lines[0]["tabane_archive"] = 2
    return "line 1.tabane_archive"


def _order(lines: list[dict[str, Any]]) -> str:
    lines[1], lines[2] = lines[2], lines[1]  # the claim before its source
    return "line 3"


def _counts(lines: list[dict[str, Any]]) -> str:
    lines[-1]["end"]["claims"] = 2
    return "end"


def _out_of_range(lines: list[dict[str, Any]]) -> str:
    lines[_claim_line(lines)]["claim"]["paragraph"] = 7
    return f"line {_claim_line(lines) + 1}.claim.paragraph"


def _no_paragraphs(lines: list[dict[str, Any]]) -> str:
    lines[1]["source"]["paragraphs"] = []
    return "line 2.source.paragraphs"


def _spaced_text(lines: list[dict[str, Any]]) -> str:
    lines[1]["source"]["paragraphs"][0]["text"] = " One. "
    return "line 2.source.paragraphs[0].text"


def _closes_itself(lines: list[dict[str, Any]]) -> str:
    claim = lines[_claim_line(lines)]["claim"]
    claim.update(closed_at=claim["recorded_at"], close_reason="superseded", closed_by=claim["id"])
    return f"line {_claim_line(lines) + 1}.claim.closed_by"


@pytest.mark.parametrize(
    "damage",
    [
        _closes_itself,
        _nan_weight,
        _cut,
        _unknown,
        _version,
        _order,
        _counts,
        _out_of_range,
        _no_paragraphs,
        _spaced_text,
    ],
)
def test_a_bad_archive_is_refused_by_line_and_field_and_writes_nothing(
    svc: Tabane, user: Principal, context: str, damage: Callable[[list[dict[str, Any]]], str]
) -> None:
    lines = _lines(svc, user, context)
    where = damage(lines)
    name = unique("bad")
    with pytest.raises(InvalidInput) as caught:
        svc.import_context(user, [json.dumps(line) for line in lines], context=name)
    assert where in [i.path for i in caught.value.issues], caught.value.issues
    with pytest.raises(NoContext):
        svc.get_context(user, name)


def test_a_line_that_is_not_json_and_a_file_that_is_no_archive_are_named(
    svc: Tabane, user: Principal, context: str
) -> None:
    lines = [json.dumps(line) for line in _lines(svc, user, context)]
    lines[2] = lines[2][:20]
    with pytest.raises(InvalidInput) as caught:
        svc.import_context(user, lines, context=unique("bad"))
    assert [i.path for i in caught.value.issues] == ["line 3"]
    assert caught.value.issues[0].problem.startswith("not JSON")
    with pytest.raises(InvalidInput) as caught:
        svc.import_context(user, ['{"table": "users"}'], context=unique("bad"))
    assert caught.value.issues[0].problem == "the first line is not a tabane archive header"


def test_scopes_the_importer_may_not_write_are_refused_unless_mapped(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    team = unique("org:team")
    alice, bob = make_user("alice", extra_write=(team,)), make_user("bob")
    shared = make_context(alice, scopes=[team])
    lines = [json.dumps(line) for line in _lines(svc, alice, shared)]
    name = unique("moved")
    with pytest.raises(Forbidden) as caught:
        svc.import_context(bob, lines, context=name)
    assert [i.path for i in caught.value.issues] == ["scope_map"]
    assert team in caught.value.issues[0].problem
    with pytest.raises(NoContext):
        svc.get_context(bob, name)
    report = svc.import_context(bob, lines, context=name, scope_map={team: f"user:{bob.name}"})
    assert report.scope_map == {team: f"user:{bob.name}"}
    assert svc.get_context(bob, name).scopes == (f"user:{bob.name}",)
    assert {s.scopes for s in svc.list_sources(bob, name).sources} == {(f"user:{bob.name}",)}


def test_a_write_refused_part_way_leaves_nothing_behind(
    svc: Tabane, user: Principal, context: str
) -> None:
    lines = _lines(svc, user, context)
    lines[-2]["alias"]["alias_of"] = "nowhere"  # checked only when it is written, last
    name = unique("half")
    with pytest.raises(NoConcept) as caught:
        svc.import_context(user, [json.dumps(line) for line in lines], context=name)
    assert caught.value.issues[0].path == f"line {len(lines) - 1}.alias.target"
    with pytest.raises(NoContext):  # its sources and claims were written, and rolled back
        svc.get_context(user, name)


def test_a_taken_name_is_refused_at_the_option_that_chose_it(
    svc: Tabane, user: Principal, context: str, make_context: Callable[..., str]
) -> None:
    lines = [json.dumps(line) for line in _lines(svc, user, context)]
    taken = make_context()
    with pytest.raises(NameTaken) as caught:
        svc.import_context(user, lines, context=taken)
    assert [i.path for i in caught.value.issues] == ["context"]
    assert svc.list_sources(user, taken).sources == []
    with pytest.raises(NameTaken) as caught:  # the archive's own name: the original's
        svc.import_context(user, lines)
    assert [i.path for i in caught.value.issues] == ["line 1.context.name"]


def _team(
    make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> tuple[Principal, Principal, str]:
    """Alice and Bob, who both write a team's scope, and a context of Alice's under it."""
    team = unique("org:team")
    alice = make_user("alice", extra_write=(team,))
    bob = make_user("bob", extra_write=(team,))
    return alice, bob, make_context(alice, scopes=[team])


def test_an_export_shows_only_what_its_reader_may_see(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    alice, bob, shared = _team(make_user, make_context)
    svc.add_claims(alice, shared, [ClaimInput("tea", "is", "green", 1.0)])
    svc.remember(bob, shared, {"text": "my private note"}, scopes=[f"user:{bob.name}"])
    hidden = svc.add_claims(
        bob, shared, [ClaimInput("tea", "is", "black", 1.0)], scopes=[f"user:{bob.name}"]
    )
    with svc.store.admin() as session:  # as data from before corrections had to be readable
        ctx = session.scalar(select(Context).where(Context.name == shared))
        assert ctx is not None
        session.execute(
            update(Claim)
            .where(Claim.context_id == ctx.id, Claim.object == "green")
            .values(
                closed_at=Claim.recorded_at, close_reason="superseded", closed_by=hidden.claims[0]
            )
        )
    claims = [line["claim"] for line in exported(svc, alice, shared) if "claim" in line]
    assert [(c["object"], c["close_reason"]) for c in claims] == [("green", "superseded")]
    assert "closed_by" not in claims[0]  # the correction's id is bob's to see
    seen_by_bob = [line["claim"] for line in exported(svc, bob, shared) if "claim" in line]
    assert len(seen_by_bob) == 3 and seen_by_bob[0]["closed_by"] == hidden.claims[0]


def test_an_export_reads_one_snapshot(svc: Tabane, user: Principal, context: str) -> None:
    svc.ingest(user, context, DocumentInput("first.md", data=b"First."))
    lines = svc.export_context(user, context)
    header = next(lines)  # the snapshot is taken here
    svc.ingest(user, context, DocumentInput("later.md", data=b"Written meanwhile."))
    rest = list(lines)
    assert header["context"]["name"] == context
    assert [line["source"]["source_id"] for line in rest if "source" in line] == ["first.md"]
    assert rest[-1] == {"end": {"sources": 1, "paragraphs": 1, "claims": 0, "aliases": 0}}


@pytest.mark.slow
def test_the_importing_store_embeds_what_it_imported(
    vsvc: Tabane, user: Principal, context: str
) -> None:
    lines = [json.dumps(line) for line in _lines(vsvc, user, context)]
    copy = unique("copy")
    vsvc.import_context(user, lines, context=copy)
    assert vsvc.wait_for_jobs(timeout=120) == 0
    found = vsvc.search(user, SearchRequest("Two.", contexts=(copy,), lanes=("vector",)))
    assert found.plan.contexts[0].lanes["vector"].ran
    assert [(h.source_id, h.paragraph) for h in found.hits][:1] == [("a.md", 1)]


def test_a_shared_claim_citing_a_source_its_exporter_cannot_see_keeps_its_citation(
    svc: Tabane, make_user: Callable[..., Principal], make_context: Callable[..., str]
) -> None:
    alice, bob, shared = _team(make_user, make_context)
    private = DocumentInput(
        "diary.md", data=b"The launch is on Friday.", scopes=[f"user:{alice.name}"]
    )
    svc.ingest(alice, shared, private)
    svc.add_claims(
        alice,
        shared,
        [ClaimInput("launch", "is on", "friday", 1.0, source="diary.md", paragraph=0)],
    )
    lines = exported(svc, bob, shared)
    assert [line for line in lines if "source" in line] == []  # bob cannot see the diary
    copy = unique("copy")
    svc.import_context(bob, [json.dumps(line) for line in lines], context=copy)
    claims = [line["claim"] for line in exported(svc, bob, copy) if "claim" in line]
    assert [(c["source"], c["paragraph"]) for c in claims] == [("diary.md", 0)]


def test_an_alias_spelt_in_another_normal_form_is_stored_as_a_write_stores_it(
    svc: Tabane, user: Principal, context: str
) -> None:
    lines = _lines(svc, user, context)
    lines[-2]["alias"]["name"] = "cafe\u0301"  # "café" decomposed (NFD), as some editors write it
    copy = unique("copy")
    svc.import_context(user, [json.dumps(line) for line in lines], context=copy)
    assert [a.alias for a in svc.list_aliases(user, copy)] == ["caf\u00e9"]
    assert svc.resolve(user, copy, "caf\u00e9").candidates[0].name == "a"
