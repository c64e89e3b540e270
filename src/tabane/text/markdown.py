"""Markdown: heading-aware paragraphs that never split a fenced code block.

A line scanner following CommonMark where it matters for splitting: ATX headings (`#`…`######`, with
optional closing `#`s), setext headings (`===`/`---` right under a paragraph; `---` after a blank
line is a thematic break), fenced code blocks (``` or ~~~, three or more, closed only by a fence of
the same character at least as long; an unterminated fence runs to the end) and YAML front matter.
Headings are not blocks: they become the `section` path of the blocks below them.
"""

from __future__ import annotations

import re
from dataclasses import replace

from tabane.text.blocks import Block, ParsedDocument
from tabane.text.decoding import split_lines
from tabane.text.metadata import read_front_matter
from tabane.text.plain import NumberedLine, make_block

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})(.*)$")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?=[ \t]|$)(.*)$")
_ATX_CLOSE = re.compile(r"(?:^|[ \t])#+[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_THEMATIC = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
# A paragraph that starts a list item or block quote cannot take a setext underline.
_CONTAINER = re.compile(r"^\s*(?:[-+*]|\d{1,9}[.)])(?:\s|$)|^\s*>")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_ATTRIBUTES = re.compile(r"\s*\{[#.][^}]*\}\s*$")


def parse_markdown(text: str) -> ParsedDocument:
    lines = split_lines(text)
    front = read_front_matter(lines)
    start = front.end if front else 0
    splitter = _Splitter()
    splitter.feed([(number, lines[number - 1]) for number in range(start + 1, len(lines) + 1)])
    title = front.title if front and front.title else splitter.first_h1
    return ParsedDocument(
        format="markdown",
        title=title,
        blocks=tuple(splitter.blocks),
        date=front.date if front else None,
        tags=front.tags if front else (),
        area=front.area if front else None,
        state=front.state if front else None,
        warnings=front.warnings if front else (),
    )


class Outline:
    """The heading path at the current point of a document (an H2 after an H3 pops both), and the
    anchor of the innermost heading that has one (HTML: where a link to this point goes)."""

    def __init__(self) -> None:
        self._headings: list[tuple[int, str, str | None]] = []  # (level, text, anchor)

    def enter(self, level: int, text: str, anchor: str | None = None) -> None:
        while self._headings and self._headings[-1][0] >= level:
            self._headings.pop()
        self._headings.append((level, text, anchor))

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(text for _, text, _ in self._headings if text)

    @property
    def anchor(self) -> str | None:
        return next((a for _, _, a in reversed(self._headings) if a), None)


class _Splitter:
    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.first_h1: str | None = None
        self._outline = Outline()
        self._current: list[NumberedLine] = []

    def feed(self, lines: list[NumberedLine]) -> None:
        fence: tuple[str, int] | None = None  # (character, length) of the open fence
        for number, line in lines:
            if fence is not None:
                self._current.append((number, line))
                if _closes(line, fence):
                    self._flush(code=True)
                    fence = None
                continue
            opened = _opens(line)
            if opened is not None:
                self._flush()
                self._current.append((number, line))
                fence = opened
            elif not line.strip():
                self._flush()
            elif match := _ATX.match(line):
                self._flush()
                self._heading(len(match.group(1)), _ATX_CLOSE.sub("", match.group(2).strip()))
            elif (
                self._current and _SETEXT.match(line) and not _CONTAINER.match(self._current[0][1])
            ):
                text = " ".join(part.strip() for _, part in self._current)
                self._current = []
                self._heading(1 if line.strip().startswith("=") else 2, text)
            elif _THEMATIC.match(line):
                self._flush()
            else:
                self._current.append((number, line))
        self._flush(code=fence is not None)

    def _flush(self, *, code: bool = False) -> None:
        """The lines gathered as a block; a fenced block (fences kept) is code."""
        block = make_block(self._current, self._outline.path)
        if block is not None:
            self.blocks.append(replace(block, kind="code") if code else block)
        self._current = []

    def _heading(self, level: int, raw: str) -> None:
        text = clean_heading(raw)
        self._outline.enter(level, text)
        if level == 1 and text and self.first_h1 is None:
            self.first_h1 = text


def clean_heading(raw: str) -> str:
    """Heading text without inline markup that only decorates: links keep their text, code spans and
    strong emphasis lose their markers, trailing `{#id .class}` attributes go."""
    text = _ATTRIBUTES.sub("", raw)
    text = _LINK.sub(r"\1", text)
    text = text.replace("**", "").replace("`", "")
    return " ".join(text.split())


def _opens(line: str) -> tuple[str, int] | None:
    match = _FENCE.match(line)
    if match is None:
        return None
    fence, info = match.group(1), match.group(2)
    if fence[0] == "`" and "`" in info:
        return None  # an inline code span such as ```x```, not a fence
    return fence[0], len(fence)


def _closes(line: str, fence: tuple[str, int]) -> bool:
    stripped = line.strip()
    char, length = fence
    return len(stripped) >= length and stripped == char * len(stripped)
