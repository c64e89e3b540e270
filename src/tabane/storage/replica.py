"""Reads on a replica (TABANE_READ_DATABASE_URL), writes on the primary, in one transaction.

The HTTP surface marks a read-only route (api/replica.py) with `READ_REPLICA`; a transaction
opened under it (`Store.session`) is a `ReplicaSession`: its SELECTs run on the replica's engine
until its first write, and that write and everything after it on the primary's — so a read that
also counts its usage or records its trace writes those on the primary, and reads what it wrote
there. Each connection the session begins gets the principal's scopes first (the primary's in
`after_begin`), so row-level security holds on both servers alike: the replica's policies are
the primary's, replicated with everything else.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, Engine, event
from sqlalchemy.orm import Session

# Set (True) while a read-only HTTP route runs; Store.session then reads on the replica.
READ_REPLICA: contextvars.ContextVar[bool] = contextvars.ContextVar("read_replica", default=False)


class ReplicaSession(Session):
    """A session bound to the primary that sends its SELECTs to `replica` until it writes.
    `begin_primary(connection)` prepares the primary's connection when it is first used."""

    def __init__(
        self, primary: Engine, replica: Engine, begin_primary: Callable[[Connection], None]
    ) -> None:
        super().__init__(primary, expire_on_commit=False)
        self.replica = replica
        self.wrote = False
        self._begin_primary = begin_primary
        event.listen(self, "after_begin", self._began)

    def get_bind(self, mapper: Any = None, **kw: Any) -> Any:
        clause = kw.get("clause")
        # A SELECT, or a bare `session.connection()` (tabane's binary fast paths read through
        # it: storage/binary.py, graph/walk/fetch.py, graph/edges.py), reads on the replica;
        # DML, a flush (a mapper, no clause) or text tabane cannot classify go to the primary.
        bare = clause is None and mapper is None
        if not self.wrote and (bare or getattr(clause, "is_select", False)):
            return self.replica
        self.wrote = True  # sticky: reads after a write see it on the primary
        return super().get_bind(mapper, **kw)

    def _began(self, _session: Session, _transaction: Any, connection: Connection) -> None:
        if connection.engine is not self.replica:
            self._begin_primary(connection)
