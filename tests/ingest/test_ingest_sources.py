"""Ingest one document at a time: hash skip, replace, revive, retract, scopes, citations."""

from __future__ import annotations

from functools import partial

import pytest

from tabane.errors import Forbidden, InvalidInput, NoParagraph, NoSource
from tabane.ingest.documents import DocumentInput, block
from tabane.service import Tabane

from helpers import race

DOC = b"""# Kettle

Kettle boils water.

## Safety

Never run it dry.

```sh
# not a heading

kettle --boil
```
"""


def _doc(data: bytes = DOC, **kw) -> DocumentInput:
    return DocumentInput(source_id=kw.pop("source_id", "kettle.md"), data=data, **kw)


def test_store_then_skip_then_replace(svc: Tabane, user, context) -> None:
    first = svc.ingest(user, context, _doc())
    assert (first.outcome, first.paragraphs) == ("created", 3)
    again = svc.ingest(user, context, _doc())
    assert again.outcome == "unchanged"
    changed = svc.ingest(user, context, _doc(DOC.replace(b"dry.", b"dry, ever.")))
    assert changed.outcome == "replaced"
    info, paragraphs = svc.lookup(user, context, "kettle.md")
    assert info.title == "Kettle"
    assert info.format == "markdown"
    assert [p.index for p in paragraphs] == [0, 1, 2]
    assert paragraphs[1].text == "Never run it dry, ever."
    assert paragraphs[2].section == ("Kettle", "Safety")
    assert "# not a heading" in paragraphs[2].text
    stats = svc.get_context(user, context).stats
    assert (stats.sources, stats.paragraphs, stats.sections) == (1, 3, 2)


def test_citation(svc: Tabane, user, context) -> None:
    svc.ingest(user, context, _doc())
    c = svc.cite(user, context, "kettle.md", 1)
    assert (c.title, c.section, c.text) == ("Kettle", ("Kettle", "Safety"), "Never run it dry.")
    assert c.locator == {"kind": "line_range", "start": 7, "end": 7}
    with pytest.raises(NoParagraph) as info:
        svc.cite(user, context, "kettle.md", 3)
    assert info.value.issues[0].path == "paragraph"
    usage = svc.get_context(user, context).usage
    assert (usage.reads, usage.misses) == (2, 1)


def test_retract_dry_run_writes_nothing(svc: Tabane, user, context) -> None:
    svc.ingest(user, context, _doc())
    dry = svc.retract(user, context, "kettle.md", dry_run=True)
    assert (dry.sources, dry.paragraphs, dry.sections) == (1, 3, 2)
    assert svc.get_context(user, context).stats.paragraphs == 3
    done = svc.retract(user, context, "kettle.md")
    assert done.paragraphs == 3
    assert svc.get_context(user, context).stats.paragraphs == 0
    with pytest.raises(NoSource):
        svc.lookup(user, context, "kettle.md")
    page = svc.list_sources(user, context, include_retracted=True)
    assert page.sources[0].retracted_at is not None
    # the same content again brings it back
    assert svc.ingest(user, context, _doc()).outcome == "revived"


def test_given_paragraphs_with_locators_and_questions(svc: Tabane, user, context) -> None:
    doc = DocumentInput(
        source_id="manual.pdf",
        paragraphs=[
            block("Page one text.", ["Intro"], {"kind": "page", "start": 1}),
            block("Page two text.", ["Intro", "More"], {"kind": "page", "start": 2}),
        ],
        questions=[["what is on page one?"], []],
        title="Manual",
        date="2024-05-01",
        tags=["pdf", "manual"],
        state="waiting",
    )
    assert svc.ingest(user, context, doc).paragraphs == 2
    info, paragraphs = svc.lookup(user, context, "manual.pdf")
    assert info.tags == ("pdf", "manual")
    assert info.state == "waiting"
    assert info.date is not None and info.date.year == 2024
    assert paragraphs[0].questions == ("what is on page one?",)
    assert svc.cite(user, context, "manual.pdf", 1).locator == {"kind": "page", "start": 2}


@pytest.mark.parametrize(
    ("field", "value"),
    [("date", "yesterday"), ("state", "sleeping"), ("tags", "not-a-list"), ("source_id", " ")],
)
def test_bad_metadata_is_refused_and_nothing_written(
    svc: Tabane, user, context, field: str, value
) -> None:
    with pytest.raises(InvalidInput) as info:
        svc.ingest(user, context, _doc(**{field: value}))
    assert info.value.issues[0].path.startswith(field)
    assert svc.get_context(user, context).stats.sources == 0


def test_unwritable_scopes_are_forbidden_and_nothing_written(
    svc: Tabane, make_user, make_context
) -> None:
    owner = make_user(extra_write=("team:k",))
    reader = make_user(extra_read=("team:k",))
    ctx = make_context(owner, scopes=["team:k"])
    with pytest.raises(Forbidden):
        svc.ingest(reader, ctx, _doc())
    with pytest.raises(Forbidden):
        svc.ingest(owner, ctx, _doc(scopes=["team:k", "org:other"]))
    assert svc.get_context(owner, ctx).stats.sources == 0
    svc.ingest(owner, ctx, _doc())
    assert svc.cite(reader, ctx, "kettle.md", 0).text == "Kettle boils water."
    with pytest.raises(Forbidden):
        svc.retract(reader, ctx, "kettle.md")


