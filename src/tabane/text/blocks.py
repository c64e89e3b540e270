"""The shapes a parsed document takes: blocks (paragraphs) with a section path and a locator.

Every parser returns a `ParsedDocument`; documents.py picks the parser."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, cast, get_args

from tabane.errors import Issue

# The typed kinds: a numbered kind counts `start` (and `end`); an anchor is an HTML fragment id.
# Any other kind is open (decision 0023): `{kind, value}`, a pair stored and served back unchanged
# (`{"kind": "sheet", "value": "Q3!A1:C4"}`, Taguru's form); a numbered kind may take that form too.
LocatorKind = Literal["page", "line_range", "slide", "sheet", "table", "anchor"]
NUMBERED_KINDS = frozenset({"page", "line_range", "slide", "sheet", "table"})
MAX_LOCATOR_KIND = 64  # characters
MAX_LOCATOR_VALUE = 1024
# What a paragraph is: running text, or code (preformatted text: `<pre>`, a fenced block, roff's
# no-fill text), whose line breaks are part of it and which a reader shows verbatim.
BlockKind = Literal["text", "code"]
BLOCK_KINDS: tuple[str, ...] = get_args(BlockKind)


class LocatorError(ValueError):
    """A locator refused, naming its field (`kind`, `value`, `start`, `end`)."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(problem)
        self.field = field


@dataclass(frozen=True)
class Locator:
    """Where a block sits in its document. Either numbered — a page, a 1-based inclusive range
    of lines, a slide, a sheet, a table (`start`, `end`) — or open: any `kind` with a string
    `value` (an anchor is the typed open kind: the fragment id of the nearest heading above it,
    which a link to the document can carry after `#`)."""

    kind: str
    start: int | None = None  # 1-based (page number, first line); None for the open form
    end: int | None = None  # inclusive (last line); None for a single page
    value: str | None = None  # the open form's value (an anchor's fragment id)

    def __post_init__(self) -> None:
        if not self.kind or len(self.kind) > MAX_LOCATOR_KIND or self.kind != self.kind.strip():
            raise LocatorError("kind", f"1 to {MAX_LOCATOR_KIND} characters, unpadded")
        if self.value is not None:
            if self.start is not None or self.end is not None:
                raise LocatorError("value", "a value or a start and end, not both")
            if not self.value.strip() or len(self.value) > MAX_LOCATOR_VALUE:
                raise LocatorError("value", f"1 to {MAX_LOCATOR_VALUE} characters, not blank")
            return
        if self.kind not in NUMBERED_KINDS:  # an open kind counts nothing: it needs a value
            counted = ", ".join(sorted(NUMBERED_KINDS))
            field = "value" if self.start is None and self.end is None else "kind"
            raise LocatorError(field, f"an open kind takes a value; only {counted} take a start")
        if self.start is None or self.start < 1:
            raise LocatorError("start", f"an integer from 1, not {self.start}")
        if self.end is not None and self.end < self.start:
            raise LocatorError("end", f"less than start ({self.start}..{self.end})")

    def to_json(self) -> dict[str, object]:
        if self.value is not None:
            return {"kind": self.kind, "value": self.value}
        out: dict[str, object] = {"kind": self.kind, "start": self.start}
        if self.end is not None:
            out["end"] = self.end
        return out

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Locator:
        kind, start, end, value = (
            data["kind"],
            data.get("start"),
            data.get("end"),
            data.get("value"),
        )
        if not isinstance(kind, str):
            raise LocatorError("kind", "not a string")
        for name, number in (("start", start), ("end", end)):
            if number is not None and (not isinstance(number, int) or isinstance(number, bool)):
                raise LocatorError(name, "not an integer")
        if value is not None and not isinstance(value, str):
            raise LocatorError("value", "not a string")
        return cls(kind, cast("int | None", start), cast("int | None", end), value)


@dataclass(frozen=True)
class Block:
    """One paragraph of a document."""

    text: str  # stripped, never empty
    section: tuple[str, ...]  # heading path, outermost first; () before any heading
    locator: Locator | None = None
    kind: BlockKind = "text"

    def __post_init__(self) -> None:
        if not self.text or self.text != self.text.strip():
            raise ValueError("block text must be non-empty and stripped")
        if self.kind not in BLOCK_KINDS:
            raise ValueError(f"unknown paragraph kind {self.kind!r}")


@dataclass(frozen=True)
class ParsedDocument:
    format: str  # "text" | "markdown" | "html" | "pdf" | "man"
    title: str | None
    blocks: tuple[Block, ...]  # may be empty => the caller treats the document as empty
    date: str | None = None  # ISO date (or date-time) from front matter or HTML meta
    tags: tuple[str, ...] = ()  # from front matter `tags:`
    area: str | None = None  # from front matter `area:`
    state: str | None = None  # from front matter `state:` (one of SOURCE_STATES)
    # metadata the document declares that could not be read (a `date` that is not a date): the
    # document is stored without it, and the ingest answer says so
    warnings: tuple[Issue, ...] = ()
