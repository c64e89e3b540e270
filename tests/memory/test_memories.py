"""Remembered notes: claims with a statement and the speaker's perspective."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import update

from tabane.errors import Forbidden, InvalidInput, NoContext, TabaneError
from tabane.principal import Principal
from tabane.recall.explain import Expected
from tabane.recall.plan import RecallRequest
from tabane.service import Tabane
from tabane.storage.schema import Claim

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
        ({"text": "x", "kind": "world", "perspective": "ravi"}, "perspective"),  # everyone's
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
    for page, path in (
        ({"after": "5"}, "after"),
        ({"after": 2.5}, "after"),
        ({"author": 5}, "author"),
        ({"include_closed": "yes"}, "include_closed"),
    ):
        with pytest.raises(InvalidInput) as err:  # a Python caller's wrong type: named, not a crash
            svc.memories(user, context, **page)
        assert [i.path for i in err.value.issues] == [path]
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


def _team_note(
    svc: Tabane, make_user: Callable[..., Principal]
) -> tuple[str, Principal, Principal, str, int]:
    """Alice and Bob share a team scope and a context in it; Bob's note there is the team's."""
    team = unique("team:notes")
    alice = make_user(extra_write=(team,))
    bob = make_user(extra_write=(team,))
    context = unique("ctx")
    svc.create_context(alice, context, scopes=[team])
    shared = svc.remember(bob, context, {"text": "The offsite is in Lisbon."}, scopes=[team])
    return team, alice, bob, context, shared


def test_a_correction_fewer_people_can_read_cannot_close_a_shared_note(
    svc: Tabane, make_user: Callable[..., Principal]
) -> None:
    team, alice, bob, context, shared = _team_note(svc, make_user)
    private = {"text": "It moved to Porto.", "closes": [shared]}
    with pytest.raises(Forbidden) as err:
        svc.remember(alice, context, private, scopes=[f"user:{alice.name}"])
    assert [i.path for i in err.value.issues] == ["closes"]
    assert "narrower" in err.value.issues[0].problem
    # nothing was written: bob's note is still current, and alice wrote no note
    assert [m.id for m in svc.memories(bob, context).memories] == [shared]
    assert [m.id for m in svc.memories(alice, context).memories] == [shared]
    # a correction the team can read closes it, and so does a public one
    fixed = svc.remember(alice, context, private, scopes=[team])
    assert [m.id for m in svc.memories(bob, context).memories] == [fixed]
    later = {"text": "Porto, Tuesday.", "closes": [fixed]}
    public = svc.remember(alice, context, later, scopes=["public"])
    assert public in {m.id for m in svc.memories(bob, context).memories}


def test_explain_names_the_closing_claim_only_to_whoever_may_read_it(
    svc: Tabane, make_user: Callable[..., Principal]
) -> None:
    team, alice, bob, context, shared = _team_note(svc, make_user)
    fixed = svc.remember(alice, context, {"text": "Porto.", "closes": [shared]}, scopes=[team])
    ask = RecallRequest("where is the offsite?", (context,), force=True)
    seen = svc.explain_recall(bob, ask, Expected(claim=shared))
    assert seen.verdict == "closed" and f"by claim {fixed}" in seen.detail
    # a closer bob cannot read (written before corrections had to be readable where they close)
    with svc.store.admin() as s:
        s.execute(update(Claim).where(Claim.id == fixed).values(scopes=[f"user:{alice.name}"]))
    hidden = svc.explain_recall(bob, ask, Expected(claim=shared))
    assert hidden.verdict == "closed" and f"claim {fixed}" not in hidden.detail
    assert hidden.detail.startswith("superseded at ")


def test_a_correction_from_before_a_note_began_leaves_it_valid_for_no_time(
    svc: Tabane, user: Principal, context: str
) -> None:
    """The closed note ends where the correction begins, but never before its own start: an end
    before the start is an interval no input may give, and windowed reads would misread it."""
    old = svc.remember(user, context, {"text": "Ravi lives in Pune.", "valid_from": "2024-06-01"})
    svc.remember(
        user,
        context,
        {"text": "Ravi lives in Oslo.", "valid_from": "2024-01-01", "closes": [old]},
    )
    later = svc.remember(
        user, context, {"text": "Ravi works in Bergen.", "valid_from": "2024-03-01"}
    )
    svc.remember(
        user,
        context,
        {"text": "Ravi works in Oslo.", "valid_from": "2030-01-01", "closes": [later]},
    )
    everything = {m.id: m for m in svc.memories(user, context, include_closed=True).memories}
    assert everything[old].valid_until == everything[old].valid_from  # not 2024-01-01
    assert everything[old].valid_until.isoformat().startswith("2024-06-01")
    # a correction from the future closes the note in the record now; it stays valid until then
    assert everything[later].close_reason == "superseded"
    assert everything[later].valid_until.isoformat().startswith("2030-01-01")