def test_sources_narrower_than_the_context_stay_private(
    svc: Tabane, make_user, make_context
) -> None:
    owner = make_user(extra_write=("team:m",))
    teammate = make_user(extra_read=("team:m",))
    ctx = make_context(owner, scopes=["team:m"])
    svc.ingest(owner, ctx, _doc(source_id="shared.md"))
    svc.ingest(owner, ctx, _doc(source_id="mine.md", scopes=[f"user:{owner.name}", "team:m"]))
    assert [s.source_id for s in svc.list_sources(teammate, ctx).sources] == ["shared.md"]
    assert svc.get_context(teammate, ctx).stats.paragraphs == 3
    with pytest.raises(NoSource):
        svc.cite(teammate, ctx, "mine.md", 0)


def test_list_sources_keyset_paging(svc: Tabane, user, context) -> None:
    for i in range(5):
        svc.ingest(user, context, _doc(DOC + str(i).encode(), source_id=f"s{i}.md"))
    first = svc.list_sources(user, context, limit=2)
    assert [s.source_id for s in first.sources] == ["s0.md", "s1.md"]
    second = svc.list_sources(user, context, limit=2, after=first.next_after)
    assert [s.source_id for s in second.sources] == ["s2.md", "s3.md"]
    last = svc.list_sources(user, context, limit=2, after=second.next_after)
    assert ([s.source_id for s in last.sources], last.next_after) == (["s4.md"], None)
    with pytest.raises(InvalidInput):
        svc.list_sources(user, context, limit=0)


def test_changing_only_questions_or_scopes_replaces(svc: Tabane, make_user, make_context) -> None:
    owner = make_user(extra_write=("team:q",))
    ctx = make_context(owner)
    doc = DocumentInput(source_id="q", paragraphs=[block("text")], questions=[["why?"]])
    assert svc.ingest(owner, ctx, doc).outcome == "created"
    again = DocumentInput(source_id="q", paragraphs=[block("text")], questions=[["how?"]])
    assert svc.ingest(owner, ctx, again).outcome == "replaced"
    assert svc.lookup(owner, ctx, "q")[1][0].questions == ("how?",)
    wider = DocumentInput(
        source_id="q",
        paragraphs=[block("text")],
        questions=[["how?"]],
        scopes=[f"user:{owner.name}", "team:q"],
    )
    assert svc.ingest(owner, ctx, wider).outcome == "replaced"
    assert svc.lookup(owner, ctx, "q")[0].scopes == ("team:q", f"user:{owner.name}")


@pytest.mark.parametrize("text", ["", "   "])
def test_empty_given_paragraphs_are_refused(text: str) -> None:
    with pytest.raises(InvalidInput) as info:
        block(text, (), None, path="paragraphs[1]")
    assert info.value.issues[0].path == "paragraphs[1].text"


@pytest.mark.parametrize(
    ("locator", "field"),
    [
        ({"kind": "page", "start": 0}, ".start"),
        ({"kind": "scroll", "start": 1}, ".kind"),  # an open kind takes a value (decision 0023)
        ({"kind": "sheet", "value": "A1", "start": 1}, ".value"),
        ({"start": 2}, ""),
    ],
)
def test_bad_locators_are_invalid_input(locator, field: str) -> None:
    with pytest.raises(InvalidInput) as info:
        block("text", (), locator)
    assert info.value.issues[0].path == "paragraph.locator" + field


def test_same_bytes_are_recognised_before_parsing(svc: Tabane, user, context) -> None:
    from tabane.ingest.documents import stored_unchanged

    assert stored_unchanged(svc.store, user, context, _doc()) is None  # nothing stored yet
    svc.ingest(user, context, _doc())
    same = stored_unchanged(svc.store, user, context, _doc())
    assert same is not None and (same.outcome, same.paragraphs) == ("unchanged", 3)
    assert stored_unchanged(svc.store, user, context, _doc(DOC + b"\n")) is None
    # explicit metadata always goes through the full path (it may change the stored row)
    assert stored_unchanged(svc.store, user, context, _doc(title="Other")) is None
    assert svc.ingest(user, context, _doc(title="Other")).outcome == "unchanged"
    assert svc.lookup(user, context, "kettle.md")[0].title == "Other"


@pytest.mark.slow
def test_two_writes_of_one_new_source_at_once_never_claim_a_hidden_holder(
    svc: Tabane, user, context
) -> None:
    """The loser of the race for a new source id sees the winner's row once the conflict is
    over: its write runs again as an update, never `source_taken` by someone invisible."""
    for round_ in range(4):
        sid = f"race-{round_}.md"
        outcomes = race(
            *(
                partial(
                    svc.ingest,
                    user,
                    context,
                    DocumentInput(source_id=sid, paragraphs=[block(f"v{n} text")]),
                )
                for n in range(3)
            )
        )
        assert not [o for o in outcomes if isinstance(o, Exception)], outcomes
        assert sorted(o.outcome for o in outcomes)[0] == "created"  # type: ignore[attr-defined]
        assert svc.lookup(user, context, sid)[0].source_id == sid
