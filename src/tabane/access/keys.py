"""API keys: a bearer token per key, stored only as its sha256, acting for one user with read and
write sets no wider than that user's grants.

A token reads `tbn_<prefix>_<secret>`: the prefix (8 hex characters) names the key in listings
and finds its row; the secret comes from `secrets.token_urlsafe`. At use time a key's sets are
intersected with its user's *current* grants, so revoking a grant narrows every existing key.
These run on the owner's session: the application role may only read `api_keys`.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from tabane.access import users
from tabane.checks import check_scope
from tabane.errors import Forbidden, InvalidInput, Issue, NotFound, Unauthorized
from tabane.principal import Principal, personal_scope
from tabane.storage.schema import ApiKey, User

TOKEN_PREFIX = "tbn_"
PREFIX_CHARS = 8  # 4 random bytes in hex: the key's public name
SECRET_BYTES = 32  # 256 bits of secret, about 43 URL-safe characters
MAX_TOKEN_CHARS = 200  # anything longer is refused before any lookup
STAMP_EVERY = timedelta(minutes=1)  # last_used_at is written at most this often


@dataclass(frozen=True)
class KeyInfo:
    """A key as listings show it; `read`/`write` None means the user's own sets."""

    prefix: str
    user: str
    read: tuple[str, ...] | None
    write: tuple[str, ...] | None
    created_at: datetime
    last_used_at: datetime | None
    expires_at: datetime | None
    revoked_at: datetime | None


