"""Document metadata: a tiny YAML front matter reader and date normalization.

Front matter is read with a hand parser for the few shapes documentation uses (`key: value`, `tags:
[a, b]`, `tags: a, b` and block lists of `- a` items); anything else is ignored, never an error.
A `title`, `date` or `state` that is there but cannot be read is a warning: the document is stored
without it, and the ingest answer names the field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime

from tabane.checks import SOURCE_STATES
from tabane.errors import Issue

_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:(?:\s+(.*?))?\s*$")
_ITEM = re.compile(r"^\s+-\s+(.*?)\s*$|^-\s+(.*?)\s*$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class FrontMatter:
    end: int  # index of the first line after the closing delimiter
    title: str | None
    date: str | None
    tags: tuple[str, ...]
    warnings: tuple[Issue, ...] = ()
    area: str | None = None
    state: str | None = None  # one of SOURCE_STATES; another value is a warning


def read_front_matter(lines: list[str]) -> FrontMatter | None:
    """Front matter at the top of `lines` (`---` … `---` or `...`), or None when there is none."""
    if not lines or lines[0].rstrip() != "---":
        return None
    for end in range(1, len(lines)):
        if lines[end].rstrip() in ("---", "..."):
            break
    else:
        return None
    fields: dict[str, str | list[str]] = {}
    key: str | None = None
    for line in lines[1:end]:
        item = _ITEM.match(line)
        if item and key is not None:
            value = fields.setdefault(key, [])
            if isinstance(value, list):
                value.append(_scalar(item.group(1) or item.group(2) or ""))
            continue
        match = _KEY.match(line)
        if match is None:
            continue  # nested mappings, block scalars' bodies, comments
        key = match.group(1).lower()
        raw = match.group(2) or ""
        fields[key] = [] if raw == "" else raw
    title, raw_title = _text(fields.get("title")), fields.get("title", "")
    when, raw_date = iso_date(_text(fields.get("date")) or ""), fields.get("date", "")
    warnings = []  # a field left empty (`date:`, `title: ""`) is no warning
    if title is None and (isinstance(raw_title, list) or raw_title[:1] in ("|", ">")) and raw_title:
        warnings.append(Issue("front_matter.title", f"{_shown(raw_title)} {_UNREAD_TITLE}"))
    if when is None and (isinstance(raw_date, list) or _text(raw_date)) and raw_date:
        warnings.append(Issue("front_matter.date", f"{_shown(raw_date)} {UNREAD_DATE}"))
    state = _text(fields.get("state"))
    if state is not None and state.lower() not in SOURCE_STATES:
        warnings.append(Issue("front_matter.state", f"{_shown(state)} {_UNREAD_STATE}"))
    state = state.lower() if state is not None and state.lower() in SOURCE_STATES else None
    tags, area = _tags(fields.get("tags")), _text(fields.get("area"))
    return FrontMatter(end + 1, title, when, tags, tuple(warnings), area, state)


_UNREAD_TITLE = "is not a one-line title: the title is the first heading's, or the source id's"
UNREAD_DATE = "is not an ISO 8601 date or date-time (2024-05-01): the source has no date"
_UNREAD_STATE = f"is not a state ({', '.join(SOURCE_STATES)}): the source has none"


def _shown(value: str | list[str]) -> str:
    """A field's value as a warning quotes it (a long one cut)."""
    text = value if isinstance(value, str) else "[" + ", ".join(value) + "]"
    return repr(text if len(text) <= 60 else text[:59] + "…")


def iso_date(value: str) -> str | None:
    """`value` as an ISO 8601 date (`2024-05-01`) or date-time, or None when it is not one."""
    value = value.strip()
    if not value:
        return None
    try:
        if _DATE.match(value):
            return date.fromisoformat(value).isoformat()
        return datetime.fromisoformat(value).isoformat()
    except ValueError:
        return None


def _text(value: str | list[str] | None) -> str | None:
    if value is None or isinstance(value, list):
        return None
    if value[:1] in ("|", ">"):
        return None  # block scalar: not supported, and not a title
    text = _scalar(value)
    return text or None


def _tags(value: str | list[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = _strip_comment(value)
        if value.startswith("[") and value.endswith("]"):
            value = value[1:-1]
        items = [_scalar(part) for part in value.split(",")]
    else:
        items = value
    out: list[str] = []
    for item in items:
        if item and item not in out:
            out.append(item)
    return tuple(out)


def _scalar(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1].strip()
    return _strip_comment(value)


def _strip_comment(value: str) -> str:
    """Plain YAML scalars end at ` #`."""
    cut = value.find(" #")
    return (value if cut < 0 else value[:cut]).strip()
