"""The evaluation corpora (shared/eval/corpora.md): which files under a root make each corpus, and
how many there must be. A document id is the file's path relative to the root, in POSIX form."""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tabane.errors import InvalidInput, Issue

_PY_SKIP = re.compile(
    r"^(_sources|_static)/|(^|/)(genindex[^/]*|search|py-modindex|contents)\.html$"
)
_MAN_FILE = re.compile(r"^man[^/]*/[^/]+\.gz$")


@dataclass(frozen=True)
class Corpus:
    name: str
    package: str
    root: str  # where Debian installs it
    expected_files: int | None  # None: no count is known (an ad-hoc corpus)
    selects: Callable[[str], bool]  # relative POSIX path -> part of the corpus?


def _pydocs(rel: str) -> bool:
    return rel.endswith(".html") and not _PY_SKIP.search(rel)


def _gitdocs(rel: str) -> bool:
    return rel.endswith(".html")


def _manpages(rel: str) -> bool:
    return bool(_MAN_FILE.match(rel))


def _handbook(rel: str) -> bool:  # README-docbook.md: every *.html directly in the root
    return "/" not in rel and rel.endswith(".html")


def _maintguide_ja(rel: str) -> bool:  # README-docbook.md: every *.ja.html in the root
    return "/" not in rel and rel.endswith(".ja.html")


CORPORA: dict[str, Corpus] = {
    c.name: c
    for c in (
        Corpus("python3.11-doc", "python3.11-doc", "/usr/share/doc/python3.11/html", 497, _pydocs),
        Corpus("git-doc", "git-doc", "/usr/share/doc/git-doc", 241, _gitdocs),
        Corpus("manpages-ja", "manpages-ja", "/usr/share/man/ja", 990, _manpages),
        Corpus(
            "debian-handbook",
            "debian-handbook",
            "/usr/share/doc/debian-handbook/html/en-US",
            127,
            _handbook,
        ),
        Corpus(
            "maint-guide-ja",
            "maint-guide-ja",
            "/usr/share/doc/maint-guide-ja/html",
            11,
            _maintguide_ja,
        ),
    )
}


def corpus(name: str, select: Sequence[str] = ()) -> Corpus:
    """The corpus of that name, or, given `select` (globs over the path relative to the root,
    `*` crossing folders), the files those globs match, uncounted. An unknown corpus without a
    selection is refused: taking every file under a root takes its stylesheets, images and
    indexes too (issue 28)."""
    if select:
        patterns = tuple(select)
        return Corpus(
            name, "", "", None, lambda rel: any(fnmatch.fnmatch(rel, p) for p in patterns)
        )
    known = CORPORA.get(name)
    if known is None:
        raise InvalidInput(
            f"unknown corpus {name!r}: name the files to take with a selection",
            issues=[
                Issue(
                    "corpus",
                    f"not one of {', '.join(sorted(CORPORA))}; give --select GLOB (repeatable)",
                )
            ],
        )
    return known


def select_files(root: Path, spec: Corpus) -> list[str]:
    """The corpus's document ids under `root`, sorted: regular files only (symbolic links are
    aliases of other pages and are never followed nor selected)."""
    out: list[str] = []
    for dirpath, dirnames, names in os.walk(root):
        dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(dirpath, d))]
        for name in names:
            full = os.path.join(dirpath, name)
            if os.path.islink(full) or not os.path.isfile(full):
                continue
            rel = Path(os.path.relpath(full, root)).as_posix()
            if spec.selects(rel):
                out.append(rel)
    return sorted(out)
