"""`tabane remember` and `tabane sessions …`, in process through Typer's runner."""

from __future__ import annotations

from typing import Any

from helpers import unique


def test_remember_and_sessions(cli: Any, context: str) -> None:
    code, made, _ = cli("remember", context, "I moved to Montana.", "--speaker", "Hannah")
    assert code == 0 and made["id"] > 0
    name = unique("trip")
    for i in range(3):
        code, turn, _ = cli("sessions", "add", name, f"t{i}", "--speaker", "Ravi")
        assert code == 0 and turn["seq"] == i + 1
    code, shown, _ = cli("sessions", "show", name, "--last", "2")
    assert [t["text"] for t in shown["turns"]] == ["t1", "t2"]
    code, shown, _ = cli("sessions", "show", name, TABANE_SESSION_TURNS="1")
    assert [t["text"] for t in shown["turns"]] == ["t2"]  # the configured window
    code, listed, _ = cli("sessions", "list")
    assert name in [s["name"] for s in listed["sessions"]]
    code, gone, _ = cli("sessions", "delete", name)
    assert gone == {"deleted": name, "turns": 3}
    code, _, err = cli("sessions", "show", name)
    assert code != 0 and "no_session" in err
    code, _, err = cli("remember", context, "  ")
    assert code != 0 and "invalid_input" in err
