"""HTTP answers served from the service's dataclasses (docs/decisions/0026): the dataclass's
fields in its order with the descriptions the wire adds; HTTP's JSON beside MCP's plain values."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime

import pytest

from tabane.plain import to_plain
from tabane.wire.base import Response, out, served


@dataclass(frozen=True)
class Part:
    name: str


@dataclass(frozen=True)
class Thing:
    size: int
    at: datetime
    parts: tuple[Part, ...]
    tags: tuple[str, ...] = ()
    note: str | None = None


@served(Part, {"name": "what it is called"})
class PartOut(Response):
    """A part."""


@served(Thing, {"size": "how big", "tags": "labels"}, defaults=("note",))
class ThingOut(Response):
    """A thing, as HTTP answers it."""

    parts: list[PartOut]


THING = Thing(3, datetime(2024, 5, 1, 12, 0, tzinfo=UTC), (Part("a"), Part("b")), ("x",))


def test_the_answer_has_the_dataclass_fields_in_order_with_the_wire_descriptions() -> None:
    schema = ThingOut.model_json_schema(mode="serialization")
    assert list(schema["properties"]) == ["size", "at", "parts", "tags", "note"]
    assert schema["title"] == "ThingOut"
    assert schema["description"] == "A thing, as HTTP answers it."
    assert schema["properties"]["size"]["description"] == "how big"
    assert schema["properties"]["tags"] == {
        "description": "labels",
        "items": {"type": "string"},
        "title": "Tags",
        "type": "array",
    }
    assert schema["properties"]["parts"]["items"] == {"$ref": "#/$defs/PartOut"}
    # an answer carries every field: only the default kept on purpose makes one optional
    assert schema["required"] == ["size", "at", "parts", "tags"]


def test_http_writes_what_mcp_writes_but_its_datetimes_end_in_z() -> None:
    http = json.loads(out(ThingOut, THING).model_dump_json())
    plain = to_plain(THING)
    assert list(http) == list(plain)
    assert http["at"] == "2024-05-01T12:00:00Z"
    assert plain["at"] == "2024-05-01T12:00:00+00:00"
    assert {k: v for k, v in http.items() if k != "at"} == {
        k: v for k, v in plain.items() if k != "at"
    }


def test_a_description_of_a_field_the_dataclass_lacks_is_refused() -> None:
    with pytest.raises(TypeError, match=r"\['colour'\] not fields of Part"):

        @served(Part, {"colour": "its colour"})
        class Wrong(Response):
            pass
