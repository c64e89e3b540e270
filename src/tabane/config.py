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
    "TABANE_AUTH": "`none` (default; loopback only: every request acts as TABANE_USER) or `keys`",
    "TABANE_RLS_EXAMPLES": "Hypothesis examples for the RLS property test (default 300)",
    "TABANE_EMBEDDER": "`use` (default, offline, ships in a package), `openai`, or `none`",
    "TABANE_EMBED_URL": "base URL of an OpenAI-compatible embeddings API",
    "TABANE_EMBED_MODEL": "model name sent to that API",
    "TABANE_EMBED_API_KEY": "bearer key for that API",
    "TABANE_EMBED_DIM": "vector width of that model (discovered from the first answer when unset)",
    "TABANE_EMBED_MAX_RPS": "most requests per second sent to that API",
    "TABANE_SEMANTIC_FLOOR": "default cosine floor of the vector lane",
    "TABANE_RERANKER": "`none` (default) or `http` (a TEI/Cohere/Jina-compatible /rerank service)",
    "TABANE_RERANK_URL": "base URL of that rerank service",
    "TABANE_RERANK_FORMAT": "`tei` (default) or `cohere` (Cohere and Jina)",
    "TABANE_RERANK_MODEL": "model name sent to that service (required by `cohere`)",
    "TABANE_RERANK_API_KEY": "bearer key for that service",
    "TABANE_WORKER": "`thread` (default: a background worker in the process) or `off`",
    "TABANE_SESSION_TURNS": "turns of a session in working memory (default 20)",
    "TABANE_SESSION_HOURS": "only turns this recent are working memory (default: no age bound)",
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
    auth: str = "none"
    embedder: str = "use"
    embed_url: str | None = None
    embed_model: str | None = None
    embed_api_key: str | None = None
    embed_dim: int | None = None
    embed_max_rps: float | None = None
    semantic_floor: float | None = None
    reranker: str = "none"
    rerank_url: str | None = None
    rerank_format: str = "tei"
    rerank_model: str | None = None
    rerank_api_key: str | None = None
    worker: str = "thread"
    session_turns: int = 20
    session_hours: float | None = None
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
            auth=_choice(env, "TABANE_AUTH", "none", ("none", "keys")),
            embedder=_choice(env, "TABANE_EMBEDDER", "use", ("use", "openai", "none")),
            embed_url=env.get("TABANE_EMBED_URL") or None,
            embed_model=env.get("TABANE_EMBED_MODEL") or None,
            embed_api_key=env.get("TABANE_EMBED_API_KEY") or None,
            embed_dim=_int(env, "TABANE_EMBED_DIM", 0, 0, 65536) or None,
            embed_max_rps=_float(env, "TABANE_EMBED_MAX_RPS", None, 0.0, 1e6),
            semantic_floor=_float(env, "TABANE_SEMANTIC_FLOOR", None, -1.0, 1.0),
            reranker=_choice(env, "TABANE_RERANKER", "none", ("none", "http")),
            rerank_url=env.get("TABANE_RERANK_URL") or None,
            rerank_format=_choice(env, "TABANE_RERANK_FORMAT", "tei", ("tei", "cohere")),
            rerank_model=env.get("TABANE_RERANK_MODEL") or None,
            rerank_api_key=env.get("TABANE_RERANK_API_KEY") or None,
            worker=_choice(env, "TABANE_WORKER", "thread", ("thread", "off")),
            session_turns=_int(env, "TABANE_SESSION_TURNS", 20, 1, 10_000),
            session_hours=_float(env, "TABANE_SESSION_HOURS", None, 0.001, 24.0 * 3660),
        )


def _choice(env: Mapping[str, str], key: str, default: str, allowed: tuple[str, ...]) -> str:
    value = env.get(key) or default
    if value not in allowed:
        raise InvalidInput(
            f"{key} must be one of {', '.join(allowed)}", issues=[Issue(key, repr(value))]
        )
    return value


def _float(
    env: Mapping[str, str], key: str, default: float | None, lo: float, hi: float
) -> float | None:
    raw = env.get(key)
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise InvalidInput(f"{key} must be a number", issues=[Issue(key, repr(raw))]) from None
    if not lo <= value <= hi:  # also refuses NaN
        raise InvalidInput(
            f"{key} is out of range", issues=[Issue(key, f"{value} not in [{lo}, {hi}]")]
        )
    return value


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
