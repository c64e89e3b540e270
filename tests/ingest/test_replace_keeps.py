"""A replaced source keeps the rows of the paragraphs it repeats word for word (sources/write.py
`_keep`), and with them their vectors, doc2query questions' included: only new or changed text
is embedded again, and a kept paragraph moves to its new place, section and locator."""

from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import select

from tabane.contexts import contexts
from tabane.ingest.documents import DocumentInput, block
from tabane.models.local import UseEmbedder
from tabane.principal import Principal
from tabane.search.plan import SearchRequest
from tabane.service import Tabane
from tabane.storage.schema import Paragraph, ParagraphVector, Source

from helpers import Counting, unique

pytestmark = pytest.mark.slow  # seconds a test: vectors, background jobs, a corpus per test

Stored = dict[tuple[str, int], tuple[np.ndarray, tuple[str, ...]]]


def _stored(svc: Tabane, user: Principal, context: str, source_id: str) -> Stored:
    """(paragraph text, ord) → (vector, the vector row's scopes)."""
    with svc.store.session(user) as session:
        rows = session.execute(
            select(
                Paragraph.text,
                ParagraphVector.ord,
                ParagraphVector.embedding,
                ParagraphVector.scopes,
            )
            .join(ParagraphVector, ParagraphVector.paragraph_id == Paragraph.id)
            .join(Source, Source.id == Paragraph.source_pk)
            .where(
                Source.source_id == source_id, Source.context_id == _context_id(svc, user, context)
            )
        ).all()
    return {(t, o): (np.asarray(e, dtype=np.float32), tuple(s)) for t, o, e, s in rows}


def _context_id(svc: Tabane, user: Principal, name: str) -> int:
    with svc.store.session(user) as session:
        return contexts.resolve(session, name).id


def test_an_edited_document_embeds_only_what_changed(
    svc: Tabane, embedder: UseEmbedder, make_user, context: str, user: Principal
) -> None:
    counting = Counting(embedder)
    tsvc = Tabane.build(svc.store, svc.settings, counting)
    texts = [
        "The kettle heats water to a boil in three minutes.",
        "Descale it monthly with citric acid.",
        "Never run it dry: the thermal fuse trips.",
        "Descale it monthly with citric acid.",  # the same text twice
    ]
    first = DocumentInput(
        source_id="kettle",
        paragraphs=[block(t) for t in texts],
        questions=((), ("How often should I descale?",), (), ()),
    )
    tsvc.ingest(user, context, first)
    tsvc.wait_for_jobs()
    before = _stored(tsvc, user, context, "kettle")
    assert len(before) == 4  # three distinct texts, one question
    counting.texts.clear()

    edited = [texts[0], "Descale it every two weeks in hard-water areas.", texts[2], texts[3]]
    second = DocumentInput(
        source_id="kettle",
        paragraphs=[block(t) for t in [*edited, "Unplug it before cleaning."]],
        questions=((), ("How often should I descale?",), (), ()),
    )
    assert tsvc.ingest(user, context, second).outcome == "replaced"
    kept = _stored(tsvc, user, context, "kettle")  # before any embedding job ran
    assert set(kept) == {(texts[0], 0), (texts[2], 0), (texts[3], 0)}
    for key in kept:
        assert np.array_equal(kept[key][0], before[key][0])
    tsvc.wait_for_jobs()
    # Only the changed paragraph, its question (its paragraph changed) and the new one (the
    # derived jobs embed their summaries too: not the document's texts).
    said = {*texts, *edited, "How often should I descale?", "Unplug it before cleaning."}
    assert sorted(t for t in counting.texts if t in said) == sorted(
        [edited[1], "How often should I descale?", "Unplug it before cleaning."]
    )
    assert len(_stored(tsvc, user, context, "kettle")) == 6


def test_kept_vectors_take_the_new_version_s_scopes(
    svc: Tabane, embedder: UseEmbedder, make_user
) -> None:
    team = unique("team:")
    owner = make_user(extra_write=(team,))
    tsvc = Tabane.build(svc.store, svc.settings, embedder)
    name = unique("kv")
    tsvc.create_context(owner, name, scopes=[team])
    doc = [block("The boathouse key hangs by the door."), block("Oars go on the left rack.")]
    tsvc.ingest(owner, name, DocumentInput(source_id="boat", paragraphs=doc))
    tsvc.wait_for_jobs()
    mine = [f"user:{owner.name}"]
    again = DocumentInput(source_id="boat", paragraphs=doc, scopes=mine)
    assert tsvc.ingest(owner, name, again).outcome == "replaced"  # same text, other scopes
    kept = _stored(tsvc, owner, name, "boat")
    assert len(kept) == 2 and {s for _, s in kept.values()} == {tuple(mine)}


