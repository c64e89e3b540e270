"""OIDC / JWT bearer tokens: a second credential beside API keys.

`Verifier.verify(token)` checks a JWT with PyJWT: its size, an asymmetric algorithm from the
allow-list (`none` and every HMAC algorithm are refused before any key is looked at, so a public
key is never used as an HMAC secret), a key of the matching type found by `kid` in the issuer's
JWKS, the signature, `exp`/`nbf`/`iat` with a small leeway, `iss` and `aud`. The JWKS is cached;
an unknown `kid` refetches it at most once per `refresh_every` seconds (a token storm with made-up
kids costs one fetch), and a cache older than `max_age` is refetched on the next use. Every failure
is `Unauthorized`.

`principal_for(session, identity, config)` then finds the user the token names. Grants: the user's
grants in tabane are the ceiling and the token's mapped scopes narrow them, as an API key's sets
do; the user's personal scope `user:NAME` (read and write) and `public` (read) are always in the
token's sets. With `create_users`, an unknown user is created on first sight and any mapped scope
the user lacks is granted (the scope created if need be): the token then defines the user's access.
Without a mapping file the token is not narrowed: it acts with the user's grants as they are.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from ipaddress import ip_address
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jwt
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from tabane.access import users
from tabane.access.keys import narrow
from tabane.access.oidc_scopes import ScopeMapping, load_mapping
from tabane.checks import check_name
from tabane.config import Settings
from tabane.errors import InvalidInput, InvalidName, Issue, NoUser, Unauthorized
from tabane.principal import PUBLIC, Principal, personal_scope
from tabane.storage.store import Store

logger = logging.getLogger("tabane.oidc")

# Algorithm → (JWK key type, curve). Only asymmetric algorithms can be allowed at all.
ALGORITHMS: dict[str, tuple[str, str | None]] = {
    **{f"{family}{bits}": ("RSA", None) for family in ("RS", "PS") for bits in (256, 384, 512)},
    "ES256": ("EC", "P-256"),
    "ES384": ("EC", "P-384"),
    "ES512": ("EC", "P-521"),
    "EdDSA": ("OKP", None),
}
MAX_TOKEN_CHARS = 8192  # a JWT longer than this is refused unread (IdP tokens run 1-3 KB)
MAX_JWKS_BYTES = 1 << 20  # a key set larger than 1 MiB is not read
REFRESH_EVERY = 30.0  # seconds: the least time between two JWKS fetches
MAX_AGE = 3600.0  # seconds: a cached JWKS older than this is refetched on the next use
FETCH_TIMEOUT = 5.0  # seconds for one JWKS fetch
WHERE = "authorization"


@dataclass(frozen=True)
class OidcConfig:
    issuer: str
    audience: str
    algorithms: tuple[str, ...]
    jwks_url: str | None = None
    static_jwks: Mapping[str, Any] | None = None  # a key set given once, never refetched
    leeway: int = 30
    user_claim: str = "sub"
    create_users: bool = False
    mapping: ScopeMapping | None = None
    refresh_every: float = REFRESH_EVERY
    max_age: float = MAX_AGE

    def __post_init__(self) -> None:
        bad = [a for a in self.algorithms if a not in ALGORITHMS]
        if bad or not self.algorithms:
            raise InvalidInput(
                "TABANE_OIDC_ALGORITHMS allows asymmetric algorithms only",
                issues=[Issue("TABANE_OIDC_ALGORITHMS", f"{a!r}: not allowed") for a in bad]
                or [Issue("TABANE_OIDC_ALGORITHMS", "empty")],
            )
        if (self.jwks_url is None) == (self.static_jwks is None):
            raise InvalidInput(
                "OIDC needs exactly one key source",
                issues=[Issue("TABANE_OIDC_JWKS_URL", "set it or TABANE_OIDC_JWKS_FILE, not both")],
            )
        if self.jwks_url is not None:
            check_jwks_url(self.jwks_url)

    @classmethod
    def from_settings(cls, settings: Settings) -> OidcConfig:
        """The configuration `tabane serve` builds at start-up; InvalidInput names what is wrong."""
        missing = [
            Issue(key, "required by TABANE_AUTH=oidc")
            for key, value in (
                ("TABANE_OIDC_ISSUER", settings.oidc_issuer),
                ("TABANE_OIDC_AUDIENCE", settings.oidc_audience),
            )
            if not value
        ]
        if missing:
            raise InvalidInput("OIDC is not configured", issues=missing)
        assert settings.oidc_issuer and settings.oidc_audience
        return cls(
            issuer=settings.oidc_issuer,
            audience=settings.oidc_audience,
            algorithms=settings.oidc_algorithms,
            jwks_url=settings.oidc_jwks_url,
            static_jwks=None if settings.oidc_jwks_file is None else _read_jwks(
                settings.oidc_jwks_file
            ),
            leeway=settings.oidc_leeway,
            user_claim=settings.oidc_user_claim,
            create_users=settings.oidc_create_users,
            mapping=None if settings.oidc_scopes is None else load_mapping(settings.oidc_scopes),
        )  # fmt: skip


@dataclass(frozen=True)
class Identity:
    """A verified token: the tabane user it names and, with a mapping, the scopes it maps to."""

    user: str
    read: frozenset[str] | None
    write: frozenset[str] | None


def check_jwks_url(url: str) -> str:
    """https, or plain http to a loopback address only (a JWKS read in clear could be forged)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    try:
        loopback = host == "localhost" or ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if (parts.scheme == "https" and host) or (parts.scheme == "http" and loopback):
        return url
    raise InvalidInput(
        "the JWKS URL must be https (or http to a loopback address)",
        issues=[Issue("TABANE_OIDC_JWKS_URL", repr(url))],
    )


