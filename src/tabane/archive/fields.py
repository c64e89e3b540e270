"""The field checks an archive's records share: each adds an `Issue` naming the field (its
line included) and returns None instead of raising, so one reading lists every problem."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tabane.checks import MAX_INT8, scope_set
from tabane.errors import InvalidInput, Issue
from tabane.graph.claims.parse import text_field, time_field
from tabane.graph.vocabulary import check_spelling


def unknown(
    item: dict[str, Any], known: frozenset[str] | set[str], at: str, issues: list[Issue]
) -> None:
    issues.extend(Issue(f"{at}.{name}", "unknown field") for name in sorted(set(item) - known))


def checked(check: Any, value: object, issues: list[Issue], at: str) -> Any:
    """`check(value)`, with the issues of its InvalidInput placed under `at` (whose last part
    names the field the check names)."""
    try:
        return check(value)
    except InvalidInput as exc:
        name = at.rsplit(".", 1)[-1]
        for issue in exc.issues:
            if issue.path.startswith(at):
                path = issue.path
            elif issue.path.startswith(name):
                path = at + issue.path[len(name) :]
            else:
                path = at
            issues.append(Issue(path, issue.problem))
        return None
    except (TypeError, AttributeError):
        issues.append(Issue(at, "wrong type"))
        return None


def text(
    value: object, at: str, issues: list[Issue], limit: int, *, required: bool = False
) -> str | None:
    """A text as a store kept it (blank allowed); `required`: absent is a problem too."""
    if value is None and required:
        issues.append(Issue(at, "missing"))
    return text_field(value, at, issues, limit, empty=True)


def spelling(value: object, at: str, issues: list[Issue]) -> str | None:
    """A concept or label spelling, as a write stores it (NFC, one kind of space; required)."""
    if value is None:
        issues.append(Issue(at, "missing"))
        return None
    return check_spelling(value, at, issues)


def number(value: object, at: str, issues: list[Issue]) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        issues.append(Issue(at, "not a number"))
        return None
    return float(value)


def time(value: object, at: str, issues: list[Issue], *, required: bool = False) -> datetime | None:
    """An ISO 8601 text (a JSON archive has no other kind of time)."""
    if value is None:
        if required:
            issues.append(Issue(at, "missing"))
        return None
    if not isinstance(value, str):
        issues.append(Issue(at, "not an ISO 8601 text"))
        return None
    return time_field(value, at, issues)


def digest(value: object, at: str, issues: list[Issue], *, required: bool) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or len(value) != 64 or value.strip("0123456789abcdef"):
        issues.append(Issue(at, "a sha256 in 64 lower-case hex digits"))
        return None
    return value


def claim_id(value: object, at: str, issues: list[Issue], *, required: bool) -> int | None:
    if value is None:
        if required:
            issues.append(Issue(at, "missing"))
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_INT8:
        issues.append(Issue(at, "not a claim id"))
        return None
    return value


def scopes(value: object, at: str, issues: list[Issue]) -> tuple[str, ...] | None:
    if value is None:
        issues.append(Issue(at, "missing"))
        return None
    try:
        return scope_set(value, at)
    except InvalidInput as exc:
        issues.extend(exc.issues)
        return None
