"""Ingest files and keep a folder in sync with a context.

Files are stored a group at a time, each group in one transaction (ingest/batch.py); a group
that fails is stored again file by file, so a bad file is reported and the others go on. A sync
derives each source id from the file's path relative to the folder, skips unchanged files,
replaces changed ones, drops empty ones, honours a blocklist of globs, and retracts
(soft-deletes) sources whose files disappeared since the last sync of the same folder.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import select

from tabane.contexts import contexts
from tabane.errors import InvalidInput, Issue, NoSource
from tabane.ingest import batch, walk
from tabane.ingest.documents import (
    MAX_PARAGRAPHS,
    DocumentInput,
    check_state,
    check_tags,
    retract_source,
)
from tabane.ingest.parsing import Parser, workers_for
from tabane.principal import Principal
from tabane.storage.schema import Source
from tabane.storage.store import Store

# matched against the path relative to the folder and against each of its parts (a folder named
# `__pycache__` at any depth)
DEFAULT_BLOCKLIST = (".*", "*/.*", "__pycache__", "*.pyc", "*.lock", "*.swp", "*~")

Progress = Callable[[str], None]  # a file's path, once it is done
Planned = Callable[[int], None]  # how many files there are, before the first


@dataclass(frozen=True)
class Labels:
    """What the caller says of every file an ingest or sync stores (`--area`, `--state`,
    `--tag`): it wins over each file's own front matter; None leaves the file's."""

    area: str | None = None
    state: str | None = None
    tags: tuple[str, ...] | None = None

    def check(self) -> None:
        """Refuse a bad label before any file is read (`state`, `tags`, `area` issues)."""
        check_state(self.state)
        if self.tags is not None:
            check_tags(self.tags)
        if self.area is not None and (not self.area.strip() or len(self.area) > 200):
            raise InvalidInput("invalid area", issues=[Issue("area", "empty or over 200 chars")])


@dataclass
class FileReport:
    path: str
    source_id: str
    outcome: str  # created | replaced | revived | unchanged | empty | retracted | blocked | error
    paragraphs: int = 0
    error: dict[str, object] | None = None
    warnings: tuple[Issue, ...] = ()  # metadata the file declares that could not be read


@dataclass
class IngestReport:
    files: list[FileReport] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for f in self.files:
            out[f.outcome] = out.get(f.outcome, 0) + 1
        return out

    @property
    def paragraphs(self) -> int:
        return sum(
            f.paragraphs for f in self.files if f.outcome in ("created", "replaced", "revived")
        )

    @property
    def failed(self) -> bool:
        return any(f.outcome == "error" for f in self.files)


def ingest_paths(
    store: Store,
    principal: Principal,
    context: str,
    paths: Iterable[Path],
    *,
    scopes: Sequence[str] | None = None,
    labels: Labels = Labels(),
    max_bytes: int,
    max_paragraphs: int = MAX_PARAGRAPHS,
    progress: Progress | None = None,
    planned: Planned | None = None,
    embed: bool = False,
) -> IngestReport:
    """Ingest files (folders are walked); each file's source id is its path as given. `planned`
    is told how many files there are before the first, `progress` each one's path once done."""
    labels.check()
    with store.session(principal) as session:
        contexts.resolve(session, context)  # fail fast on an unknown context
    report = IngestReport()
    files = _expand(paths)
    if planned:
        planned(len(files))
    _store_all(
        store,
        principal,
        context,
        [(path, str(path)) for path in files],
        report,
        _Common(scopes, None, labels, max_bytes, max_paragraphs, embed),
        progress,
    )
    return report


