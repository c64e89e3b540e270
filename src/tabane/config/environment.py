"""The settings read from the environment: each variable parsed and bounded (config/values.py),
group by group; a TABANE_* variable no setting reads is refused (or, with
TABANE_UNKNOWN_SETTINGS=warn, logged)."""

from __future__ import annotations

import getpass
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tabane.config import (
    AUTH_MODES,
    DEFAULT_CHARS_PER_TOKEN,
    DEFAULT_DISK_LOW_MB,
    DEFAULT_HEAVY_CONCURRENCY,
    DEFAULT_MAX_BODY,
    DEFAULT_MAX_PARAGRAPHS,
    DEFAULT_METRICS_SECONDS,
    DEFAULT_OIDC_ALGORITHMS,
    DEFAULT_PG_IDLE_SECONDS,
    DEFAULT_RATE_BURST,
    DEFAULT_RATE_RPS,
    DEFAULT_RECALL_BUDGET,
    DEFAULT_REQUEST_SECONDS,
    DEFAULT_RESIDENT_SECONDS,
    DEFAULT_USAGE_SECONDS,
    MAX_RECALL_BUDGET,
    MIN_BUFFERS_MB,
    SETTINGS,
    auto_heavy_total,
    default_home,
    values,
)
from tabane.errors import InvalidInput, Issue


def read(env: Mapping[str, str]) -> dict[str, Any]:
    """Every setting's value from `env`, by field name, once no unknown variable stops it."""
    check_unknown(env)
    home = Path(env["TABANE_HOME"]).expanduser() if env.get("TABANE_HOME") else default_home()
    return {
        "home": home,
        **_store(env),
        **_access(env),
        **_models(env),
        **_recall(env),
        **_serving(env),
    }


def check_unknown(env: Mapping[str, str]) -> None:
    """Refuse the TABANE_* variables no setting reads, or log them where
    TABANE_UNKNOWN_SETTINGS=warn."""
    policy = values.choice(env, "TABANE_UNKNOWN_SETTINGS", "refuse", ("refuse", "warn"))
    if not (stray := unknown(env)):
        return
    if policy == "refuse":
        raise InvalidInput(
            "unknown settings: a TABANE_* variable no setting reads (set "
            "TABANE_UNKNOWN_SETTINGS=warn to start anyway)",
            issues=[Issue(key, f"no such setting{near}") for key, near in stray],
        )
    names = ", ".join(f"{key}{near}" for key, near in stray)
    logging.getLogger("tabane").warning("unknown settings ignored: %s", names)


def _store(env: Mapping[str, str]) -> dict[str, Any]:
    """The settings of where the store lives and how it runs, and how large a request or a
    document may be."""
    return dict(
        pg_shared_buffers_mb=_buffers(env),
        pg_idle_seconds=values.number(
            env, "TABANE_PG_IDLE_SECONDS", DEFAULT_PG_IDLE_SECONDS, 0.0, 7 * 86400.0
        )
        or 0.0,
        resident_seconds=values.number(
            env, "TABANE_RESIDENT_SECONDS", DEFAULT_RESIDENT_SECONDS, 0.0, 7 * 86400.0
        )
        or 0.0,
        database_url=values.database_url(env, "TABANE_DATABASE_URL"),
        app_database_url=values.database_url(env, "TABANE_APP_DATABASE_URL"),
        read_database_url=values.database_url(env, "TABANE_READ_DATABASE_URL"),
        local_user=env.get("TABANE_USER") or _login_name(),
        max_body_bytes=values.integer(env, "TABANE_MAX_BODY_BYTES", DEFAULT_MAX_BODY, 1, 1 << 30),
        max_paragraphs=values.integer(
            env, "TABANE_MAX_PARAGRAPHS", DEFAULT_MAX_PARAGRAPHS, 1, 10_000_000
        ),
        disk_low_mb=values.integer(env, "TABANE_DISK_LOW_MB", DEFAULT_DISK_LOW_MB, 0, 1 << 30),
    )


def _access(env: Mapping[str, str]) -> dict[str, Any]:
    """The settings of where the server listens and how it knows its callers."""
    return dict(
        host=env.get("TABANE_HOST") or "127.0.0.1",
        port=values.integer(env, "TABANE_PORT", 8477, 1, 65535),
        auth=values.choice(env, "TABANE_AUTH", "none", AUTH_MODES),
        oidc_issuer=env.get("TABANE_OIDC_ISSUER") or None,
        oidc_audience=env.get("TABANE_OIDC_AUDIENCE") or None,
        oidc_jwks_url=env.get("TABANE_OIDC_JWKS_URL") or None,
        oidc_jwks_file=values.file_path(env, "TABANE_OIDC_JWKS_FILE"),
        oidc_algorithms=values.listed(env, "TABANE_OIDC_ALGORITHMS") or DEFAULT_OIDC_ALGORITHMS,
        oidc_leeway=values.integer(env, "TABANE_OIDC_LEEWAY", 30, 0, 3600),
        oidc_scopes=values.file_path(env, "TABANE_OIDC_SCOPES"),
        oidc_create_users=values.boolean(env, "TABANE_OIDC_CREATE_USERS", False),
        oidc_user_claim=values.word(env, "TABANE_OIDC_USER_CLAIM", "sub"),
    )


