"""The pure text layer: reading documents into sectioned, located paragraphs.

Imports only `tabane.errors`, the standard library and parsing libraries; nothing above it.
"""

from tabane.text.blocks import Block, Locator, LocatorKind, ParsedDocument
from tabane.text.documents import FORMATS, detect_format, read_document

__all__ = [
    "FORMATS",
    "Block",
    "Locator",
    "LocatorKind",
    "ParsedDocument",
    "detect_format",
    "read_document",
]
