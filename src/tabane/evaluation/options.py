"""The evaluation runs' options, checked before a set is loaded or anything is written: a bad
value is refused by name, beside the values that are known, never after the work it would spoil."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tabane.errors import InvalidInput, Issue

MAX_LIMIT = 1000  # evidence associations per graph question; more is a mistake, not a study


def choices(path: str, noun: str, values: Sequence[str], known: Iterable[str]) -> list[Issue]:
    """An issue for each value that is not a known one, or one if none was given."""
    names = list(known)
    if not values:
        return [Issue(path, f"no {noun} given; known: {', '.join(names)}")]
    return [
        Issue(path, f"unknown {noun} {v!r}; known: {', '.join(names)}")
        for v in dict.fromkeys(values)
        if v not in names
    ]


def count(path: str, noun: str, value: int | None, least: int, most: int) -> list[Issue]:
    """An issue unless `value` is an integer in least..most (None: the default, always fine)."""
    if value is None:
        return []
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
        return [Issue(path, f"{noun} {value!r} is not in {least}..{most}")]
    return []


def refuse(issues: Sequence[Issue]) -> None:
    """Raise InvalidInput naming every bad value (the known ones are in its issues), if any."""
    if issues:
        message = "; ".join(i.problem.partition("; known:")[0] for i in issues)
        raise InvalidInput(message, issues=issues)