def _models(env: Mapping[str, str]) -> dict[str, Any]:
    """The settings of the embedder, the reranker and the summarizer."""
    return dict(
        embedder=values.choice(env, "TABANE_EMBEDDER", "use", ("use", "openai", "none")),
        embed_url=values.http_url(env, "TABANE_EMBED_URL"),
        embed_model=env.get("TABANE_EMBED_MODEL") or None,
        embed_api_key=env.get("TABANE_EMBED_API_KEY") or None,
        embed_dim=values.integer(env, "TABANE_EMBED_DIM", 0, 0, 65536) or None,
        embed_max_rps=values.number(env, "TABANE_EMBED_MAX_RPS", None, 0.0, 1e6),
        semantic_floor=values.number(env, "TABANE_SEMANTIC_FLOOR", None, -1.0, 1.0),
        reranker=values.choice(env, "TABANE_RERANKER", "none", ("none", "http")),
        rerank_url=values.http_url(env, "TABANE_RERANK_URL"),
        rerank_format=values.choice(env, "TABANE_RERANK_FORMAT", "tei", ("tei", "cohere")),
        rerank_model=env.get("TABANE_RERANK_MODEL") or None,
        rerank_api_key=env.get("TABANE_RERANK_API_KEY") or None,
        summarizer=values.choice(env, "TABANE_SUMMARIZER", "extractive", ("extractive", "openai")),
        summarize_url=values.http_url(env, "TABANE_SUMMARIZE_URL"),
        summarize_model=env.get("TABANE_SUMMARIZE_MODEL") or None,
        summarize_api_key=env.get("TABANE_SUMMARIZE_API_KEY") or None,
        summarize_max_rps=values.number(env, "TABANE_SUMMARIZE_MAX_RPS", None, 0.0, 1e6),
    )


def _recall(env: Mapping[str, str]) -> dict[str, Any]:
    """The settings of the worker, working memory and recall's budget, template and presets."""
    return dict(
        worker=values.choice(env, "TABANE_WORKER", "thread", ("thread", "off")),
        session_turns=values.integer(env, "TABANE_SESSION_TURNS", 20, 1, 10_000),
        session_hours=values.number(env, "TABANE_SESSION_HOURS", None, 0.001, 24.0 * 3660),
        recall_budget=values.integer(
            env, "TABANE_RECALL_BUDGET", DEFAULT_RECALL_BUDGET, 1, MAX_RECALL_BUDGET
        ),
        chars_per_token=values.number(env, "TABANE_CHARS_PER_TOKEN", None, 0.5, 20.0)
        or DEFAULT_CHARS_PER_TOKEN,
        recall_second_opinion=values.number(env, "TABANE_RECALL_SECOND_OPINION", 1.0, 0.0, 100.0)
        or 0.0,
        recall_template=values.file_path(env, "TABANE_RECALL_TEMPLATE"),
        presets=values.file_path(env, "TABANE_PRESETS"),
    )


def _serving(env: Mapping[str, str]) -> dict[str, Any]:
    """The settings of rate limits, deadlines, logs, traces and metrics."""
    return dict(
        rate_rps=values.number(env, "TABANE_RATE_RPS", DEFAULT_RATE_RPS, 0.0, 1e6) or 0.0,
        rate_burst=values.integer(env, "TABANE_RATE_BURST", DEFAULT_RATE_BURST, 1, 1_000_000),
        heavy_concurrency=values.integer(
            env, "TABANE_HEAVY_CONCURRENCY", DEFAULT_HEAVY_CONCURRENCY, 0, 10_000
        ),
        heavy_total=values.integer(env, "TABANE_HEAVY_TOTAL", auto_heavy_total(), 0, 100_000),
        rate_shared=values.choice(
            env, "TABANE_RATE_SHARED", "auto", ("auto", "process", "database")
        ),
        request_seconds=values.number(
            env, "TABANE_REQUEST_SECONDS", DEFAULT_REQUEST_SECONDS, 0.0, 86400.0
        )
        or 0.0,
        usage_seconds=values.number(
            env, "TABANE_USAGE_SECONDS", DEFAULT_USAGE_SECONDS, 0.0, 86400.0
        )
        or 0.0,
        log_format=values.choice(env, "TABANE_LOG_FORMAT", "text", ("text", "json")),
        tracing=values.choice(env, "TABANE_TRACING", "off", ("off", "otel")),
        metrics_seconds=values.number(
            env, "TABANE_METRICS_SECONDS", DEFAULT_METRICS_SECONDS, 0.05, 60.0
        )
        or DEFAULT_METRICS_SECONDS,
    )


def unknown(env: Mapping[str, str]) -> list[tuple[str, str]]:
    """The TABANE_* variables set that no setting reads (a misspelling would otherwise be
    silent: `TABANE_AUHT=keys` would serve without authentication), each with the nearest
    setting as ` (did you mean …?)`, or nothing."""
    import difflib

    out = []
    for key in sorted(k for k in env if k.startswith("TABANE_") and k not in SETTINGS):
        near = difflib.get_close_matches(key, SETTINGS, n=1)
        out.append((key, f" (did you mean {near[0]}?)" if near else ""))
    return out


def _buffers(env: Mapping[str, str]) -> int:
    """0 (auto) or at least MIN_BUFFERS_MB: a smaller size is refused, not quietly raised."""
    value = values.integer(env, "TABANE_PG_SHARED_BUFFERS_MB", 0, 0, 1 << 20)
    if 0 < value < MIN_BUFFERS_MB:
        raise InvalidInput(
            "TABANE_PG_SHARED_BUFFERS_MB is too small",
            issues=[Issue("TABANE_PG_SHARED_BUFFERS_MB", f"{value}: 0 (auto) or at least 16")],
        )
    return value


def _login_name() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "local"
