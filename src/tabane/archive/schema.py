"""The archive format as JSON Schema (draft 2020-12): one schema a line, which a client can check
an archive against before sending it (`GET /schemas/archive`, `python -m tabane.archive.schema`).

Each kind's properties are made from the field sets the reader itself checks against
(archive/lines.py, archive/records.py), with the bounds it enforces (lengths, counts, ranges,
kinds): a field added to the reader without a type here fails at import, so the two cannot
drift (tests/archive/test_archive_schema.py checks a rich export passes and bad lines fail).
The schema states what one line may be; what spans lines (the order, unique ids, the end's
counts, a cited paragraph inside its source) only the import checks.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from tabane.archive import lines, records
from tabane.checks import MAX_INT4, MAX_INT8, SOURCE_STATES
from tabane.graph.claims.parse import CLAIM_TEXTS, MAX_REPLY, MAX_STATEMENT, MAX_WEIGHT
from tabane.graph.vocabulary import MAX_SPELLING
from tabane.ingest.documents import MAX_SOURCE_ID, MAX_TAGS_SENT
from tabane.storage.schema import EPISTEMIC_KINDS
from tabane.text.blocks import BLOCK_KINDS

Schema = dict[str, Any]

ID = "urn:tabane:archive:1"  # a name, not a place: served at GET /schemas/archive
_STORABLE = r"^[^\u0000]*$"  # PostgreSQL text holds no NUL
_NOT_BLANK = r"^(?=[\s\S]*\S)[^\u0000]*$"
_TIME = {"type": "string", "description": "ISO 8601: a date, or a date-time (UTC unless zoned)"}
_DIGEST = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
_SCOPES = {
    "type": "array",
    "minItems": 1,
    "items": {
        "type": "string",
        "minLength": 1,
        "maxLength": 128,
        "description": "letters, digits, '.', '_', '-', ':' or '@'; not starting with one of "
        "'.', '-', ':', '@'; no empty part between colons",
    },
}


def _text(limit: int, *, blank: bool = True, null: bool = True) -> Schema:
    out: Schema = {"type": ["string", "null"] if null else "string", "maxLength": limit}
    out["pattern"] = _STORABLE if blank else _NOT_BLANK
    return out


def _spelling() -> Schema:
    # control characters refused; the length is the written spelling's, spaces made one
    return {
        "type": "string",
        "maxLength": MAX_SPELLING,
        "pattern": r"^(?=[\s\S]*\S)[^\x00-\x1f\x7f-\x9f]*$",
    }


_PARAGRAPH: Mapping[str, Schema] = {
    "text": {"type": "string", "minLength": 1, "pattern": r"^\S([\s\S]*\S)?$"},
    "section": {"type": "array", "items": {"type": "string"}},
    "locator": {"type": ["object", "null"]},
    "kind": {"enum": list(BLOCK_KINDS)},
    "questions": {"type": "array", "items": {"type": "string", "pattern": r"\S"}},
}
_SOURCE: Mapping[str, Schema] = {
    "source_id": {
        "type": "string",
        "minLength": 1,
        "maxLength": MAX_SOURCE_ID,
        "pattern": r"^(?=[\s\S]*\S)[^\x00-\x1f]*$",
    },
    **{
        name: _text(limit, null=name not in lines.SOURCE_REQUIRED)
        for name, limit in lines.SOURCE_TEXTS.items()
    },
    "date": {**_TIME, "type": ["string", "null"]},
    "tags": {
        "type": "array",
        "maxItems": MAX_TAGS_SENT,
        "items": {"type": "string", "maxLength": 128, "pattern": r"\S"},
    },
    "state": {"enum": [*SOURCE_STATES, None]},
    "scopes": _SCOPES,
    "stored_at": _TIME,
    "raw_hash": {**_DIGEST, "type": ["string", "null"]},
    "content_hash": _DIGEST,
    "paragraphs": {"type": "array", "minItems": 1, "items": "paragraph"},
}
_CLAIM_ID = {"type": "integer", "minimum": 1, "maximum": MAX_INT8}
_CLAIM: Mapping[str, Schema] = {
    "id": _CLAIM_ID,
    **{
        name: {**_spelling(), "type": ["string", "null"]} for name in ("subject", "label", "object")
    },
    "weight": {"type": ["number", "null"], "minimum": -MAX_WEIGHT, "maximum": MAX_WEIGHT},
    "statement": _text(MAX_STATEMENT, blank=False),
    "in_reply_to": _text(MAX_REPLY, blank=False),
    **{name: _text(limit, blank=False) for name, limit in CLAIM_TEXTS.items()},
    "paragraph": {"type": ["integer", "null"], "minimum": 0, "maximum": MAX_INT4},
    "kind": {"enum": list(EPISTEMIC_KINDS)},
    **{
        name: {**_TIME, "type": ["string", "null"]}
        for name in ("valid_from", "valid_until", "closed_at", "valid_until_before")
    },
    "recorded_at": _TIME,
    "close_reason": {"enum": [*lines.CLOSE_REASONS, None]},
    "closed_by": {**_CLAIM_ID, "type": ["integer", "null"]},
    "scopes": _SCOPES,
}
_ALIAS: Mapping[str, Schema] = {
    "kind": {"enum": ["concept", "label"]},
    "name": _spelling(),
    "alias_of": _spelling(),
    "scopes": _SCOPES,
}
_CONTEXT: Mapping[str, Schema] = {
    "name": _text(records.CONTEXT_NAME, null=False),
    "description": {"type": "string", "pattern": _STORABLE},
    "dice_floor": {"type": "number"},
    "semantic_floor": {"type": ["number", "null"]},
    "scopes": _SCOPES,
}
_HEADER: Mapping[str, Schema | str] = {
    "tabane_archive": {"const": records.VERSION},
    "exported_at": {"type": ["string", "null"]},
    "exported_by": {"type": ["string", "null"]},
    "context": "context",
}
_END: Mapping[str, Schema] = {
    name: {"type": "integer", "minimum": 0} for name in records.END_FIELDS
}


def _object(
    fields: Iterable[str], types: Mapping[str, Schema | str], required: Iterable[str]
) -> Schema:
    """An object of exactly `fields` (the reader's own set); a field without a type is a
    KeyError at import, so a field the reader learns must be described here too."""
    props = {name: _ref(types[name]) for name in sorted(fields)}
    return {
        "type": "object",
        "properties": props,
        "required": sorted(required),
        "additionalProperties": False,
    }


def _ref(schema: Schema | str) -> Schema:
    if isinstance(schema, str):
        return {"$ref": f"#/$defs/{schema}"}
    items = schema.get("items")
    return {**schema, "items": _ref(items)} if isinstance(items, str) else schema


def _wrapped(kind: str) -> Schema:
    return _object([kind], {kind: kind}, [kind])


def archive_schema() -> Schema:
    """The JSON Schema of one archive line: a header, a source, a claim, an alias or the end."""
    defs = {
        "context": _object(records.CONTEXT_FIELDS, _CONTEXT, ["name", "scopes"]),
        "paragraph": _object(lines.PARAGRAPH_FIELDS, _PARAGRAPH, ["text"]),
        "source": _object(
            lines.SOURCE_FIELDS,
            _SOURCE,
            ["source_id", "title", "format", "scopes", "stored_at", "content_hash", "paragraphs"],
        ),
        "claim": _object(lines.CLAIM_FIELDS, _CLAIM, ["id", "author", "recorded_at", "scopes"]),
        "alias": _object(lines.ALIAS_FIELDS, _ALIAS, ["kind", "name", "alias_of", "scopes"]),
        "end": _object(records.END_FIELDS, _END, records.END_FIELDS),
    }
    header = _object(_HEADER, _HEADER, ["tabane_archive", "context"])
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": ID,
        "title": f"tabane archive, version {records.VERSION}: one line",
        "description": "JSON Lines, UTF-8: the header first, then sources, claims, aliases, and "
        "the end line last (docs/guide.md, 'Moving a context'). A line is at most "
        "twice TABANE_MAX_BODY_BYTES characters.",
        "oneOf": [header, *(_wrapped(kind) for kind in (*records.KINDS, "end"))],
        "$defs": defs,
    }


if __name__ == "__main__":
    print(json.dumps(archive_schema(), indent=2, ensure_ascii=False))
