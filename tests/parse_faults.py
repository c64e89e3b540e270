"""Parsers that fail the way a reader bug could, for the process pool's tests
(tests/ingest/test_parsing.py): importable by name in a spawned worker."""

from __future__ import annotations

import os
import time
from typing import Any

from tabane.ingest.parsing import parse_document
from tabane.text.documents import ParsedDocument


def crash_on_poison(doc: Any, max_paragraphs: int) -> ParsedDocument:
    """Kills its process (as a segfault in a C reader would) on a file named `poison*`."""
    if "poison" in doc.source_id:
        os._exit(70)
    return parse_document(doc, max_paragraphs)


def hang_on_poison(doc: Any, max_paragraphs: int) -> ParsedDocument:
    """Never returns on a file named `poison*` (a reader caught in a loop)."""
    if "poison" in doc.source_id:
        time.sleep(3600)
    return parse_document(doc, max_paragraphs)
