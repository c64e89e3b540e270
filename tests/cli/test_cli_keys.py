"""`tabane keys …` and the serve guard, in process through Typer's runner."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tabane.cli.main import check_serving
from tabane.errors import InvalidInput
from tabane.principal import Principal, personal_scope
from tabane.service import Tabane


def test_create_list_revoke(cli: Any, svc: Tabane, make_user: Callable[..., Principal]) -> None:
    alice = make_user()
    mine = personal_scope(alice.name)
    code, made, _ = cli(
        "keys", "create", "--user", alice.name, "--read", mine, "--read", "public",
        "--write", mine, "--expires", "2999-01-01T00:00:00",
    )  # fmt: skip
    assert code == 0 and made["token"].startswith("tbn_")
    assert svc.authenticate(made["token"]).read == {mine, "public"}
    code, listed, _ = cli("keys", "list", "--user", alice.name)
    assert [k["prefix"] for k in listed] == [made["key"]["prefix"]]
    assert made["token"] not in json.dumps(listed)
    assert listed[0]["expires_at"].startswith("2999-01-01")
    code, revoked, _ = cli("keys", "revoke", made["key"]["prefix"])
    assert code == 0 and revoked["revoked_at"]


def test_bad_input_is_a_clear_error(cli: Any, make_user: Callable[..., Principal]) -> None:
    alice = make_user()
    code, _, err = cli("keys", "create", "--user", alice.name, "--read", "org:nobody")
    assert code == 2 and "[forbidden]" in err
    code, _, err = cli("keys", "create", "--user", alice.name, "--expires", "soon")
    assert code == 2 and "[invalid_input]" in err
    code, _, err = cli("keys", "revoke", "nope")
    assert code == 2 and "[not_found]" in err
    code, _, err = cli("keys", "create", "--user", alice.name, "--read-only", "--write", "public")
    assert code == 2 and "[invalid_input]" in err and "  --write: " in err


def test_a_read_only_key(cli: Any, svc: Tabane, make_user: Callable[..., Principal]) -> None:
    alice = make_user()
    code, made, _ = cli("keys", "create", "--user", alice.name, "--read-only")
    assert code == 0 and made["key"]["write"] == []
    acting = svc.authenticate(made["token"])
    assert acting.write == frozenset() and acting.read == alice.read


def test_serve_refuses_a_public_bind_without_authentication(cli: Any) -> None:
    code, _, err = cli("serve", "--host", "0.0.0.0")
    assert code == 2 and "without authentication" in err
    code, _, err = cli("serve", "--host", "192.0.2.7", TABANE_AUTH="none")
    assert code == 2 and "TABANE_AUTH" in err
    code, _, err = cli("serve", "--auth", "maybe")
    assert code == 2 and "[invalid_input]" in err
    for host in ("127.0.0.1", "localhost", "::1", "127.0.0.2"):
        check_serving(host, "none")
    check_serving("0.0.0.0", "keys")
    with pytest.raises(InvalidInput):
        check_serving("example.org", "none")


def test_serve_refuses_a_port_it_cannot_listen_on_before_opening_the_store(
    cli: Any, tmp_path: Any
) -> None:
    import socket

    for port in ("70000", "-1", "0"):
        code, _, err = cli("serve", "--port", port)
        assert code == 2 and "  --port: " in err and "Traceback" not in err, (port, err)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = str(taken.getsockname()[1])
        home = tmp_path / "never-made"
        code, _, err = cli("serve", "--port", busy, TABANE_HOME=str(home))
    assert code == 2 and "cannot listen on 127.0.0.1" in err and "  --port: " in err
    assert not home.exists()  # refused before the store was opened
    code, _, err = cli("serve", "--host", "no-such-host.invalid", "--auth", "keys")
    assert code == 2 and "  --host: " in err
