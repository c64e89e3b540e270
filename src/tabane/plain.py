"""Plain values: what every surface serves a result as (JSON-ready, weights rounded)."""

from __future__ import annotations

import dataclasses
import functools
from datetime import date, datetime
from typing import Any

WEIGHT_DIGITS = 9


def shown_weight(value: float) -> float:
    """A weight as every read serves it: rounded to WEIGHT_DIGITS decimals. Weights are stored
    and summed exactly; a sum of decimal weights carries binary noise (0.1 + 0.2 is
    0.30000000000000004) that no reader should see. (+0.0 turns -0.0 into 0.0.)"""
    return round(float(value), WEIGHT_DIGITS) + 0.0


_LEAVES = (str, int, float, bool, type(None))


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def to_plain(value: Any) -> Any:
    """Dataclasses, tuples and datetimes as JSON-ready values (datetimes as ISO 8601 strings);
    every surface renders the facade's results through this."""
    if type(value) in _LEAVES:  # most of a result: tested first (a recall trace has ~1,000)
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {name: to_plain(getattr(value, name)) for name in _field_names(type(value))}
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, (set, frozenset)):  # a principal's scope sets
        return sorted(to_plain(v) for v in value)
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    return value
