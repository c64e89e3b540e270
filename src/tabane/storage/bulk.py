"""Bulk inserts as one `INSERT … SELECT FROM unnest(…)` statement.

COPY FROM is not allowed on tables under row-level security, and an executemany sends a statement
per batch of rows; one unnest insert sends each column as a single array parameter and still has
every row checked by the table's policies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import ARRAY, bindparam, func, insert, literal, select
from sqlalchemy.orm import Session
from sqlalchemy.sql.schema import Table
from sqlalchemy.types import TypeEngine


def insert_columns(
    session: Session,
    table: Table,
    columns: Mapping[str, Sequence[Any]],
    constants: Mapping[str, Any] | None = None,
) -> None:
    """Insert `len(column)` rows; `constants` give the same value to every row."""
    constants = constants or {}
    names = list(columns)
    if not names or not len(columns[names[0]]):
        return
    arrays = [
        bindparam(f"col_{name}", list(values), type_=ARRAY(_item_type(table, name)))
        for name, values in columns.items()
    ]
    rows = func.unnest(*arrays).table_valued(*names).render_derived(name="rows")
    const_cols = [
        literal(value, type_=table.c[name].type).label(name) for name, value in constants.items()
    ]
    stmt = insert(table).from_select(
        [*names, *constants], select(*(rows.c[n] for n in names), *const_cols)
    )
    session.execute(stmt)


def _item_type(table: Table, name: str) -> TypeEngine[Any]:
    return table.c[name].type
