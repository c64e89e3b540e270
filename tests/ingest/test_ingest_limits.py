"""Cost limits are checked before the work: a document that would make more paragraphs than
TABANE_MAX_PARAGRAPHS, a tag list past its cap, and a folder walk through a symlink loop or past
its file limit are refused with the limit named, nothing written, in time linear in the input."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from tabane.errors import InvalidInput, LimitExceeded
from tabane.ingest import walk
from tabane.ingest.documents import MAX_TAGS, DocumentInput, check_tags
from tabane.service import Tabane


def test_a_document_over_the_paragraph_limit_is_refused_and_nothing_stored(
    svc: Tabane, user, context
) -> None:
    small = Tabane.build(svc.store, dataclasses.replace(svc.settings, max_paragraphs=50), None)
    html = "<html><body>" + "".join(f"<p>line {n}</p>" for n in range(51)) + "</body></html>"
    with pytest.raises(LimitExceeded) as caught:
        small.ingest(user, context, DocumentInput("big.html", data=html.encode()))
    assert caught.value.code == "limit_exceeded" and caught.value.status == 422
    assert [i.path for i in caught.value.issues] == ["TABANE_MAX_PARAGRAPHS"]
    assert "51 paragraphs" in caught.value.issues[0].problem
    assert svc.list_sources(user, context).sources == []
    fits = html.replace("<p>line 50</p>", "")
    stored = small.ingest(user, context, DocumentInput("ok.html", data=fits.encode()))
    assert stored.paragraphs == 50


def test_a_file_over_the_paragraph_limit_is_an_error_of_that_file(
    svc: Tabane, user, context, tmp_path: Path
) -> None:
    small = Tabane.build(svc.store, dataclasses.replace(svc.settings, max_paragraphs=3), None)
    (tmp_path / "long.md").write_text("\n\n".join(f"para {n}" for n in range(4)))
    (tmp_path / "short.md").write_text("one\n\ntwo")
    report = small.ingest_paths(user, context, [tmp_path])
    outcomes = {Path(f.path).name: (f.outcome, (f.error or {}).get("code")) for f in report.files}
    assert outcomes == {"long.md": ("error", "limit_exceeded"), "short.md": ("created", None)}


def test_a_tag_list_past_its_cap_is_refused_before_any_tag_is_read() -> None:
    tags: list[object] = [f"t{n}" for n in range(100_000)]
    tags[70_000] = 7  # not a tag: reading every tag first would report this one
    with pytest.raises(InvalidInput) as caught:
        check_tags(tags)  # type: ignore[arg-type]
    assert [i.path for i in caught.value.issues] == ["tags"]
    many = [f"t{n % MAX_TAGS}" for n in range(MAX_TAGS * 4)]  # repeats: they count once
    assert len(check_tags(many)) == MAX_TAGS


def test_a_walk_follows_each_folder_once_through_a_symlink_loop(tmp_path: Path) -> None:
    (tmp_path / "d" / "e").mkdir(parents=True)
    (tmp_path / "d" / "a.md").write_text("a")
    (tmp_path / "d" / "e" / "b.md").write_text("b")
    os.symlink(".", tmp_path / "d" / "self")  # the loop `tabane sync` never left
    os.symlink("..", tmp_path / "d" / "e" / "up")
    found = walk.files(tmp_path / "d")
    assert sorted(p.relative_to(tmp_path / "d").as_posix() for p in found) == ["a.md", "e/b.md"]


def test_a_walk_past_its_file_limit_is_refused_naming_it(tmp_path: Path) -> None:
    for n in range(5):
        (tmp_path / f"{n}.md").write_text("x")
    assert len(walk.files(tmp_path, limit=5)) == 5
    with pytest.raises(LimitExceeded) as caught:
        walk.files(tmp_path, limit=4)
    assert caught.value.issues[0].path == str(tmp_path)
    assert "more than 4 files" in caught.value.issues[0].problem


def test_sync_of_a_folder_with_a_symlink_loop_ends(svc: Tabane, user, context, tmp_path: Path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text("the kettle is descaled monthly")
    os.symlink(".", tmp_path / "notes" / "self")
    report = svc.sync(user, context, tmp_path / "notes")
    assert [(f.source_id, f.outcome) for f in report.files] == [("a.md", "created")]
