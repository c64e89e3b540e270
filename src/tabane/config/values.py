"""Typed values read from environment variables: each one checked when the settings are built,
and a bad value refused with the variable's name (config/__init__.py builds the settings)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from tabane.errors import InvalidInput, Issue


def choice(env: Mapping[str, str], key: str, default: str, allowed: tuple[str, ...]) -> str:
    value = env.get(key) or default
    if value not in allowed:
        raise InvalidInput(
            f"{key} must be one of {', '.join(allowed)}", issues=[Issue(key, repr(value))]
        )
    return value


def number(
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


def database_url(env: Mapping[str, str], key: str) -> str | None:
    """A PostgreSQL URL, parsed now: a malformed one stops the start naming the setting (its
    value is not shown: it may hold a password)."""
    raw = (env.get(key) or "").strip()
    if not raw:
        return None
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    shape = "postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE (the value is not shown)"
    try:
        url = make_url(raw)
        _ = url.port  # a port that is not a number fails here
    except (ArgumentError, ValueError):
        raise InvalidInput(f"{key} is not a database URL", issues=[Issue(key, shape)]) from None
    if url.get_backend_name() not in ("postgresql", "postgres"):
        raise InvalidInput(
            f"{key} is not a PostgreSQL URL",
            issues=[Issue(key, f"scheme {url.get_backend_name()!r}; expected {shape}")],
        )
    return raw


def http_url(env: Mapping[str, str], key: str) -> str | None:
    """An http(s) URL with a host (a service tabane calls), checked now, not at the first call."""
    raw = (env.get(key) or "").strip()
    if not raw:
        return None
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidInput(
            f"{key} is not an http(s) URL", issues=[Issue(key, f"{raw[:200]!r}: http(s)://HOST/…")]
        )
    return raw


def file_path(env: Mapping[str, str], key: str) -> Path | None:
    """An optional file path; whether it exists is checked where it is loaded, with its name."""
    raw = env.get(key)
    return Path(raw).expanduser() if raw and raw.strip() else None


def boolean(env: Mapping[str, str], key: str, default: bool) -> bool:
    raw = (env.get(key) or "").strip().lower()
    if not raw:
        return default
    if raw in ("true", "1", "yes", "on"):
        return True
    if raw in ("false", "0", "no", "off"):
        return False
    raise InvalidInput(f"{key} must be true or false", issues=[Issue(key, repr(raw))])


def word(env: Mapping[str, str], key: str, default: str) -> str:
    """A name (default when unset); set to blanks, it is refused."""
    raw = env.get(key)
    if raw is None or raw == "":
        return default
    if not raw.strip():
        raise InvalidInput(f"{key} is blank", issues=[Issue(key, "a name, not spaces")])
    return raw.strip()


def listed(env: Mapping[str, str], key: str) -> tuple[str, ...]:
    """`_csv`, but a value that lists nothing (`,`) is refused rather than read as unset."""
    items = csv(env, key)
    if not items and (env.get(key) or "").strip():
        raise InvalidInput(f"{key} lists nothing", issues=[Issue(key, repr(env[key]))])
    return items


def csv(env: Mapping[str, str], key: str) -> tuple[str, ...]:
    """A comma-separated list, blanks dropped (empty when unset)."""
    return tuple(part.strip() for part in (env.get(key) or "").split(",") if part.strip())


def integer(env: Mapping[str, str], key: str, default: int, lo: int, hi: int | None = None) -> int:
    raw = env.get(key)
    if not raw:
        return default
    try:
        if not raw.strip().lstrip("+-").isdigit():  # int() would read "1_0" as 10
            raise ValueError(raw)
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
