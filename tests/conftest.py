"""Shared fixtures: one real embedded PostgreSQL (with pgvector) for the whole run.

`svc` is the service facade over it; every test gets fresh, uniquely named users and contexts
through `make_user` and `make_context`, so tests never see each other's rows.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tabane.config import Settings
from tabane.models.local import UseEmbedder
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.storage import embedded

from helpers import unique

# Commands the tests run as processes answer on their own (no resident process left behind), and
# a server they start stops with its last process; the tests of both set their own values.
os.environ["TABANE_RESIDENT_SECONDS"] = "0"
os.environ["TABANE_PG_IDLE_SECONDS"] = "0"

# A test past this many seconds (setup and call) without the `slow` marker is named at the end of
# the run, so the inner loop (`pytest -m "not slow"`) stays fast as tests are added. A report, not a
# failure: durations depend on the machine's load (docs/decisions/0010-inner-loop.md).
SLOW_SECONDS = float(os.environ.get("TABANE_TEST_SLOW_SECONDS", "3"))
_unmarked_slow: dict[str, float] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "teardown" or "slow" in report.keywords:
        return
    _unmarked_slow[report.nodeid] = _unmarked_slow.get(report.nodeid, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    over = sorted(((s, n) for n, s in _unmarked_slow.items() if s > SLOW_SECONDS), reverse=True)
    if not over:
        return
    terminalreporter.section(f"over {SLOW_SECONDS:g} s without @pytest.mark.slow")
    for seconds, nodeid in over:
        terminalreporter.write_line(f"{seconds:7.1f} s  {nodeid}")
    terminalreporter.write_line(
        "mark them slow, or make them faster (a module's fixture counts in its first test)"
    )


@pytest.fixture(scope="session")
def tabane_home() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="tabane-test-") as tmp:
        yield Path(tmp)


@pytest.fixture(scope="session")
def settings(tabane_home: Path) -> Settings:
    # Lexical only and no background thread: tests that need vectors use `vsvc`. No e5 vectors
    # written by the jobs (~0.1 s a statement): tests/recall/test_e5_store.py turns them on.
    return Settings(
        home=tabane_home,
        local_user="tester",
        embedder="none",
        worker="off",
        recall_second_opinion=0.0,
    )


@pytest.fixture(scope="session")
def svc(settings: Settings) -> Iterator[Tabane]:
    service = Tabane.open(settings)
    yield service
    service.close()
    # Processes the tests killed never deregister from the server; stop it for certain.
    embedded.stop(settings.home)


@pytest.fixture(scope="session")
def embedder() -> UseEmbedder:
    return UseEmbedder()


@pytest.fixture(scope="session")
def vsvc(svc: Tabane, embedder: UseEmbedder) -> Tabane:
    """The same store with the default embedder; run `vsvc.wait_for_jobs()` to embed."""
    return Tabane.build(svc.store, svc.settings, embedder)


@pytest.fixture
def make_user(svc: Tabane) -> Callable[..., Principal]:
    """A new user with a personal scope; `extra_read`/`extra_write` grant more scopes."""

    def make(
        prefix: str = "u", extra_read: tuple[str, ...] = (), extra_write: tuple[str, ...] = ()
    ) -> Principal:
        name = unique(prefix)
        svc.add_user(name)
        for scope in (*extra_read, *extra_write):
            svc.add_scope(scope)
        for scope in extra_read:
            svc.grant(name, scope, write=False)
        for scope in extra_write:
            svc.grant(name, scope, write=True)
        return svc.principal(name)

    return make


@pytest.fixture
def user(make_user: Callable[..., Principal]) -> Principal:
    return make_user()


@pytest.fixture
def make_context(svc: Tabane, user: Principal) -> Callable[..., str]:
    def make(owner: Principal | None = None, **settings: object) -> str:
        name = unique("ctx")
        svc.create_context(owner or user, name, **settings)
        return name

    return make


@pytest.fixture
def context(make_context: Callable[..., str]) -> str:
    return make_context()
