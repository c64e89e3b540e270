"""Tables as paragraphs: a small table whole, a large one split into groups of rows, each group
under the table's header rows, so that one row is found alone and still reads as what it is.

The sizes are characters of paragraph text. Measured over the library pages of python3.11-doc
(150 pages, 17,251 paragraphs before tables were split): the 90th percentile paragraph is 290
characters, so a group of rows is at most a long paragraph, and a table of up to two such
paragraphs stays whole.
"""

from __future__ import annotations

from collections.abc import Sequence

WHOLE = 600  # a table (header included) of at most this many characters is one paragraph
GROUP = 300  # rows are grouped while their text stays within this (the header not counted)
CELL = " | "  # between the cells of a row


def row_text(cells: Sequence[str]) -> str:
    """One row as a line: its non-empty cells, each on one line, joined by `CELL`."""
    return CELL.join(" ".join(cell.split()) for cell in cells if cell.strip())


def table_paragraphs(header: Sequence[str], rows: Sequence[str]) -> list[str]:
    """The paragraphs of a table given its header rows and body rows (lines of text)."""
    header = [h for h in header if h]
    rows = [r for r in rows if r]
    whole = "\n".join([*header, *rows])
    if len(whole) <= WHOLE or not rows:
        return [whole] if whole else []
    groups: list[list[str]] = [[]]
    size = 0
    for row in rows:
        if groups[-1] and size + len(row) > GROUP:
            groups.append([])
            size = 0
        groups[-1].append(row)
        size += len(row) + 1
    return ["\n".join([*header, *group]) for group in groups]
