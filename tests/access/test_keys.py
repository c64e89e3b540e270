"""API keys: narrower than their user, stored as a hash only, refused when bad, narrowed by a
revoked grant."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select, update
from sqlalchemy.exc import ProgrammingError
from sqlalchemy.orm import Session

from tabane.access import keys
from tabane.errors import Forbidden, InvalidInput, NotFound, Unauthorized
from tabane.principal import Principal, personal_scope
from tabane.service import Tabane
from tabane.storage.schema import ApiKey

from helpers import unique


def test_a_key_acts_as_its_user_with_the_users_sets(svc: Tabane, user: Principal) -> None:
    made = svc.create_key(user.name)
    assert made.token.startswith(f"tbn_{made.key.prefix}_")
    acting = svc.authenticate(made.token)
    assert (acting.user_id, acting.read, acting.write) == (user.user_id, user.read, user.write)
    assert acting.default_scopes == (personal_scope(user.name),)


def test_a_key_may_be_narrower_never_wider(
    svc: Tabane, make_user: Callable[..., Principal]
) -> None:
    team = unique("org:t")
    alice = make_user(extra_write=(team,))
    mine = personal_scope(alice.name)
    made = svc.create_key(alice.name, read=[mine, "public"], write=[mine])
    acting = svc.authenticate(made.token)
    assert acting.read == {mine, "public"} and acting.write == {mine}
    other = unique("org:x")
    svc.add_scope(other)
    with pytest.raises(Forbidden) as wider:
        svc.create_key(alice.name, read=[mine, other])
    assert [i.path for i in wider.value.issues] == ["read"]
    with pytest.raises(Forbidden):
        svc.create_key(alice.name, write=[other])
    with pytest.raises(Forbidden):  # write outside the key's own read set
        svc.create_key(alice.name, read=[mine], write=[team])
    reader = make_user(extra_read=(team,))
    with pytest.raises(Forbidden):  # may read the team scope, may not write it
        svc.create_key(reader.name, write=[team])


def test_only_the_hash_is_stored(svc: Tabane, user: Principal) -> None:
    made = svc.create_key(user.name)
    with svc.store.admin() as session:
        rows = session.execute(select(ApiKey).where(ApiKey.prefix == made.key.prefix)).scalars()
        (row,) = list(rows)
        values = [str(getattr(row, c.key)) for c in ApiKey.__table__.columns]
    assert all(made.token not in v for v in values)
    secret = made.token.rsplit("_", 1)[1]
    assert all(secret not in v for v in values)
    assert row.hash == keys.digest(made.token)


def test_revoked_expired_unknown_and_malformed_tokens_are_refused(
    svc: Tabane, user: Principal
) -> None:
    revoked = svc.create_key(user.name)
    info = svc.revoke_key(revoked.key.prefix)
    assert info.revoked_at is not None
    assert svc.revoke_key(revoked.key.prefix).revoked_at == info.revoked_at
    expired = svc.create_key(user.name, expires=datetime.now(UTC) + timedelta(hours=1))
    _expire(svc, expired.key.prefix)
    good = svc.create_key(user.name)
    wrong_secret = good.token[:-4] + ("AAAA" if not good.token.endswith("AAAA") else "BBBB")
    cases = {
        revoked.token: "revoked",
        expired.token: "expired",
        wrong_secret: "unknown key",
        "tbn_00000000_nothing": "unknown key",
        "not-a-token": "not a tbn_… token",
        "tbn_" + "a" * 300: "not a tbn_… token",
        "": "not a tbn_… token",
    }
    for token, problem in cases.items():
        with pytest.raises(Unauthorized) as refused:
            svc.authenticate(token)
        assert refused.value.issues[0].problem == problem, token
    with pytest.raises(NotFound):
        svc.revoke_key("ffffffff-no")


def test_an_expiry_in_the_past_is_refused(svc: Tabane, user: Principal) -> None:
    with pytest.raises(InvalidInput):
        svc.create_key(user.name, expires=datetime.now(UTC) - timedelta(seconds=1))


def test_revoking_a_grant_narrows_an_existing_key(
    svc: Tabane, make_user: Callable[..., Principal]
) -> None:
    team = unique("org:t")
    alice = make_user(extra_write=(team,))
    made = svc.create_key(alice.name, read=[team, personal_scope(alice.name)])
    assert team in svc.authenticate(made.token).write
    svc.revoke(alice.name, team)
    acting = svc.authenticate(made.token)
    assert team not in acting.read and team not in acting.write
    assert acting.write <= acting.read


def test_listing_and_last_used(svc: Tabane, make_user: Callable[..., Principal]) -> None:
    alice = make_user()
    first = svc.create_key(alice.name)
    second = svc.create_key(alice.name, read=[personal_scope(alice.name)])
    listed = svc.list_keys(alice.name)
    assert [k.prefix for k in listed] == [first.key.prefix, second.key.prefix]
    assert listed[1].read == (personal_scope(alice.name),) and listed[0].read is None
    assert listed[0].last_used_at is None
    svc.authenticate(first.token)
    used = svc.list_keys(alice.name)[0].last_used_at
    assert used is not None
    svc.authenticate(first.token)  # within a minute: not stamped again
    assert svc.list_keys(alice.name)[0].last_used_at == used
    assert first.key.prefix in [k.prefix for k in svc.list_keys()]


def test_the_app_role_may_only_select_keys(svc: Tabane, user: Principal) -> None:
    made = svc.create_key(user.name)
    with Session(svc.store.app) as session:
        assert session.scalar(select(ApiKey.prefix).where(ApiKey.prefix == made.key.prefix))
    for change in (
        update(ApiKey).where(ApiKey.prefix == made.key.prefix).values(revoked_at=None),
        ApiKey.__table__.delete().where(ApiKey.prefix == made.key.prefix),
        ApiKey.__table__.insert().values(user_id=user.user_id, prefix="zzzzzzzz", hash="x"),
    ):
        with Session(svc.store.app) as session, pytest.raises(ProgrammingError) as denied:
            session.execute(change)
        assert "permission denied" in str(denied.value)


def _expire(svc: Tabane, prefix: str) -> None:
    with svc.store.admin() as session:
        session.execute(
            update(ApiKey)
            .where(ApiKey.prefix == prefix)
            .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
        )


def test_a_key_that_may_not_write_its_users_scope_names_its_scopes_never_takes_another(
    svc: Tabane, make_user: Callable[..., Principal]
) -> None:
    """A new context, group or session takes its user's personal scope unless told otherwise;
    a key that may not write that scope must say which scopes, not get `public` (readable by
    everyone) or the first team scope it can write by chance."""
    team = unique("org:t")
    alice = make_user(extra_write=(team,))
    acting = svc.authenticate(svc.create_key(alice.name, write=["public", team]).token)
    assert acting.default_scopes == ()
    for make in (
        lambda **kw: svc.create_context(acting, unique("ctx"), **kw),
        lambda **kw: svc.create_group(acting, unique("grp"), **kw),
        lambda **kw: svc.add_turn(acting, unique("chat"), "draft: my resignation", **kw),
    ):
        with pytest.raises(InvalidInput) as which:
            make()
        assert [i.path for i in which.value.issues] == ["scopes"]
        assert team in which.value.issues[0].problem
        make(scopes=[team])  # named: written there
    shared = unique("chat")
    svc.add_turn(acting, shared, "team notes", scopes=[team])
    assert svc.add_turn(acting, shared, "more").seq == 2  # an existing session keeps its own
    reader = svc.authenticate(svc.create_key(alice.name, write=[]).token)  # read-only
    assert reader.write == frozenset()
    with pytest.raises(Forbidden):
        svc.create_context(reader, unique("ctx"))
    assert [t.text for t in svc.turns(reader, shared)] == ["team notes", "more"]
