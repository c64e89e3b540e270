"""The postings' byte formats (search/codec.py): compact rows give back exactly the records a
PACK row held, whatever their values, and the limits are explicit — a wider column or a new
segment where a value needs it, an error where even PACK could not hold it, never a wrap."""

from __future__ import annotations

import numpy as np
import pytest

from tabane.search import bm25
from tabane.search.codec import HEAD, MARK, PACK, Records, decode, encode, encode_rows, pack

WIDTHS = (1, 2, 4, 0)  # bytes a value, by a column's 2-bit code in the widths byte


def _records(rng: np.random.Generator, n: int, *, span: int = 10**6, top: int = 50) -> Records:
    ids = rng.choice(span, size=n, replace=False).astype(np.int64) + 1
    tf = rng.integers(1, top, n)
    return Records(ids, tf, rng.integers(0, 2, n) * tf, rng.integers(1, 400, n))


def _sorted(recs: Records) -> list[tuple[int, int, int, int]]:
    return sorted(recs.tolist())


def _widths(code: int) -> list[int]:
    return [WIDTHS[(code >> (2 * k)) & 3] for k in range(4)]


def _segments(blob: bytes) -> list[tuple[int, int]]:
    """(widths byte, records) of each compact segment."""
    out, at = [], 0
    while at < len(blob):
        assert blob[at] == MARK
        code, n = blob[at + 1], int.from_bytes(blob[at + 2 : at + 6], "little")
        out.append((code, n))
        at += HEAD + n * sum(_widths(code))
    assert at == len(blob)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_a_compact_row_decodes_to_the_records_of_its_packs(seed: int) -> None:
    rng = np.random.default_rng(seed)
    recs = _records(rng, int(rng.integers(1, 3000)))
    blob = encode(recs)
    assert _sorted(decode(blob)) == _sorted(recs) == _sorted(decode(pack(recs)))
    assert len(blob) < len(pack(recs)) / 2  # 4-byte offsets, 1-byte tf and qtf, 2-byte dl


@pytest.mark.parametrize("seed", range(4))
def test_a_merge_steps_rows_encoded_at_once_are_the_bytes_of_each_alone(seed: int) -> None:
    rng = np.random.default_rng(seed)
    rows = [_records(rng, int(n), span=3000, top=4) for n in rng.integers(0, 12, 300)]
    rows[7] = Records(  # an id gap past 4 bytes, counts past 2 bytes, no qtf
        np.array([5, 2**33, 7]), np.array([1, 70_000, 2]), np.zeros(3), np.array([3, 4, 2**20])
    )
    rows[9] = _records(rng, 40, top=300)
    got = encode_rows(Records.concat(rows), [len(r) for r in rows])
    assert got == [encode(r) for r in rows]
    assert [_sorted(decode(b)) for b in got] == [_sorted(r) for r in rows]


def test_decoded_ids_ascend_even_when_the_packs_did_not() -> None:
    recs = Records(np.array([9, 3, 7]), np.array([1, 2, 3]), np.zeros(3), np.array([4, 5, 6]))
    assert decode(encode(recs)).tolist() == [(3, 2, 0, 5), (7, 3, 0, 6), (9, 1, 0, 4)]


def test_counts_past_two_bytes_widen_their_column_not_wrap() -> None:
    recs = Records(
        np.array([1, 2, 3]),
        np.array([1, 70_000, 2]),
        np.array([0, 300, 0]),
        np.array([5, 6, 2**20]),
    )
    blob = encode(recs)
    assert decode(blob).tolist() == recs.tolist()
    [(code, n)] = _segments(blob)
    assert n == 3 and _widths(code) == [1, 4, 2, 4]  # offsets, tf, qtf, dl
    small = Records(np.array([1, 2]), np.array([1, 255]), np.array([0, 255]), np.array([5, 65_535]))
    [(code, _)] = _segments(encode(small))
    assert _widths(code) == [1, 1, 1, 2]
    unasked = Records(np.array([1, 9]), np.array([1, 2]), np.array([0, 0]), np.array([3, 4]))
    [(code, _)] = _segments(encode(unasked))
    assert _widths(code) == [1, 1, 0, 1]  # no question asked: no qtf bytes
    assert decode(encode(unasked)).tolist() == unasked.tolist()
    assert len(encode(unasked)) == HEAD + 2 * 3


def test_an_id_gap_past_four_bytes_starts_a_new_segment() -> None:
    ids = np.array([5, 6, 5 + 2**32, 5 + 2**33 + 1, 2**40])
    recs = Records(ids, np.ones(5, np.int64), np.zeros(5, np.int64), np.full(5, 3))
    blob = encode(recs)
    assert decode(blob).tolist() == recs.tolist()
    assert [n for _, n in _segments(blob)] == [2, 1, 1, 1]


@pytest.mark.parametrize(
    ("column", "value"), [("tf", 2**32), ("dl", 2**32 + 5), ("qtf", -1), ("tf", -3)]
)
def test_a_value_no_width_holds_is_refused(column: str, value: int) -> None:
    cols = {"id": np.array([1, 2]), "tf": np.array([1, 1]), "qtf": np.array([0, 0])}
    cols["dl"] = np.array([4, 4])
    cols[column] = np.array([1, value])
    with pytest.raises(ValueError, match=f"posting's {column} is {value}"):
        encode(Records(**cols))


def test_a_fresh_pack_refuses_what_int4_cannot_hold() -> None:
    recs = Records(np.array([1]), np.array([2**31]), np.array([0]), np.array([4]))
    with pytest.raises(ValueError, match="posting's tf is 2147483648"):
        pack(recs)
    fine = Records(np.array([1]), np.array([2**31 - 1]), np.array([0]), np.array([4]))
    assert decode(pack(fine)).tolist() == fine.tolist()


def test_a_torn_blob_is_an_error_not_records() -> None:
    recs = Records(np.array([1, 2]), np.array([1, 1]), np.array([0, 0]), np.array([4, 4]))
    with pytest.raises(ValueError, match="not whole records"):
        decode(pack(recs)[:-1])
    blob = encode(recs)
    with pytest.raises(ValueError, match="no compact segment header"):
        decode(blob + b"\x00")


def test_the_lane_scores_compact_and_pack_records_alike() -> None:
    rng = np.random.default_rng(3)
    rows = {
        f"t{i}": _records(rng, int(rng.integers(5, 800)), span=5000, top=90_000) for i in range(6)
    }
    stats = bm25.Statistics.of(5000, 5000 * 120, {t: len(r) for t, r in rows.items()})
    compact = bm25.score({t: decode(encode(r)) for t, r in rows.items()}, stats)
    packed = bm25.score({t: np.frombuffer(pack(r), PACK) for t, r in rows.items()}, stats)
    assert compact.best(50) == packed.best(50)
    assert np.array_equal(compact.ids, packed.ids) and np.allclose(compact.scores, packed.scores)
