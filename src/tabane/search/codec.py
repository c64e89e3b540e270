"""The byte formats of BM25 postings, behind one pair: `encode` (a merged row's bytes) and
`decode` (any stored blob back to columns). Pure numpy, no SQL (decision 0038).

Two formats, told apart by a blob's first byte:

- **PACK** (decision 0011): 20-byte big-endian records (int8 id, int4 tf, qtf, dl), as
  PostgreSQL's int8send/int4send write them. Fresh packs (`bm25_packs`, one row per source and
  term, a record or two each) are written in it, and merged rows written before decision 0038.
  Its first byte is the high byte of a positive id: 0 for every id below 2^56.
- **Compact** (`MARK`, the merged rows since 0038): one or more segments, each a 14-byte
  little-endian header — `MARK`, a widths byte (2 bits a column: 1, 2, 4 or 0 bytes), the record
  count (uint32), the segment's first id (int64) — then its columns one after the other: id
  offsets from that first id, tf, qtf, dl, each in the narrowest unsigned width its largest
  value fits (none at all when every value is 0: qtf without doc2query questions). A row's
  records are sorted by id, so offsets are never negative; a gap that would need more than 4
  bytes starts a new segment. Nothing is clamped: a tf or dl over 65,535 makes
  its row's column 4 bytes wide, exactly as PACK's int4 held it; a value outside 0..2^32−1
  (which PACK's int4 could not hold either) raises instead of wrapping.

A blob is one format throughout: a merged row is written by `encode` alone; fresh packs, and
the server's concatenations of them (`string_agg`), stay PACK.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

PACK = np.dtype([("id", ">i8"), ("tf", ">i4"), ("qtf", ">i4"), ("dl", ">i4")])
MARK = 0xC1  # a compact segment's first byte (version 1); never a PACK blob's first byte
HEAD = 14  # MARK, widths, n (uint32), first id (int64)
_WIDTHS = (1, 2, 4, 0)  # by the widths byte's 2-bit codes; 0: the column is all zeros, not sent
_UINT: dict[int, np.dtype[Any]] = {
    0: np.dtype("u1"),
    1: np.dtype("u1"),
    2: np.dtype("<u2"),
    4: np.dtype("<u4"),
}
_LIMIT = 1 << 32  # every column's values and every segment's id offsets stay below

Array = np.ndarray[Any, np.dtype[Any]]
COLUMNS = ("id", "tf", "qtf", "dl")


@dataclass(frozen=True)
class Records:
    """Postings as columns: `id` (int64) and the counts (unsigned or int, as stored). Indexing
    by a column name gives that column; by a mask or index array, the records it selects."""

    id: Array
    tf: Array
    qtf: Array
    dl: Array

    def __len__(self) -> int:
        return len(self.id)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return getattr(self, key)
        return Records(self.id[key], self.tf[key], self.qtf[key], self.dl[key])

    @classmethod
    def of(cls, recs: Any) -> Records:
        """From `Records` or any array with the four fields (a PACK array)."""
        if isinstance(recs, Records):
            return recs
        return cls(np.asarray(recs["id"], np.int64), recs["tf"], recs["qtf"], recs["dl"])

    @classmethod
    def concat(cls, parts: Sequence[Records]) -> Records:
        if len(parts) == 1:
            return parts[0]
        if not parts:
            return EMPTY
        cols = [np.concatenate([getattr(p, c) for p in parts]) for c in COLUMNS]
        return cls(*cols)

    def tolist(self) -> list[tuple[int, int, int, int]]:
        """(id, tf, qtf, dl) per record, in stored order."""
        cols = [getattr(self, c).tolist() for c in COLUMNS]
        return list(zip(*cols, strict=True))


EMPTY = Records(*(np.zeros(0, np.int64) for _ in COLUMNS))


def pack(recs: Records) -> bytes:
    """PACK bytes of `recs` (fresh packs), in the given order; values must fit int4."""
    for name in COLUMNS[1:]:
        _check(name, getattr(recs, name), 1 << 31)
    out = np.empty(len(recs), dtype=PACK)
    for name in COLUMNS:
        out[name] = getattr(recs, name)
    return out.tobytes()


def encode(recs: Records) -> bytes:
    """A merged row's compact bytes: `recs` sorted by id, cut into segments where an id offset
    would reach 2^32, each column in its narrowest width."""
    if not len(recs):
        return b""
    order = np.argsort(recs.id, kind="stable")
    ids = np.asarray(recs.id, np.int64)[order]
    cols = [np.asarray(getattr(recs, c))[order] for c in COLUMNS[1:]]
    for name, col in zip(COLUMNS[1:], cols, strict=True):
        _check(name, col, _LIMIT)
    out: list[bytes] = []
    start = 0
    while start < len(ids):
        base = int(ids[start])
        end = start + int(np.searchsorted(ids[start:], base + _LIMIT, side="left"))
        columns = [ids[start:end] - base, *(c[start:end] for c in cols)]
        widths = [_width(c) for c in columns]
        code = sum(_WIDTHS.index(w) << (2 * k) for k, w in enumerate(widths))
        out.append(
            bytes((MARK, code))
            + (end - start).to_bytes(4, "little")
            + base.to_bytes(8, "little", signed=True)
        )
        out += [c.astype(_UINT[w]).tobytes() for c, w in zip(columns, widths, strict=True) if w]
        start = end
    return b"".join(out)


def encode_rows(recs: Records, sizes: Sequence[int]) -> list[bytes]:
    """`encode` of each row of `recs` cut into consecutive rows of `sizes` records (a merge
    step's terms), the same bytes, with the columns sorted, checked and cast once for all rows:
    encoding row by row cost ~0.3 ms a term, most of a merge step."""
    counts = np.asarray(sizes, np.int64)
    order = np.lexsort((recs.id, np.repeat(np.arange(len(counts)), counts)))
    ids = np.asarray(recs.id, np.int64)[order]
    cols = [np.asarray(getattr(recs, c))[order] for c in COLUMNS[1:]]
    for name, col in zip(COLUMNS[1:], cols, strict=True):
        _check(name, col, _LIMIT)
    starts = np.concatenate(([0], np.cumsum(counts)))[:-1]
    held = counts > 0
    if not held.any():
        return [b""] * len(counts)
    bases = ids[starts[held]]
    columns = [ids - np.repeat(bases, counts[held]), *cols]
    tops = [np.maximum.reduceat(c, starts[held]) for c in columns]
    # each row's width code per column (codes index _WIDTHS: 1, 2, 4 bytes, 0 for all zeros)
    codes = [np.select([t == 0, t < 1 << 8, t < 1 << 16], [3, 0, 1], 2) for t in tops]
    code = np.zeros(len(tops[0]), np.int64)
    for k, c in enumerate(codes):
        code |= c << (2 * k)
    wide = (tops[0] >= _LIMIT).tolist()
    cast = {w: [c.astype(_UINT[w]) for c in columns] for w in _WIDTHS if w}
    out: list[bytes] = []
    row = 0
    rows = zip(starts.tolist(), counts.tolist(), held.tolist(), strict=True)
    for start, n, has in rows:
        if not has:
            out.append(b"")
            continue
        if wide[row]:  # an id gap past 4 bytes: segments, as `encode` cuts them
            out.append(
                encode(Records(ids[start : start + n], *(c[start : start + n] for c in cols)))
            )
        else:
            byte = int(code[row])
            head = (
                bytes((MARK, byte))
                + n.to_bytes(4, "little")
                + int(bases[row]).to_bytes(8, "little", signed=True)
            )
            widths = [_WIDTHS[(byte >> (2 * k)) & 3] for k in range(len(COLUMNS))]
            body = [cast[w][k][start : start + n].tobytes() for k, w in enumerate(widths) if w]
            out.append(head + b"".join(body))
        row += 1
    return out


def decode(blob: bytes | memoryview | None) -> Records:
    """The records of a stored blob in either format (a PACK blob may be several packs
    concatenated, a compact one several segments): columns are views where the width allows."""
    raw = bytes(blob) if blob else b""
    if not raw:
        return EMPTY
    if raw[0] != MARK:
        if len(raw) % PACK.itemsize:
            raise ValueError(f"a PACK blob of {len(raw)} bytes is not whole records")
        return Records.of(np.frombuffer(raw, dtype=PACK))
    parts: list[Records] = []
    at = 0
    while at < len(raw):
        if raw[at] != MARK or len(raw) - at < HEAD:
            raise ValueError(f"no compact segment header at byte {at} of {len(raw)}")
        code = raw[at + 1]
        n = int.from_bytes(raw[at + 2 : at + 6], "little")
        base = int.from_bytes(raw[at + 6 : at + HEAD], "little", signed=True)
        at += HEAD
        cols = []
        for k in range(len(COLUMNS)):
            width = _WIDTHS[(code >> (2 * k)) & 3]
            if width:
                cols.append(np.frombuffer(raw, _UINT[width], n, at))
                at += n * width
            else:
                cols.append(np.zeros(n, _UINT[0]))
        ids = cols[0].astype(np.int64)
        ids += base
        parts.append(Records(ids, *cols[1:]))
    return Records.concat(parts)


def _width(col: Array) -> int:
    top = int(col.max()) if len(col) else 0
    return 0 if top == 0 else next(w for w in _WIDTHS if top < (1 << (8 * w)))


def _check(name: str, col: Any, limit: int) -> None:
    col = np.asarray(col)
    if not len(col):
        return
    low, high = int(col.min()), int(col.max())
    if low < 0 or high >= limit:
        bad = low if low < 0 else high
        raise ValueError(f"a posting's {name} is {bad}, outside 0..{limit - 1}")
