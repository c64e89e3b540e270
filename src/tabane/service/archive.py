"""The service's moves of a whole context between stores: export it as an archive, import one
as a new context (archive/records.py has the format, docs/guide.md "Moving a context")."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from tabane.archive import batches, export, records, restore, stream, taguru
from tabane.archive import groups as group_archive
from tabane.archive.batches import BatchOutcome
from tabane.archive.groups import GroupImportReport, GroupRecord
from tabane.archive.restore import ImportReport
from tabane.contexts import contexts, groups
from tabane.errors import (
    BodyTooLarge,
    InvalidInput,
    Issue,
    LimitExceeded,
    NoGroup,
    NoSource,
    TabaneError,
)
from tabane.ingest.documents import retract_source
from tabane.principal import Principal
from tabane.service.base import ServiceBase

Lines = Callable[[], Iterable[str]]


@dataclass(frozen=True)
class GroupRestored:
    """A `taguru_group` record applied: the group created, or its members set to the record's."""

    line: int
    name: str
    created: bool


@dataclass(frozen=True)
class BatchImport:
    """What Taguru's batch stream did: one outcome per batch and per group record, in order."""

    batches: tuple[BatchOutcome, ...]
    groups: tuple[GroupRestored, ...] = ()


@dataclass(frozen=True)
class SourcePromotion:
    """Sources moved into another context (Taguru's promote): one outcome per source."""

    context: str
    into: str
    dry_run: bool
    retracted_here: bool
    batches: tuple[BatchOutcome, ...]


class _DryRun(Exception):
    """Rolls a promotion's transaction back once its outcomes are known."""


class ArchiveService(ServiceBase):
    def export_context(self, user: Principal, context: str) -> Iterator[dict[str, Any]]:
        """The context as archive lines (objects), as `user` sees it, read in one snapshot.
        An unknown context is refused now; the lines are read as the iterator is consumed."""
        with self.store.session(user) as session:
            contexts.resolve(session, context)
        return self._archive_lines(user, context)

    def _archive_lines(self, user: Principal, context: str) -> Iterator[dict[str, Any]]:
        with self.store.session(user, snapshot=True) as session:
            yield from export.archive(session, user, contexts.resolve(session, context))

    def export_group(self, user: Principal, group: str) -> Iterator[dict[str, Any]]:
        """The group, the groups under it and every context they reach, as one archive (lines
        as objects), what `user` sees of them, read in one snapshot. An unknown group is
        refused now."""
        with self.store.session(user) as session:
            groups.resolve(session, group)
        return self._group_lines(user, group)

    def _group_lines(self, user: Principal, group: str) -> Iterator[dict[str, Any]]:
        with self.store.session(user, snapshot=True) as session:
            yield from group_archive.archive(session, user, group)

    def import_group(
        self,
        user: Principal,
        lines: Iterable[str],
        *,
        prefix: str = "",
        scope_map: Mapping[str, str] | None = None,
    ) -> GroupImportReport:
        """Import a group archive as new contexts and groups (each name with `prefix` before
        it), in one transaction, after every part is checked (a problem names its line in the
        whole archive; nothing is written). A name in use is `name_taken` at `prefix`."""
        self._writable()
        longest = 2 * self.settings.max_body_bytes
        found, top, parts = group_archive.split(list(lines))
        chosen = []
        for first, part in parts:
            try:
                summary = records.check(part, longest)
            except InvalidInput as exc:
                raise group_archive.relined(exc, first) from None
            chosen.append(restore.scope_map(summary, user, scope_map))
        embed = self.embedder is not None
        with self.store.session(user) as session, group_archive.at_prefix():
            reports = []
            for (_, part), mapping in zip(parts, chosen, strict=True):
                header = next(records.records(part, longest))
                assert isinstance(header, records.Header)
                rows = records.records(part, longest)
                name = prefix + header.context.name
                reports.append(
                    restore.restore(session, user, rows, mapping, name=name, embed=embed)
                )
            made = group_archive.create_groups(session, user, found, prefix, reports)
            return GroupImportReport(prefix + top, made, tuple(reports))

    def import_context(
        self,
        user: Principal,
        lines: Lines | Iterable[str],
        *,
        context: str | None = None,
        scope_map: Mapping[str, str] | None = None,
    ) -> ImportReport:
        """Import an archive as a new context (`context`, or the name it was exported under), in
        one transaction. The archive is read twice: once to check every line (a problem names
        its line; nothing is written), then to write. `lines` is a function giving the lines
        each time (a file opened again), or a sequence of them."""
        self._writable()
        again: Lines = lines if callable(lines) else _twice(lines)
        longest = 2 * self.settings.max_body_bytes  # a source line holds a whole document
        summary = records.check(again(), longest)
        chosen = restore.scope_map(summary, user, scope_map)
        with self.store.session(user) as session:
            return restore.restore(
                session,
                user,
                records.records(again(), longest),
                chosen,
                name=context,
                embed=self.embedder is not None,
            )

    def import_batches(self, user: Principal, lines: Sequence[str]) -> BatchImport:
        """Apply Taguru's batch stream, one batch per transaction, in order (archive/stream.py,
        archive/batches.py). Its size is checked first (`TABANE_MAX_BODY_BYTES`, `MAX_LINES`);
        a bad batch stops the stream with its problem at its line, and the error's `written`
        names the batches before it, which stay written."""
        self._writable()
        _bounded(lines, self.settings.max_body_bytes)
        embed = self.embedder is not None
        done: list[BatchOutcome] = []
        restored: list[GroupRestored] = []
        for first, part in stream.split(lines):
            try:
                if stream.is_group(part):
                    restored.append(self._restore_group(user, first, stream.read_group(*part[0])))
                    continue
                batch = stream.read(part)
                with self.store.session(user) as session:
                    done.append(batches.apply(session, user, batch, embed=embed))
            except TabaneError as exc:
                exc.written = _written(done, restored)
                raise
        return BatchImport(tuple(done), tuple(restored))

    def _restore_group(self, user: Principal, line: int, record: GroupRecord) -> GroupRestored:
        """A group record is its group's whole truth: created if absent, else its description
        and members set to the record's (one transaction); a problem is named at its line."""
        with self.store.session(user) as session, _at_line(line):
            try:
                have = groups.get(session, record.name)
            except NoGroup:
                groups.create(
                    session,
                    user,
                    record.name,
                    description=record.description,
                    contexts=record.contexts,
                    groups=record.groups,
                    structure=self._group_edges,
                )
                return GroupRestored(line, record.name, True)
            groups.change(
                session,
                user,
                record.name,
                description=record.description,
                add_contexts=[c for c in record.contexts if c not in have.contexts],
                remove_contexts=[c for c in have.contexts if c not in record.contexts],
                add_groups=[g for g in record.groups if g not in have.groups],
                remove_groups=[g for g in have.groups if g not in record.groups],
                structure=self._group_edges,
            )
            return GroupRestored(line, record.name, False)

    def promote_sources(
        self,
        user: Principal,
        context: str,
        into: str,
        sources: Sequence[str],
        *,
        dry_run: bool = False,
        retract: bool = False,
    ) -> SourcePromotion:
        """Move the named sources of `context` into the existing context `into`, all or nothing:
        each as Taguru's export writes it (its passage, date, tags and the live world claims
        it attests) applied there as an import batch (retract-then-apply, so promoting again
        is the same); with `retract`, retracted here in the same transaction. `dry_run`
        answers the same outcomes and writes nothing."""
        self._writable()
        if into == context:
            raise InvalidInput(
                "a context's sources are promoted into another one",
                issues=[Issue("into", "the context the sources are in")],
            )
        with self.store.session(user) as session:
            contexts.resolve(session, into, "into")  # it must exist: nothing is created
        lines = _promoted(self._archive_lines(user, context), into, sources)
        embed = self.embedder is not None
        try:
            with self.store.session(user) as session:
                done = []
                for _first, part in stream.split(lines):
                    batch = stream.read(part)
                    done.append(batches.apply(session, user, batch, embed=embed, create=False))
                if retract:
                    ctx = contexts.resolve(session, context)
                    for source in sources:
                        retract_source(session, user, ctx, source, embed=embed)
                if dry_run:
                    raise _DryRun(done)
        except _DryRun:
            pass
        return SourcePromotion(context, into, dry_run, retract and not dry_run, tuple(done))


