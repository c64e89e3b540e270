"""What every derived build reads: the rows of a context that all of its readers can see.

A derived row (a community, a profile, a RAPTOR node) carries its context's scope set, so it may
be built only from rows whose own scope set lies inside that set; narrower rows (a private note
in a team context) are left out, and every writer of the context builds the same rows.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ARRAY, ColumnElement, Text, cast, literal

from tabane.errors import InvalidInput, Issue
from tabane.storage.schema import Context

MAX_ORDINAL = 10_000_000  # a level or ordinal past this is a mistake (and past PostgreSQL's int4)


def check_number(field: str, value: int | None, least: int) -> None:
    """A level or ordinal asked for: a whole number in least..MAX_ORDINAL (None: not asked)."""
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, int) or not least <= value <= MAX_ORDINAL
    ):
        raise InvalidInput(
            f"{field} must be a whole number in {least}..{MAX_ORDINAL}",
            issues=[Issue(field, f"{value!r} out of range")],
        )


def shared(table: Any, ctx: Context) -> list[ColumnElement[bool]]:
    """The conditions for `table`'s rows of `ctx` that every reader of the context can see."""
    box = cast(literal(sorted(ctx.scopes), ARRAY(Text)), ARRAY(Text))
    return [table.context_id == ctx.id, table.scopes.op("<@", is_comparison=True)(box)]
