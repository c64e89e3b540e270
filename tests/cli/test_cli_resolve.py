"""`tabane resolve CONTEXT CUE` (the group's default command), `tabane resolve calibrate` and
`tabane audit`, in process through Typer's runner on the session's store."""

from __future__ import annotations

import pytest

from tabane.graph.claims.parse import parse_claims
from tabane.principal import Principal
from tabane.service import Tabane


def seed(svc: Tabane, user: Principal, context: str) -> None:
    claims = [
        {"subject": "Frame", "label": "has", "object": "frame", "weight": 1.0},
        {"subject": "frame", "label": "is", "object": "Frames", "weight": 1.0},
    ]
    svc.add_claims(user, context, parse_claims(claims))


@pytest.mark.slow
def test_resolve_is_the_default_and_calibrate_a_subcommand(cli, svc, user, context) -> None:
    seed(svc, user, context)
    code, out, _ = cli("resolve", context, "frame")
    assert code == 0 and [c["name"] for c in out["candidates"]] == ["frame", "Frame"]
    code, out, _ = cli("resolve", "cue", context, "Frame", "--limit", "1")  # the explicit form
    assert code == 0 and [c["name"] for c in out["candidates"]] == ["Frame"]
    code, out, _ = cli("resolve", context, "frame", "--explain", "Frame", "--limit", "1")
    assert code == 0 and (out["verdict"], out["limit_to_reach"]) == ("cut_by_limit", 2)
    code, out, _ = cli("resolve", "calibrate", context)  # no embedder in these tests
    assert code == 0 and (out["verdict"], out["reason"]) == ("impossible", "no_embedder")
    code, _, err = cli("resolve", "calibrate", "nowhere")
    assert code == 2 and "no_context" in err
    code, _, err = cli("resolve", context)
    assert code == 2 and "Missing argument 'cue'" in err
