"""A question's parts, made by the server: the substrings of a bound text that a stored key may
be, as an array for `key = ANY(...)` through the key's index — one probe each, however many keys
are stored. The walk's seeds (seeds.py) and the title lane (titles.py) look names up this way.

Each start's head of LONGEST characters is cut once: `substr` walks a UTF-8 text from its start,
so cutting every part from the whole text took O(length²) a part (1.7 s for a question of 4,000
characters, bench/recall_latency.py `--long`).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, select, true

# Keys longer than this are sentences, not names (resolve's `MAX_SUBSTRING_CUE`, the same bound);
# what may be longer (a source's whole title) is looked for another way.
LONGEST = 64


def substrings(text: Any, shortest: int, latin_shortest: int | None = None) -> Any:
    """The substrings of `text` (a SQL text expression) of `shortest` to LONGEST characters, as
    an array the server builds; with `latin_shortest`, an ASCII one needs that many."""
    at = func.generate_series(1, func.length(text)).table_valued("i").render_derived("starts")
    # (OFFSET 0 keeps the planner from folding the heads back into the parts)
    heads = select(func.substr(text, at.c.i, LONGEST).label("head")).offset(0).subquery("heads")
    lengths = (
        func.generate_series(shortest, func.length(heads.c.head))
        .table_valued("n")
        .render_derived("lengths")
        .lateral()
    )
    part = func.substr(heads.c.head, 1, lengths.c.n)
    parts = select(part).select_from(heads).join(lengths, true())
    if latin_shortest is not None:
        parts = parts.where(
            or_(lengths.c.n >= latin_shortest, func.octet_length(part) > lengths.c.n)
        )
    # ARRAY(subquery) is an init plan: the planner does not see the parts (estimating each
    # against the key's statistics took 3-5 ms), the index scan still takes them sorted.
    return func.array(parts.scalar_subquery())
