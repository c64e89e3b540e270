"""`tabane eval graph` on a small set in the shape of shared/eval/dev/graph.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tabane.evaluation.graph_eval import _same_sign, cue_class, render, run_graph_eval
from tabane.principal import Principal
from tabane.service import Tabane

from helpers import unique

PASSAGE = (
    "# Failsafe\n\nFailsafeMonitor is a task. GPS loss causes failsafe_land.\n\n"
    "GPS loss does not cause return_to_launch.\n\nThe enum FailsafeMode has a variant LAND."
)
SET = {
    "contexts": [
        {
            "name": "fc",
            "description": "a flight controller",
            "associations": [
                {
                    "subject": "GPS loss",
                    "label": "causes",
                    "object": "failsafe_land",
                    "weight": 1.0,
                    "source": "failsafe.md",
                },
                {
                    "subject": "GPS loss",
                    "label": "causes",
                    "object": "return_to_launch",
                    "weight": -0.9,
                    "source": "failsafe.md",
                },
                {
                    "subject": "FailsafeMonitor",
                    "label": "kind",
                    "object": "task",
                    "weight": 1.0,
                    "source": "failsafe.md",
                },
                {
                    "subject": "FailsafeMode",
                    "label": "variant",
                    "object": "LAND",
                    "weight": 1.0,
                    "source": "failsafe.md",
                },
            ],
            "aliases": {"RTL": "return_to_launch"},
            "passages": {"failsafe.md": PASSAGE},
        }
    ],
    "questions": [
        {
            "id": "q1",
            "context": "fc",
            "question": "If GPS is lost, will it RTL?",
            "cue_spellings": ["GPS is lost", "RTL"],
            "resolves_to": {"GPS is lost": "GPS loss", "RTL": "return_to_launch"},
            "needed": [
                ["GPS loss", "causes", "return_to_launch"],
                ["GPS loss", "causes", "failsafe_land"],
            ],
            "hops": 1,
            "kind": "negative",
        },
        {
            "id": "q2",
            "context": "fc",
            "question": "What variants does failsafe-mode have?",
            "cue_spellings": ["failsafe-mode"],
            "resolves_to": {"failsafe-mode": "FailsafeMode"},
            "needed": [["FailsafeMode", "variant", "LAND"]],
            "distractors": [["FailsafeMonitor", "kind", "task"]],
            "hops": 1,
            "kind": "disambiguation",
        },
    ],
}


@pytest.mark.slow
def test_the_pipeline_reaches_every_needed_triple(
    svc: Tabane, user: Principal, tmp_path: Path
) -> None:
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(SET), encoding="utf-8")
    report = run_graph_eval(svc, user, path, prefix=unique("g"))
    assert report.loaded["fc"] == {"sources": 1, "associations": 4, "aliases": 1}
    assert (report.overall.needed, report.overall.present) == (3, 3)
    assert report.overall.all_rate == 1.0
    assert report.resolution["alias"].at1 == 1
    assert report.resolution["normalized"].at1 == 1
    assert report.distractor_above == 0
    assert "| all | 2 | 1.000 | 1.000 | 1.000 |" in render(report)


def test_the_sign_must_agree() -> None:
    """A negative edge returned as positive (or netted to 0) does not cover the needed triple."""
    assert _same_sign(-0.9, -0.9) and _same_sign(0.4, 1.0)
    assert not _same_sign(0.9, -0.9) and not _same_sign(0.0, -0.9) and not _same_sign(-1, 1)


def test_cue_classes() -> None:
    aliases = {"RTL": "return_to_launch"}
    assert cue_class("GPS loss", "GPS loss", aliases) == "exact"
    assert cue_class("RTL", "return_to_launch", aliases) == "alias"
    assert cue_class("FailSafeMode", "FailsafeMode", aliases) == "normalized"
    assert cue_class("せせらぎ", "薄葉せせらぎ", aliases) == "partial"
    assert cue_class("KESTRAL_LOOP_HZ", "KESTREL_LOOP_HZ", aliases) == "typo_or_variant"
    assert cue_class("motors run hot", "motor heating", aliases) == "descriptive"
