"""The migrations build exactly the schema the typed mappings describe."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from tabane.service import Tabane
from tabane.storage import migrate
from tabane.storage.schema import Base


def test_database_is_at_head(svc: Tabane) -> None:
    assert migrate.current(svc.store.owner) == migrate.head() == svc.revision()


def test_no_drift_between_mappings_and_migrations(svc: Tabane) -> None:
    with svc.store.owner.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    # The per-width HNSW indexes on expressions live only in the migration.
    drift = [d for d in diff if not (d[0] == "remove_index" and "_hnsw_" in d[1].name)]
    assert drift == []


def test_head_constant_matches_the_scripts() -> None:
    assert migrate.head() == migrate.HEAD
