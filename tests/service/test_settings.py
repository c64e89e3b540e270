"""Settings that name a service or a database are checked when they are read: a malformed URL,
or a summarizer missing its URL, stops the start naming the setting — not the first call."""

from __future__ import annotations

from pathlib import Path

import pytest

from tabane.config import Settings
from tabane.errors import InvalidInput
from tabane.service import Tabane


@pytest.mark.parametrize("key", ["TABANE_DATABASE_URL", "TABANE_APP_DATABASE_URL"])
@pytest.mark.parametrize(
    "value", ["garbage", "postgresql://u:s3cret@h:notaport/db", "http://s3cret@x/db"]
)
def test_a_malformed_database_url_names_the_setting_not_the_password(key: str, value: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        Settings.from_env({"TABANE_HOME": "/tmp/x", key: value})
    assert [i.path for i in caught.value.issues] == [key]
    assert "s3cret" not in caught.value.message + caught.value.issues[0].problem


def test_a_well_formed_database_url_is_kept() -> None:
    url = "postgresql://app:pw@db.example:5433/tabane"
    assert Settings.from_env({"TABANE_DATABASE_URL": url}).database_url == url


@pytest.mark.parametrize("key", ["TABANE_EMBED_URL", "TABANE_RERANK_URL", "TABANE_SUMMARIZE_URL"])
@pytest.mark.parametrize("value", ["notaurl", "ftp://x/", "http://"])
def test_a_service_url_must_be_http_with_a_host(key: str, value: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        Settings.from_env({key: value})
    assert [i.path for i in caught.value.issues] == [key]


def test_an_llm_summarizer_without_its_url_stops_the_start(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"TABANE_HOME": str(home), "TABANE_SUMMARIZER": "openai", "TABANE_EMBEDDER": "none"}
    with pytest.raises(InvalidInput) as caught:
        Tabane.open(Settings.from_env(env))
    assert {i.path for i in caught.value.issues} == {
        "TABANE_SUMMARIZE_URL",
        "TABANE_SUMMARIZE_MODEL",
    }
    assert not home.exists()  # before the store was made


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("TABANE_PG_SHARED_BUFFERS_MB", "5"),  # quietly raised to 16 before
        ("TABANE_MAX_BODY_BYTES", str(10**27)),  # no limit at all
        ("TABANE_PORT", "1_0"),  # int() reads it as 10
        ("TABANE_OIDC_USER_CLAIM", "   "),
        ("TABANE_OIDC_ALGORITHMS", ","),
    ],
)
def test_values_that_would_be_read_otherwise_are_refused(key: str, value: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        Settings.from_env({key: value})
    assert [i.path for i in caught.value.issues] == [key]


def test_a_misspelled_setting_refuses_the_start_naming_the_one_meant() -> None:
    """`TABANE_AUHT=keys` served without authentication while a warning scrolled by; now the
    start is refused, as PostgreSQL refuses an unknown parameter."""
    with pytest.raises(InvalidInput) as caught:
        Settings.from_env({"TABANE_AUHT": "keys"})
    assert [(i.path, i.problem) for i in caught.value.issues] == [
        ("TABANE_AUHT", "no such setting (did you mean TABANE_AUTH?)")
    ]


def test_unknown_settings_may_be_allowed_on_purpose(caplog) -> None:
    env = {"TABANE_AUHT": "keys", "TABANE_UNKNOWN_SETTINGS": "warn"}
    with caplog.at_level("WARNING", logger="tabane"):
        settings = Settings.from_env(env)
    assert settings.auth == "none"  # ignored, and said so
    assert "TABANE_AUHT (did you mean TABANE_AUTH?)" in caplog.text
    with pytest.raises(InvalidInput):
        Settings.from_env({"TABANE_UNKNOWN_SETTINGS": "ignore"})