def sync(
    store: Store,
    principal: Principal,
    context: str,
    folder: Path,
    *,
    blocklist: Sequence[str] = DEFAULT_BLOCKLIST,
    scopes: Sequence[str] | None = None,
    labels: Labels = Labels(),
    max_bytes: int,
    max_paragraphs: int = MAX_PARAGRAPHS,
    progress: Progress | None = None,
    planned: Planned | None = None,
    embed: bool = False,
) -> IngestReport:
    root = folder.resolve()
    if not root.is_dir():
        raise InvalidInput(f"{folder} is not a folder", issues=[Issue("folder", "not a directory")])
    origin = f"sync:{root}"
    labels.check()
    with store.session(principal) as session:
        contexts.resolve(session, context)
    report = IngestReport()
    seen: set[str] = set()
    found = [(p, p.relative_to(root).as_posix()) for p in walk.files(root)]
    found = [(path, rel) for path, rel in found if not blocked(rel, blocklist)]
    if planned:
        planned(len(found))
    seen.update(rel for _, rel in found)
    _store_all(
        store,
        principal,
        context,
        found,
        report,
        _Common(scopes, origin, labels, max_bytes, max_paragraphs, embed),
        progress,
    )
    with store.session(principal) as session:
        ctx = contexts.resolve(session, context)
        gone = session.scalars(
            select(Source.source_id).where(
                Source.context_id == ctx.id,
                Source.origin == origin,
                Source.retracted_at.is_(None),
                Source.source_id.not_in(seen) if seen else Source.source_id.is_not(None),
            )
        ).all()
        for sid in sorted(gone):
            result = retract_source(
                session, principal, ctx, sid, reason="file disappeared", embed=embed
            )
            report.files.append(FileReport(str(root / sid), sid, "retracted", result.paragraphs))
    return report


@dataclass(frozen=True)
class _Common:
    """What every file of one ingest or sync is stored with."""

    scopes: Sequence[str] | None
    origin: str | None
    labels: Labels
    max_bytes: int
    max_paragraphs: int
    embed: bool

    def doc(self, source_id: str) -> Callable[[bytes], DocumentInput]:
        def make(data: bytes) -> DocumentInput:
            labels = self.labels
            return DocumentInput(
                source_id=source_id,
                data=data,
                scopes=self.scopes,
                origin=self.origin,
                area=labels.area,
                state=labels.state,
                tags=labels.tags,
            )

        return make


def _store_all(
    store: Store,
    principal: Principal,
    context: str,
    found: Sequence[tuple[Path, str]],
    report: IngestReport,
    common: _Common,
    progress: Progress | None,
) -> None:
    """Store the files (path, source id) in groups (ingest/batch.py), read as they come; with
    enough files, each group is parsed in a process pool while the one before is stored."""
    items = (batch.read(p, sid, common.max_bytes, common.doc(sid)) for p, sid in found)
    with Parser(workers_for(len(found))) as parser:
        waiting: batch.Prepared | None = None
        for group in batch.groups(items):
            ready = batch.prepare(store, principal, context, group, parser, common.max_paragraphs)
            if waiting is not None:
                _report(store, principal, context, waiting, report, common, progress)
            waiting = ready
        if waiting is not None:
            _report(store, principal, context, waiting, report, common, progress)


def _report(
    store: Store,
    principal: Principal,
    context: str,
    ready: batch.Prepared,
    report: IngestReport,
    common: _Common,
    progress: Progress | None,
) -> None:
    stored = batch.store_prepared(store, principal, context, ready, embed=common.embed)
    for one in stored:
        report.files.append(_file_report(store, principal, context, one, common.embed))
        if progress:
            progress(one.item.source_id if common.origin else str(one.item.path))


def _file_report(
    store: Store, principal: Principal, context: str, one: batch.Stored, embed: bool
) -> FileReport:
    path, sid = one.item.path, one.item.source_id
    if one.outcome == "empty":
        return _drop_empty(store, principal, context, path, sid, embed)
    if one.error is not None:
        return FileReport(str(path), sid, "error", error=one.error.to_body()["error"])  # type: ignore[arg-type]
    return FileReport(str(path), sid, one.outcome, one.paragraphs, warnings=one.warnings)


def blocked(rel: str, blocklist: Sequence[str]) -> bool:
    parts = rel.split("/")
    return any(
        fnmatch.fnmatch(rel, pattern) or any(fnmatch.fnmatch(p, pattern) for p in parts)
        for pattern in blocklist
    )


def _drop_empty(
    store: Store, principal: Principal, context: str, path: Path, sid: str, embed: bool
) -> FileReport:
    """An empty file stores nothing (`empty`); if it replaced a stored source, that source is
    `retracted` (the report's `paragraphs` then counts the paragraphs removed)."""
    with store.session(principal) as session:
        ctx = contexts.resolve(session, context)
        try:
            result = retract_source(
                session, principal, ctx, sid, reason="file became empty", embed=embed
            )
            return FileReport(str(path), sid, "retracted", result.paragraphs)
        except NoSource:
            return FileReport(str(path), sid, "empty")


def _expand(paths: Iterable[Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out.extend(
                f
                for f in walk.files(p)
                if not blocked(f.relative_to(p).as_posix(), DEFAULT_BLOCKLIST)
            )
        else:
            out.append(p)
    return out
