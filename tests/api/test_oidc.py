"""OIDC / JWT bearer tokens over real HTTP, with real crypto and no mocks: a test issuer with its
own RSA and EC keys serves its JWKS from a loopback HTTP server; every bad token is 401 with the
one error body (REST and `/mcp`); good RS256 and ES256 tokens act for their user with the scopes
the TOML mapping gives them; a rotated key is picked up by a (rate-limited) JWKS refresh."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import hmac
import json
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tabane.access.oidc import KeySet, OidcConfig, Verifier, principal_for
from tabane.api.app import create_app
from tabane.api.auth import jwt_resolver, key_or_jwt_resolver, resolver_for
from tabane.cli.main import check_serving
from tabane.config import Settings
from tabane.errors import InvalidInput
from tabane.principal import PUBLIC, Principal, personal_scope
from tabane.service import Tabane

from helpers import FakeClock, serve, unique

ISSUER = "https://id.example.test/oidc"
AUDIENCE = "https://tabane.example.test"
RPC_HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": "2025-11-25",
}


class Issuer:
    """Signing keys (RSA and EC P-256) and the JWKS that publishes their public halves."""

    def __init__(self) -> None:
        self.keys: dict[str, Any] = {}
        self.add("rsa-1", rsa.generate_private_key(public_exponent=65537, key_size=2048))
        self.add("ec-1", ec.generate_private_key(ec.SECP256R1()))

    def add(self, kid: str, key: Any) -> None:
        self.keys[kid] = key

    def jwks(self) -> dict[str, Any]:
        out = []
        for kid, key in self.keys.items():
            algo = (
                jwt.algorithms.RSAAlgorithm if kid.startswith("rsa") else jwt.algorithms.ECAlgorithm
            )
            out.append({**json.loads(algo.to_jwk(key.public_key())), "kid": kid, "use": "sig"})
        return {"keys": out}

    def token(self, sub: str, kid: str = "rsa-1", **claims: Any) -> str:
        now = int(time.time())
        body = {"iss": ISSUER, "aud": AUDIENCE, "sub": sub, "iat": now, "exp": now + 300}
        body.update(claims)
        alg = "RS256" if kid.startswith("rsa") else "ES256"
        return jwt.encode(body, self.keys[kid], algorithm=alg, headers={"kid": kid})

    def public_pem(self, kid: str) -> bytes:
        return bytes(
            self.keys[kid]
            .public_key()
            .public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
        )


class JwksServer:
    """A loopback HTTP server answering GET with `document` as JSON; counts its hits."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document, self.hits = document, 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.hits += 1
                data = json.dumps(outer.document).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/jwks.json"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unsigned(header: dict[str, Any], claims: dict[str, Any]) -> str:
    return f"{_b64(json.dumps(header).encode())}.{_b64(json.dumps(claims).encode())}"


def _bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def _refused(response: httpx.Response, why: str) -> None:
    assert response.status_code == 401, (why, response.text)
    assert response.headers["www-authenticate"].startswith("Bearer"), why
    body = response.json()
    assert set(body["error"]) == {"code", "message", "issues", "written"}, why
    assert body["error"]["code"] == "unauthorized", why


@pytest.fixture(scope="module")
def issuer() -> Issuer:
    return Issuer()


@pytest.fixture(scope="module")
def jwks(issuer: Issuer) -> Iterator[JwksServer]:
    server = JwksServer(issuer.jwks())
    yield server
    server.close()


@pytest.fixture(scope="module")
def scopes() -> dict[str, str]:
    return {"team": unique("team:o"), "org": unique("org:o")}


@pytest.fixture(scope="module")
def oidc_settings(
    svc: Tabane, jwks: JwksServer, scopes: dict[str, str], tmp_path_factory: Any
) -> Settings:
    mapping = tmp_path_factory.mktemp("oidc") / "scopes.toml"
    mapping.write_text(
        f"""
[claims.scope."tabane:team"]
read = ["{scopes["team"]}"]
[claims.organizations."org-1"]
read = ["{scopes["org"]}"]
[claims.organization_roles."org-1:editor"]
write = ["{scopes["org"]}"]
"""
    )
    return dataclasses.replace(
        svc.settings,
        auth="keys+oidc",
        oidc_issuer=ISSUER,
        oidc_audience=AUDIENCE,
        oidc_jwks_url=jwks.url,
        oidc_scopes=mapping,
    )