MAX_LINES = 200_000  # lines of one batch stream (a body of TABANE_MAX_BODY_BYTES at most)


def _bounded(lines: Sequence[str], max_bytes: int) -> None:
    if len(lines) > MAX_LINES:
        raise LimitExceeded(
            f"the stream has {len(lines)} lines, more than {MAX_LINES}: split it",
            issues=[Issue("body", f"{len(lines)} lines > {MAX_LINES}")],
        )
    size = sum(len(line.encode()) + 1 for line in lines)
    if size > max_bytes:
        raise BodyTooLarge(
            "the stream is too large: split it",
            issues=[Issue("body", f"{size} bytes > {max_bytes} (TABANE_MAX_BODY_BYTES)")],
        )


def _written(done: Sequence[BatchOutcome], restored: Sequence[GroupRestored]) -> str:
    if not done and not restored:
        return "nothing"
    said = [f"group {g.name!r} (line {g.line})" for g in restored]
    if done:
        said.insert(
            0, f"the {len(done)} batch(es) before it (lines {done[0].line}–{done[-1].line})"
        )
    return f"{' and '.join(said)} were written and stay; it and what follows were not"


@contextmanager
def _at_line(line: int) -> Iterator[None]:
    """A group record's problem named at its line of the stream (`line N.contexts[0]`)."""
    try:
        yield
    except TabaneError as exc:
        exc.issues = tuple(Issue(f"line {line}.{i.path}", i.problem) for i in exc.issues)
        raise


def _promoted(lines: Iterable[dict[str, Any]], into: str, sources: Sequence[str]) -> list[str]:
    """The named sources' batches of an export, addressed to `into` (no create block, no alias
    lines: aliases belong to a context, not to a source); `no_source` naming a source the
    export has no live batch for."""
    wanted = set(sources)
    kept: list[str] = []
    found: set[str] = set()
    keep = False
    for line in taguru.batches(lines):
        if "taguru_batch" in line:
            keep = line["source"] in wanted
            if keep:
                found.add(line["source"])
                line = {"taguru_batch": line["taguru_batch"], "context": into,
                        "source": line["source"]}  # fmt: skip
        if keep and "alias" not in line:
            kept.append(json.dumps(line))
    missing = [i for i, s in enumerate(sources) if s not in found]
    if missing:
        raise NoSource(
            f"no live source {sources[missing[0]]!r} in the context",
            issues=[Issue(f"sources[{i}]", "not a live source here") for i in missing],
        )
    return kept


def _twice(lines: Iterable[str]) -> Lines:
    kept = lines if isinstance(lines, (list, tuple)) else list(lines)
    return lambda: kept
