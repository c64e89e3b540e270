"""Parsing in a process pool (ingest/parsing.py): the same paragraphs in the same order as a
serial ingest; a parser that kills its worker or hangs is a per-file `reader_failed`, never a
hang, and the other files are stored; no pool for a handful of files."""

from __future__ import annotations

import time

import pytest
from parse_faults import crash_on_poison, hang_on_poison
from sqlalchemy import select

from tabane.errors import ReaderFailed
from tabane.ingest import files, parsing
from tabane.ingest.documents import DocumentInput
from tabane.service import Tabane
from tabane.storage.schema import Context, Paragraph, Source


def _folder(root, n: int, poison: int | None = None) -> None:
    for i in range(n):
        name = "poison.html" if i == poison else f"f{i:02}.html"
        body = "".join(f"<h2>Part {j} of {i}</h2><p>Words {i}.{j} here.</p>" for j in range(3))
        (root / name).write_text(f"<html><head><title>T{i}</title></head><body>{body}</body>")


def _stored(svc: Tabane, user, context: str) -> list[tuple[str, int, str, list[str]]]:
    with svc.store.session(user) as session:
        ctx = session.scalar(select(Context.id).where(Context.name == context))
        rows = session.execute(
            select(Source.source_id, Paragraph.idx, Paragraph.text, Paragraph.section_path)
            .join(Source, Source.id == Paragraph.source_pk)
            .where(Paragraph.context_id == ctx)
            .order_by(Paragraph.id)
        ).all()
    return [(sid.rsplit("/", 1)[-1], idx, text, list(path)) for sid, idx, text, path in rows]


def test_no_pool_for_a_handful_of_files(monkeypatch):
    assert parsing.workers_for(parsing.POOL_MIN_FILES - 1) == 0
    for cores, workers in ((1, 0), (2, 0), (3, 2), (16, 8)):  # one core left to the ingest
        monkeypatch.setattr(
            parsing.os, "sched_getaffinity", lambda _pid, n=cores: set(range(n)), raising=False
        )
        assert parsing.workers_for(1000) == workers, cores


@pytest.mark.slow
def test_a_pooled_ingest_stores_what_a_serial_one_does(
    svc: Tabane, user, make_context, tmp_path, monkeypatch
):
    _folder(tmp_path, 40)
    serial, pooled = make_context(), make_context()
    monkeypatch.setattr(files, "workers_for", lambda _n: 0)
    one = svc.ingest_paths(user, serial, [tmp_path])
    monkeypatch.setattr(files, "workers_for", lambda _n: 2)
    monkeypatch.setattr(files.batch, "GROUP_FILES", 7)  # several groups: parsed one ahead
    two = svc.ingest_paths(user, pooled, [tmp_path])
    assert [(f.source_id, f.outcome, f.paragraphs) for f in two.files] == [
        (f.source_id, f.outcome, f.paragraphs) for f in one.files
    ]
    assert _stored(svc, user, pooled) == _stored(svc, user, serial)
    assert len(_stored(svc, user, pooled)) == 40 * 3


@pytest.mark.slow
def test_a_worker_that_dies_is_that_files_error_and_the_rest_are_stored(
    svc: Tabane, user, context, tmp_path, monkeypatch
):
    _folder(tmp_path, 20, poison=5)
    monkeypatch.setattr(files, "workers_for", lambda _n: 2)
    monkeypatch.setattr(parsing, "TARGET", crash_on_poison)
    report = svc.ingest_paths(user, context, [tmp_path])
    outcomes = {f.source_id.rsplit("/", 1)[-1]: f for f in report.files}
    bad = outcomes.pop("poison.html")
    assert bad.outcome == "error" and bad.error is not None
    assert bad.error["code"] == "reader_failed"
    assert "died" in str(bad.error["issues"])
    assert {f.outcome for f in outcomes.values()} == {"created"}
    assert len(outcomes) == 19


@pytest.mark.slow
def test_a_hung_parse_is_stopped_at_its_deadline():
    docs = [
        DocumentInput(source_id=name, data=b"<p>Some words.</p>", format="html")
        for name in ("a.html", "poison.html", "b.html", "c.html")
    ]
    parsing_deadline = 8.0
    started = time.monotonic()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(parsing, "DEADLINE_S", parsing_deadline)
        with parsing.Parser(2, hang_on_poison) as parser:
            thunks = [parser.submit(d, d.source_id, 100) for d in docs]
            got = [thunk() for thunk in thunks]
    assert time.monotonic() - started < 4 * parsing_deadline
    assert isinstance(got[1], ReaderFailed) and "longer than" in got[1].issues[0].problem
    for i in (0, 2, 3):
        assert not isinstance(got[i], Exception)
        assert [b.text for b in got[i].blocks] == ["Some words."]


_ORPHANED = """
import sys, time
sys.path[:0] = {paths!r}
from parse_faults import hang_on_poison
from tabane.ingest import parsing
from tabane.ingest.inputs import DocumentInput
parser = parsing.Parser(2, hang_on_poison)
parser.submit(DocumentInput(source_id="poison.html", data=b"<p>x</p>"), "poison.html", 10)
time.sleep(1)
print(*[p.pid for p in parser._pool._processes.values()], flush=True)
time.sleep(3600)
"""


@pytest.mark.slow
def test_the_workers_exit_when_the_ingesting_process_is_killed():
    import signal
    import subprocess
    import sys

    code = _ORPHANED.format(paths=sys.path)
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    try:
        workers = [int(pid) for pid in parent.stdout.readline().split()]
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        parent.stdout.close()
    assert workers  # started on demand: one for the one file
    deadline = time.monotonic() + 30
    alive = workers
    while alive and time.monotonic() < deadline:
        time.sleep(0.5)
        alive = [pid for pid in workers if _running(pid)]
    assert not alive


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False
