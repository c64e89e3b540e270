"""Fixtures for the HTTP surface: the real app over the real store, acting for a chosen user."""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator

import httpx
import pytest
from fastapi.testclient import TestClient

from tabane.api.app import create_app
from tabane.principal import Principal
from tabane.service import Tabane

from helpers import serve_people

_names = itertools.count()


@pytest.fixture
def new_name() -> Callable[[str], str]:
    """A fresh name nobody else in this run uses."""
    return lambda prefix: f"{prefix}{os.getpid()}h{next(_names)}"


@pytest.fixture
def client_for(svc: Tabane) -> Callable[[Principal], TestClient]:
    """A client whose every request acts for `who` (the app's principal resolver)."""
    return lambda who: TestClient(create_app(svc, principal=lambda request: who))


@pytest.fixture
def client(client_for: Callable[[Principal], TestClient], user: Principal) -> TestClient:
    return client_for(user)


@pytest.fixture
def stranger(make_user: Callable[..., Principal]) -> Principal:
    return make_user()


@pytest.fixture
def http(svc: Tabane, user: Principal, stranger: Principal) -> Iterator[dict[str, httpx.Client]]:
    """Clients acting for `user` ("me") and for `stranger` ("other"), on one app served on a
    real socket whose principal resolver (the authentication seam) picks by a test header."""
    with serve_people(svc, {"me": user, "other": stranger}) as clients:
        yield clients
