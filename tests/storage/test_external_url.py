"""TABANE_DATABASE_URL: the same code against a server tabane did not start (here: the running
embedded one, reached by URL), with and without a separate application URL."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from tabane.config import Settings
from tabane.errors import StoreUnavailable
from tabane.service import Tabane


def _owner_url(svc: Tabane) -> str:
    return svc.store.owner.url.render_as_string(hide_password=False)


def _whoami(svc: Tabane) -> tuple[str, str]:
    with svc.store.app.connect() as conn:
        row = conn.execute(text("SELECT session_user, current_user")).one()
    return row[0], row[1]


def test_owner_url_alone_switches_to_the_app_role(svc: Tabane, tmp_path, context, user) -> None:
    external = Tabane.open(
        Settings(
            home=tmp_path,
            embedder="none",
            worker="off",
            database_url=_owner_url(svc),
            local_user="x",
        )
    )
    try:
        assert _whoami(external) == ("postgres", "tabane_app")
        assert external.get_context(user, context).name == context
        assert not (tmp_path / "pg").exists(), "no embedded server for an external URL"
    finally:
        external.close()


def test_separate_app_url_connects_as_the_app_role(svc: Tabane, tmp_path) -> None:
    owner = _owner_url(svc)
    app_url = owner.replace("postgres@", "tabane_app@", 1)
    external = Tabane.open(
        Settings(
            home=tmp_path,
            embedder="none",
            worker="off",
            database_url=owner,
            app_database_url=app_url,
        )
    )
    try:
        assert _whoami(external) == ("tabane_app", "tabane_app")
    finally:
        external.close()


def test_an_app_url_that_bypasses_rls_is_refused(svc: Tabane, tmp_path) -> None:
    owner = _owner_url(svc)
    with pytest.raises(StoreUnavailable) as info:
        Tabane.open(
            Settings(
                home=tmp_path,
                embedder="none",
                worker="off",
                database_url=owner,
                app_database_url=owner,
            )
        )
    assert "bypass row-level security" in info.value.message


def test_an_unreachable_server_is_a_clear_error(tmp_path) -> None:
    url = f"postgresql://nobody@/tabane?host={tmp_path}"
    with pytest.raises(StoreUnavailable) as info:
        Tabane.open(Settings(home=tmp_path, embedder="none", worker="off", database_url=url))
    assert info.value.code == "store_unavailable"
