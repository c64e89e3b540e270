"""`sync --watch` (ingest/watch.py): real files, a real store. The folder is synced once, then
after each change — debounced into one sync, blocked files ignored, vanished files retracted —
by polling and (with the `watch` extra) inotify, until the stop event; a bad rule is refused."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tabane.errors import InvalidInput
from tabane.ingest.files import DEFAULT_BLOCKLIST, IngestReport
from tabane.ingest.watch import Watcher, WatchRules, inotify_available, snapshot
from tabane.service import Tabane

FAST = WatchRules(debounce=0.3, poll=0.1, mode="poll")


@contextmanager
def watching(
    svc: Tabane, user, context: str, root: Path, rules: WatchRules = FAST
) -> Iterator[tuple[list[IngestReport], threading.Event]]:
    """A watch in a thread; stopped (and joined) on leaving."""
    reports: list[IngestReport] = []
    stop = threading.Event()
    worker = threading.Thread(
        target=svc.watch,
        args=(user, context, root),
        kwargs={"stop": stop, "rules": rules, "on_round": reports.append},
        daemon=True,
    )
    worker.start()
    try:
        yield reports, stop
    finally:
        stop.set()
        worker.join(timeout=10)
        assert not worker.is_alive(), "the watch did not stop"


def until(check: Callable[[], bool], seconds: float = 15.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def _ids(svc: Tabane, user, context: str) -> list[str]:
    return [s.source_id for s in svc.list_sources(user, context).sources]


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["poll", "inotify"])
def test_a_watched_folder_stays_in_step(svc: Tabane, user, make_context, tmp_path, mode) -> None:
    if mode == "inotify" and not inotify_available():
        pytest.skip("the watch extra (watchfiles) is not installed")
    context = make_context()
    (tmp_path / "a.md").write_text("# A\n\nfirst\n")
    rules = WatchRules(debounce=0.3, poll=0.1, mode=mode)
    with watching(svc, user, context, tmp_path, rules) as (reports, _):
        until(lambda: len(reports) == 1)
        assert reports[0].counts() == {"created": 1}
        (tmp_path / "b.md").write_text("# B\n\nsecond\n")
        until(lambda: _ids(svc, user, context) == ["a.md", "b.md"])
        (tmp_path / "a.md").unlink()
        until(lambda: _ids(svc, user, context) == ["b.md"])
        (tmp_path / "b.md").write_text("second\n\nthird\n\nfourth\n")
        until(lambda: svc.lookup(user, context, "b.md")[0].paragraphs == 3)
    outcomes = [f.outcome for r in reports for f in r.files]
    assert {"created", "retracted", "replaced"} <= set(outcomes)


@pytest.mark.slow
def test_a_burst_of_changes_is_one_sync(svc: Tabane, user, context, tmp_path) -> None:
    rules = WatchRules(debounce=1.0, poll=0.1, mode="poll")
    with watching(svc, user, context, tmp_path, rules) as (reports, _):
        until(lambda: len(reports) == 1)
        for i in range(5):  # each write within the debounce of the last
            (tmp_path / f"n{i}.md").write_text(f"note {i}\n")
            time.sleep(0.1)
        until(lambda: len(reports) == 2)
        time.sleep(1.5)  # nothing more changed: no further sync
        assert len(reports) == 2
    assert reports[1].counts() == {"created": 5}


@pytest.mark.slow
def test_blocked_files_and_link_loops_start_no_sync(svc: Tabane, user, context, tmp_path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "loop").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "sub" / "doc.md").write_text("# Doc\n\ntext\n")
    with watching(svc, user, context, tmp_path) as (reports, _):
        until(lambda: len(reports) == 1)
        (tmp_path / ".hidden.md").write_text("# secret\n")  # blocked by DEFAULT_BLOCKLIST
        time.sleep(1.0)
        assert len(reports) == 1
    assert _ids(svc, user, context) == ["sub/doc.md"]


def test_the_snapshot_walks_like_sync(tmp_path) -> None:
    (tmp_path / "a.md").write_text("x\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref\n")
    (tmp_path / "self").symlink_to(tmp_path, target_is_directory=True)
    assert set(snapshot(tmp_path, DEFAULT_BLOCKLIST)) == {"a.md"}


def test_a_stop_before_the_first_look_ends_after_one_sync(tmp_path) -> None:
    stop = threading.Event()
    calls: list[int] = []

    def once() -> int:
        calls.append(1)
        stop.set()  # as SIGINT during the sync: it finishes, then the watch ends
        return len(calls)

    assert Watcher(tmp_path, once, stop=stop, rules=FAST).run() == 1
    assert calls == [1]


@pytest.mark.parametrize(
    ("rules", "path"),
    [
        (WatchRules(debounce=0.0), "debounce"),
        (WatchRules(poll=-1), "poll"),
        (WatchRules(poll=float("nan")), "poll"),
        (WatchRules(mode="fsevents"), "mode"),
    ],
)
def test_bad_rules_are_refused(tmp_path, rules: WatchRules, path: str) -> None:
    with pytest.raises(InvalidInput) as e:
        Watcher(tmp_path, lambda: None, stop=threading.Event(), rules=rules)
    assert [i.path for i in e.value.issues] == [path]


def test_a_missing_folder_is_refused(tmp_path) -> None:
    watcher = Watcher(tmp_path / "nope", lambda: None, stop=threading.Event(), rules=FAST)
    with pytest.raises(InvalidInput) as e:
        watcher.run()
    assert [i.path for i in e.value.issues] == ["folder"]
