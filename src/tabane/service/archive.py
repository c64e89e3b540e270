"""The service's moves of a whole context between stores: export it as an archive, import one
as a new context (archive/records.py has the format, docs/guide.md "Moving a context")."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from tabane.archive import export, records, restore
from tabane.archive.restore import ImportReport
from tabane.contexts import contexts
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
