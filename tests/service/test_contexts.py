"""Contexts through the service facade, on the real store."""

from __future__ import annotations

import math
from functools import partial

import pytest

from tabane.access.keys import narrow
from tabane.errors import Forbidden, InvalidInput, InvalidName, NameTaken, NoContext
from tabane.service import Tabane

from helpers import race, unique


@pytest.mark.slow
def test_create_get_list_update_rename_delete(svc: Tabane, user, context) -> None:
    info = svc.get_context(user, context)
    assert info.name == context
    assert info.dice_floor == pytest.approx(0.3)
    assert info.scopes == (f"user:{user.name}",)
    assert context in [c.name for c in svc.list_contexts(user)]

    changed = svc.update_context(user, context, {"description": "d", "semantic_floor": 0.25})
    assert (changed.description, changed.semantic_floor) == ("d", 0.25)

    renamed = svc.rename_context(user, context, context + "b")
    assert renamed.name == context + "b"
    with pytest.raises(NoContext):
        svc.get_context(user, context)
    removed = svc.delete_context(user, context + "b")
    assert removed.sources == 0
    assert context + "b" not in [c.name for c in svc.list_contexts(user)]


@pytest.mark.parametrize(
    ("bad", "error"),
    [("", InvalidName), ("a" * 65, InvalidName), ("has space", InvalidName), (".dot", InvalidName)],
)
def test_bad_names_are_refused(svc: Tabane, user, bad: str, error: type) -> None:
    with pytest.raises(error) as info:
        svc.create_context(user, bad)
    assert info.value.issues[0].path == "name"


def test_duplicate_name(svc: Tabane, user, context) -> None:
    with pytest.raises(NameTaken):
        svc.create_context(user, context)


@pytest.mark.parametrize("floor", [math.nan, 1.5, -1.01, "0.5", True])
def test_semantic_floor_must_be_a_number_in_range(svc: Tabane, user, context, floor) -> None:
    with pytest.raises(InvalidInput) as info:
        svc.update_context(user, context, {"semantic_floor": floor})
    assert info.value.issues[0].path == "semantic_floor"
    assert svc.get_context(user, context).semantic_floor is None


def test_unknown_setting_is_refused(svc: Tabane, user, context) -> None:
    with pytest.raises(InvalidInput) as info:
        svc.update_context(user, context, {"colour": "red"})
    assert info.value.issues[0].path == "colour"


@pytest.mark.slow
def test_other_users_cannot_see_or_change_a_private_context(
    svc: Tabane, user, make_user, context
) -> None:
    other = make_user()
    with pytest.raises(NoContext):
        svc.get_context(other, context)
    assert context not in [c.name for c in svc.list_contexts(other)]
    with pytest.raises(NoContext):
        svc.delete_context(other, context)


def test_reader_without_write_scope_gets_forbidden_and_nothing_changes(
    svc: Tabane, make_user, make_context
) -> None:
    owner = make_user(extra_write=("team:x",))
    reader = make_user(extra_read=("team:x",))
    name = make_context(owner, scopes=["team:x"])
    assert svc.get_context(reader, name).name == name
    with pytest.raises(Forbidden):
        svc.update_context(reader, name, {"description": "mine now"})
    with pytest.raises(Forbidden):
        svc.create_context(reader, name + "y", scopes=["team:x"])
    assert svc.get_context(owner, name).description == ""


def test_a_context_holding_rows_you_may_not_write_is_not_deleted(svc: Tabane, make_user) -> None:
    from tabane.ingest.documents import DocumentInput, block

    team = unique("team:")
    alice, bob = make_user(extra_write=(team,)), make_user(extra_write=(team,))
    mine = f"user:{bob.name}"
    with_source, with_note = unique("shared"), unique("shared")
    for name in (with_source, with_note):
        svc.create_context(alice, name, scopes=[team])
    diary = DocumentInput(source_id="diary", paragraphs=[block("bob's notes")], scopes=[mine])
    svc.ingest(bob, with_source, diary)
    note = svc.remember(bob, with_note, {"text": "bob's own note"}, scopes=[mine])
    for name in (with_source, with_note):
        with pytest.raises(Forbidden) as err:
            svc.delete_context(alice, name)
        assert err.value.issues[0].path == "context"
    assert [s.source_id for s in svc.list_sources(bob, with_source).sources] == ["diary"]
    assert note in [m.id for m in svc.memories(bob, with_note).memories]
    team_only = unique("shared")
    svc.create_context(alice, team_only, scopes=[team])
    svc.remember(bob, team_only, {"text": "for the team"})  # the context's own scopes
    svc.delete_context(alice, team_only)  # nothing in it is beyond alice's scopes
    for name in (with_source, with_note):
        svc.delete_context(bob, name)  # everything in them is bob's or the team's


@pytest.mark.slow
def test_concurrent_renames_and_deletes_take_turns(svc: Tabane, user) -> None:
    for _ in range(4):
        name = unique("ctx")
        svc.create_context(user, name)
        outcomes = race(
            partial(svc.rename_context, user, name, name + "-a"),
            partial(svc.rename_context, user, name, name + "-b"),
            partial(svc.delete_context, user, name),
        )
        # one of them wins; the others find the name gone, never a stale write or a 500
        kinds = sorted(type(o).__name__ for o in outcomes)
        assert kinds.count("NoContext") == 2, outcomes
        left = [c.name for c in svc.list_contexts(user) if c.name.startswith(name)]
        assert len(left) <= 1


@pytest.mark.slow
def test_a_key_that_writes_no_scope_is_forbidden_not_told_the_name_is_taken(
    svc: Tabane, user
) -> None:
    nothing = narrow(user, None, [])
    name = unique("ctx")
    with pytest.raises(Forbidden):
        svc.create_context(nothing, name)
    with pytest.raises(Forbidden):
        svc.create_group(nothing, unique("grp"))
    assert name not in [c.name for c in svc.list_contexts(user)]


def test_an_error_never_echoes_a_huge_name_back_whole(svc: Tabane, user) -> None:
    """A million-character name answers with a message of at most MAX_MESSAGE characters."""
    from tabane.errors import MAX_MESSAGE, TabaneError

    with pytest.raises(TabaneError) as caught:
        svc.get_context(user, "x" * 1_000_000)
    assert len(caught.value.message) <= MAX_MESSAGE and caught.value.message.endswith("…")
