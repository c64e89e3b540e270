"""Groups: membership deltas, strict integrity, a DAG at most three groups tall."""

from __future__ import annotations

from functools import partial

import pytest

from tabane.errors import (
    Forbidden,
    GroupCycle,
    GroupTooDeep,
    InvalidName,
    NameTaken,
    NoContext,
    NoGroup,
)
from tabane.service import Tabane

from helpers import race, unique


def _group(svc: Tabane, user, **fields) -> str:
    name = unique("grp")
    svc.create_group(user, name, **fields)
    return name


def test_membership_by_deltas(svc: Tabane, user, make_context) -> None:
    a, b = make_context(), make_context()
    g = _group(svc, user, contexts=[a])
    assert svc.get_group(user, g).contexts == (a,)
    info = svc.change_group(user, g, add_contexts=[b], remove_contexts=[a])
    assert info.contexts == (b,)
    # adding twice is idempotent
    assert svc.change_group(user, g, add_contexts=[b]).contexts == (b,)


def test_members_must_exist_and_nothing_is_written(svc: Tabane, user, context) -> None:
    g = _group(svc, user)
    with pytest.raises(NoContext) as info:
        svc.change_group(user, g, add_contexts=[context, "nope-missing"])
    assert info.value.issues[0].path == "add_contexts[1]"
    assert svc.get_group(user, g).contexts == ()
    with pytest.raises(NoGroup):
        svc.change_group(user, g, add_groups=["missing-group"])
    with pytest.raises(NoContext) as made:  # creating names its own fields
        svc.create_group(user, unique("grp"), contexts=[context, "nope-missing"])
    assert made.value.issues[0].path == "contexts[1]"


def test_deleting_a_context_or_group_removes_it_everywhere(svc: Tabane, user, make_context) -> None:
    c = make_context()
    child = _group(svc, user, contexts=[c])
    parent = _group(svc, user, groups=[child], contexts=[c])
    svc.delete_context(user, c)
    assert svc.get_group(user, child).contexts == ()
    assert svc.get_group(user, parent).contexts == ()
    svc.delete_group(user, child)
    assert svc.get_group(user, parent).groups == ()


def test_renaming_a_group_keeps_its_members_and_parents(
    svc: Tabane, user, make_context, make_user
) -> None:
    c = make_context()
    child = _group(svc, user, contexts=[c])
    parent = _group(svc, user, groups=[child])
    new = unique("grp")
    renamed = svc.rename_group(user, child, new)
    assert (renamed.name, renamed.contexts) == (new, (c,))
    assert svc.get_group(user, parent).groups == (new,)
    assert svc.expand(user, [], [parent]) == [c]
    with pytest.raises(NoGroup):
        svc.get_group(user, child)
    with pytest.raises(NameTaken) as taken:
        svc.rename_group(user, new, parent)
    assert taken.value.issues[0].path == "new_name"
    with pytest.raises(InvalidName):
        svc.rename_group(user, new, ".dot")
    with pytest.raises(NoGroup):
        svc.rename_group(user, child, unique("grp"))
    team = unique("org:team")
    owner, reader = make_user(extra_write=(team,)), make_user(extra_read=(team,))
    shared = _group(svc, owner, scopes=[team])
    with pytest.raises(Forbidden):  # a reader sees it but may not rename it
        svc.rename_group(reader, shared, unique("grp"))
    assert svc.get_group(reader, shared).name == shared


def test_cycles_are_refused(svc: Tabane, user) -> None:
    a = _group(svc, user)
    b = _group(svc, user, groups=[a])
    with pytest.raises(GroupCycle):
        svc.change_group(user, a, add_groups=[b])
    with pytest.raises(GroupCycle):
        svc.change_group(user, a, add_groups=[a])


def test_at_most_three_groups_tall(svc: Tabane, user) -> None:
    bottom = _group(svc, user)
    middle = _group(svc, user, groups=[bottom])
    top = _group(svc, user, groups=[middle])
    with pytest.raises(GroupTooDeep):
        _group(svc, user, groups=[top])
    lonely = _group(svc, user)
    with pytest.raises(GroupTooDeep):
        svc.change_group(user, lonely, add_groups=[top])
    with pytest.raises(GroupTooDeep):
        svc.change_group(user, bottom, add_groups=[lonely])
    # a diamond that stays three tall is fine
    other_middle = _group(svc, user, groups=[bottom])
    svc.change_group(user, top, add_groups=[other_middle])


def test_expand_reaches_nested_children_and_dedupes(svc: Tabane, user, make_context) -> None:
    a, b, c = make_context(), make_context(), make_context()
    inner = _group(svc, user, contexts=[b, c])
    outer = _group(svc, user, contexts=[a, b], groups=[inner])
    # named first, then each group's contexts by name (names need not sort by creation)
    assert svc.expand(user, [c], [outer]) == [c, *sorted([a, b])]


def test_a_cycle_through_a_group_the_caller_cannot_see_is_refused(svc: Tabane, make_user) -> None:
    """U sees g1 and g2 (public) but not h (v's own). v made g2 → h and h → g1; U adding
    g1 → g2 would close the cycle g1 → g2 → h → g1 through a group U cannot see."""
    u, v = make_user(), make_user()
    g1 = _group(svc, u, scopes=["public"])
    g2 = _group(svc, u, scopes=["public"])
    h = _group(svc, v)  # v's personal scope: invisible to u
    svc.change_group(v, g2, add_groups=[h])
    svc.change_group(v, h, add_groups=[g1])
    with pytest.raises(NoGroup):
        svc.get_group(u, h)
    with pytest.raises(GroupCycle) as err:
        svc.change_group(u, g1, add_groups=[g2])
    assert h not in err.value.message  # the refusal names only u's groups
    assert svc.get_group(u, g1).groups == ()


def test_a_chain_too_tall_through_an_invisible_group_is_refused(svc: Tabane, make_user) -> None:
    """mid → hidden is visible to u (the row carries mid's public scopes), hidden → leaf is not
    (it carries v's): the chain below mid is three groups tall although u sees two."""
    u, v = make_user(), make_user()
    top, mid, leaf = (_group(svc, u, scopes=["public"]) for _ in range(3))
    hidden = _group(svc, v)
    svc.change_group(v, mid, add_groups=[hidden])
    svc.change_group(v, hidden, add_groups=[leaf])
    with pytest.raises(GroupTooDeep):
        svc.change_group(u, top, add_groups=[mid])  # top → mid → hidden → leaf: four
    assert svc.get_group(u, top).groups == ()


def test_concurrent_changes_cannot_write_a_cycle_or_touch_a_deleted_group(
    svc: Tabane, user, context
) -> None:
    for _ in range(3):
        x, y = _group(svc, user), _group(svc, user)
        outcomes = race(
            partial(svc.change_group, user, x, add_groups=[y]),
            partial(svc.change_group, user, y, add_groups=[x]),
        )
        assert sorted(type(o).__name__ for o in outcomes) == ["GroupCycle", "GroupInfo"]
        gone = _group(svc, user)
        outcomes = race(
            partial(svc.change_group, user, gone, add_contexts=[context]),
            partial(svc.delete_group, user, gone),
        )
        assert all(o is None or type(o).__name__ in ("GroupInfo", "NoGroup") for o in outcomes)
        with pytest.raises(NoGroup):
            svc.get_group(user, gone)