def fetch_jwks(url: str) -> Mapping[str, Any]:
    """GET a key set (at most MAX_JWKS_BYTES); raises OSError or ValueError."""
    request = urllib.request.Request(url, headers={"accept": "application/json"})
    with urllib.request.urlopen(request, timeout=FETCH_TIMEOUT) as answer:
        data = answer.read(MAX_JWKS_BYTES + 1)
    if len(data) > MAX_JWKS_BYTES:
        raise ValueError("the key set is larger than 1 MiB")
    document = json.loads(data)
    if not isinstance(document, dict) or not isinstance(document.get("keys"), list):
        raise ValueError("not a JWK set (no `keys` list)")
    return document


class KeySet:
    """The issuer's signing keys by `kid`, refetched on an unknown kid (rate-limited) or
    when old."""

    def __init__(
        self,
        config: OidcConfig,
        *,
        clock: Callable[[], float] = time.monotonic,
        fetch: Callable[[str], Mapping[str, Any]] = fetch_jwks,
    ) -> None:
        self.config = config
        self.clock = clock
        self.fetch = fetch
        self.fetches = 0  # attempts so far (for tests and logs)
        self._lock = threading.Lock()
        self._jwks: dict[str, dict[str, Any]] = {}
        self._keys: dict[tuple[str, str], Any] = {}
        self._fetched_at: float | None = None
        self._tried_at: float | None = None
        if config.static_jwks is not None:
            self._jwks = _signing_keys(config.static_jwks)

    def key(self, kid: str | None, alg: str) -> Any:
        """The public key for `kid` usable with `alg`, else Unauthorized."""
        with self._lock:
            if self.config.jwks_url is not None:
                stale = self._fetched_at is None or self._age() >= self.config.max_age
                if stale or self._find(kid) is None:
                    self._refresh()
            name = self._find(kid)
            if name is None:
                why = "no `kid` and more than one key" if kid is None else f"unknown kid {kid!r}"
                raise Unauthorized("no signing key for the token", issues=[Issue(WHERE, why)])
            cached = self._keys.get((name, alg))
            if cached is None:
                cached = self._keys[(name, alg)] = _public_key(self._jwks[name], alg)
            return cached

    def _age(self) -> float:
        return self.clock() - (self._fetched_at or 0.0)

    def _find(self, kid: str | None) -> str | None:
        if kid is None:
            return next(iter(self._jwks)) if len(self._jwks) == 1 else None
        return kid if kid in self._jwks else None

    def _refresh(self) -> None:
        now = self.clock()
        if self._tried_at is not None and now - self._tried_at < self.config.refresh_every:
            return
        self._tried_at = now
        self.fetches += 1
        assert self.config.jwks_url is not None
        try:
            jwks = _signing_keys(self.fetch(self.config.jwks_url))
        except (OSError, ValueError) as exc:
            logger.warning("JWKS fetch from %s failed: %s", self.config.jwks_url, exc)
            return
        self._jwks, self._keys, self._fetched_at = jwks, {}, now


class Verifier:
    """Checks bearer JWTs against one issuer's configuration."""

    def __init__(self, config: OidcConfig, keys: KeySet | None = None) -> None:
        self.config = config
        self.keys = keys or KeySet(config)

    def verify(self, token: str) -> Identity:
        config = self.config
        if len(token) > MAX_TOKEN_CHARS:
            raise _refused("the token is too long", f"over {MAX_TOKEN_CHARS} characters")
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise _refused("malformed token", "not a JWT") from None
        alg, kid = header.get("alg"), header.get("kid")
        if not isinstance(alg, str) or alg not in config.algorithms:
            raise _refused("token algorithm not allowed", f"alg {alg!r} is not allowed")
        if kid is not None and not isinstance(kid, str):
            raise _refused("malformed token", "kid is not a string")
        key = self.keys.key(kid, alg)
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key,
                algorithms=[alg],
                audience=config.audience,
                issuer=config.issuer,
                leeway=config.leeway,
                options={"require": ["exp", "iss", "aud"]},
            )
        except jwt.PyJWTError as exc:
            raise _refused("the token was refused", _reason(exc)) from None
        except (ValueError, TypeError):
            raise _refused("the token was refused", "malformed") from None
        subject = claims.get(config.user_claim)
        try:
            user = check_name(subject, WHERE, "user")
        except InvalidName:
            raise _refused(
                "the token names no valid tabane user",
                f"claim {config.user_claim!r} is not a user name (letters, digits, '.', '_', '-')",
            ) from None
        if config.mapping is None:
            return Identity(user=user, read=None, write=None)
        grant = config.mapping.scopes(claims)
        return Identity(user=user, read=grant.read, write=grant.write)


