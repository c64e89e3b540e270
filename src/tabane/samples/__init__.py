"""The sample corpus that ships with tabane (used by `tabane demo` and the tests).

A handful of short, original documents about tabane itself, one per format the reader handles:
Markdown with front matter, Markdown in Japanese, an HTML page with site chrome around the article,
and plain text.
"""

from __future__ import annotations

from importlib.resources import files

# Which files in this package are samples (everything else here is code).
SUFFIXES = (".md", ".html", ".txt")


def sample_files() -> list[tuple[str, bytes]]:
    """Every sample document as (file name, bytes), sorted by name."""
    root = files(__name__)
    found = [
        (entry.name, entry.read_bytes())
        for entry in root.iterdir()
        if entry.is_file() and entry.name.endswith(SUFFIXES)
    ]
    return sorted(found)