def _ids_by_text(svc: Tabane, user: Principal, context: str) -> dict[str, int]:
    with svc.store.session(user) as session:
        rows = session.execute(
            select(Paragraph.text, Paragraph.id).where(
                Paragraph.context_id == _context_id(svc, user, context)
            )
        ).all()
    return {text: pid for text, pid in rows}


PAGE_4, PAGE_9 = {"kind": "page", "start": 4}, {"kind": "page", "start": 9}


def test_kept_paragraphs_move_to_their_new_place_and_the_rest_go(
    svc: Tabane, user: Principal, context: str
) -> None:
    def doc(*paragraphs) -> DocumentInput:
        return DocumentInput(source_id="manual", paragraphs=list(paragraphs))

    svc.ingest(user, context, doc(
        block("Fill the tank with fresh water.", section=("Setup",)),
        block("Press the green switch to start brewing.", section=("Setup",)),
        block("Descale the boiler every month.", section=("Care",), locator=PAGE_4),
    ))  # fmt: skip
    before = _ids_by_text(svc, user, context)
    result = svc.ingest(user, context, doc(
        block("Descale the boiler every month.", section=("Maintenance",), locator=PAGE_9),
        block("Fill the tank with fresh water.", section=("Setup",)),
        block("Hold the green switch for two seconds to start brewing.", section=("Setup",)),
    ))  # fmt: skip
    assert (result.outcome, result.paragraphs) == ("replaced", 3)
    cited = [svc.cite(user, context, "manual", i) for i in range(3)]
    assert [(c.text, c.section) for c in cited] == [
        ("Descale the boiler every month.", ("Maintenance",)),
        ("Fill the tank with fresh water.", ("Setup",)),
        ("Hold the green switch for two seconds to start brewing.", ("Setup",)),
    ]
    assert cited[0].locator == PAGE_9
    after = _ids_by_text(svc, user, context)
    kept = {t for t in after if t in before}
    assert kept == {"Descale the boiler every month.", "Fill the tank with fresh water."}
    assert all(after[t] == before[t] for t in kept)  # the same rows
    assert "Press the green switch to start brewing." not in after
    # The search terms follow the new version: the kept paragraph is found by its new section.
    hits = svc.search(user, SearchRequest("maintenance boiler", contexts=(context,))).hits
    assert hits[0].text == "Descale the boiler every month." and hits[0].paragraph == 0
    assert not svc.search(user, SearchRequest("press", contexts=(context,))).hits


def test_claims_citing_a_kept_paragraph_stay_open_and_follow_it(
    svc: Tabane, user: Principal, context: str
) -> None:
    from tabane.graph.claims.parse import parse_claims
    from tabane.storage.schema import Claim

    def doc(*texts: str) -> DocumentInput:
        return DocumentInput(source_id="facts", paragraphs=[block(t) for t in texts])

    svc.ingest(user, context, doc("tea is hot", "ice is cold", "fire is warm"))
    cited = [
        ("tea", "hot", {"paragraph": 0}),
        ("ice", "cold", {"paragraph": 1}),
        ("fire", "warm", {"paragraph": 2}),
        ("steam", "wet", {}),  # the source as a whole
    ]
    svc.add_claims(user, context, parse_claims([
        {"subject": s, "label": "is", "object": o, "weight": 1.0, "source": "facts", **at}
        for s, o, at in cited
    ]))  # fmt: skip
    result = svc.ingest(user, context, doc("an intro", "fire is warm", "tea is hot", "ice melts"))
    assert (result.outcome, result.claims_closed) == ("replaced", 2)  # ice's and the whole's
    assert result.kept_at == ((0, 2), (2, 1))
    with svc.store.session(user) as session:
        rows = session.execute(
            select(Claim.subject, Claim.paragraph, Claim.closed_at.is_(None)).where(
                Claim.context_id == _context_id(svc, user, context)
            )
        ).all()
    assert sorted(rows) == [
        ("fire", 1, True),  # followed its paragraph from 2 to 1
        ("ice", 1, False),  # its paragraph is gone
        ("steam", None, False),  # the text it was drawn from changed
        ("tea", 2, True),
    ]
    cited_now = {svc.cite(user, context, "facts", i).text for i in (1, 2)}
    assert cited_now == {"fire is warm", "tea is hot"}
