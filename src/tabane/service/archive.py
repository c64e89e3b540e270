"""The service's moves of a whole context between stores: export it as an archive, import one
as a new context (archive/records.py has the format, docs/guide.md "Moving a context")."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from tabane.archive import export, records, restore
from tabane.archive import groups as group_archive
from tabane.archive.groups import GroupImportReport
from tabane.archive.restore import ImportReport
from tabane.contexts import contexts, groups
from tabane.errors import InvalidInput
from tabane.principal import Principal
from tabane.service.base import ServiceBase

Lines = Callable[[], Iterable[str]]


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


def _twice(lines: Iterable[str]) -> Lines:
    kept = lines if isinstance(lines, (list, tuple)) else list(lines)
    return lambda: kept
