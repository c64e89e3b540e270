"""The registry of MCP tools: a `ToolSpec` per tool, registered by the `@tool(kind)` decorator in
the tool modules; `catalog.all_tools()` imports them all.

A tool is a `ToolSpec`: a name, a description that teaches when to use it, a wire model of its
arguments (`tabane.wire`: its JSON schema is the tool's input schema; unknown arguments are refused,
so no call can name a user or borrow authority), the type of its result (its schema is the output
schema) and a function `(svc, user, args) -> result`. The acting user comes from the server, never
from arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, get_type_hints

from pydantic import TypeAdapter

from tabane.principal import Principal
from tabane.service import Tabane
from tabane.wire.base import Request

# `write` adds rows, `update` may overwrite some, `destroy` removes some; `read` changes nothing.
Kind = Literal["read", "write", "update", "destroy"]
_F = TypeVar("_F", bound=Callable[..., Any])


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    args: type[Request]
    result: type[Any]
    run: Callable[[Tabane, Principal, Any], object]
    kind: Kind

    @property
    def read_only(self) -> bool:
        return self.kind == "read"

    @property
    def destructive(self) -> bool:
        return self.kind in ("update", "destroy")

    @property
    def idempotent(self) -> bool:
        return self.kind != "write"

    def output_schema(self) -> dict[str, Any]:
        return TypeAdapter(self.result).json_schema(mode="serialization")


_registered: list[ToolSpec] = []


def tool(kind: Kind) -> Callable[[_F], _F]:
    """Register a function `(svc, user, a: <Request>) -> <Result>` as a tool named after it."""

    def register(fn: _F) -> _F:
        hints = get_type_hints(fn)
        doc = " ".join((fn.__doc__ or "").split())
        _registered.append(ToolSpec(fn.__name__, doc, hints["a"], hints["return"], fn, kind))
        return fn

    return register


def registered() -> tuple[ToolSpec, ...]:
    """The tools registered so far (see catalog.all_tools for every tool)."""
    return tuple(_registered)
