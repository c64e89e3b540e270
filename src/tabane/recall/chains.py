"""Chains complete (issue 30 item 4, decision 0046): the edge that continues a served path is
read with it, not left past the cut.

The walk (recall/lanes/graph.py) scores each edge by the activation it gathers, so the third
edge of a chain — two hops from the concept the question names, through a node that passes a
share of what it got — ranks below the many one-hop edges of the seeds and lands past
`max_items`, while the two edges before it are served: the bundle holds a path that stops one
edge short of the answer. This step reads the served edges as a graph: a node that one served
edge reaches and that edge's other end continues (a served path of two edges ends there) is a
path's end; the first edge behind the cut that touches a path's end continues that path and
is moved to just after the path's last edge (one edge a path's end, at most `most` of them, in
their order behind the cut). The item that makes room is the last one ahead on no path of edges
(`_make_room`). An edge that touches no path's end keeps its place; so does every item that is
not an edge. The trace's notes name each edge moved and the path it completes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from tabane.recall.result import Evidence, Fact

_NOTE = "chain: "


def _ends(fact: Fact) -> tuple[tuple[str, str], tuple[str, str]]:
    return (fact.context, fact.subject), (fact.context, fact.object)


def _cut(ordered: Sequence[Evidence], max_items: int) -> int:
    """The index of the first item past `max_items` places, counting as order.py `_place`
    does: an item whose text or fact repeats an earlier one takes no place."""
    seen: set[str] = set()
    facts: set[Fact] = set()
    places = 0
    for n, it in enumerate(ordered):
        same = "".join(it.text.casefold().split())
        if same in seen or (it.fact is not None and it.fact in facts):
            continue
        seen.add(same)
        if it.fact is not None:
            facts.add(it.fact)
        places += 1
        if places > max_items:
            return n
    return len(ordered)


def path_ends(ahead: Sequence[Evidence]) -> dict[tuple[str, str], Evidence]:
    """The served paths' ends: each node that exactly one edge of `ahead` touches, when that
    edge's other end is touched by another edge of `ahead` (a path of two edges ends there),
    with that last edge."""
    touching: dict[tuple[str, str], list[Evidence]] = defaultdict(list)
    edges = [it for it in ahead if it.kind == "association" and it.fact is not None]
    for it in edges:
        for node in set(_ends(it.fact)):  # type: ignore[arg-type]
            touching[node].append(it)
    out: dict[tuple[str, str], Evidence] = {}
    for it in edges:
        a, b = _ends(it.fact)  # type: ignore[arg-type]
        for end, other in ((a, b), (b, a)):
            if end != other and len(touching[end]) == 1 and len(touching[other]) >= 2:
                out.setdefault(end, it)
    return out


def complete(
    ordered: Sequence[Evidence], max_items: int, most: int, notes: list[str] | None = None
) -> list[Evidence]:
    """`ordered` with up to `most` edges behind the cut that continue a served path moved to
    just after the path's last edge (module docstring); `notes` gets one line per edge moved."""
    out = list(ordered)
    if most <= 0:
        return out
    cut = _cut(out, max_items)
    ends = path_ends(out[:cut])
    moves: list[tuple[Evidence, Evidence]] = []
    for it in out[cut:]:
        if len(moves) >= most or it.kind != "association" or it.fact is None:
            continue
        touched = [n for n in _ends(it.fact) if n in ends]
        if touched and not any(it is m for m, _ in moves):
            moves.append((it, ends.pop(touched[0])))
    keep = {id(it) for pair in moves for it in pair}
    ahead, behind = out[:cut], out[cut:]
    for item, last in moves:
        behind.remove(item)
        ahead.insert(ahead.index(last) + 1, item)
        if notes is not None:
            notes.append(f"{_NOTE}{item.key} continues the served path that ends with {last.key}")
    return _make_room(ahead, max_items, keep) + behind


def _make_room(ahead: list[Evidence], max_items: int, keep: set[int]) -> list[Evidence]:
    """`ahead` within `max_items` places again: while it holds more, its last item that is on
    no served path (not an edge sharing a node with another edge ahead) and that no move
    involves goes behind — a path and its continuation are served together, and no other path
    loses an edge for it. Where no such item is left, the rest stays in order (the last edges
    fall behind the cut)."""
    evicted: list[Evidence] = []
    while _cut(ahead, max_items) < len(ahead):
        linked = _linked(ahead)
        free = [n for n, it in enumerate(ahead) if id(it) not in keep and id(it) not in linked]
        if not free:
            break
        evicted.insert(0, ahead.pop(free[-1]))
    return ahead + evicted


def _linked(ahead: Sequence[Evidence]) -> set[int]:
    """The edges of `ahead` (by `id`) that share a node with another edge of `ahead`."""
    touching: dict[tuple[str, str], list[int]] = defaultdict(list)
    for it in ahead:
        if it.kind == "association" and it.fact is not None:
            for node in set(_ends(it.fact)):
                touching[node].append(id(it))
    return {i for ids in touching.values() if len(ids) > 1 for i in ids}