@pytest.fixture(scope="module")
def config(oidc_settings: Settings) -> OidcConfig:
    # Every unknown kid refetches here; the rate limit has its own test below.
    return dataclasses.replace(OidcConfig.from_settings(oidc_settings), refresh_every=0.0)


@pytest.fixture(scope="module")
def base(svc: Tabane, config: OidcConfig) -> Iterator[str]:
    with serve(create_app(svc, key_or_jwt_resolver(svc, config))) as url:
        yield url


@pytest.fixture
def alice(make_user: Callable[..., Principal], scopes: dict[str, str]) -> Principal:
    return make_user("oidc", extra_write=(scopes["team"], scopes["org"]))


@pytest.mark.slow
def test_bad_tokens_are_401_on_rest_and_mcp(
    issuer: Issuer, jwks: JwksServer, alice: Principal, base: str
) -> None:
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": alice.name, "exp": now + 300}
    good = issuer.token(alice.name)
    head, _, sig = good.split(".")
    forged_body = _b64(json.dumps({**claims, "sub": "someone-else"}).encode())
    hs_input = _unsigned({"alg": "HS256", "typ": "JWT", "kid": "rsa-1"}, claims)
    hs_sig = hmac.new(issuer.public_pem("rsa-1"), hs_input.encode(), hashlib.sha256).digest()
    bad = {
        "expired": issuer.token(alice.name, exp=now - 120),
        "not yet valid": issuer.token(alice.name, nbf=now + 120),
        "wrong issuer": issuer.token(alice.name, iss="https://evil.example.test"),
        "wrong audience": issuer.token(alice.name, aud="another-service"),
        "no exp": issuer.token(alice.name, exp=None),
        "alg none": _unsigned({"alg": "none", "typ": "JWT", "kid": "rsa-1"}, claims) + ".",
        "HS256 with the public key": f"{hs_input}.{_b64(hs_sig)}",
        "forged body": f"{head}.{forged_body}.{sig}",
        "EC token under the RSA kid": jwt.encode(
            claims, issuer.keys["ec-1"], algorithm="ES256", headers={"kid": "rsa-1"}
        ),
        "unknown user": issuer.token(unique("nobody")),
        "sub not a user name": issuer.token("auth0|12345"),
        "malformed": "eyJhbGciOiJSUzI1NiJ9.not-json.x",
        "oversized": "eyJ" + "a" * 9000,
    }
    for why, token in bad.items():
        _refused(httpx.get(f"{base}/contexts", headers=_bearer(token)), why)
        mcp = httpx.post(
            f"{base}/mcp",
            headers={**RPC_HEADERS, **_bearer(token)},
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        )
        _refused(mcp, why)
    assert httpx.get(f"{base}/contexts", headers=_bearer(good)).status_code == 200

    hits = jwks.hits
    unknown_kid = jwt.encode(claims, issuer.keys["rsa-1"], algorithm="RS256", headers={"kid": "k9"})
    _refused(httpx.get(f"{base}/contexts", headers=_bearer(unknown_kid)), "unknown kid")
    assert jwks.hits == hits + 1  # refreshed once, still unknown

    # Within the 30 s leeway an expired or not-yet-valid token still passes.
    for grace in ({"exp": now - 10}, {"nbf": now + 10}):
        answer = httpx.get(f"{base}/contexts", headers=_bearer(issuer.token(alice.name, **grace)))
        assert answer.status_code == 200, grace


@pytest.mark.parametrize("kid", ["rsa-1", "ec-1"])
def test_good_tokens_act_with_the_mapped_scopes(
    svc: Tabane, issuer: Issuer, alice: Principal, scopes: dict[str, str], base: str, kid: str
) -> None:
    in_team, in_org = unique("ctx"), unique("ctx")
    svc.create_context(alice, in_team, scopes=[scopes["team"]])
    svc.create_context(alice, in_org, scopes=[scopes["org"]])

    def status(token: str, context: str) -> int:
        return httpx.get(f"{base}/contexts/{context}", headers=_bearer(token)).status_code

    team_only = issuer.token(alice.name, kid, scope="openid profile tabane:team")
    assert (status(team_only, in_team), status(team_only, in_org)) == (200, 404)
    org_member = issuer.token(alice.name, kid, organizations=["org-1", "org-2"])
    assert (status(org_member, in_team), status(org_member, in_org)) == (404, 200)

    def create(token: str) -> int:
        new = {"name": unique("ctx"), "scopes": [scopes["org"]]}
        return httpx.post(f"{base}/contexts", headers=_bearer(token), json=new).status_code

    assert create(org_member) == 403  # membership maps to read only
    editor = issuer.token(
        alice.name, kid, organizations=["org-1"], organization_roles=["org-1:editor"]
    )
    assert create(editor) == 201
    mine = {"name": unique("ctx")}  # the personal scope is always the token's
    answer = httpx.post(f"{base}/contexts", headers=_bearer(team_only), json=mine)
    assert answer.status_code == 201, answer.text


