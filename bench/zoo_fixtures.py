"""Write the trimmed zoo pages tests/text/zoo/ holds (licences: tests/text/zoo/LICENSES.md).

Each page keeps its head and its body up to about `--text` characters of text, in document order
(everything after that point is removed, so the page stays well formed and keeps its chrome and
headings). Needs the packages installed (bench/corpus_zoo.py lists them).

    .venv/bin/python bench/zoo_fixtures.py [--text 5000]
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

import lxml.html

OUT = Path(__file__).resolve().parent.parent / "tests" / "text" / "zoo"
HANDBOOK = "/usr/share/doc/debian-handbook/html/en-US"
EXIM = "/usr/share/doc/exim4-doc-html/spec_html"
SQLITE = "/usr/share/doc/sqlite3"
PAGES = {
    "publican-handbook-apt-get.html": f"{HANDBOOK}/sect.apt-get.html",
    "publican-handbook-apparmor.html": f"{HANDBOOK}/sect.apparmor.html",
    "docbook-maint-guide-dreq.html": "/usr/share/doc/maint-guide/html/dreq.en.html",
    "docbook-maint-guide-ja-dreq.html": "/usr/share/doc/maint-guide-ja/html/dreq.ja.html",
    "gtkdoc-gtkbutton.html": "/usr/share/gtk-doc/html/gtk3/GtkButton.html",
    "texinfo-bashref.html": "/usr/share/doc/bash/bashref.html",
    "nodejs-fs.html": "/usr/share/doc/nodejs/api/fs.html",
    "sphinx-devref-pkgs.html": "/usr/share/developers-reference/pkgs.html",
    "asciidoc-git-stash.html": "/usr/share/doc/git-doc/git-stash.html",
    "xfpt-exim-introduction.html": f"{EXIM}/ch-introduction.html",
    "handwritten-sqlite-whentouse.html": "/usr/share/doc/sqlite3/whentouse.html",
    "sphinx-python-stdtypes.html": "/usr/share/doc/python3.11/html/library/stdtypes.html",
    "sphinx-python-annotations.html": "/usr/share/doc/python3.11/html/howto/annotations.html",
    "xfpt-exim-variable-index.html": f"{EXIM}/ch-variable_index.html",
    "gtkdoc-gallery.html": "/usr/share/gtk-doc/html/gtk3/ch03.html",
    # the zoo's last misses (issue 28): a heading left open over the page, SVG syntax diagrams,
    # a page heading inside SQLite's `nosearch` chrome, a breadcrumb styled as a heading, a page
    # whose headings trafilatura drops, a last heading with nothing under it
    "handwritten-sqlite-doclist.html": f"{SQLITE}/doclist.html",
    "handwritten-sqlite-dropview.html": f"{SQLITE}/lang_dropview.html",
    "handwritten-sqlite-backup.html": f"{SQLITE}/c3ref/backup_finish.html",
    "handwritten-sqlite-changeset-old.html": f"{SQLITE}/session/sqlite3changeset_old.html",
    "handwritten-sqlite-consortium.html": f"{SQLITE}/consortium_agreement-20071201.html",
    "asciidoc-git-toolsforgit.html": "/usr/share/doc/git-doc/ToolsForGit.html",
}
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")


def trim(body: Any, budget: int) -> None:
    """Remove everything after the first `budget` characters of the body's text."""
    seen = 0
    for element in body.iter():
        seen += len((element.text or "").strip()) + len((element.tail or "").strip())
        if seen > budget:
            node = element
            while node is not None and node is not body:
                for later in list(node.itersiblings()):
                    node.getparent().remove(later)
                node.tail = None
                node = node.getparent()
            return


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--text", type=int, default=5000)
    args = parser.parse_args()
    for name, path in PAGES.items():
        text = _XML_DECLARATION.sub("", Path(path).read_text(encoding="utf-8"))
        tree = lxml.html.document_fromstring(text)
        # Node.js and Python pages open with a long sidebar of links (Python's: its table of
        # contents): keep enough to reach the content
        long_head = name.startswith(("nodejs", "sphinx-python"))
        trim(tree.find("body"), args.text * (5 if long_head else 1))
        html = lxml.html.tostring(tree, encoding="unicode", doctype="<!DOCTYPE html>")
        (OUT / name).write_text(html + "\n", encoding="utf-8")
        print(name, len(html))


if __name__ == "__main__":
    main()
