"""Checks of values at the edges (names, scopes, texts, dates, cues) and the bounds they
enforce, shared by every layer."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from datetime import UTC, date, datetime
from typing import Annotated, Any

from pydantic import BeforeValidator
from pydantic_core import PydanticCustomError

from tabane.errors import InvalidInput, InvalidName, Issue

# The largest values of PostgreSQL's integer and bigint columns (paragraph indexes; ids): a larger
# one cannot name a row, and sent to the database it fails the whole statement.
MAX_INT4 = 2**31 - 1


MAX_INT8 = 2**63 - 1


SOURCE_STATES = ("active", "waiting", "someday", "done", "archived")


def is_paragraph_index(value: object) -> bool:
    """An integer a paragraph index can be: 0 up to PostgreSQL's integer (a bool is not one)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_INT4


# An association edge within a context and scope set: (perspective, subject, label, object).
EdgeKey = tuple[str, str, str, str]


# Names of contexts and groups: letters (any script), digits, and . _ - ; 1..64 characters;
# not starting with a dot or dash. Scope names also allow ':' (`user:alice`, `org:acme`).
_NAME = re.compile(r"^[^\W][\w.\-]{0,63}$", re.UNICODE)
MAX_NAME = 64
MAX_SCOPE = 128  # characters of a scope name (_SCOPE's {0,127} after its first)


_SCOPE = re.compile(r"^(?!.*::)(?!.*:$)[^\W][\w.\-:@]{0,127}$", re.UNICODE)  # no empty part


def text_problem(value: str) -> str | None:
    """Why a text cannot be stored or searched, if it cannot: PostgreSQL text holds no NUL
    character, and UTF-8 has no lone surrogate (what a JSON `\\ud800` escape or an undecodable
    command-line byte becomes in Python)."""
    if "\x00" in value:
        return "contains a NUL character"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "not valid Unicode text (a lone surrogate: a `\\ud800` escape, or bytes not UTF-8)"
    return None


def text_problems(value: Any, path: str) -> list[tuple[str, str]]:
    """(path, problem) for every text inside `value` (strings, lists, dicts: keys and values)
    that `text_problem` refuses, paths like `question`, `contexts[1]`, `locator.page`, in
    document order. A walk with its own stack: JSON nested deeper than Python recurses is
    still checked, not a RecursionError."""
    out: list[tuple[str, str]] = []
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            if problem := text_problem(item):
                out.append((where, problem))
        elif isinstance(item, (list, tuple)):
            stack.extend((v, f"{where}[{i}]") for i, v in reversed(list(enumerate(item))))
        elif isinstance(item, dict):
            for k, v in reversed(list(item.items())):
                name = k if isinstance(k, str) and not text_problem(k) else "?"
                inner = f"{where}.{name}" if where else name
                stack.extend([(v, inner), (k, f"{inner} (a key)")])
    return out


def check_name(value: object, path: str = "name", what: str = "name") -> str:
    """Validate a context/group/user name and return it NFC-normalized."""
    if not isinstance(value, str):
        raise InvalidName(f"{what} must be a string", issues=[Issue(path, "not a string")])
    name = unicodedata.normalize("NFC", value)
    if not name.strip():
        raise InvalidName(f"{what} is empty", issues=[Issue(path, "empty")])
    if len(name) > MAX_NAME:
        raise InvalidName(
            f"{what} is too long",
            issues=[Issue(path, f"{len(name)} characters, at most {MAX_NAME}")],
        )
    if not _NAME.match(name):
        raise InvalidName(
            f"{what} {name!r} has characters that are not allowed",
            issues=[
                Issue(path, "use letters, digits, '.', '_' or '-', starting with a letter or digit")
            ],
        )
    return name


def check_scope(value: object, path: str = "scope") -> str:
    if not isinstance(value, str) or not _SCOPE.match(unicodedata.normalize("NFC", value)):
        raise InvalidName(
            f"invalid scope name {value!r}",
            issues=[Issue(path, "use letters, digits, '.', '_', '-', ':' or '@', at most 128")],
        )
    return unicodedata.normalize("NFC", value)


