"""Bulk inserts: one `INSERT … SELECT FROM unnest(…)` statement, or binary COPY through a
session-private staging table.

COPY FROM is not allowed on tables under row-level security, and an executemany sends a statement
per batch of rows; one unnest insert sends each column as a single array parameter and still has
every row checked by the table's policies. `copy_columns` goes further for the large writes of an
ingest (paragraphs, postings): the rows travel by binary COPY into a temporary table of this
connection (no policy, no index, no other session can see it), then one `INSERT … SELECT` moves
them into the real table, where the policies' WITH CHECK, the constraints and the foreign keys
decide exactly as for any other insert. Row-level security stays the one boundary; what COPY saves
is the client's work (no giant statement to build and parse) and the text form of each value.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from sqlalchemy import ARRAY, bindparam, column, func, insert, literal, select, text
from sqlalchemy import table as table_clause
from sqlalchemy.dialects import postgresql
from sqlalchemy.exc import DataError
from sqlalchemy.orm import Session
from sqlalchemy.sql.schema import Table
from sqlalchemy.types import TypeEngine

_DIALECT = postgresql.dialect()  # type: ignore[no-untyped-call]


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


def copy_columns(
    session: Session,
    table: Table,
    columns: Mapping[str, Sequence[Any]],
    constants: Mapping[str, Any] | None = None,
) -> None:
    """`insert_columns` by binary COPY into this connection's staging table for `table` and
    these columns, then one `INSERT … SELECT` into `table` under its policies. The staging table
    is made once per connection and truncated after each use, so a transaction may stage many
    times and no row outlives its statement (a failed one rolls back with the transaction, and
    one made in a rolled-back transaction is made again by the next call)."""
    constants = constants or {}
    names = list(columns)
    if not names or not len(columns[names[0]]):
        return
    pending: dict[tuple[Table, tuple[str, ...]], dict[str, list[Any]]] | None = session.info.get(
        _DEFERRED
    )
    if pending is not None:  # `deferred`: the constants become columns, written at the end
        n = len(columns[names[0]])
        rows = pending.setdefault((table, (*names, *constants)), {})
        for name in names:
            rows.setdefault(name, []).extend(columns[name])
        for name, value in constants.items():
            rows.setdefault(name, []).extend([value] * n)
        return
    _copy_now(session, table, columns, constants)


_DEFERRED = "tabane.bulk.deferred"  # session.info key of the rows `deferred` holds back


@contextmanager
def deferred(session: Session) -> Iterator[None]:
    """Within the block, `copy_columns` collects its rows per table and columns and writes each
    set once, on the way out (or at `flush_deferred`), in the order the sets were first staged
    (sections before the paragraphs that name them, before their packs). A transaction that
    stores many sources (a group of files, ingest/batch.py) then makes one COPY and one
    `INSERT … SELECT` per table instead of per source: the same rows, under the same policies.
    A reader of those tables inside the block calls `flush_deferred` first."""
    session.info[_DEFERRED] = {}
    try:
        yield
        flush_deferred(session)
    finally:  # a failed block drops what it held: its transaction is rolled back
        session.info.pop(_DEFERRED, None)


def flush_deferred(session: Session) -> None:
    """Write the rows `deferred` holds so far (nothing outside a `deferred` block)."""
    pending = session.info.get(_DEFERRED)
    if not pending:
        return
    session.info[_DEFERRED] = {}
    for (table, _), columns in pending.items():
        _copy_now(session, table, columns, {})


def _copy_now(
    session: Session,
    table: Table,
    columns: Mapping[str, Sequence[Any]],
    constants: Mapping[str, Any],
) -> None:
    names = list(columns)
    stage = _stage_name(table, names)
    listed = ", ".join(names)
    session.execute(
        text(
            f"CREATE TEMPORARY TABLE IF NOT EXISTS {stage} AS "
            f"SELECT {listed} FROM {table.name} WITH NO DATA"
        )
    )
    driver = session.connection().connection.driver_connection
    assert driver is not None  # a checked-out connection
    types = [_copy_type(table.c[n].type) for n in names]
    sql = f"COPY {stage} ({listed}) FROM STDIN (FORMAT BINARY)"
    try:
        with driver.cursor() as cursor, cursor.copy(sql) as copy:
            copy.set_types(types)
            for row in zip(*(columns[n] for n in names), strict=True):
                copy.write_row(row)
    except psycopg.DataError as exc:  # as SQLAlchemy wraps it: the store's net reads it
        raise DataError(sql, None, exc) from exc
    const_cols = [
        literal(value, type_=table.c[name].type).label(name) for name, value in constants.items()
    ]
    staged = table_clause(stage, *(column(n, table.c[n].type) for n in names))
    session.execute(
        insert(table).from_select(
            [*names, *constants], select(*(staged.c[n] for n in names), *const_cols)
        )
    )
    session.execute(text(f"TRUNCATE {stage}"))


def _stage_name(table: Table, names: Sequence[str]) -> str:
    digest = hashlib.blake2b(",".join(names).encode(), digest_size=4).hexdigest()
    return f"tabane_stage_{table.name}_{digest}"


def _copy_type(type_: TypeEngine[Any]) -> str:
    """The PostgreSQL type name psycopg dumps a column's values as (collation dropped)."""
    return type_.compile(dialect=_DIALECT).split(" COLLATE ")[0].lower()


def _item_type(table: Table, name: str) -> TypeEngine[Any]:
    return table.c[name].type
