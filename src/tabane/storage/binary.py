"""PostgreSQL's binary wire formats, for the two places where the text format costs more than
the work: vectors written as a binary `vector[]` parameter (formatting floats as text cost more
CPU than the rest of an embedding job's write), and bytea results read in binary (the text format
hex-encodes them, doubling what a BM25 read of common words transfers and decodes).

Both run on the session's own connection, inside its transaction, so its row-level security
applies as to any other statement."""

from __future__ import annotations

import functools
import struct
from collections.abc import Mapping
from typing import Any

import numpy as np
from psycopg.adapt import Dumper
from psycopg.pq import Format
from sqlalchemy import BindParameter, CompoundSelect, Select, bindparam, cast, func, select
from sqlalchemy.dialects.postgresql import OID
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import Session
from sqlalchemy.types import UserDefinedType


def vector_array(
    session: Session, name: str, vectors: np.ndarray[Any, np.dtype[Any]]
) -> BindParameter[Any]:
    """A bound parameter `name` holding `vectors` (rows) as one binary pgvector `vector[]`."""
    return bindparam(name, _packed(session, vectors), type_=_VectorArray())


def binary_rows(
    session: Session,
    stmt: Select[Any] | CompoundSelect[Any],
    params: Mapping[str, Any] | None = None,
) -> list[tuple[Any, ...]]:
    """The rows of `stmt`, its results sent in PostgreSQL's binary format (bytea as bytes).
    With `params`, `stmt` is a statement built once (its bound parameters named, without
    values): it is compiled once and run with these values (compiling a union of two selects
    cost ~2 ms, more than the server's work on a BM25 read)."""
    dialect = session.get_bind().dialect
    if params is None:
        compiled = stmt.compile(dialect=dialect)
        sql, values = str(compiled), dict(compiled.params)
    else:
        sql, defaults = _compiled(stmt, dialect)
        values = {**defaults, **params}
    driver = session.connection().connection.driver_connection
    assert driver is not None  # a checked-out connection
    with driver.cursor(binary=True) as cursor:
        cursor.execute(sql, values)
        return [tuple(row) for row in cursor.fetchall()]


@functools.lru_cache(maxsize=64)
def _compiled(stmt: Any, dialect: Dialect) -> tuple[str, dict[str, Any]]:
    compiled = stmt.compile(dialect=dialect)
    return str(compiled), dict(compiled.params)


class _Packed:
    """A `vector[]` value already in PostgreSQL's binary array format."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data


class _PackedDumper(Dumper):
    format = Format.BINARY

    def dump(self, obj: Any) -> bytes:
        data: bytes = obj.data
        return data


class _VectorArray(UserDefinedType[Any]):
    """A bound `vector[]` sent as is (a `_Packed`); psycopg gives it the type's oid."""

    cache_ok = True

    def get_col_spec(self, **kw: Any) -> str:
        return "VECTOR[]"


_OIDS = "tabane.vector_oids"  # key of the (vector, vector[]) oids in a connection's info


def _packed(session: Session, vectors: np.ndarray[Any, np.dtype[Any]]) -> _Packed:
    """`vectors` as a binary `vector[]`: the array header (one dimension, no nulls, the element
    type's oid), then per element its length and pgvector's `vector_recv` layout (uint16 width,
    uint16 unused, big-endian float4s). The oids are the database's, looked up once per
    connection, where the dumper is registered for `_Packed` alone."""
    connection = session.connection().connection
    oids = connection.info.get(_OIDS)
    if oids is None:
        row = session.execute(
            select(cast(func.to_regtype("vector"), OID), cast(func.to_regtype("vector[]"), OID))
        ).one()
        oids = (int(row[0]), int(row[1]))
        dumper = type("VectorArrayDumper", (_PackedDumper,), {"oid": oids[1]})
        driver = connection.driver_connection
        assert driver is not None  # a checked-out connection
        driver.adapters.register_dumper(_Packed, dumper)
        connection.info[_OIDS] = oids
    big = np.ascontiguousarray(vectors, dtype=">f4")
    n, dim = big.shape
    element = struct.pack(">iHH", 4 + 4 * dim, dim, 0)
    head = struct.pack(">iiIii", 1, 0, oids[0], n, 1)
    return _Packed(head + b"".join(element + row.tobytes() for row in big))