def scope_set(values: object, path: str = "scopes") -> tuple[str, ...]:
    """A non-empty, sorted, de-duplicated scope set."""
    if isinstance(values, str) or not isinstance(values, (list, tuple, set, frozenset)):
        raise InvalidName("scopes must be a list of names", issues=[Issue(path, "not a list")])
    out = sorted({check_scope(v, f"{path}[{i}]") for i, v in enumerate(values)})
    if not out:
        raise InvalidName("scopes must not be empty", issues=[Issue(path, "empty set")])
    return tuple(out)


def only_context(contexts: Iterable[str], groups: Iterable[str]) -> str | None:
    """The one context a read addresses, when it names exactly one (a repeat is the same one)
    and no group: where an expected source is looked for when its context is not given."""
    named = set(contexts)
    return named.pop() if len(named) == 1 and not any(True for _ in groups) else None


def expected_context(
    given: str | None, contexts: Iterable[str], groups: Iterable[str], path: str
) -> str:
    """The context an explained source is in: `given`, else the one context read; else say so
    at `path` (the surface's name for the field)."""
    where = given if given is not None else only_context(contexts, groups)
    if where is None:
        raise InvalidInput(
            "say which context the expected source is in",
            issues=[Issue(path, "required unless one context (and no group) is read")],
        )
    return where


def issue_path(loc: Iterable[Any], at: str = "") -> str:
    """A validation location as an issue path: `("body", "paragraphs", 0, "text")` ->
    `body.paragraphs[0].text`; `at` is a path inside the field (`text_problems`' "[1]", "k[0]")."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}" if out else str(part)
    if at:
        out += at if at.startswith("[") or not out else f".{at}"
    return out


def storable_text(value: Any) -> Any:
    """A field validator's check: no NUL and no lone surrogate in any text of `value` (nested
    ones included): PostgreSQL could not store or compare it. The error carries where inside
    the field (`ctx["at"]`, for `issue_path`)."""
    found = text_problems(value, "")
    if found:
        where, problem = found[0]
        raise PydanticCustomError("unstorable_text", "{problem}", {"problem": problem, "at": where})
    return value


def _json_kind(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, dict):
        return "an object"
    return "null" if value is None else type(value).__name__


def _cue(value: object) -> object:
    """Checked before the union `str | list[str]`, so a wrong value gives one issue where it
    is wrong, not one per member of the union (`subject.str`, `subject.list[str][1]`)."""
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        kind = _json_kind(value)
        raise PydanticCustomError("cue", f"a spelling or a list of spellings, not {kind}")
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise PydanticCustomError(
                "cue", f"a spelling must be a string, not {_json_kind(item)}", {"at": f"[{i}]"}
            )
    return value


# A cue position of a graph read: one spelling or an OR-list of spellings.
Cue = Annotated[str | list[str], BeforeValidator(_cue)]


def parse_date(value: Any, path: str) -> datetime | None:
    """An ISO 8601 date or date-time; a date alone means midnight UTC. None is none given; an
    empty text is a bad date, not an omitted one. The instant must fall in the years 1–9999 in
    UTC: PostgreSQL would store `9999-12-31T23:59:59-12:00` as the year 10000, which no read
    could return."""
    if value is None:
        return None
    parsed: datetime | None = None
    if isinstance(value, datetime):
        parsed = value if value.tzinfo else value.replace(tzinfo=UTC)
    elif isinstance(value, date):
        parsed = datetime(value.year, value.month, value.day, tzinfo=UTC)
    elif isinstance(value, str):
        text = value.strip()
        try:
            if len(text) == 10:
                d = date.fromisoformat(text)
                parsed = datetime(d.year, d.month, d.day, tzinfo=UTC)
            else:
                parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
                parsed = parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
        except ValueError:
            pass
    if parsed is None:
        raise InvalidInput(
            f"{path} is not an ISO 8601 date", issues=[Issue(path, f"cannot parse {value!r}")]
        )
    try:
        parsed.astimezone(UTC)
    except OverflowError:
        raise InvalidInput(
            f"{path} is out of range",
            issues=[Issue(path, f"{value!r} falls outside the years 1–9999 in UTC")],
        ) from None
    return parsed
