"""Plain text: paragraphs at blank lines, each with the 1-based line range it came from."""

from __future__ import annotations

from collections.abc import Sequence

from tabane.text.blocks import Block, Locator, ParsedDocument
from tabane.text.decoding import split_lines

NumberedLine = tuple[int, str]  # (1-based line number, line text)


def make_block(lines: Sequence[NumberedLine], section: tuple[str, ...] = ()) -> Block | None:
    """One block from consecutive source lines, or None when they are all blank.

    Lines keep their breaks (nothing is reflowed); trailing spaces go, and the locator spans the
    first to the last non-blank line.
    """
    filled = [number for number, text in lines if text.strip()]
    if not filled:
        return None
    body = "\n".join(text.rstrip() for _, text in lines).strip()
    return Block(body, section, Locator("line_range", filled[0], filled[-1]))


def parse_text(text: str) -> ParsedDocument:
    blocks: list[Block] = []
    current: list[NumberedLine] = []
    for number, line in enumerate(split_lines(text), start=1):
        if line.strip():
            current.append((number, line))
            continue
        block = make_block(current)
        if block is not None:
            blocks.append(block)
        current = []
    block = make_block(current)
    if block is not None:
        blocks.append(block)
    return ParsedDocument(format="text", title=None, blocks=tuple(blocks))
