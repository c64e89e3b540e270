"""API keys on the facade: owner operations (create, list, revoke) and `authenticate`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from tabane.access import keys
from tabane.access.keys import KeyInfo, NewKey
from tabane.principal import Principal
from tabane.service.base import ServiceBase


class KeysService(ServiceBase):
    def create_key(
        self,
        user: str,
        *,
        read: Sequence[str] | None = None,
        write: Sequence[str] | None = None,
        expires: datetime | None = None,
    ) -> NewKey:
        """A new key for `user`, narrower than (or equal to) the user; its token is shown once."""
        with self.store.admin() as session:
            return keys.create(
                session,
                user,
                read=None if read is None else list(read),
                write=None if write is None else list(write),
                expires=expires,
            )

    def list_keys(self, user: str | None = None) -> list[KeyInfo]:
        with self.store.admin() as session:
            return keys.list_keys(session, user)

    def revoke_key(self, prefix: str) -> KeyInfo:
        with self.store.admin() as session:
            return keys.revoke(session, prefix)

    def authenticate(self, token: str) -> Principal:
        """The principal an API key acts for; `Unauthorized` when the token is not good."""
        with self.store.admin() as session:
            return keys.authenticate(session, token)
