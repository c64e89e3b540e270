"""What the model-provider tests share: a clock that moves only when the code sleeps."""

from __future__ import annotations

import pytest

from helpers import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()