def settle_principal(store: Store, identity: Identity, config: OidcConfig) -> Principal:
    """`principal_for` as the store's owner; the two first requests of a new user may race to
    create it, so a conflict is tried once more (then `unauthorized`: retry)."""
    for attempt in (1, 2):
        try:
            with store.admin() as session:
                return principal_for(session, identity, config)
        except IntegrityError:
            if attempt == 2:
                raise Unauthorized(
                    "the user could not be created", issues=[Issue("authorization", "retry")]
                ) from None
    raise AssertionError("unreachable")  # pragma: no cover


def principal_for(session: Session, identity: Identity, config: OidcConfig) -> Principal:
    """The principal a verified token acts for (see the module docstring for the grants)."""
    try:
        owner = users.principal(session, identity.user)
    except NoUser:
        if not config.create_users:
            raise _refused("unknown user", f"no tabane user {identity.user!r}") from None
        users.add_user(session, identity.user, exist_ok=True)
        owner = users.principal(session, identity.user)
    if identity.read is None or identity.write is None:
        return owner
    if config.create_users:
        added = False
        for scope in sorted((identity.read - owner.read) | (identity.write - owner.write)):
            users.ensure_scope(session, scope, "granted by OIDC token claims")
            write = scope in identity.write or scope in owner.write
            users.grant(session, identity.user, scope, write=write)
            added = True
        if added:
            owner = users.principal(session, identity.user)
    mine = personal_scope(identity.user)
    return narrow(owner, sorted(identity.read | {mine, PUBLIC}), sorted(identity.write | {mine}))


def _refused(message: str, why: str) -> Unauthorized:
    return Unauthorized(message, issues=[Issue(WHERE, why)])


def _reason(exc: jwt.PyJWTError) -> str:
    reasons: list[tuple[type[jwt.PyJWTError], str]] = [
        (jwt.ExpiredSignatureError, "expired"),
        (jwt.ImmatureSignatureError, "not yet valid"),
        (jwt.InvalidIssuerError, "wrong issuer"),
        (jwt.InvalidAudienceError, "wrong audience"),
        (jwt.InvalidSignatureError, "bad signature"),
        (jwt.MissingRequiredClaimError, str(exc)),
        (jwt.InvalidAlgorithmError, "algorithm not allowed"),
    ]
    return next((why for kind, why in reasons if isinstance(exc, kind)), "invalid token")


def _signing_keys(jwks: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The set's signature keys by kid (a lone key without kid is named ""): `use: enc` keys and
    symmetric (`oct`) keys are dropped."""
    out: dict[str, dict[str, Any]] = {}
    for key in jwks.get("keys", []):
        if not isinstance(key, dict) or key.get("kty") not in ("RSA", "EC", "OKP"):
            continue
        if key.get("use", "sig") != "sig":
            continue
        kid = key.get("kid", "")
        if isinstance(kid, str):
            out.setdefault(kid, key)
    return out


def _public_key(jwk: Mapping[str, Any], alg: str) -> Any:
    """The key object of `jwk` for `alg`, when the key's type, curve and `alg` agree."""
    kty, crv = ALGORITHMS[alg]
    if jwk.get("kty") != kty or (crv is not None and jwk.get("crv") != crv):
        raise _refused("token algorithm does not fit its key", f"alg {alg!r} with that key")
    if jwk.get("alg", alg) != alg:
        raise _refused("token algorithm does not fit its key", f"the key is for {jwk['alg']!r}")
    try:
        return jwt.PyJWK(dict(jwk), algorithm=alg).key
    except jwt.PyJWTError:
        raise _refused("the signing key is unusable", "bad key in the issuer's JWKS") from None


def _read_jwks(path: Path) -> Mapping[str, Any]:
    try:
        document = json.loads(path.expanduser().read_bytes())
    except (OSError, ValueError) as exc:
        raise InvalidInput(
            f"cannot read the JWKS file {path}", issues=[Issue("TABANE_OIDC_JWKS_FILE", str(exc))]
        ) from None
    if not isinstance(document, dict) or not _signing_keys(document):
        raise InvalidInput(
            f"the JWKS file {path} has no signing keys",
            issues=[Issue("TABANE_OIDC_JWKS_FILE", "no usable `keys`")],
        )
    return document
