"""A command's result for a person: one registry of renderers keyed by the result's type (or,
for a result that is a plain dict, by the kind the command names), rich tables and text on
stdout. What has no renderer is printed as JSON (`common.emit`). No colour when stdout is not a
terminal or NO_COLOR is set; stored text is shown with its control characters escaped."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar

from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from tabane.cli.common import shown

T = TypeVar("T")
Render = Callable[[Any], RenderableType | Sequence[RenderableType]]  # a str: printed verbatim
Row = Callable[[Any], Mapping[str, object]]
# What a result of a type (or a named kind) is shown as: a whole renderer, or one table row.
RENDERERS: dict[type | str, Render] = {}
ROWS: dict[type, Row] = {}
_MODULES = (
    "tabane.cli.render.search",
    "tabane.cli.render.admin",
    "tabane.cli.render.graph",
    "tabane.cli.render.schema",
)


def renders(key: type | str) -> Callable[[T], T]:
    """Register the renderer of a result type (or of a dict-shaped result's kind)."""

    def register(fn: T) -> T:
        RENDERERS[key] = fn  # type: ignore[assignment]
        return fn

    return register


def row(key: type) -> Callable[[T], T]:
    """Register one item's row: a list of such items is a table, one item a list of fields."""

    def register(fn: T) -> T:
        ROWS[key] = fn  # type: ignore[assignment]
        return fn

    return register


def console() -> Console:
    """A console on this command's stdout: colour only on a terminal without NO_COLOR."""
    plain = not sys.stdout.isatty() or "NO_COLOR" in os.environ
    return Console(
        file=sys.stdout,
        no_color=plain,
        color_system=None if plain else "auto",
        highlight=False,
        emoji=False,
        markup=False,
        width=None if sys.stdout.isatty() else 100,
    )


def show(value: Any, kind: str | None = None, said: str | None = None) -> bool:
    """Print `value` for a person; False when nothing renders it (the caller prints JSON)."""
    if said is not None:
        console().print(Text(shown(said)))
        return True
    found = renderer(value, kind)
    if found is None:
        return False
    out = found(value)
    parts = [out] if isinstance(out, (str, Text, Table)) or not isinstance(out, Sequence) else out
    screen = console()
    for part in parts:
        if isinstance(part, str):  # verbatim (a recall's bundle): no rewrap, tabs kept
            screen.file.write(part + "\n")
            continue
        with screen.capture() as drawn:
            screen.print(part, soft_wrap=isinstance(part, Text))
        lines = drawn.get().splitlines()  # a table's cells are padded to the line's end
        screen.file.write("".join(line.rstrip(" ") + "\n" for line in lines))
    return True


def renderer(value: Any, kind: str | None) -> Render | None:
    if not RENDERERS:
        import importlib

        for module in _MODULES:
            importlib.import_module(module)
    if kind is not None:
        return RENDERERS.get(kind)
    for cls in type(value).__mro__:
        if cls in RENDERERS:
            return RENDERERS[cls]
        if cls in ROWS:
            one = ROWS[cls]
            return lambda v: fields(one(v))
    if isinstance(value, list):
        if not value:
            return lambda _v: Text("none")
        each = next((ROWS[c] for c in type(value[0]).__mro__ if c in ROWS), None)
        if each is not None:
            rows = each
            return lambda v: table([rows(item) for item in v])
    return None


def text(value: object) -> str:
    """One cell: nothing as `-`, a list joined, an instant to the second, stored text escaped."""
    if value is None or value == () or value == []:
        return "-"
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, (list, tuple)):
        return ", ".join(text(v) for v in value)
    if isinstance(value, float):
        return f"{value:.3f}"
    return shown(str(value))


def table(rows: Sequence[Mapping[str, object]], title: str | None = None) -> Table:
    """Rows with the same keys as a table whose columns are those keys."""
    out = Table(title=title, box=None, header_style="bold", pad_edge=False)
    for name in rows[0] if rows else ():
        out.add_column(name, overflow="fold")
    for r in rows:
        out.add_row(*(text(v) for v in r.values()))
    return out


def fields(values: Mapping[str, object]) -> Table:
    """One item as `name  value` lines."""
    out = Table.grid(padding=(0, 2))
    out.add_column(style="bold")
    out.add_column(overflow="fold")
    for name, value in values.items():
        out.add_row(name, text(value))
    return out


def snippet(body: str, width: int = 160) -> str:
    """A paragraph as one line of at most `width` characters."""
    line = " ".join(body.split())
    return line if len(line) <= width else line[: width - 1].rstrip() + "…"
