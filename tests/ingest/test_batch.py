"""Files stored in groups (ingest/batch.py): a group is one transaction with its BM25
statistics written once; a group that fails is stored again file by file, so a bad file is
reported alone and the others are stored."""

from __future__ import annotations

import pytest
from sqlalchemy import event, func, select

from tabane.errors import InvalidInput, Issue
from tabane.ingest import batch, documents
from tabane.search.plan import SearchRequest
from tabane.service import Tabane
from tabane.storage.schema import Context, ContextUsage, CorpusStats, Paragraph


def _folder(root, n: int) -> None:
    for i in range(n):
        (root / f"f{i:02}.md").write_text(f"# File {i}\n\nThe text of file {i}.\n\nAnd more.\n")


def _commits(svc: Tabane, run) -> int:
    count = 0

    def seen(_conn) -> None:
        nonlocal count
        count += 1

    event.listen(svc.store.app, "commit", seen)
    try:
        run()
    finally:
        event.remove(svc.store.app, "commit", seen)
    return count


def _stats(svc: Tabane, user, context: str) -> tuple[int, int]:
    """(paragraphs the BM25 statistics count, paragraphs stored) in the context."""
    with svc.store.session(user) as session:
        ctx_id = session.scalar(select(Context.id).where(Context.name == context))
        counted = session.scalar(
            select(func.sum(CorpusStats.paragraphs)).where(CorpusStats.context_id == ctx_id)
        )
        stored = session.scalar(
            select(func.count()).select_from(Paragraph).where(Paragraph.context_id == ctx_id)
        )
    return int(counted or 0), int(stored or 0)


def test_a_folder_of_small_files_is_stored_in_few_transactions(
    svc: Tabane, user, context, tmp_path
):
    _folder(tmp_path, 40)
    report = None

    def run() -> None:
        nonlocal report
        report = svc.sync(user, context, tmp_path)

    commits = _commits(svc, run)
    assert report is not None and report.counts() == {"created": 40}
    assert commits <= 6, commits  # file by file it was 2 a file (the unchanged check, the write)
    assert _stats(svc, user, context) == (80, 80)
    with svc.store.session(user) as session:  # a write counted per source, summed per group
        writes = session.scalar(
            select(ContextUsage.writes)
            .join(Context, Context.id == ContextUsage.context_id)
            .where(Context.name == context)
        )
    assert writes == 40
    hits = svc.search(user, SearchRequest("text", contexts=(context,), limit=50)).hits
    assert len({h.source_id for h in hits}) == 40


def test_a_failing_group_is_stored_file_by_file(
    svc: Tabane, user, context, tmp_path, monkeypatch: pytest.MonkeyPatch
):
    _folder(tmp_path, 5)
    real = documents.store_parsed

    def failing(session, principal, ctx, doc, parsed, embed):
        if doc.source_id == "f02.md":
            raise InvalidInput("refused for the test", issues=[Issue("f02.md", "refused")])
        return real(session, principal, ctx, doc, parsed, embed)

    monkeypatch.setattr(batch, "store_parsed", failing)
    monkeypatch.setattr(documents, "store_parsed", failing)
    report = svc.sync(user, context, tmp_path)
    outcomes = {f.source_id: f.outcome for f in report.files}
    assert outcomes == {
        "f00.md": "created",
        "f01.md": "created",
        "f02.md": "error",
        "f03.md": "created",
        "f04.md": "created",
    }
    (bad,) = [f for f in report.files if f.outcome == "error"]
    assert bad.error is not None and bad.error["code"] == "invalid_input"
    assert _stats(svc, user, context) == (8, 8)  # nothing of the failed group counted twice


def test_groups_are_cut_by_files_and_by_size(tmp_path):
    small = [
        batch.Item(tmp_path / f"{i}", f"{i}", documents.DocumentInput(f"{i}", b"x"))
        for i in range(130)
    ]
    assert [len(g) for g in batch.groups(small)] == [64, 64, 2]
    big = documents.DocumentInput("big", b"x" * (200 * batch.GROUP_PARAGRAPHS))
    mixed = [small[0], batch.Item(tmp_path / "big", "big", big), small[1]]
    assert [len(g) for g in batch.groups(mixed)] == [1, 1, 1]


def test_a_source_written_twice_in_one_group_reads_its_first_version(
    svc: Tabane, user, context, tmp_path
):
    """A group's rows are held back and written by one COPY a table (storage/bulk.py
    `deferred`): a second version of a source in the same group must still find the first's
    paragraphs and packs (to keep, remove and count them), in the same transaction."""
    versions = [b"# Same\n\nFirst words.\n\nShared words.\n", b"# Same\n\nShared words.\n"]
    items = [
        batch.Item(tmp_path / "same.md", "same.md", documents.DocumentInput("same.md", data))
        for data in versions
    ]
    stored: list[batch.Stored] = []

    def run() -> None:
        stored.extend(
            batch.store_group(svc.store, user, context, items, max_paragraphs=1000, embed=False)
        )

    assert _commits(svc, run) == 2  # the unchanged check, then one group: no file-by-file retry
    assert [s.outcome for s in stored] == ["created", "replaced"]
    assert _stats(svc, user, context) == (1, 1)
    hits = svc.search(user, SearchRequest("shared", contexts=(context,), limit=5)).hits
    assert [h.text for h in hits] == ["Shared words."]
    assert not svc.search(user, SearchRequest("first", contexts=(context,), limit=5)).hits
