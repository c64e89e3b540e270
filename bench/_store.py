"""Helper, not a benchmark: a fresh store in a temporary home, stopped and removed afterwards."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


@contextmanager
def fresh_store(prefix: str, model: Any = None, **settings: Any) -> Iterator[Any]:
    """A `Tabane` on a new embedded store (worker off unless `settings` say otherwise), with
    `model` as its embedder; its server is stopped and its home deleted on the way out."""
    from tabane.config import Settings
    from tabane.service import Tabane
    from tabane.storage import embedded

    home = Path(tempfile.mkdtemp(prefix=f"tabane-bench-{prefix}-"))
    svc = Tabane.open(Settings(home=home, **{"worker": "off", **settings}), embedder=model)
    try:
        yield svc
    finally:
        svc.close()
        embedded.stop(home)
        shutil.rmtree(home, ignore_errors=True)
