"""Settings, built once at start-up from the environment (never at import).

Every setting is documented in docs/guide.md; a test checks that the two lists agree.
"""

from __future__ import annotations

import getpass
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tabane.errors import InvalidInput, Issue

# Environment variable -> one-line description. docs/guide.md documents each of these.
SETTINGS: dict[str, str] = {
    "TABANE_HOME": "data directory (embedded PostgreSQL lives in TABANE_HOME/pg)",
    "TABANE_DATABASE_URL": "owner URL of an external PostgreSQL >= 15 with pgvector",
    "TABANE_APP_DATABASE_URL": "URL the application connects with (a role that cannot bypass RLS)",
    "TABANE_USER": "name of the implicit local user (default: the login name)",
    "TABANE_MAX_BODY_BYTES": "largest HTTP body and ingested file, in bytes (default 8 MiB)",
    "TABANE_HOST": "address `tabane serve` binds (default 127.0.0.1)",
    "TABANE_PORT": "port `tabane serve` binds (default 8477)",
    "TABANE_RLS_EXAMPLES": "Hypothesis examples for the RLS property test (default 300)",
}

DEFAULT_MAX_BODY = 8 * 1024 * 1024


def default_home() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("tabane", appauthor=False))


@dataclass(frozen=True)
class Settings:
    home: Path
    database_url: str | None = None
    app_database_url: str | None = None
    local_user: str = "local"
    max_body_bytes: int = DEFAULT_MAX_BODY
    host: str = "127.0.0.1"
    port: int = 8477
    extra: Mapping[str, str] = field(default_factory=dict)

    @property
    def embedded(self) -> bool:
        return self.database_url is None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        home = Path(env["TABANE_HOME"]).expanduser() if env.get("TABANE_HOME") else default_home()
        return cls(
            home=home,
            database_url=env.get("TABANE_DATABASE_URL") or None,
            app_database_url=env.get("TABANE_APP_DATABASE_URL") or None,
            local_user=env.get("TABANE_USER") or _login_name(),
            max_body_bytes=_int(env, "TABANE_MAX_BODY_BYTES", DEFAULT_MAX_BODY, 1),
            host=env.get("TABANE_HOST") or "127.0.0.1",
            port=_int(env, "TABANE_PORT", 8477, 1, 65535),
        )


def _login_name() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "local"


def _int(env: Mapping[str, str], key: str, default: int, lo: int, hi: int | None = None) -> int:
    raw = env.get(key)
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise InvalidInput(
            f"{key} must be an integer", issues=[Issue(key, f"not an integer: {raw!r}")]
        ) from None
    if value < lo or (hi is not None and value > hi):
        raise InvalidInput(
            f"{key} is out of range", issues=[Issue(key, f"{value} not in [{lo}, {hi or 'inf'}]")]
        )
    return value
