"""Small helpers shared by tests (importable because pytest puts tests/ on the path)."""

from __future__ import annotations

import itertools
import os

_counter = itertools.count()


def unique(prefix: str) -> str:
    """A name no other test (or test process) uses."""
    return f"{prefix}{os.getpid()}x{next(_counter)}"
