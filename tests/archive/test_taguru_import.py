"""Taguru's batch stream applied (archive/stream.py, archive/batches.py, decision 0027): one
batch per transaction, retract-then-apply of its source; a bad line refuses its batch, naming
the line, and the batches before it stay; an export imported into a new context reads the same;
promote moves named sources into another context, all or nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tabane.archive.groups import GroupRecord
from tabane.archive.stream import is_group, read, read_group, split
from tabane.archive.taguru import batches
from tabane.errors import BodyTooLarge, InvalidInput, LimitExceeded, NoContext, NoSource
from tabane.graph.claims.parse import ClaimInput
from tabane.ingest.documents import DocumentInput, block
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.service import archive as archive_service

from helpers import unique


def stream(*lines: dict[str, Any]) -> list[str]:
    return [json.dumps(line, ensure_ascii=False) for line in lines]


def header(context: str, source: str, **more: Any) -> dict[str, Any]:
    return {"taguru_batch": 1, "context": context, "source": source, **more}


def edges(svc: Tabane, user: Principal, context: str) -> list[tuple[str, str, str, float]]:
    found = svc.query(user, contexts=[context], limit=1000)
    return sorted((e.subject, e.label, e.object, e.weight) for e in found.edges if e.claims)


def test_lines_are_grouped_by_header_and_bad_ones_named() -> None:
    texts = stream(header("c", "a"), {"passage": "x"}, header("c", "b"))
    texts.insert(2, "")  # a blank line is skipped, and counted
    parts = list(split(texts))
    assert [(first, [n for n, _ in part]) for first, part in parts] == [(1, [1, 2]), (4, [4])]
    bad = stream(header("c", "a"), {"subject": "s", "label": "l", "object": "o", "source": "x"})
    with pytest.raises(InvalidInput) as refused:
        read(next(split(bad))[1])
    assert [i.path for i in refused.value.issues] == ["line 2.source"]
    with pytest.raises(InvalidInput) as refused:
        read(next(split(['{"taguru_batch": 1, "context": "c", "source": "a"}', "{oops"]))[1])
    assert [i.path for i in refused.value.issues] == ["line 2"]
    marks = stream(header("c", "a"), {"paragraph": 0, "question": "why?"})
    with pytest.raises(InvalidInput) as refused:
        read(next(split(marks))[1])
    assert refused.value.issues[0].path == "line 2.paragraph"


def test_a_group_record_stands_alone_between_batches_and_is_checked() -> None:
    group = {"taguru_group": 1, "name": "g", "contexts": ["c"], "groups": []}
    parts = list(split(stream(header("c", "a"), {"passage": "x"}, group, header("c", "b"))))
    assert [(first, is_group(part)) for first, part in parts] == [(1, False), (3, True), (4, False)]
    assert read_group(*parts[1][1][0]) == GroupRecord("g", "", ("c",), ())
    for bad, path in (
        ({**group, "taguru_group": 2}, "line 7.taguru_group"),
        ({**group, "name": " "}, "line 7.name"),
        ({**group, "contexts": "c"}, "line 7.contexts"),
        ({**group, "owner": "x"}, "line 7.owner"),
    ):
        with pytest.raises(InvalidInput) as refused:
            read_group(7, bad)
        assert [i.path for i in refused.value.issues] == [path]


def test_a_passage_becomes_paragraphs_with_sections_locators_and_dropped_marks() -> None:
    lines = stream(
        header("c", "a"),
        {"passage": "one\n\ntwo\n \nthree", "date": 0, "tags": ["t"]},
        {"paragraph": 1, "section": "S"},
        {"paragraph": 2, "locator": {"kind": "page", "value": "4"}},
        {"paragraph": 0, "question": "q?"},
        {"paragraph": 9, "question": "lost?"},
    )
    batch = read(next(split(lines))[1])
    assert batch.passage is not None and batch.passage.paragraphs is not None
    assert [b.text for b in batch.passage.paragraphs] == ["one", "two", "three"]
    assert [b.section for b in batch.passage.paragraphs] == [(), ("S",), ("S",)]
    assert batch.passage.questions == (("q?",), (), ())
    assert batch.passage.date == "1970-01-01T00:00:00+00:00"
    assert batch.dropped == {"questions": 1, "sections": 0, "locators": 0}


@pytest.mark.slow
def test_batches_apply_one_by_one_and_replace_their_source(svc: Tabane, user: Principal) -> None:
    name = unique("ti")
    first = stream(
        header(name, "doc", create={"description": "made by import"}),
        {"passage": "The kettle boils water.\n\nIt stops by itself."},
        {"subject": "kettle", "label": "boils", "object": "water", "weight": 1.0, "paragraph": 0},
        {"subject": "kettle", "label": "has", "object": "switch", "weight": 2.0},
        {"alias": "boiler", "canonical": "kettle", "kind": "concept"},
        header(name, "other"),
        {"subject": "tea", "label": "needs", "object": "water", "weight": 1.0},
    )
    done = svc.import_batches(user, first)
    assert [(b.source, b.created, b.associations, b.aliases) for b in done.batches] == [
        ("doc", True, 2, 1),
        ("other", False, 1, 0),
    ]
    assert svc.get_context(user, name).description == "made by import"
    again = stream(
        header(name, "doc"),
        {"passage": "The kettle boils water."},
        {"subject": "kettle", "label": "boils", "object": "water", "weight": 1.0},
    )
    done = svc.import_batches(user, again)  # the source's whole truth: `has` is gone
    assert done.batches[0].retracted == 2 and not done.batches[0].created
    assert edges(svc, user, name) == [
        ("kettle", "boils", "water", 1.0),
        ("tea", "needs", "water", 1.0),
    ]
    assert svc.import_batches(user, again).batches[0].retracted == 1  # idempotent: no doubling
    assert edges(svc, user, name)[0] == ("kettle", "boils", "water", 1.0)
    gone = svc.import_batches(user, stream(header(name, "other")))  # a header alone retracts
    assert gone.batches[0].retracted == 1 and gone.batches[0].passage_removed is False
    assert edges(svc, user, name) == [("kettle", "boils", "water", 1.0)]
    assert [a.alias for a in svc.list_aliases(user, name)] == ["boiler"]


@pytest.mark.slow
def test_a_bad_batch_stops_the_stream_and_the_earlier_ones_stay(
    svc: Tabane, user: Principal
) -> None:
    name = unique("ti")
    lines = stream(
        header(name, "a", create={}),
        {"subject": "a", "label": "is", "object": "first", "weight": 1.0},
        header(name, "b"),
        {"subject": "b", "label": "is", "object": "second", "weight": "heavy"},
        header(name, "c"),
        {"subject": "c", "label": "is", "object": "third", "weight": 1.0},
    )
    with pytest.raises(InvalidInput) as refused:
        svc.import_batches(user, lines)
    assert [i.path for i in refused.value.issues] == ["line 4.weight"]
    assert "1 batch(es) before it" in refused.value.written
    assert edges(svc, user, name) == [("a", "is", "first", 1.0)]  # b and c: not written
    with pytest.raises(NoContext) as missing:  # no create block for an absent context
        svc.import_batches(user, stream(header(unique("ti"), "a")))
    assert missing.value.written == "nothing"
    weightless = stream(
        header(name, "d"), {"subject": "d", "label": "is", "object": "x", "weight": 1e12}
    )
    with pytest.raises(InvalidInput) as refused:  # refused by the claim writer: at its line
        svc.import_batches(user, weightless)
    assert refused.value.issues[0].path.startswith("line 2.")


def test_the_size_is_checked_before_any_work(
    svc: Tabane, user: Principal, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(archive_service, "MAX_LINES", 2)
    with pytest.raises(LimitExceeded):
        svc.import_batches(user, stream(header("nowhere", "a"), {"passage": "x"}, {}))
    big = ["x" * (svc.settings.max_body_bytes + 1)]
    with pytest.raises(BodyTooLarge):
        svc.import_batches(user, big)


@pytest.mark.slow
def test_an_export_imported_into_a_new_context_reads_the_same(
    svc: Tabane, user: Principal, context: str
) -> None:
    paragraphs = [block("Descale monthly.", ["Care"]), block("Use vinegar.", ["Care", "How"])]
    svc.ingest(user, context, DocumentInput("manual", paragraphs=paragraphs, tags=["home"]))
    svc.ingest(user, context, DocumentInput("note", paragraphs=[block("Buy a filter.")]))
    svc.add_claims(
        user,
        context,
        [
            ClaimInput("kettle", "needs", "descaling", 1.0, source="manual", paragraph=0),
            ClaimInput("kettle", "needs", "descaling", 0.5, source="note"),
            ClaimInput("vinegar", "cleans", "kettle", -1.0, source="manual", paragraph=1),
            ClaimInput("filter", "fits", "kettle", 1.0),  # sourceless: export:unsourced
        ],
    )
    svc.add_alias(user, context, "boiler", "kettle")
    copy = unique("tr")
    exported = [
        json.dumps({**line, "context": copy} if "taguru_batch" in line else line)
        for line in batches(svc.export_context(user, context))
    ]
    done = svc.import_batches(user, exported)
    assert [b.source for b in done.batches] == ["manual", "note", "export:unsourced"]
    assert edges(svc, user, copy) == edges(svc, user, context)
    assert [a.alias for a in svc.list_aliases(user, copy)] == ["boiler"]
    for source in ("manual", "note"):
        assert [p.text for p in svc.lookup(user, copy, source)[1]] == [
            p.text for p in svc.lookup(user, context, source)[1]
        ]
    tagged = {s.source_id: s.tags for s in svc.list_sources(user, copy).sources}
    assert tagged == {"manual": ("home",), "note": ()}


@pytest.mark.slow
def test_promote_moves_named_sources_all_or_nothing(
    svc: Tabane, user: Principal, context: str
) -> None:
    target = unique("tp")
    svc.create_context(user, target)
    for source in ("s1", "s2"):
        svc.ingest(user, context, DocumentInput(source, paragraphs=[block(f"about {source}")]))
    svc.add_claims(
        user,
        context,
        [
            ClaimInput("agent", "learned", "s1-fact", 1.0, source="s1"),
            ClaimInput("agent", "learned", "s2-fact", 1.0, source="s2"),
        ],
    )
    with pytest.raises(NoSource) as missing:
        svc.promote_sources(user, context, target, ["s1", "nope"])
    assert [i.path for i in missing.value.issues] == ["sources[1]"]
    dry = svc.promote_sources(user, context, target, ["s1"], dry_run=True)
    assert [b.associations for b in dry.batches] == [1] and edges(svc, user, target) == []
    done = svc.promote_sources(user, context, target, ["s1"], retract=True)
    assert done.retracted_here and [b.source for b in done.batches] == ["s1"]
    assert edges(svc, user, target) == [("agent", "learned", "s1-fact", 1.0)]
    assert edges(svc, user, context) == [("agent", "learned", "s2-fact", 1.0)]
    with pytest.raises(NoContext) as absent:
        svc.promote_sources(user, context, unique("absent"), ["s2"])
    assert [i.path for i in absent.value.issues] == ["into"]