def test_keys_and_jwts_share_the_door(
    svc: Tabane, issuer: Issuer, alice: Principal, base: str
) -> None:
    key = svc.create_key(alice.name).token
    assert httpx.get(f"{base}/contexts", headers=_bearer(key)).status_code == 200
    jwt_token = issuer.token(alice.name)
    assert httpx.get(f"{base}/contexts", headers=_bearer(jwt_token)).status_code == 200
    _refused(httpx.get(f"{base}/contexts", headers=_bearer("tbn_00000000_" + "x" * 43)), "key")


def test_mcp_over_http_with_a_jwt_through_the_official_client(
    svc: Tabane, issuer: Issuer, alice: Principal, scopes: dict[str, str], base: str
) -> None:
    in_team, in_org = unique("ctx"), unique("ctx")
    svc.create_context(alice, in_team, scopes=[scopes["team"]])
    svc.create_context(alice, in_org, scopes=[scopes["org"]])
    token = issuer.token(alice.name, "ec-1", scope="tabane:team")

    async def main() -> tuple[bool, bool]:
        async with (
            httpx2.AsyncClient(headers=_bearer(token)) as http,
            Client(streamable_http_client(f"{base}/mcp", http_client=http)) as c,
        ):
            team = await c.call_tool("get_context", {"name": in_team})
            org = await c.call_tool("get_context", {"name": in_org})
            return team.is_error, org.is_error

    assert anyio.run(main) == (False, True)


@pytest.mark.slow
def test_unknown_users_are_created_only_when_allowed(
    svc: Tabane, issuer: Issuer, alice: Principal, scopes: dict[str, str], config: OidcConfig
) -> None:
    shared = unique("ctx")
    svc.create_context(alice, shared, scopes=[scopes["team"]])
    newcomer, fresh_scope = unique("oidc-new"), unique("team:fresh")
    assert config.mapping is not None
    fresh = {"groups": {"fresh": _grant(fresh_scope)}}  # a claim of the IdP's own
    mapping = dataclasses.replace(config.mapping, claims={**config.mapping.claims, **fresh})
    creating = dataclasses.replace(config, create_users=True, mapping=mapping)
    with serve(create_app(svc, jwt_resolver(svc, creating))) as url:
        token = issuer.token(newcomer, scope="tabane:team", groups=["fresh"])
        answer = httpx.get(f"{url}/contexts/{shared}", headers=_bearer(token))
        assert answer.status_code == 200, answer.text
        racing = issuer.token(unique("oidc-race"), scope="tabane:team", groups=["fresh"])
        with ThreadPoolExecutor(6) as pool:  # first sight from several requests at once
            codes = pool.map(
                lambda _: httpx.get(f"{url}/contexts", headers=_bearer(racing)).status_code,
                range(6),
            )
            assert set(codes) == {200}
    made = svc.principal(newcomer)
    assert scopes["team"] in made.read and scopes["team"] not in made.write
    assert fresh_scope in made.read and fresh_scope in made.write
    assert {personal_scope(newcomer), PUBLIC} <= made.read
    with serve(create_app(svc, jwt_resolver(svc, config))) as url:
        other = issuer.token(unique("oidc-new"))
        _refused(httpx.get(f"{url}/contexts", headers=_bearer(other)), "not created")


def _grant(scope: str) -> Any:
    from tabane.access.oidc_scopes import ScopeGrant

    return ScopeGrant(read=frozenset({scope}), write=frozenset({scope}))


