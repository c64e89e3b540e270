"""The corpus map's inputs are written at ingest: each source's outline (top-level section titles)
and area key, kept in step with re-ingest, metadata changes and retraction; the map reads them."""

from __future__ import annotations

from sqlalchemy import select, update

from tabane.ingest.documents import DocumentInput, outline
from tabane.principal import Principal
from tabane.recall.overview import corpus_map
from tabane.service import Tabane
from tabane.storage.schema import Context, Source
from tabane.text.documents import Block


def _row(svc: Tabane, user: Principal, source_id: str) -> tuple[list[str], str, int]:
    with svc.store.session(user) as session:
        r = session.execute(
            select(Source.outline, Source.area_key, Source.paragraph_count).where(
                Source.source_id == source_id
            )
        ).one()
        return list(r.outline), r.area_key, r.paragraph_count


def _b(text: str, *section: str) -> Block:
    return Block(text=text, section=tuple(section))


def test_outline_of_blocks() -> None:
    # one root repeating the title: the level-2 headings under it, in first-appearance order
    blocks = [_b("a", "Guide"), _b("b", "Guide", "Install"), _b("c", "Guide", "Use", "Deep")]
    blocks += [_b("d", "Guide", "Install")]
    assert outline(" guide ", blocks) == ["Install", "Use"]
    # several roots (or one that is not the title): the roots
    assert outline("Guide", [_b("x", "One"), _b("y", "Two", "Sub"), _b("z", "One")]) == [
        "One",
        "Two",
    ]
    assert outline("Other", blocks) == ["Guide"]
    assert outline("T", [_b("no headings")]) == []


def test_ingest_writes_outline_and_follows_changes(
    svc: Tabane, user: Principal, context: str
) -> None:
    doc = b"# Manual\n\nIntro.\n\n## Setup\n\nS.\n\n## Usage\n\nU.\n"
    svc.ingest(user, context, DocumentInput(source_id="m.md", data=doc, area=" My  Work "))
    assert _row(svc, user, "m.md") == (["Setup", "Usage"], "my work", 3)
    # a new title that no longer repeats the root: the outline is the root (metadata only)
    svc.ingest(user, context, DocumentInput(source_id="m.md", data=doc, title="Handbook"))
    assert _row(svc, user, "m.md") == (["Manual"], "", 3)
    # a new version with other sections
    doc2 = b"# Manual\n\nIntro.\n\n## Deploy\n\nD.\n"
    svc.ingest(user, context, DocumentInput(source_id="m.md", data=doc2, area="ワーク"))
    assert _row(svc, user, "m.md") == (["Deploy"], "わーく", 2)
    svc.retract(user, context, "m.md")
    assert _row(svc, user, "m.md") == ([], "わーく", 0)


def test_the_map_reads_the_stored_outline(svc: Tabane, user: Principal, context: str) -> None:
    """The map shows what ingest wrote to `sources`, not what it would aggregate from sections."""
    doc = b"# Notes\n\nN.\n\n## Alpha\n\nA.\n"
    svc.ingest(user, context, DocumentInput(source_id="n.md", data=doc))
    with svc.store.session(user) as session:
        cid = int(session.scalar(select(Context.id).where(Context.name == context)))
        assert corpus_map(session, [cid], 1000).splitlines()[-1] == (
            "    - Notes [n.md] (2 paragraphs): Alpha"
        )
        session.execute(update(Source).values(outline=["Written", "At ingest"]))
        assert corpus_map(session, [cid], 1000).splitlines()[-1] == (
            "    - Notes [n.md] (2 paragraphs): Written · At ingest"
        )
