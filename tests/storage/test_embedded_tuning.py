"""The embedded server runs with tabane's tuning from its first start: shared_buffers sized to
the machine (or to TABANE_PG_SHARED_BUFFERS_MB) and no JIT."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text

from tabane.config import Settings
from tabane.service import Tabane
from tabane.storage import embedded

pytestmark = pytest.mark.slow  # seconds a test: vectors, background jobs, a corpus per test


def _mb(setting: str) -> int:
    number, unit = int(setting[:-2]), setting[-2:]
    return number * {"kB": 1, "MB": 1024, "GB": 1024 * 1024}[unit] // 1024


def test_the_shared_test_server_runs_with_the_tuning_from_its_first_start(svc: Tabane) -> None:
    # conftest's store was a new directory: initialised, tuned, then started again.
    with svc.store.app.connect() as conn:
        buffers = conn.execute(text("SHOW shared_buffers")).scalar_one()
        jit = conn.execute(text("SHOW jit")).scalar_one()
    assert _mb(buffers) == embedded.shared_buffers(svc.settings.pg_shared_buffers_mb)
    assert jit == "off"


def test_auto_sizes_to_the_machine_within_bounds_and_a_request_is_kept() -> None:
    auto = embedded.shared_buffers(0)
    assert 128 <= auto <= embedded.AUTO_MAX_BUFFERS_MB
    assert embedded.shared_buffers(512) == 512
    assert embedded.shared_buffers(3) == embedded.MIN_BUFFERS_MB  # too small to run well


def test_configure_includes_the_file_once_and_replaces_its_contents(tmp_path: Path) -> None:
    (tmp_path / "postgresql.conf").write_text("max_connections = 100\n")
    embedded.configure(tmp_path, 256)
    embedded.configure(tmp_path, 300)
    conf = (tmp_path / "postgresql.conf").read_text()
    assert conf.count(embedded.INCLUDE) == 1
    assert conf.startswith("max_connections = 100\n")
    tuning = (tmp_path / embedded.TUNING).read_text()
    assert "shared_buffers = '300MB'" in tuning and "256MB" not in tuning


def test_a_requested_size_applies_when_the_server_next_starts(tmp_path: Path) -> None:
    home = tmp_path / "home"
    settings = Settings(home=home, embedder="none", worker="off", pg_shared_buffers_mb=48)
    service = Tabane.open(settings)
    try:
        with service.store.app.connect() as conn:
            assert conn.execute(text("SHOW shared_buffers")).scalar_one() == "48MB"
    finally:
        service.close()
        embedded.stop(home)
    service = Tabane.open(Settings(home=home, embedder="none", worker="off"))
    try:
        with service.store.app.connect() as conn:
            shown = conn.execute(text("SHOW shared_buffers")).scalar_one()
        assert _mb(shown) == embedded.shared_buffers(0)
    finally:
        service.close()
        embedded.stop(home)
