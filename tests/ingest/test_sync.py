"""Folder sync: idempotent, replaces changed files, retracts vanished ones, drops empty ones,
honours the blocklist, and reports bad files without stopping."""

from __future__ import annotations

from pathlib import Path

import pytest

from tabane.errors import InvalidInput
from tabane.ingest import files
from tabane.ingest.files import DEFAULT_BLOCKLIST
from tabane.service import Tabane


def _tree(root: Path) -> None:
    (root / "guide").mkdir(parents=True)
    (root / "guide" / "intro.md").write_text("# Intro\n\nHello there.\n\nSecond paragraph.\n")
    (root / "notes.txt").write_text("one\n\ntwo\n")
    (root / ".hidden.md").write_text("# secret\n\nnot synced\n")
    (root / "build").mkdir()
    (root / "build" / "out.md").write_text("# generated\n\nskip me\n")
    for cache in (root / "__pycache__", root / "guide" / "__pycache__"):  # at the top and below
        cache.mkdir()
        (cache / "c.txt").write_text("compiled\n")


def _ids(svc: Tabane, user, context: str) -> list[str]:
    return [s.source_id for s in svc.list_sources(user, context).sources]


def test_sync_is_idempotent_and_tracks_the_folder(svc: Tabane, user, context, tmp_path) -> None:
    _tree(tmp_path)
    blocklist = (*DEFAULT_BLOCKLIST, "build/*")
    first = svc.sync(user, context, tmp_path, blocklist=blocklist)
    assert first.counts() == {"created": 2}
    assert _ids(svc, user, context) == ["guide/intro.md", "notes.txt"]

    second = svc.sync(user, context, tmp_path, blocklist=blocklist)
    assert second.counts() == {"unchanged": 2}

    (tmp_path / "notes.txt").write_text("one\n\ntwo\n\nthree\n")
    (tmp_path / "guide" / "intro.md").unlink()
    (tmp_path / "new.md").write_text("fresh\n")
    third = svc.sync(user, context, tmp_path, blocklist=blocklist)
    assert third.counts() == {"created": 1, "replaced": 1, "retracted": 1}
    assert _ids(svc, user, context) == ["new.md", "notes.txt"]
    assert svc.lookup(user, context, "notes.txt")[0].paragraphs == 3

    (tmp_path / "new.md").write_text("   \n\n")
    (tmp_path / "blank.txt").write_text("\n")
    fourth = svc.sync(user, context, tmp_path, blocklist=blocklist)
    # a stored file that became empty is retracted; one never stored is only empty
    assert fourth.counts() == {"retracted": 1, "empty": 1, "unchanged": 1}
    assert _ids(svc, user, context) == ["notes.txt"]
    with pytest.raises(InvalidInput) as err:  # a stable code, not `internal`
        svc.sync(user, context, tmp_path / "notes.txt")
    assert [i.path for i in err.value.issues] == ["folder"]


def test_a_bad_file_is_reported_and_the_others_go_on(svc: Tabane, user, context, tmp_path) -> None:
    (tmp_path / "a.md").write_text("good\n")
    (tmp_path / "b.bin").write_bytes(b"\x00\x01\x02\xff" * 64)
    (tmp_path / "c.txt").write_bytes(b"caf\xe9 latin-1 is not utf-8\n")
    (tmp_path / "d.md").write_text("also good\n")
    report = svc.sync(user, context, tmp_path)
    assert report.counts() == {"created": 2, "error": 2}
    errors = {f.source_id: f.error for f in report.files if f.outcome == "error"}
    assert set(errors) == {"b.bin", "c.txt"}
    assert all(e and e["code"] == "unreadable_document" for e in errors.values())
    assert _ids(svc, user, context) == ["a.md", "d.md"]


def test_sync_leaves_other_sources_alone(svc: Tabane, user, context, tmp_path) -> None:
    from tabane.ingest.documents import DocumentInput

    svc.ingest(user, context, DocumentInput(source_id="by-hand", data=b"manual note\n"))
    (tmp_path / "x.md").write_text("x\n")
    svc.sync(user, context, tmp_path)
    (tmp_path / "x.md").unlink()
    report = svc.sync(user, context, tmp_path)
    assert report.counts() == {"retracted": 1}
    assert _ids(svc, user, context) == ["by-hand"]


def test_ingest_paths_walks_folders(svc: Tabane, user, context, tmp_path) -> None:
    _tree(tmp_path)
    report = svc.ingest_paths(user, context, [tmp_path / "guide", tmp_path / "notes.txt"])
    assert report.counts() == {"created": 2}
    assert report.paragraphs == 4
    missing = svc.ingest_paths(user, context, [tmp_path / "nope.md"])
    assert missing.counts() == {"error": 1}


def test_a_file_over_the_size_limit_is_body_too_large(svc: Tabane, user, context, tmp_path) -> None:
    (tmp_path / "big.md").write_text("a paragraph of more than ten bytes\n")
    (tmp_path / "ok.md").write_text("tiny\n")
    report = files.ingest_paths(svc.store, user, context, [tmp_path], max_bytes=10)
    assert report.counts() == {"created": 1, "error": 1}
    (error,) = [f.error for f in report.files if f.outcome == "error"]
    assert error is not None and error["code"] == "body_too_large"
    assert error["issues"] == [
        {"path": str(tmp_path / "big.md"), "problem": "35 bytes, at most 10"}
    ]


def test_a_reader_failure_costs_its_file_only(
    svc: Tabane, user, context, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(data: bytes, name: str) -> None:
        raise IndexError("a reader bug")

    monkeypatch.setattr("tabane.text.html.page.parse_html", broken)
    (tmp_path / "a.md").write_text("good\n")
    (tmp_path / "b.html").write_text("<html><body><p>read by the broken reader</p></body></html>")
    (tmp_path / "late.txt").write_bytes(b"words " * 2000 + b"\x00")
    report = svc.sync(user, context, tmp_path)
    assert report.counts() == {"created": 1, "error": 2} and report.failed
    errors = {f.source_id: f.error for f in report.files if f.outcome == "error"}
    assert errors["b.html"] and errors["b.html"]["code"] == "reader_failed"
    assert errors["b.html"]["issues"] == [
        {"path": "b.html", "problem": "the html reader failed: IndexError: a reader bug"}
    ]
    assert errors["late.txt"] and errors["late.txt"]["code"] == "unreadable_document"
    assert _ids(svc, user, context) == ["a.md"]