@pytest.mark.slow
def test_rotation_is_picked_up_by_a_rate_limited_refresh(
    svc: Tabane, issuer: Issuer, alice: Principal, config: OidcConfig
) -> None:
    clock = FakeClock()
    rotating = Issuer()
    server = JwksServer(rotating.jwks())
    limited = dataclasses.replace(config, jwks_url=server.url, refresh_every=30.0)
    keys = KeySet(limited, clock=clock)
    resolver = jwt_resolver(svc, limited, Verifier(limited, keys))
    try:
        with serve(create_app(svc, resolver)) as url:

            def get(token: str) -> int:
                return httpx.get(f"{url}/contexts", headers=_bearer(token)).status_code

            assert get(rotating.token(alice.name)) == 200
            assert server.hits == 1
            rotating.add("rsa-2", rsa.generate_private_key(public_exponent=65537, key_size=2048))
            del rotating.keys["rsa-1"]
            server.document = rotating.jwks()
            new = rotating.token(alice.name, "rsa-2")
            assert [get(new), get(new), server.hits] == [401, 401, 1]  # refresh rate-limited
            clock.sleep(31)
            assert [get(new), server.hits] == [200, 2]  # picked up by the refresh
            clock.sleep(31)
            old = jwt.encode(
                {"iss": ISSUER, "aud": AUDIENCE, "sub": alice.name, "exp": int(time.time()) + 60},
                issuer.keys["rsa-1"],
                algorithm="RS256",
                headers={"kid": "rsa-1"},
            )
            assert [get(old), get(old), server.hits] == [401, 401, 3]  # retired: one refresh
    finally:
        server.close()


def test_a_static_key_set_needs_no_server(
    svc: Tabane, issuer: Issuer, alice: Principal, oidc_settings: Settings, tmp_path: Path
) -> None:
    file = tmp_path / "jwks.json"
    file.write_text(json.dumps(issuer.jwks()))
    static = dataclasses.replace(
        oidc_settings, oidc_jwks_url=None, oidc_jwks_file=file, oidc_scopes=None
    )
    config = OidcConfig.from_settings(static)
    identity = Verifier(config).verify(issuer.token(alice.name, "ec-1"))
    assert identity.read is None  # no mapping: the token acts with the user's grants
    with svc.store.admin() as session:
        assert principal_for(session, identity, config) == svc.principal(alice.name)


def test_settings_and_configuration_are_checked_at_start_up(
    svc: Tabane, oidc_settings: Settings, tmp_path: Path
) -> None:
    env = {
        "TABANE_HOME": str(tmp_path),
        "TABANE_AUTH": "oidc",
        "TABANE_OIDC_ISSUER": ISSUER,
        "TABANE_OIDC_AUDIENCE": AUDIENCE,
        "TABANE_OIDC_JWKS_URL": "https://id.example.test/jwks",
        "TABANE_OIDC_ALGORITHMS": "ES256, RS256",
        "TABANE_OIDC_LEEWAY": "5",
        "TABANE_OIDC_CREATE_USERS": "true",
        "TABANE_OIDC_USER_CLAIM": "username",
    }
    parsed = Settings.from_env(env)
    assert (parsed.auth, parsed.oidc_algorithms, parsed.oidc_leeway) == (
        "oidc",
        ("ES256", "RS256"),
        5,
    )
    config = OidcConfig.from_settings(parsed)
    assert (config.create_users, config.user_claim) == (True, "username")
    for key, value in [("TABANE_OIDC_CREATE_USERS", "maybe"), ("TABANE_AUTH", "jwt")]:
        with pytest.raises(InvalidInput):
            Settings.from_env({**env, key: value})
    for change in [
        {"oidc_algorithms": ("HS256",)},
        {"oidc_algorithms": ("RS256", "none")},
        {"oidc_jwks_url": "http://id.example.test/jwks"},  # plain http off loopback
        {"oidc_jwks_url": None},
        {"oidc_jwks_file": tmp_path / "absent.json"},
        {"oidc_issuer": None},
        {"oidc_audience": ""},
    ]:
        with pytest.raises(InvalidInput):
            OidcConfig.from_settings(dataclasses.replace(oidc_settings, **change))
    bad_map = tmp_path / "bad.toml"
    bad_map.write_text('oops = 1\n[claims.scope.x]\nread = ["not a scope!"]\nadmin = true\n')
    with pytest.raises(InvalidInput) as caught:
        OidcConfig.from_settings(dataclasses.replace(oidc_settings, oidc_scopes=bad_map))
    paths = {issue.path for issue in caught.value.issues}
    assert {"oops", "claims.scope.x.read[0]", "claims.scope.x.admin"} <= paths
    assert resolver_for(svc, "none") is None
    assert callable(resolver_for(svc, "oidc", oidc_settings))
    with pytest.raises(InvalidInput):
        resolver_for(svc, "oidc")  # the service's own settings configure no issuer
    check_serving("0.0.0.0", "oidc")
    check_serving("0.0.0.0", "keys+oidc")
    with pytest.raises(InvalidInput):
        check_serving("0.0.0.0", "none")
