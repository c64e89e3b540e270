"""An import killed with SIGKILL part-way leaves the store as it was: no context, no source."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import select, text

from tabane.config import Settings
from tabane.principal import Principal
from tabane.service import Tabane
from tabane.storage.schema import Context

from helpers import unique

pytestmark = pytest.mark.slow  # a process killed mid-import

IMPORTER = """
import sys
from pathlib import Path
from tabane.config import Settings
from tabane.service import Tabane

home, user, path, name = sys.argv[1:5]
svc = Tabane.open(Settings(home=Path(home), local_user=user, embedder="none", worker="off"))
lines = Path(path).read_text().split("\\n")
print("importing", flush=True)
svc.import_context(svc.local_user(), lines, context=name)
print("imported", flush=True)
"""


def _archive(path: Path, owner: Principal, sources: int) -> Path:
    mine = [f"user:{owner.name}"]
    lines = [
        {"tabane_archive": 1, "exported_by": owner.name, "context": {"name": "big", "scopes": mine}}
    ]
    for i in range(sources):
        paragraphs = [{"text": f"Paragraph {j} of source {i}, with a few words."} for j in range(3)]
        source = {
            "source_id": f"s{i}.md",
            "title": f"Source {i}",
            "format": "markdown",
            "scopes": mine,
            "stored_at": "2026-01-01T00:00:00+00:00",
            "content_hash": "0" * 64,
            "paragraphs": paragraphs,
        }
        lines.append({"source": source})
    end = {"sources": sources, "paragraphs": 3 * sources, "claims": 0, "aliases": 0}
    lines.append({"end": end})
    path.write_text("\n".join(json.dumps(line) for line in lines))
    return path


def _writing(svc: Tabane) -> bool:
    """Some application connection is inside a transaction that wrote paragraphs."""
    with svc.store.owner.connect() as conn:
        return bool(
            conn.execute(
                text(
                    "SELECT count(*) FROM pg_stat_activity WHERE usename = 'tabane_app' "
                    "AND state IN ('active', 'idle in transaction') "
                    "AND query ILIKE '%paragraphs%'"
                )
            ).scalar()
        )


def test_an_import_killed_part_way_leaves_nothing(
    svc: Tabane, settings: Settings, user: Principal, tmp_path: Path
) -> None:
    archive = _archive(tmp_path / "big.jsonl", user, 150)
    name = unique("big")
    proc = subprocess.Popen(
        [sys.executable, "-c", IMPORTER, str(settings.home), user.name, str(archive), name],
        stdout=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not _writing(svc) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    time.sleep(0.3)  # well inside its sources
    killed_mid_write = proc.poll() is None
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    assert proc.stdout is not None
    proc.stdout.close()
    assert killed_mid_write, "the import finished before it could be killed"
    with svc.store.admin() as session:
        assert session.scalar(select(Context.id).where(Context.name == name)) is None
    # the same archive imports whole afterwards
    report = svc.import_context(user, archive.read_text().split("\n"), context=name)
    assert (report.sources, report.paragraphs) == (150, 450)