@dataclass(frozen=True)
class NewKey:
    """A freshly created key: `token` is shown this once and never stored."""

    token: str
    key: KeyInfo


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def create(
    session: Session,
    user: str,
    *,
    read: list[str] | None = None,
    write: list[str] | None = None,
    expires: datetime | None = None,
    now: datetime | None = None,
) -> NewKey:
    """Mint a key for `user`. `read`/`write` must lie inside the user's grants (write ⊆ read)."""
    owner = users.principal(session, user)
    now = now or datetime.now(UTC)
    read_set = _narrower(read, owner.read, "read", "the user cannot read")
    write_set = _narrower(write, owner.write, "write", "the user cannot write")
    if write_set is not None:
        outside = write_set - (read_set if read_set is not None else owner.read)
        if outside:
            raise Forbidden(
                "a key's write set must lie inside its read set",
                issues=[Issue("write", f"{s}: not in the key's read set") for s in sorted(outside)],
            )
    if expires is not None:
        if expires.tzinfo is None:
            expires = expires.replace(tzinfo=UTC)
        if expires <= now:
            raise InvalidInput("the expiry is in the past", issues=[Issue("expires", "past")])
    prefix = secrets.token_hex(PREFIX_CHARS // 2)
    while session.scalar(select(ApiKey.id).where(ApiKey.prefix == prefix)) is not None:
        prefix = secrets.token_hex(PREFIX_CHARS // 2)  # pragma: no cover - 1 in 4 billion
    token = f"{TOKEN_PREFIX}{prefix}_{secrets.token_urlsafe(SECRET_BYTES)}"
    row = ApiKey(
        user_id=owner.user_id,
        prefix=prefix,
        hash=digest(token),
        read_scopes=None if read_set is None else sorted(read_set),
        write_scopes=None if write_set is None else sorted(write_set),
        expires_at=expires,
    )
    session.add(row)
    session.flush()
    session.refresh(row)
    return NewKey(token=token, key=_info(row, owner.name))


def list_keys(session: Session, user: str | None = None) -> list[KeyInfo]:
    """Every key (of `user` when given), by user then creation."""
    stmt = select(ApiKey, User.name).join(User, User.id == ApiKey.user_id)
    if user is not None:
        stmt = stmt.where(ApiKey.user_id == users.principal(session, user).user_id)
    rows = session.execute(stmt.order_by(User.name, ApiKey.created_at, ApiKey.id)).all()
    return [_info(key, name) for key, name in rows]


def revoke(session: Session, prefix: str, *, now: datetime | None = None) -> KeyInfo:
    """Revoke the key named `prefix`; revoking twice keeps the first time."""
    row = session.execute(
        select(ApiKey, User.name)
        .join(User, User.id == ApiKey.user_id)
        .where(ApiKey.prefix == prefix)
    ).one_or_none()
    if row is None:
        raise NotFound(f"no key {prefix!r}", issues=[Issue("prefix", "unknown")])
    key, name = row
    if key.revoked_at is None:
        key.revoked_at = now or datetime.now(UTC)
        session.flush()
    return _info(key, name)


def authenticate(session: Session, token: str, *, now: datetime | None = None) -> Principal:
    """The principal `token` acts for, or `Unauthorized`: malformed, unknown, revoked, expired."""
    now = now or datetime.now(UTC)
    prefix = _parse(token)
    row = session.execute(
        select(ApiKey, User.name)
        .join(User, User.id == ApiKey.user_id)
        .where(ApiKey.prefix == prefix)
    ).one_or_none()
    # Compare even when no row matched, so an unknown prefix costs the same as a wrong secret.
    expected = row[0].hash if row is not None else digest("")
    if not hmac.compare_digest(expected, digest(token)) or row is None:
        raise Unauthorized("unknown API key", issues=[Issue("authorization", "unknown key")])
    key, name = row
    if key.revoked_at is not None:
        raise Unauthorized("the API key was revoked", issues=[Issue("authorization", "revoked")])
    if key.expires_at is not None and key.expires_at <= now:
        raise Unauthorized("the API key has expired", issues=[Issue("authorization", "expired")])
    if key.last_used_at is None or now - key.last_used_at >= STAMP_EVERY:
        session.execute(update(ApiKey).where(ApiKey.id == key.id).values(last_used_at=now))
    return narrow(users.principal(session, name), key.read_scopes, key.write_scopes)


def narrow(owner: Principal, read: list[str] | None, write: list[str] | None) -> Principal:
    """The user's current sets intersected with the key's (write ⊆ read kept)."""
    read_set = owner.read if read is None else owner.read & frozenset(read)
    write_set = (owner.write if write is None else owner.write & frozenset(write)) & read_set
    mine = personal_scope(owner.name)
    default = (mine,) if mine in write_set else ()  # never another scope by chance: say which
    return Principal(
        user_id=owner.user_id, name=owner.name, read=read_set, write=write_set,
        default_scopes=default,
    )  # fmt: skip


def _narrower(
    asked: list[str] | None, allowed: frozenset[str], path: str, problem: str
) -> frozenset[str] | None:
    if asked is None:
        return None
    wanted = frozenset(check_scope(s) for s in asked)
    wider = wanted - allowed
    if wider:
        raise Forbidden(
            f"a key may not be wider than its user ({path})",
            issues=[Issue(path, f"{s}: {problem}") for s in sorted(wider)],
        )
    return wanted


def _parse(token: str) -> str:
    """The prefix of a well-formed token, else `Unauthorized`."""
    ok = (
        len(token) <= MAX_TOKEN_CHARS
        and token.startswith(TOKEN_PREFIX)
        and len(token) > len(TOKEN_PREFIX) + PREFIX_CHARS + 1
        and token[len(TOKEN_PREFIX) + PREFIX_CHARS] == "_"
    )
    if not ok:
        raise Unauthorized(
            "malformed API key", issues=[Issue("authorization", "not a tbn_… token")]
        )
    return token[len(TOKEN_PREFIX) : len(TOKEN_PREFIX) + PREFIX_CHARS]


def _info(key: ApiKey, user: str) -> KeyInfo:
    return KeyInfo(
        prefix=key.prefix,
        user=user,
        read=None if key.read_scopes is None else tuple(key.read_scopes),
        write=None if key.write_scopes is None else tuple(key.write_scopes),
        created_at=key.created_at,
        last_used_at=key.last_used_at,
        expires_at=key.expires_at,
        revoked_at=key.revoked_at,
    )
