"""Bytes to text: gzip, byte-order marks, binary detection and strict decoding.

Decoding never guesses: UTF-8 (with or without BOM), UTF-16/32 with a BOM, then a charset the
document itself declares (HTML), and otherwise the document is rejected. A silent latin-1 fallback
would turn every undecodable file into plausible-looking garbage that is then indexed and cited.
"""

from __future__ import annotations

import codecs
import re
import zlib

from tabane.errors import DocumentError, Issue

GZIP_MAGIC = b"\x1f\x8b"
# The largest decompressed size accepted from a .gz document (a guard against decompression bombs);
# the largest man page in manpages-ja is ~0.3 MiB decompressed.
MAX_DECOMPRESSED = 64 * 1024 * 1024
# Binary detection looks at this many leading bytes ...
_SNIFF_BYTES = 8192
# ... and calls them binary when more than this share are C0 control bytes other than those text
# uses (tab, newline, carriage return, form feed, vertical tab, escape). One NUL byte is enough.
_CONTROL_RATIO = 0.10
_CONTROL = frozenset(range(0x00, 0x20)) - {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1B} | {0x7F}

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def is_gzip(data: bytes) -> bool:
    return data[:2] == GZIP_MAGIC


def gunzip(data: bytes, name: str, *, limit: int = MAX_DECOMPRESSED) -> bytes:
    """Decompress gzip data (all members); corrupt data or more than `limit` bytes is refused."""
    out = bytearray()
    rest = data
    try:
        while rest[:2] == GZIP_MAGIC:
            inflater = zlib.decompressobj(wbits=31)
            out += inflater.decompress(rest, limit + 1 - len(out))
            if len(out) > limit:
                raise DocumentError(
                    f"{name}: decompresses to more than {limit} bytes",
                    issues=[Issue(name, f"gzip data decompresses to more than {limit} bytes")],
                )
            if not inflater.eof:
                raise DocumentError(
                    f"{name}: truncated gzip data",
                    issues=[Issue(name, "gzip data is truncated")],
                )
            rest = inflater.unused_data
    except zlib.error as exc:
        raise DocumentError(
            f"{name}: corrupt gzip data", issues=[Issue(name, f"corrupt gzip data: {exc}")]
        ) from exc
    return bytes(out)


def gunzip_head(data: bytes, size: int = 4096) -> bytes:
    """The first `size` decompressed bytes of gzip data (b"" when unreadable), for sniffing."""
    try:
        return zlib.decompressobj(wbits=31).decompress(data, size)
    except zlib.error:
        return b""


def bom_encoding(data: bytes) -> str | None:
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return encoding
    return None


def looks_binary(data: bytes) -> bool:
    """True for data that is not text in any encoding we read (asked when there is no BOM)."""
    head = data[:_SNIFF_BYTES]
    if not head:
        return False
    if b"\x00" in head:
        return True
    controls = sum(1 for byte in head if byte in _CONTROL)
    return controls / len(head) > _CONTROL_RATIO


def normalize_charset(label: str) -> str | None:
    """Python's codec name for a declared charset label, or None when Python has no such codec."""
    label = label.strip().strip("\"'").lower()
    if not label:
        return None
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


def decode_text(data: bytes, name: str, *, declared: str | None = None) -> str:
    """Decode document bytes strictly, or raise DocumentError naming `name`.

    One rule for every surface (CLI, sync, HTTP, MCP: they all read bytes through here). Order: a
    BOM decides; then data that looks binary, or holds a NUL byte anywhere, is refused; then UTF-8;
    then the `declared`
    charset (an HTML meta charset or XML declaration), tried first when it is a 7-bit stateful
    encoding (ISO-2022-*), whose escape sequences would otherwise pass as valid UTF-8.
    """
    encoding = bom_encoding(data)
    if encoding is not None:
        try:
            return _no_nul(data.decode(encoding).removeprefix("\ufeff"), name)
        except UnicodeDecodeError as exc:
            raise _undecodable(
                name, f"invalid {encoding} after a byte-order mark ({exc.reason})"
            ) from exc
    if looks_binary(data):
        raise DocumentError(
            f"{name}: binary data",
            issues=[Issue(name, "binary data: not text and not a PDF")],
        )
    if b"\x00" in data:  # past the sniffed head: text cannot hold it (PostgreSQL refuses it)
        offset = data.index(b"\x00")
        raise _undecodable(name, f"a NUL byte at offset {offset}: not text")
    charset = normalize_charset(declared) if declared else None
    candidates = ["utf-8"]
    if charset is not None and charset != "utf-8":
        if charset.startswith("iso2022") and b"\x1b" in data:
            candidates.insert(0, charset)
        else:
            candidates.append(charset)
    first: UnicodeDecodeError | None = None
    for candidate in candidates:
        try:
            return _no_nul(data.decode(candidate), name)
        except UnicodeDecodeError as exc:
            first = first or exc
            continue
    tried = " or ".join(candidates)
    if first is not None:
        tried += f" (byte 0x{data[first.start]:02x} at offset {first.start})"
    if declared and charset is None:
        tried += f" (the declared charset {declared!r} is unknown)"
    raise _undecodable(name, f"cannot be decoded as {tried}")


def _no_nul(text: str, name: str) -> str:
    """`text`, unless it holds a NUL character (UTF-16 or a declared charset can decode one)."""
    if "\x00" in text:
        raise _undecodable(name, f"a NUL character at offset {text.index(chr(0))}: not text")
    return text


def _undecodable(name: str, problem: str) -> DocumentError:
    return DocumentError(f"{name}: {problem}", issues=[Issue(name, problem)])


def split_lines(text: str) -> list[str]:
    """Lines of `text`, CRLF and CR normalized; only newlines count, as editors number lines."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


_CHARSET_META = re.compile(
    rb"""<meta[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9_.:\-]+)""", re.IGNORECASE
)
_XML_DECL = re.compile(
    rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9_.:\-]+)["']""", re.IGNORECASE
)


def declared_charset(data: bytes) -> str | None:
    """The charset an HTML page declares in its first 4 KiB (meta charset, http-equiv or XML)."""
    head = data[:4096]
    match = _XML_DECL.match(head) or _CHARSET_META.search(head)
    return match.group(1).decode("ascii") if match else None
