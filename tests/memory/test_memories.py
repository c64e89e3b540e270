"""Remembered notes: claims with a statement and the speaker's perspective."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tabane.errors import InvalidInput, NoContext, TabaneError
from tabane.service import Tabane
from tabane.types import Principal

from helpers import unique


def test_a_plain_note_keeps_its_speaker_and_kind(
    svc: Tabane, user: Principal, context: str
) -> None:
    first = svc.remember(user, context, {"text": "Hannah works at Zion."}, speaker="Ravi")
    second = svc.remember(
        user,
        context,
        {"text": "I moved to Glacier.", "kind": "experience", "valid_from": "2022-08-01"},
        speaker="Hannah",
    )
    page = svc.memories(user, context)
    assert [m.id for m in page.memories] == [second, first]
    newest = page.memories[0]
    assert (newest.author, newest.kind, newest.perspective) == ("Hannah", "experience", "Hannah")
    assert newest.valid_from is not None and newest.subject is None
    assert [m.id for m in svc.memories(user, context, author="Ravi").memories] == [first]


def test_a_note_with_a_triple_feeds_its_partition(
    svc: Tabane, user: Principal, context: str
) -> None:
    for speaker, weight in (("Hannah", 1.0), ("Ravi", -1.0)):
        svc.remember(
            user,
            context,
            {"text": f"{speaker} on jazz", "subject": "jazz", "label": "is", "object": "good",
             "weight": weight, "kind": "opinion"},
            speaker=speaker,
        )  # fmt: skip
    result = svc.query(user, contexts=[context], subject="jazz")
    assert sorted((e.perspective, e.weight) for e in result.edges) == [
        ("Hannah", 1.0),
        ("Ravi", -1.0),
    ]


def test_a_correction_closes_the_old_note(svc: Tabane, user: Principal, context: str) -> None:
    old = svc.remember(user, context, {"text": "Hannah lives in Utah."}, speaker="Hannah")
    new = svc.remember(
        user, context, {"text": "Hannah lives in Montana.", "closes": [old]}, speaker="Hannah"
    )
    assert [m.id for m in svc.memories(user, context).memories] == [new]
    everything = svc.memories(user, context, include_closed=True).memories
    closed = next(m for m in everything if m.id == old)
    assert closed.close_reason == "superseded" and closed.valid_until is not None


def test_bad_memories_write_nothing(
    svc: Tabane, user: Principal, context: str, make_user: Callable[..., Principal]
) -> None:
    for fields, path in (
        ({"text": ""}, "text"),
        ({"text": "x", "kind": "rumour"}, "kind"),
        ({"text": "x", "subject": "a"}, "label"),
        ({"text": "x", "colour": "red"}, "colour"),
        ({"text": "x", "weight": 0.5}, "weight"),  # a note without a triple has no weight
        ({"text": "x", "closes": [2**70]}, "closes[0]"),
        ({"text": "a\x00b"}, "text"),
        (
            {"text": "x", "subject": "a\udcffb", "label": "b", "object": "c", "weight": 1.0},
            "subject",
        ),
        ({"text": "x", "source": "s", "paragraph": 2**40}, "paragraph"),
    ):
        with pytest.raises(InvalidInput) as err:
            svc.remember(user, context, fields)
        assert path in {i.path for i in err.value.issues}
    with pytest.raises(InvalidInput) as err:  # the wire's field name, once
        svc.remember(user, context, {"text": " "})
    assert [i.path for i in err.value.issues] == ["text"]
    with pytest.raises(InvalidInput) as err:  # too long is one issue, not also "no statement"
        svc.remember(user, context, {"text": "x" * 1_000_000})
    assert [i.path for i in err.value.issues] == ["text"]
    with pytest.raises(InvalidInput) as err:  # an instant PostgreSQL would store as year 10000
        svc.remember(user, context, {"text": "x", "valid_from": "9999-12-31T23:59:59-12:00"})
    assert [i.path for i in err.value.issues] == ["valid_from"]
    for fields, path in (  # found missing while writing: named as the memory's own fields
        ({"text": "x", "closes": [99_999_999]}, "closes"),
        ({"text": "x", "source": unique("nowhere"), "paragraph": 0}, "source"),
    ):
        with pytest.raises(TabaneError) as found:
            svc.remember(user, context, fields)
        assert [i.path for i in found.value.issues] == [path]
    with pytest.raises(NoContext):
        svc.remember(make_user(), context, {"text": "not yours"})
    assert svc.memories(user, context).memories == []
    # a source without a paragraph is a provenance label: it may name what tabane does not
    # store (a message id, a URL), and is kept as given
    label = unique("slack:#ops/")
    kept = svc.remember(user, context, {"text": "the label is kept", "source": label})
    assert [(m.id, m.source) for m in svc.memories(user, context).memories] == [(kept, label)]
    with pytest.raises(InvalidInput):
        svc.memories(user, context, limit=0)
