"""Sessions and turns: working memory windows, ownership, bad input."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone

import pytest

from tabane.access.keys import narrow
from tabane.errors import Forbidden, InvalidInput, NoSession
from tabane.principal import Principal
from tabane.service import Tabane

from helpers import unique


def test_turns_append_in_order_and_the_window_keeps_the_last(svc: Tabane, user: Principal) -> None:
    name = unique("chat")
    for i in range(5):
        turn = svc.add_turn(user, name, f"message {i}", speaker="Hannah" if i % 2 else "Ravi")
        assert turn.seq == i + 1
    last3 = svc.turns(user, name, last=3)
    assert [t.text for t in last3] == ["message 2", "message 3", "message 4"]
    assert [t.speaker for t in last3] == ["Ravi", "Hannah", "Ravi"]
    assert [s.name for s in svc.list_sessions(user) if s.name == name] == [name]
    assert {s.turns for s in svc.list_sessions(user) if s.name == name} == {5}


def test_the_age_bound_of_the_window(svc: Tabane, user: Principal) -> None:
    name = unique("chat")
    now = datetime.now(UTC)
    svc.add_turn(user, name, "long ago", at=now - timedelta(days=3))
    svc.add_turn(user, name, "an hour ago", at=now - timedelta(hours=1))
    svc.add_turn(user, name, "now")
    assert [t.text for t in svc.turns(user, name, last=None, hours=2)] == ["an hour ago", "now"]
    assert [t.text for t in svc.turns(user, name, last=None)] == ["long ago", "an hour ago", "now"]


def test_another_users_session_is_the_same_as_none(
    svc: Tabane, make_user: Callable[..., Principal]
) -> None:
    alice, bob = make_user(), make_user()
    svc.add_turn(alice, "main", "alice's secret")
    with pytest.raises(NoSession):
        svc.turns(bob, "main")
    svc.add_turn(bob, "main", "bob's own")  # the same name is bob's own session
    assert [t.text for t in svc.turns(bob, "main")] == ["bob's own"]
    assert [t.text for t in svc.turns(alice, "main")] == ["alice's secret"]
    with pytest.raises(NoSession):
        svc.delete_session(bob, unique("never"))


def test_bad_turns_write_nothing(svc: Tabane, user: Principal) -> None:
    name = unique("chat")
    svc.add_turn(user, name, "first")
    for kwargs, path in (
        ({"text": "  "}, "text"),
        ({"text": "x", "role": "robot"}, "role"),
        ({"text": "x", "speaker": ""}, "speaker"),
        ({"text": "a\x00b"}, "text"),  # PostgreSQL text holds no NUL: refused by name
        ({"text": "x", "speaker": "\udcff"}, "speaker"),  # a lone surrogate (an undecodable byte)
    ):
        with pytest.raises(InvalidInput) as err:
            svc.add_turn(user, name, **kwargs)  # type: ignore[arg-type]
        assert err.value.issues[0].path == path
    with pytest.raises(InvalidInput):
        svc.add_turn(user, " ", "x")
    with pytest.raises(InvalidInput) as err:
        svc.turns(user, name, last=0)
    assert [i.path for i in err.value.issues] == ["last"]
    with pytest.raises(Forbidden):
        svc.add_turn(user, name + "b", "x", scopes=["org:nobody"])
    assert [t.text for t in svc.turns(user, name)] == ["first"]


def test_a_turn_is_dated_at_a_real_instant_not_in_the_future(svc: Tabane, user: Principal) -> None:
    name = unique("chat")
    svc.add_turn(user, name, "first")
    for at in (
        datetime.now(UTC) + timedelta(hours=1),  # would stay "recent" in every window
        datetime(9999, 12, 31, 23, 59, tzinfo=timezone(timedelta(hours=-12))),  # year 10000 UTC
    ):
        with pytest.raises(InvalidInput) as err:
            svc.add_turn(user, name, "later", at=at)
        assert [i.path for i in err.value.issues] == ["at"]
    skewed = svc.add_turn(user, name, "clock skew", at=datetime.now(UTC) + timedelta(minutes=1))
    assert skewed.seq == 2
    assert [t.text for t in svc.turns(user, name)] == ["first", "clock skew"]


def test_a_key_that_cannot_write_the_sessions_scopes_is_forbidden(
    svc: Tabane, user: Principal
) -> None:
    name = unique("chat")
    svc.add_turn(user, name, "mine")  # opened under the user's own scope
    nothing = narrow(user, None, [])  # a key that writes no scope: forbidden, not a 500
    with pytest.raises(Forbidden):
        svc.add_turn(nothing, unique("chat"), "hello")
    public_only = narrow(user, None, ["public"])
    with pytest.raises(Forbidden) as err:
        svc.add_turn(public_only, name, "through a narrow key")
    assert [i.path for i in err.value.issues] == ["session"]
    assert [t.text for t in svc.turns(user, name)] == ["mine"]
    shared = unique("chat")
    svc.add_turn(user, shared, "hi all", scopes=["public"])
    with pytest.raises(InvalidInput) as refused:  # scopes choose a new session's, never move one
        svc.add_turn(user, shared, "just us", scopes=[f"user:{user.name}"])
    assert [i.path for i in refused.value.issues] == ["scopes"]
    assert svc.add_turn(user, shared, "same scopes", scopes=["public"]).seq == 2
    assert [t.text for t in svc.turns(user, shared)] == ["hi all", "same scopes"]


def test_deleting_a_session_removes_its_turns(svc: Tabane, user: Principal) -> None:
    name = unique("chat")
    svc.add_turn(user, name, "one")
    svc.add_turn(user, name, "two")
    assert svc.delete_session(user, name) == 2
    with pytest.raises(NoSession):
        svc.turns(user, name)
    assert svc.add_turn(user, name, "again").seq == 1


def test_a_session_name_is_one_name_on_every_read_and_a_new_one_holds_no_slash(
    svc: Tabane, user: Principal, context: str
) -> None:
    """Recall's `session` is trimmed and NFC-normalised as appending is: ` trip` and `trip`,
    or a decomposed and a composed `café`, are one session everywhere."""
    from tabane.recall.plan import RecallRequest
    from tabane.storage.schema import ChatSession

    name = unique("café")
    svc.add_turn(user, f" {name} ", "we land in Oslo at nine")
    decomposed = unicodedata.normalize("NFD", name)
    assert decomposed != name and [t.text for t in svc.turns(user, decomposed)] == [
        "we land in Oslo at nine"
    ]
    ask = RecallRequest("when do we land in Oslo?", contexts=(context,), force=True)
    for spelled in (f" {name}", decomposed):
        got = svc.recall(user, replace(ask, session=spelled))
        assert [it.text for it in got.items if it.kind == "turn"] == ["we land in Oslo at nine"]

    with pytest.raises(InvalidInput) as slash:  # an HTTP path could not address it
        svc.add_turn(user, f"{name}/day1", "hello")
    assert [i.path for i in slash.value.issues] == ["session"]
    assert f"{name}/day1" not in {s.name for s in svc.list_sessions(user)}
    with svc.store.session(user) as session:  # one opened before the rule is still appended to
        session.add(
            ChatSession(user_id=user.user_id, name=f"{name}/old", scopes=[f"user:{user.name}"])
        )
    assert svc.add_turn(user, f"{name}/old", "still here").seq == 1
