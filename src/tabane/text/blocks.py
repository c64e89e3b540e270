"""The shapes a parsed document takes: blocks (paragraphs) with a section path and a locator.

Every parser returns a `ParsedDocument`; documents.py picks the parser."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, cast, get_args

from tabane.errors import Issue

LocatorKind = Literal["page", "line_range", "slide", "sheet", "table", "anchor"]
# What a paragraph is: running text, or code (preformatted text: `<pre>`, a fenced block, roff's
# no-fill text), whose line breaks are part of it and which a reader shows verbatim.
BlockKind = Literal["text", "code"]
BLOCK_KINDS: tuple[str, ...] = get_args(BlockKind)


@dataclass(frozen=True)
class Locator:
    """Where a block sits in its document: a page, a 1-based inclusive range of lines, …, or the
    anchor (an HTML fragment id) of the nearest heading above it, which a link to the document
    can carry after `#`."""

    kind: LocatorKind
    start: int | None = None  # 1-based (page number, first line); None for an anchor
    end: int | None = None  # inclusive (last line); None for a single page
    value: str | None = None  # an anchor's fragment id; None for the numbered kinds

    def __post_init__(self) -> None:
        if self.kind not in get_args(LocatorKind):
            raise ValueError(f"unknown locator kind {self.kind!r}")
        if self.kind == "anchor":
            if not self.value or self.start is not None or self.end is not None:
                raise ValueError("an anchor locator has a non-empty value and no start or end")
            return
        if self.value is not None:
            raise ValueError(f"a {self.kind} locator has no value")
        if self.start is None or self.start < 1:
            raise ValueError(f"invalid locator start {self.start}")
        if self.end is not None and self.end < self.start:
            raise ValueError(f"invalid locator range {self.start}..{self.end}")

    def to_json(self) -> dict[str, object]:
        if self.kind == "anchor":
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
        if kind not in get_args(LocatorKind):
            raise ValueError(f"invalid locator {data!r}")
        if any(v is not None and not isinstance(v, int) for v in (start, end)):
            raise ValueError(f"invalid locator {data!r}")
        if value is not None and not isinstance(value, str):
            raise ValueError(f"invalid locator {data!r}")
        return cls(
            cast(LocatorKind, kind), cast("int | None", start), cast("int | None", end), value
        )


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
