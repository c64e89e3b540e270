"""Users, scopes and grants (the reference tables), and the Principal a request acts for.

These run on the owner's session: the application role may only read the reference tables.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from tabane.checks import check_name, check_scope
from tabane.errors import Conflict, InvalidInput, Issue, NameTaken, NoScope, NoUser
from tabane.principal import PUBLIC, Principal, personal_scope
from tabane.storage.schema import Grant, Scope, User


@dataclass(frozen=True)
class UserInfo:
    name: str
    read: tuple[str, ...]
    write: tuple[str, ...]


@dataclass(frozen=True)
class ScopeInfo:
    name: str
    description: str
    users: int


def ensure_scope(session: Session, name: str, description: str = "") -> None:
    name = check_scope(name)
    session.execute(
        insert(Scope).values(name=name, description=description).on_conflict_do_nothing()
    )


def add_scope(session: Session, name: str, description: str | None = None) -> bool:
    """Create a scope, or keep an existing one; either way it takes `description` when one is
    given. True when it was new."""
    name = check_scope(name)
    new = session.get(Scope, name) is None
    stmt = insert(Scope).values(name=name, description=description or "")
    if description is None:
        session.execute(stmt.on_conflict_do_nothing())
    else:
        described = {"description": description}
        session.execute(stmt.on_conflict_do_update(index_elements=[Scope.name], set_=described))
    return new


def add_user(
    session: Session, name: str, *, exist_ok: bool = False, public_write: bool = True
) -> int:
    """Create a user with a personal scope `user:NAME` (read and write) and `public` (read, and
    write unless `public_write` is False). A personal scope already granted to someone else
    (made and granted before its user) is refused: it would not be the new user's alone."""
    name = check_name(name, "name", "user name")
    existing = session.scalar(select(User.id).where(User.name == name))
    if existing is not None:
        if exist_ok:
            return existing
        raise NameTaken(f"user {name!r} exists", issues=[Issue("name", "taken")])
    mine = personal_scope(name)
    # others only: a concurrent first sight of this very user may have committed it since
    others = select(User.name).join(Grant).where(Grant.scope == mine, User.name != name)
    holders = session.scalars(others).all()
    if holders:
        raise Conflict(
            f"scope {mine!r} is already granted to {sorted(holders)}: a new user's personal "
            "scope must be theirs alone; revoke those grants first",
            issues=[Issue("name", f"{mine} is granted to {len(holders)} other user(s)")],
        )
    user = User(name=name)
    try:
        with session.begin_nested():  # a concurrent first sight may commit the name first
            session.add(user)
            session.flush()
    except IntegrityError:
        raced = session.scalar(select(User.id).where(User.name == name))
        if raced is None or not exist_ok:
            raise NameTaken(f"user {name!r} exists", issues=[Issue("name", "taken")]) from None
        return raced
    ensure_scope(session, mine, f"personal scope of {name}")
    ensure_scope(session, PUBLIC, "readable by everyone")
    session.add(Grant(user_id=user.id, scope=mine, can_write=True))
    session.add(Grant(user_id=user.id, scope=PUBLIC, can_write=public_write))
    return user.id


def grant(session: Session, user: str, scope: str, *, write: bool) -> None:
    uid = _user_id(session, user)
    scope = check_scope(scope)
    if session.get(Scope, scope) is None:
        raise NoScope(f"no scope {scope!r}", issues=[Issue("scope", "unknown; create it first")])
    session.execute(
        insert(Grant)
        .values(user_id=uid, scope=scope, can_write=write)
        .on_conflict_do_update(
            index_elements=[Grant.user_id, Grant.scope], set_={"can_write": write}
        )
    )


def revoke(session: Session, user: str, scope: str) -> bool:
    """Take `scope` away from `user`; False when they did not hold it (an unknown scope, or a
    name that is no scope, is refused as `grant` refuses it)."""
    uid = _user_id(session, user)
    scope = check_scope(scope)
    if session.get(Scope, scope) is None:
        raise NoScope(f"no scope {scope!r}", issues=[Issue("scope", "unknown")])
    result = session.execute(delete(Grant).where(Grant.user_id == uid, Grant.scope == scope))
    return bool(result.rowcount)  # type: ignore[attr-defined]


def list_users(session: Session) -> list[UserInfo]:
    rows = session.execute(
        select(User.name, Grant.scope, Grant.can_write)
        .outerjoin(Grant, Grant.user_id == User.id)
        .order_by(User.name, Grant.scope)
    ).all()
    out: dict[str, tuple[list[str], list[str]]] = {}
    for name, scope, can_write in rows:
        read, write = out.setdefault(name, ([], []))
        if scope is not None:
            read.append(scope)
            if can_write:
                write.append(scope)
    return [UserInfo(n, tuple(r), tuple(w)) for n, (r, w) in out.items()]


def list_scopes(session: Session) -> list[ScopeInfo]:
    rows = session.execute(
        select(Scope.name, Scope.description, func.count(Grant.user_id))
        .outerjoin(Grant, Grant.scope == Scope.name)
        .group_by(Scope.name)
        .order_by(Scope.name)
    ).all()
    return [ScopeInfo(n, d, c) for n, d, c in rows]


def remove_scope(session: Session, name: str) -> None:
    scope = session.get(Scope, name)
    if scope is None:
        raise NoScope(f"no scope {name!r}", issues=[Issue("scope", "unknown")])
    if name == PUBLIC:
        raise InvalidInput("the public scope cannot be removed", issues=[Issue("scope", "public")])
    session.delete(scope)


def principal(session: Session, name: str) -> Principal:
    uid = _user_id(session, name)
    rows = session.execute(select(Grant.scope, Grant.can_write).where(Grant.user_id == uid)).all()
    read = frozenset(s for s, _ in rows)
    write = frozenset(s for s, w in rows if w)
    mine = personal_scope(name)
    default = (mine,) if mine in write else ()  # never another scope by chance: say which
    return Principal(user_id=uid, name=name, read=read, write=write, default_scopes=default)


def _user_id(session: Session, name: str) -> int:
    uid = session.scalar(select(User.id).where(User.name == name))
    if uid is None:
        raise NoUser(f"no user {name!r}", issues=[Issue("user", "unknown")])
    return uid
