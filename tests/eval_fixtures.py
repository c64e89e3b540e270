"""A tiny graph set the evaluation tests share: one context, three edges (one negative), two
questions (a negative and a lookup)."""

from __future__ import annotations

from typing import Any


def _edge(s: str, label: str, o: str, w: float) -> dict[str, Any]:
    return {"subject": s, "label": label, "object": o, "weight": w, "source": "failsafe.md"}


GRAPH_SET: dict[str, Any] = {
    "contexts": [
        {
            "name": "fc",
            "description": "a flight controller",
            "associations": [
                _edge("GPS loss", "causes", "failsafe_land", 1.0),
                _edge("GPS loss", "causes", "return_to_launch", -0.9),
                _edge("FailsafeMode", "variant", "LAND", 1.0),
            ],
            "aliases": {},
            "passages": {
                "failsafe.md": "# Failsafe\n\nGPS loss causes failsafe_land.\n\n"
                "GPS loss does not cause return_to_launch.\n\nFailsafeMode has a variant LAND."
            },
        }
    ],
    "questions": [
        {"id": "q1", "context": "fc", "question": "Does GPS loss cause return_to_launch?",
         "cue_spellings": ["GPS loss"], "resolves_to": {"GPS loss": "GPS loss"},
         "needed": [["GPS loss", "causes", "return_to_launch"],
                    ["GPS loss", "causes", "failsafe_land"]], "hops": 1, "kind": "negative"},
        {"id": "q2", "context": "fc", "question": "What variants does FailsafeMode have?",
         "cue_spellings": ["FailsafeMode"], "resolves_to": {"FailsafeMode": "FailsafeMode"},
         "needed": [["FailsafeMode", "variant", "LAND"]], "hops": 1, "kind": "lookup"},
    ],
}  # fmt: skip
