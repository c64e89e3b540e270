"""An archive as Taguru's batch stream (archive/taguru.py, decision 0027): what a batch can
carry is carried, what it cannot is left out."""

from __future__ import annotations

from typing import Any

from tabane.archive.taguru import UNSOURCED, batches

HEADER = {
    "tabane_archive": 1,
    "context": {"name": "c", "description": "d", "dice_floor": 0.3, "semantic_floor": None},
}


def source(source_id: str, paragraphs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"source": {"source_id": source_id, "tags": [], "date": None, "paragraphs": paragraphs}}


def test_numbered_locators_sections_and_what_a_batch_cannot_carry() -> None:
    lines = [
        HEADER,
        source(
            "s",
            [
                {
                    "text": "a",
                    "section": ["H", "I"],
                    "locator": {"kind": "page", "start": 3, "end": 4},
                },
                {"text": "b", "section": ["H", "I"]},
                {"text": "c", "section": ["J"], "locator": {"kind": "slide", "start": 2, "end": 2}},
            ],
        ),
        {
            "claim": {
                "id": 1,
                "subject": "x",
                "label": "l",
                "object": "y",
                "weight": 2.0,
                "source": "s",
                "paragraph": 2,
                "kind": "world",
            }
        },
        {
            "claim": {
                "id": 2,
                "subject": "x",
                "label": "l",
                "object": "z",
                "weight": 1.0,
                "source": "s",
                "kind": "world",
                "closed_at": "2026-01-01T00:00:00+00:00",
            }
        },
        {
            "claim": {
                "id": 3,
                "subject": "x",
                "label": "l",
                "object": "w",
                "weight": 1.0,
                "kind": "agent",
                "perspective": "p",
            }
        },
        {"claim": {"id": 4, "statement": "a note", "kind": "world"}},
        {"end": {}},
    ]
    assert list(batches(lines)) == [
        {
            "taguru_batch": 1,
            "context": "c",
            "source": "s",
            "create": {"description": "d", "dice_floor": 0.3, "semantic_floor": None},
        },
        {"passage": "a\n\nb\n\nc"},
        {"paragraph": 0, "section": "H / I"},
        {"paragraph": 0, "locator": {"kind": "page", "value": "3-4"}},
        {"paragraph": 2, "section": "J"},
        {"paragraph": 2, "locator": {"kind": "slide", "value": "2"}},
        {"subject": "x", "label": "l", "object": "y", "weight": 2.0, "paragraph": 2},
    ]


def test_an_empty_context_is_one_header_that_creates_it() -> None:
    alias = {"alias": {"kind": "concept", "name": "A", "alias_of": "B", "scopes": []}}
    assert list(batches([HEADER, alias, {"end": {}}])) == [
        {
            "taguru_batch": 1,
            "context": "c",
            "source": UNSOURCED,
            "create": {"description": "d", "dice_floor": 0.3, "semantic_floor": None},
        },
        {"alias": "A", "canonical": "B", "kind": "concept"},
    ]
