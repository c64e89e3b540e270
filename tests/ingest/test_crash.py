"""A writer killed with SIGKILL mid-ingest leaves the old source or the new one, never a half."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

from tabane.ingest.documents import DocumentInput
from tabane.service import Tabane
from tabane.storage.schema import Context, Paragraph, Source

pytestmark = pytest.mark.slow  # a process killed mid-ingest

WRITER = """
import sys
from pathlib import Path
from tabane.config import Settings
from tabane.ingest.documents import DocumentInput
from tabane.service import Tabane

home, user, context, path = sys.argv[1:5]
svc = Tabane.open(Settings(home=Path(home), local_user=user, embedder="none", worker="off"))
me = svc.local_user()
print("writing", flush=True)
svc.ingest(me, context, DocumentInput(source_id="big.md", data=Path(path).read_bytes()))
print("done", flush=True)
"""


def _big(path: Path, n: int, tag: str) -> Path:
    parts = [f"# Big {tag}\n"]
    parts += [f"Paragraph {i} of version {tag}, with a few words.\n" for i in range(n)]
    path.write_text("\n".join(parts))
    return path


def _state(svc: Tabane, context: str) -> tuple[str, int, int]:
    """(title, paragraph_count recorded, paragraphs actually stored), seen by the owner."""
    with svc.store.admin() as session:
        src = session.execute(
            select(Source.id, Source.title, Source.paragraph_count)
            .join(Context, Context.id == Source.context_id)
            .where(Source.source_id == "big.md", Context.name == context)
        ).one()
        stored = session.scalar(
            select(func.count()).select_from(Paragraph).where(Paragraph.source_pk == src.id)
        )
    return src.title, src.paragraph_count, stored or 0


def _writing(svc: Tabane) -> bool:
    """True while some application connection is inside a transaction writing paragraphs."""
    from sqlalchemy import text

    with svc.store.owner.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT count(*) FROM pg_stat_activity WHERE usename = 'tabane_app' "
                "AND state IN ('active', 'idle in transaction') AND query ILIKE '%paragraphs%'"
            )
        ).scalar()
    return bool(rows)


def test_sigkill_mid_ingest_leaves_old_or_new(
    svc: Tabane, settings, user, context, tmp_path
) -> None:
    old = _big(tmp_path / "old.md", 50, "old")
    assert svc.ingest(user, context, DocumentInput(source_id="big.md", data=old.read_bytes()))
    new = _big(tmp_path / "new.md", 40_000, "new")
    outcomes = []
    for delay in (0.0, 0.05, 0.2):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(settings.home), user.name, context, str(new)],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ},
        )
        deadline = time.monotonic() + 60
        while not _writing(svc) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(delay)
        killed_mid_write = proc.poll() is None
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        assert proc.stdout is not None
        proc.stdout.close()
        title, recorded, stored = _state(svc, context)
        assert recorded == stored, "paragraph rows disagree with the source row: a half write"
        assert (title, stored) in {("Big old", 50), ("Big new", 40_000)}
        outcomes.append((killed_mid_write, title))
    # at least one kill landed inside the write and left the old version intact
    assert (True, "Big old") in outcomes


SYNCER = """
import sys
from pathlib import Path
from tabane.config import Settings
from tabane.ingest import batch
from tabane.service import Tabane

batch.GROUP_FILES = 8  # five groups of the forty files
home, user, context, folder = sys.argv[1:5]
svc = Tabane.open(Settings(home=Path(home), local_user=user, embedder="none", worker="off"))
print("syncing", flush=True)
svc.sync(svc.local_user(), context, Path(folder))
print("done", flush=True)
"""


def _stored_sources(svc: Tabane, context: str) -> int:
    with svc.store.admin() as session:
        return (
            session.scalar(
                select(func.count())
                .select_from(Source)
                .join(Context, Context.id == Source.context_id)
                .where(Context.name == context)
            )
            or 0
        )


def test_sigkill_mid_group_leaves_each_source_whole_or_absent(
    svc: Tabane, settings, user, make_context, tmp_path
) -> None:
    """A sync stores its files in groups (ingest/batch.py), each group one transaction: killed
    mid-group, every source is stored whole or not at all, and the BM25 statistics count
    exactly the paragraphs stored."""
    from tabane.storage.schema import CorpusStats

    folder = tmp_path / "docs"
    folder.mkdir()
    for i in range(40):
        _big(folder / f"f{i:02}.md", 400, f"f{i}")
    killed_with_some_stored = False
    for after_a_group in (False, True):  # killed inside the first group, then after one
        context = make_context()
        proc = subprocess.Popen(
            [sys.executable, "-c", SYNCER, str(settings.home), user.name, context, str(folder)],
            stdout=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            if (_stored_sources(svc, context) if after_a_group else _writing(svc)) > 0:
                break
            time.sleep(0.005)
        mid = proc.poll() is None
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        assert proc.stdout is not None
        proc.stdout.close()
        with svc.store.admin() as session:
            ctx_id = session.scalar(select(Context.id).where(Context.name == context))
            rows = session.execute(
                select(Source.paragraph_count, func.count(Paragraph.id))
                .outerjoin(Paragraph, Paragraph.source_pk == Source.id)
                .where(Source.context_id == ctx_id)
                .group_by(Source.id)
            ).all()
            counted = session.scalar(
                select(func.coalesce(func.sum(CorpusStats.paragraphs), 0)).where(
                    CorpusStats.context_id == ctx_id
                )
            )
        assert all(recorded == stored == 400 for recorded, stored in rows), rows
        assert counted == 400 * len(rows)
        killed_with_some_stored |= mid and 0 < len(rows) < 40
    assert killed_with_some_stored  # a kill landed between two groups' commits
