"""Alembic environment: runs on the connection that storage.migrate hands over."""

from alembic import context

from tabane.storage.schema import Base

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata, compare_type=True)
context.run_migrations()
