"""What every derived build reads: the rows of a context that all of its readers can see.

A derived row (a community, a profile, a RAPTOR node) carries its context's scope set, so it may
be built only from rows whose own scope set lies inside that set; narrower rows (a private note
in a team context) are left out, and every writer of the context builds the same rows.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ARRAY, ColumnElement, Text, cast, literal

from tabane.storage.schema import Context


def shared(table: Any, ctx: Context) -> list[ColumnElement[bool]]:
    """The conditions for `table`'s rows of `ctx` that every reader of the context can see."""
    box = cast(literal(sorted(ctx.scopes), ARRAY(Text)), ARRAY(Text))
    return [table.context_id == ctx.id, table.scopes.op("<@", is_comparison=True)(box)]
