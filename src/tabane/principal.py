"""The principal: the user a request acts for, with the scope sets it may read and write."""

from __future__ import annotations

from dataclasses import dataclass

PUBLIC = "public"


@dataclass(frozen=True)
class Principal:
    """The user a request acts for, with the scope sets it may read and write (write ⊆ read)."""

    user_id: int
    name: str
    read: frozenset[str]
    write: frozenset[str]
    default_scopes: tuple[str, ...]

    def can_write(self, scopes: tuple[str, ...] | frozenset[str]) -> bool:
        return set(scopes) <= self.write

    def can_read(self, scopes: tuple[str, ...] | frozenset[str]) -> bool:
        return set(scopes) <= self.read or set(scopes) == {PUBLIC}


def personal_scope(user_name: str) -> str:
    return f"user:{user_name}"
