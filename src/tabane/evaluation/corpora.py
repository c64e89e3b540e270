"""The evaluation corpora (shared/eval/corpora.md): which files under a root make each corpus, and
how many there must be. A document id is the file's path relative to the root, in POSIX form."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

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


CORPORA: dict[str, Corpus] = {
    c.name: c
    for c in (
        Corpus("python3.11-doc", "python3.11-doc", "/usr/share/doc/python3.11/html", 497, _pydocs),
        Corpus("git-doc", "git-doc", "/usr/share/doc/git-doc", 241, _gitdocs),
        Corpus("manpages-ja", "manpages-ja", "/usr/share/man/ja", 990, _manpages),
    )
}


def corpus(name: str) -> Corpus:
    """The corpus of that name; an unknown name is a corpus of every regular file, uncounted."""
    return CORPORA.get(name) or Corpus(name, "", "", None, lambda rel: True)


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
