"""The e5 passage vectors of evidence items, for any part of recall that reads with e5 (the
second opinion, decision 0041; abstention may too): those the embedding jobs stored (claims and
session turns, under `models.e5.MODEL`, decision 0044) read in one statement per kind, the rest
computed by the process's engine from the item's text (kept by text, models/e5.py).

    vecs = e5.vectors(session, items, engine)   # item key → unit-length (384,) float32

A stored vector is of the text the item shows (a claim's statement, else its triple; a turn's
text) cut as the engine cuts, so it equals the one computed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sqlalchemy.orm import Session

from tabane.models.e5 import MODEL, Engine
from tabane.recall import current
from tabane.recall.result import Evidence


def stored(session: Session, items: Sequence[Evidence]) -> dict[str, np.ndarray]:
    """The e5 vectors stored for the claims and turns among `items`, by item key (visible
    under the caller's policies, as the items are)."""
    return current.stored(session, items, MODEL)


def vectors(
    session: Session | None, items: Sequence[Evidence], engine: Engine
) -> dict[str, np.ndarray]:
    """Every item's e5 passage vector by key: stored where the jobs wrote one (`session` None:
    none read), else computed from its text by `engine`."""
    out = stored(session, items) if session is not None else {}
    rest = [it for it in items if it.key not in out]
    out.update(zip((it.key for it in rest), engine.passages([it.text for it in rest]), strict=True))
    return out
